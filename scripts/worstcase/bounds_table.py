"""The table of exact worst cases p(n,k) for every [n,k] with 2 <= n, 2 <= k and
k^n <= 7^4 = 2401, as Markdown: each entry proved by mastermind.worstcase.bounds.worst_case (a
search False for p-1, or counting, and a witness for p checked by check_strategy).

With ``--frontier SECONDS``: the bigger games no one had published (p(4,8) ... p(7,4), and
the black-peg and Bulls and Cows games of the same sizes), each given ``SECONDS`` per
pool; a game not decided within it is printed with the bounds proved and the time spent.

Usage: PYTHONPATH=src python scripts/worstcase/bounds_table.py > table.md
       PYTHONPATH=src python scripts/worstcase/bounds_table.py --frontier 300 > frontier.md
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional

from mastermind.analysis.exhaustive import analyze
from mastermind.game import Game
from mastermind.worstcase.bounds import check_strategy, worst_case


def row(n: int, k: int, cands_only: bool) -> tuple[int, int, int, float, str]:
    w = worst_case(Game(n, k), candidates_only=cands_only)
    assert w.exact, (n, k, cands_only)
    assert check_strategy(w.game, w.witness, candidates_only=cands_only) == w.upper
    minmax = analyze(w.game, "minmax", candidates_only=cands_only).max
    return w.upper, minmax, w.nodes, w.seconds, w.lower_proof


FRONTIER = [(4, 8), (4, 9), (4, 10), (5, 5), (5, 6), (5, 7), (6, 4), (6, 5), (6, 6), (7, 4)]
FRONTIER_VARIANTS = [
    ("bulls-and-cows", 4, 8),
    ("bulls-and-cows", 4, 9),
    ("bulls-and-cows", 4, 10),
    ("bulls-and-cows", 5, 8),
    ("black-peg", 4, 6),
    ("black-peg", 4, 7),
    ("black-peg", 5, 5),
]


def frontier_cell(game: Game, cands_only: bool, limit: float) -> tuple[str, str]:
    """(value or bounds, how: nodes and seconds) of one pool of a frontier game."""
    w = worst_case(game, candidates_only=cands_only, time_limit=limit)
    if w.witness is not None:
        assert check_strategy(game, w.witness, candidates_only=cands_only) <= w.upper
    value = f"**{w.upper}**" if w.exact else f"{w.lower}..{w.upper}"
    return value, f"{w.nodes:,} nodes, {w.seconds:.1f} s" + ("" if w.exact else f" ({w.status})")


def frontier(limit: float, only: Optional[str]) -> None:
    print("| game | codes | p | search | p, candidates only | search |")
    print("| --- | ---: | ---: | --- | ---: | --- |")
    rows = [("classic", n, k) for n, k in FRONTIER] + FRONTIER_VARIANTS
    for variant, n, k in rows:
        name = f"[{n},{k}]" + ("" if variant == "classic" else f" {variant}")
        if only and only != name:
            continue
        game = Game(n, k, variant)
        a, b = frontier_cell(game, False, limit)
        c, d = frontier_cell(game, True, limit)
        print(f"| {name} | {len(game.secrets):,} | {a} | {b} | {c} | {d} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--frontier",
        type=float,
        metavar="SECONDS",
        help="the bigger games instead, SECONDS per game and pool",
    )
    ap.add_argument("--only", help="with --frontier: just this row, e.g. '[4,9]'")
    args = ap.parse_args()
    if args.frontier is not None:
        frontier(args.frontier, args.only)
        return
    games = [(n, k) for n in range(2, 9) for k in range(2, 17) if k**n <= 2401]
    print(
        "| [n,k] | codes | p(n,k) | minmax | nodes | seconds | p, candidates only "
        "| nodes | seconds |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = time.perf_counter()
    for n, k in games:
        p, heur, nodes, secs, _ = row(n, k, False)
        q, _, qnodes, qsecs, _ = row(n, k, True)
        print(
            f"| [{n},{k}] | {k**n} | {p} | {heur} | {nodes:,} | {secs:.2f} | {q} | "
            f"{qnodes:,} | {qsecs:.2f} |",
            flush=True,
        )
    print(
        f"\n{len(games)} games, both columns, {time.perf_counter() - total:.1f} s "
        f"in all (including the minmax analyses).",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
