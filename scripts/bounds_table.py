"""The table of exact worst cases p(n,k) for every [n,k] with 2 <= n, 2 <= k and
k^n <= 7^4 = 2401, as Markdown: each entry proved by mastermind.bounds.worst_case (a
search False for p-1, or counting, and a witness for p checked by check_strategy).

Usage: PYTHONPATH=src python scripts/bounds_table.py > table.md
"""

from __future__ import annotations

import sys
import time

from mastermind.analysis import analyze
from mastermind.bounds import check_strategy, worst_case
from mastermind.game import Game


def row(n: int, k: int, cands_only: bool) -> tuple[int, int, int, float, str]:
    w = worst_case(Game(n, k), candidates_only=cands_only)
    assert w.exact, (n, k, cands_only)
    assert check_strategy(w.game, w.witness, candidates_only=cands_only) == w.upper
    minmax = analyze(w.game, "minmax", candidates_only=cands_only).max
    return w.upper, minmax, w.nodes, w.seconds, w.lower_proof


def main() -> None:
    games = [(n, k) for n in range(2, 9) for k in range(2, 17) if k ** n <= 2401]
    print("| [n,k] | codes | p(n,k) | minmax | nodes | seconds | p, candidates only "
          "| nodes | seconds |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = time.perf_counter()
    for n, k in games:
        p, heur, nodes, secs, _ = row(n, k, False)
        q, _, qnodes, qsecs, _ = row(n, k, True)
        print(f"| [{n},{k}] | {k ** n} | {p} | {heur} | {nodes:,} | {secs:.2f} | {q} | "
              f"{qnodes:,} | {qsecs:.2f} |", flush=True)
    print(f"\n{len(games)} games, both columns, {time.perf_counter() - total:.1f} s "
          f"in all (including the minmax analyses).", file=sys.stderr)


if __name__ == "__main__":
    main()
