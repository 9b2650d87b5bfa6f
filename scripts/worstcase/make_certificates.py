"""Make (or remake) the worst-case certificates of results/certificates/ and check each
with the independent checker, recording the commands and their seconds in
results/certificates/index.json (the table of docs/certificates.md is made from it).

    PYTHONPATH=src python scripts/worstcase/make_certificates.py            # every value
    PYTHONPATH=src python scripts/worstcase/make_certificates.py --only 4,7  # one of them
    PYTHONPATH=src python scripts/worstcase/make_certificates.py --table     # the Markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "results", "certificates")

# (pegs, colours, variant): the published or new exact worst cases of this package
GAMES = [
    (4, 6, "classic"),
    (4, 7, "classic"),
    (4, 8, "classic"),
    (5, 5, "classic"),
    (6, 4, "classic"),
    (5, 6, "classic"),
    (4, 10, "classic"),
    (5, 7, "classic"),
    (4, 10, "bulls-and-cows"),
    (6, 5, "classic"),
    (4, 9, "classic"),
]


def name(n: int, k: int, variant: str) -> str:
    return f"p{n}-{k}" + ("" if variant == "classic" else f"-{variant}") + ".cert.gz"


def run(cmd: list[str]) -> tuple[dict, float]:
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stdout}{done.stderr}")
    return json.loads(done.stdout), seconds


def table(index: dict) -> str:
    rows = [
        "| value | file | claims | size | made in | verified in | made by |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for n, k, variant in GAMES:
        entry = index.get(name(n, k, variant))
        if entry is None:
            continue
        value = f"p({n},{k})" + ("" if variant == "classic" else f" {variant}")
        rows.append(
            f"| {value} = {entry['lower']} | `{name(n, k, variant)}` | "
            f"{entry['claims']:,} | {entry['bytes'] / 1e3:,.0f} kB | "
            f"{entry['seconds_to_make']:,.0f} s | {entry['seconds_to_verify']:,.0f} s | "
            f"`{entry['command']}` |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="one game, as n,k or n,k,variant")
    ap.add_argument(
        "--missing", action="store_true", help="only the certificates index.json does not list yet"
    )
    ap.add_argument(
        "--table",
        action="store_true",
        help="print the Markdown table of the certificates made so far",
    )
    args = ap.parse_args()
    index_path = os.path.join(OUT, "index.json")
    index = {}
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
    if args.table:
        print(table(index))
        return
    for n, k, variant in GAMES:
        if args.only and args.only not in (f"{n},{k}", f"{n},{k},{variant}"):
            continue
        if args.missing and name(n, k, variant) in index:
            continue
        path = os.path.join("results", "certificates", name(n, k, variant))
        make = [
            "mastermind",
            "bound",
            "-n",
            str(n),
            "-k",
            str(k),
            "--certificate",
            path,
            "--json",
        ] + ([] if variant == "classic" else ["--variant", variant])
        result, made = run([sys.executable, "-m", "mastermind"] + make[1:])
        check, checked = run([sys.executable, "-m", "mastermind", "verify", path, "--json"])
        entry = {
            "command": " ".join(make),
            "lower": result["lower"],
            "upper": result["upper"],
            "claims": result["certificate"]["claims"],
            "bytes": os.path.getsize(os.path.join(HERE, "..", path)),
            "seconds_to_make": round(made, 1),
            "seconds_to_verify": round(checked, 1),
            "verify": f"mastermind verify {path}",
            "verdict": check["summary"],
        }
        index[name(n, k, variant)] = entry
        print(json.dumps(entry), flush=True)
        with open(index_path, "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
