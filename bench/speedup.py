"""Print, measured in one run, how much faster the fast path is than the plain scan.

    python bench/speedup.py [N K]     (default: 4 6)

The plain scan scores every allowed guess in full at every node (``plain=True``); the fast
path reduces the scans by symmetry, merges absent colours, bounds partial tables and
shortcuts small nodes.  Both give the same strategy tree (tests/test_analysis.py).
"""

import sys
import time

from mastermind import Game, analyze


def best_of(fn, rounds=3):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    n, k = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (4, 6)
    game = Game(n, k)
    print(f"[{n},{k}]  strategy        plain (s)  fast (s)  speed-up  (one thread)")
    for strategy in ("minmax", "entropy", "parts", "expected-size"):
        plain = best_of(lambda: analyze(game, strategy, plain=True, jobs=1))  # noqa: B023
        fast = best_of(lambda: analyze(game, strategy, jobs=1))  # noqa: B023
        print(f"       {strategy:14s} {plain:9.4f}  {fast:8.4f}  {plain / fast:7.1f}x")


if __name__ == "__main__":
    main()
