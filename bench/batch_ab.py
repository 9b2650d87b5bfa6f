"""A/B: an analysis's units walked whole (``unit_seconds=None``: one kernel call per
unit, as before units could split) against the default budget (walked in batches, able
to split), on threads here with a checkpoint; interleaved, medians of the worker-seconds
and of the wall times.

    python bench/batch_ab.py [N K] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from mastermind import Game, analyze
from mastermind.engine.checkpoint import read_units


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, nargs="?", default=5)
    ap.add_argument("k", type=int, nargs="?", default=8)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    game = Game(args.n, args.k)
    walls: dict[str, list[float]] = {"whole": [], "budget": []}
    work: dict[str, list[float]] = {"whole": [], "budget": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for name, budget in (("whole", {"unit_seconds": None}), ("budget", {})):
                path = os.path.join(tmp, f"{name}{r}.sqlite")
                t = time.perf_counter()
                a = analyze(game, "minmax", checkpoint=path, jobs=2, **budget)
                walls[name].append(time.perf_counter() - t)
                work[name].append(sum(s for _, _, _, s, _ in read_units(path)))
                assert a.units_split == 0 or name == "budget"
    for name in walls:
        print(
            f"[{args.n},{args.k}] {name:7s} wall {statistics.median(walls[name]):7.2f} s, "
            f"worker-seconds {statistics.median(work[name]):7.2f} (medians of "
            f"{args.repeat})"
        )
    print(
        f"ratio budget / whole: wall {statistics.median(walls['budget']) / statistics.median(walls['whole']):.3f}, "
        f"worker-seconds {statistics.median(work['budget']) / statistics.median(work['whole']):.3f}"
    )


if __name__ == "__main__":
    main()
