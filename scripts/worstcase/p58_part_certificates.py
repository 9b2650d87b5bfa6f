"""Part certificates of the p(5,8) campaign's refuted parts: for each part named, the
certificate that its secrets cannot all be found within 5 more guesses
(:func:`mastermind.worstcase.certify.write_part_certificate`), written to
results/p58/certificates/<opening>-<blacks><whites>.cert.gz, then checked by the
independent checker (``mastermind verify``); the claims, bytes and seconds of each go
to results/p58/certificates/index.json (the table of docs/bounds.md is read from it).

    PYTHONPATH=src python scripts/worstcase/p58_part_certificates.py 11111:00 11122:00
    PYTHONPATH=src python scripts/worstcase/p58_part_certificates.py --table

A part whose certificate would not be made within ``--time-limit`` seconds is reported
and skipped (nothing is written for it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "results", "p58", "certificates")
INDEX = os.path.join(OUT, "index.json")


def load() -> dict:
    if os.path.exists(INDEX):
        with open(INDEX) as f:
            return json.load(f)
    return {}


def certify(opening: str, score: str, limit: float) -> dict | None:
    """Write and check one part's certificate; its row, or None when it took too long."""
    from mastermind import Game
    from mastermind.verify import verify_file
    from mastermind.worstcase.certify import write_part_certificate
    from mastermind.worstcase.search import SearchUnfinished

    path = os.path.join(OUT, f"{opening}-{score}.cert.gz")
    try:
        stats = write_part_certificate(
            path, Game(5, 8), [(opening, f"{score[0]} {score[1]}")], 5, time_limit=limit
        )
    except SearchUnfinished:
        print(f"{opening} = ({score[0]} {score[1]}): not made within {limit:.0f} s", flush=True)
        return None
    start = time.monotonic()
    verdict = verify_file(path)
    checked = time.monotonic() - start
    print(
        f"{verdict.summary} ({stats.size:,} bytes, made in {stats.seconds:.0f} s, "
        f"checked in {checked:.0f} s)",
        flush=True,
    )
    return {
        "file": os.path.basename(path),
        "summary": verdict.summary,
        "claims": stats.claims,
        "bytes": stats.size,
        "made_seconds": round(stats.seconds, 1),
        "checked_seconds": round(checked, 1),
    }


def table(index: dict) -> str:
    rows = [
        "| part | claims | size | made in | checked in |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for key, row in sorted(index.items()):
        rows.append(
            f"| {key} | {row['claims']:,} | {row['bytes']:,} bytes | {row['made_seconds']:.0f} s "
            f"| {row['checked_seconds']:.0f} s |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", help="OPENING:BW, e.g. 11111:00")
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds per part")
    parser.add_argument("--table", action="store_true", help="print the Markdown table")
    args = parser.parse_args()
    index = load()
    if args.table:
        print(table(index))
        return 0
    os.makedirs(OUT, exist_ok=True)
    for spec in args.parts:
        opening, _, score = spec.partition(":")
        if len(score) != 2 or not score.isdigit():
            sys.exit(f"{spec!r}: a part is OPENING:BW, such as 11111:00")
        row = certify(opening, score, args.time_limit)
        if row is not None:
            index[f"{opening} = ({score[0]} {score[1]})"] = row
            with open(INDEX, "w") as f:
                json.dump(index, f, indent=1, sort_keys=True)
                f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
