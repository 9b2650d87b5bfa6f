"""The bound tree's lower bound with and without exact leaves, against the optimum.

    python bench/bracket_leaves.py [GAME:DEPTH:LEAVES ...]

Each argument is a game (pegs,colours), the tree's depth and its exact leaves (0: the
last level estimated; N: its parts of at most N codes solved exactly), e.g. ``4,7:3:40``.
For each it prints the bound, how it was reached, the CPU seconds of the computation
(``time.process_time``), the exact searches it ran and the bound's distance below the
optimum recorded in results/optimal/table.json.  Without arguments: [4,7] and [5,5] at
depths 2 and 3, plain and with leaves of 40 codes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # (a checkout built in place; PYTHONPATH picks another)
    sys.path.insert(0, str(HERE / "src"))

from mastermind import Game  # noqa: E402
from mastermind.optimum.bracket import lower_bound  # noqa: E402

DEFAULT = ["4,7:2:0", "4,7:2:40", "4,7:3:0", "4,7:3:40", "5,5:2:0", "5,5:2:40", "5,5:3:0"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", default=DEFAULT, help="GAME:DEPTH:LEAVES, e.g. 4,7:3:40")
    args = ap.parse_args(argv)
    table = json.loads((HERE / "results" / "optimal" / "table.json").read_text())
    print(
        f"{'game':8} {'depth':>5} {'leaves':>6} {'bound':>9} {'how':>8} {'CPU s':>8} "
        f"{'solves':>8} {'optimum':>9} {'below':>7}"
    )
    for run in args.runs:
        game_text, depth, leaves = run.split(":")
        n, k = (int(x) for x in game_text.split(","))
        start = time.process_time()
        r = lower_bound(Game(n, k), depth=int(depth), exact_leaves=int(leaves))
        cpu = time.process_time() - start
        row = table.get(f"{n}x{k}", {})
        best = row.get("total") if row.get("exact") else None
        below = "" if best is None else f"{(best - r.bound) / best:.2%}"
        best_text = "" if best is None else f"{best:,}"
        print(
            f"[{n},{k}]    {depth:>5} {leaves:>6} {r.bound:>9,} {r.how:>8} {cpu:>8.2f} "
            f"{r.solves:>8,} {best_text:>9} {below:>7}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
