"""The exact optimal solver against fancidev's mmstrat, on the same games, interleaved.

    python bench/vs_mmstrat.py MMSTRAT_BINARY [--threads 1] [--rounds 3] [--games 4x6 4x7 bc4x9]

MMSTRAT_BINARY is mmstrat built from https://github.com/fancidev/mastermind (its 2012 code:
``g++ -O3 -DNDEBUG -march=native -fopenmp -Ilib lib/*.cpp src/mmstrat.cpp``; see
docs/optimal.md for the two small fixes a current g++ needs).  It is not part of this
project and is never committed here.

Each round runs, for every game, mmstrat (``-s optimal -S -mt THREADS``, wall time of the
process) and then this package's :func:`mastermind.optimum.solver.optimal` (``jobs=THREADS``,
wall time of the call, the game built before), one after the other, so that both see
the same phases of a shared machine.  Both totals must agree (mmstrat's rules
``pNcKr`` are the classic game, ``pNcKn`` Bulls and Cows: no repeated colour in guesses or
secrets, every such code may be guessed).  Printed per game: the median seconds of each
and the median over rounds of ours / mmstrat's (below 1: ours is faster).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time

from mastermind import Game
from mastermind.optimum.solver import optimal

GAMES = {
    "4x6": (4, 6, "classic"),
    "4x7": (4, 7, "classic"),
    "4x8": (4, 8, "classic"),
    "bc4x8": (4, 8, "bulls-and-cows"),
    "bc4x9": (4, 9, "bulls-and-cows"),
    "bc4x10": (4, 10, "bulls-and-cows"),
}


def rules(n: int, k: int, variant: str) -> str:
    return f"p{n}c{k}" + ("r" if variant == "classic" else "n")


def run_mmstrat(binary: str, n: int, k: int, variant: str, threads: int) -> tuple[float, int]:
    """(seconds, total) of mmstrat's optimal strategy."""
    start = time.perf_counter()
    done = subprocess.run(
        [binary, "-s", "optimal", "-r", rules(n, k, variant), "-S", "-mt", str(threads)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - start
    found = re.search(r"optimal\s+(\d+)", done.stdout)
    if found is None:
        sys.exit(f"no total in mmstrat's output:\n{done.stdout}{done.stderr}")
    return seconds, int(found.group(1))


def run_ours(n: int, k: int, variant: str, threads: int) -> tuple[float, int, int]:
    """(seconds, total, nodes) of :func:`optimal`."""
    game = Game(n, k, variant)
    start = time.perf_counter()
    best = optimal(game, jobs=threads)
    seconds = time.perf_counter() - start
    assert best.exact and best.total is not None
    return seconds, best.total, best.nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mmstrat", help="path of the mmstrat binary")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", nargs="+", default=["4x6", "4x7", "bc4x9"], choices=sorted(GAMES))
    args = ap.parse_args()
    times: dict[str, dict[str, list[float]]] = {
        g: {"mm": [], "ours": [], "ratio": []} for g in args.games
    }
    nodes: dict[str, int] = {}
    totals: dict[str, int] = {}
    for r in range(args.rounds):
        for name in args.games:
            n, k, variant = GAMES[name]
            mm, mm_total = run_mmstrat(args.mmstrat, n, k, variant, args.threads)
            ours, total, nodes[name] = run_ours(n, k, variant, args.threads)
            if mm_total != total:
                sys.exit(f"{name}: mmstrat's total {mm_total} != ours {total}")
            totals[name] = total
            t = times[name]
            t["mm"].append(mm)
            t["ours"].append(ours)
            t["ratio"].append(ours / mm)
            print(
                f"round {r + 1}/{args.rounds} {name}: total {total}, mmstrat {mm:.3f} s, "
                f"ours {ours:.3f} s",
                file=sys.stderr,
                flush=True,
            )
    print(f"threads {args.threads}, rounds {args.rounds}")
    print(
        f"{'game':<8} {'total':>6} {'mmstrat (s)':>12} {'ours (s)':>10} {'nodes':>10} "
        f"{'ours/mmstrat':>12}"
    )
    for name in args.games:
        t = times[name]
        print(
            f"{name:<8} {totals[name]:>6} {statistics.median(t['mm']):>12.3f} "
            f"{statistics.median(t['ours']):>10.3f} {nodes[name]:>10,} "
            f"{statistics.median(t['ratio']):>12.3f}"
        )


if __name__ == "__main__":
    main()
