"""Part certificates of a worst-case campaign's refuted parts (``mastermind campaign``,
whose folder's campaign.json names the game and the guesses d): for each part named, the
certificate that its secrets cannot all be found within d - 1 more guesses
(:func:`mastermind.worstcase.certify.write_part_certificate`), written to
DIR/certificates/<opening>-<blacks><whites>.cert.xz (``--gzip``: .cert.gz, twice the
size and faster to write), then checked by the independent
checker (``mastermind verify``); the claims, bytes and seconds of each go to
DIR/certificates/index.json (the tables of docs/bounds.md are read from it).

    PYTHONPATH=src python scripts/worstcase/part_certificates.py results/p58 11111:00 11122:00
    PYTHONPATH=src python scripts/worstcase/part_certificates.py results/p58 --check-only 11111:00
    PYTHONPATH=src python scripts/worstcase/part_certificates.py results/p74 --refuted
    PYTHONPATH=src python scripts/worstcase/part_certificates.py results/p58 --table

``--refuted`` names every part the campaign's state.json says is refuted;
``--check-only`` checks again the files the index names.  Each file checked is entered
in state.json's ``certificates`` (its SHA-256), as the campaign enters a file it has
checked, so that ``mastermind campaign export DIR`` (run it after this script, with no
campaign running on DIR) counts the part as certified without a check of hours again;
``mastermind campaign recheck DIR`` checks every file again.

Each check runs ``mastermind verify FILE --json --jobs N`` under ``/usr/bin/time -v``:
its wall seconds and the peak resident memory of its largest process go to the index.

A part whose certificate would not be made within ``--time-limit`` seconds is reported
and skipped (nothing is written for it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Folder:
    """A campaign's folder: its game and d (campaign.json), its certificates and index."""

    def __init__(self, path: str):
        with open(os.path.join(path, "campaign.json")) as f:
            spec = json.load(f)
        self.path, self.out = path, os.path.join(path, "certificates")
        self.n, self.k, self.guesses = spec["pegs"], spec["colours"], spec["guesses"]
        self.variant = spec.get("variant", "classic")
        self.index = os.path.join(self.out, "index.json")

    def load(self) -> dict:
        if os.path.exists(self.index):
            with open(self.index) as f:
                return json.load(f)
        return {}

    def save(self, index: dict) -> None:
        with open(self.index, "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
            f.write("\n")

    def remember(self, name: str) -> None:
        """Enter the checked file ``name`` (its SHA-256) in state.json's certificates."""
        from mastermind.worstcase.campaign.state import write_state

        path = os.path.join(self.path, "state.json")
        with open(path) as f:
            state = json.load(f)
        with open(os.path.join(self.out, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        state.setdefault("certificates", {})[name] = digest
        write_state(state, path)

    def refuted(self) -> list[str]:
        """OPENING:BW of every part state.json says is refuted."""
        with open(os.path.join(self.path, "state.json")) as f:
            state = json.load(f)
        return [
            f"{o['opening']}:{p['score'].replace(' ', '')}"
            for o in state["openings"]
            for p in o["parts"]
            if p["state"] == "refuted"
        ]


def certify(folder: Folder, part: tuple[str, str], args: argparse.Namespace) -> dict | None:
    """Write one part's certificate (the OPENING and BW of ``part``); its row (claims,
    bytes, seconds to make), or None when it took too long."""
    from mastermind import Game
    from mastermind.worstcase.certify import write_part_certificate
    from mastermind.worstcase.search import SearchUnfinished

    (opening, score), limit = part, args.time_limit
    suffix = "gz" if args.gzip else "xz"
    path = os.path.join(folder.out, f"{opening}-{score}.cert.{suffix}")
    game = Game(folder.n, folder.k, variant=folder.variant)
    try:
        stats = write_part_certificate(
            path,
            game,
            [(opening, f"{score[0]} {score[1]}")],
            folder.guesses - 1,
            time_limit=limit,
            shrink=args.shrink,
        )
    except SearchUnfinished:
        print(f"{opening} = ({score[0]} {score[1]}): not made within {limit:.0f} s", flush=True)
        return None
    return {
        "file": os.path.basename(path),
        "claims": stats.claims,
        "bytes": stats.size,
        "made_seconds": round(stats.seconds, 1),
    }


def check(folder: Folder, name: str, jobs: int) -> dict:
    """Check one certificate with the independent checker under ``/usr/bin/time -v``:
    what it proves, the wall seconds and the peak resident memory of its largest
    process."""
    command = [sys.executable, "-m", "mastermind", "verify", os.path.join(folder.out, name)]
    command += ["--json", "--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "src"))
    done = subprocess.run(
        ["/usr/bin/time", "-v", *command], capture_output=True, text=True, env=env
    )
    verdict = json.loads(done.stdout)
    if not verdict.get("proved"):
        sys.exit(f"{name}: not proved: {verdict.get('reason')}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    cpu = sum(
        float(v) for v in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", done.stderr)
    )
    hours, minutes, seconds = (float(v or 0) for v in wall.groups())
    row = {
        "summary": verdict["summary"],
        "checked_seconds": round(3600 * hours + 60 * minutes + seconds, 1),
        "checked_peak_mb": round(int(peak.group(1)) / 1024),
        "checked_cpu_seconds": round(cpu, 1),
        "checked_jobs": jobs,
        "checked_command": f"mastermind verify {name} --jobs {jobs}",
    }
    print(
        f"{verdict['summary']} (checked in {row['checked_seconds']:.0f} s, jobs {jobs}, "
        f"peak {row['checked_peak_mb']} MB)",
        flush=True,
    )
    return row


def table(index: dict) -> str:
    rows = [
        "| part | claims | size | made in | checked in | peak memory |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, row in sorted(index.items()):
        jobs = row.get("checked_jobs", 1)
        rows.append(
            f"| {key} | {row['claims']:,} | {row['bytes']:,} bytes | {row['made_seconds']:.0f} s "
            f"| {row['checked_seconds']:.0f} s ({jobs} process{'es' * (jobs > 1)}) "
            f"| {row.get('checked_peak_mb', '?')} MB |"
        )
    return "\n".join(rows)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", metavar="DIR", help="the campaign's folder, e.g. results/p58")
    parser.add_argument("parts", nargs="*", help="OPENING:BW, e.g. 11111:00")
    parser.add_argument("--refuted", action="store_true", help="every part refuted")
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds per part")
    parser.add_argument("--shrink", action="store_true", help="grow small killer sets")
    parser.add_argument("--gzip", action="store_true", help="write .cert.gz, not .cert.xz")
    parser.add_argument("--jobs", type=int, default=2, help="processes of each check")
    parser.add_argument(
        "--check-only", action="store_true", help="check the files there, make none"
    )
    parser.add_argument("--table", action="store_true", help="print the Markdown table")
    return parser.parse_intermixed_args()


def main() -> int:
    args = _arguments()
    folder = Folder(args.folder)
    index = folder.load()
    if args.table:
        print(table(index))
        return 0
    os.makedirs(folder.out, exist_ok=True)
    for spec in args.parts + (folder.refuted() if args.refuted else []):
        opening, _, score = spec.partition(":")
        if len(score) != 2 or not score.isdigit():
            sys.exit(f"{spec!r}: a part is OPENING:BW, such as 11111:00")
        key = f"{opening} = ({score[0]} {score[1]})"
        row = index.get(key) if args.check_only else certify(folder, (opening, score), args)
        if row is None:
            continue
        row.update(check(folder, row["file"], args.jobs))
        index = folder.load()  # (another run may have added its parts meanwhile)
        index[key] = row
        folder.save(index)
        folder.remember(row["file"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
