"""How many finished units a checkpoint records a second: one synchronous commit per unit
against the rows of each second committed together (the checkpoint's default), measured
in one run, interleaved, on files in a temporary folder beside each other.

    python bench/checkpoint_rate.py [--units N] [--repeat R] [--size CANDIDATES]

Each unit's answer is what a small analysis unit hands back (a distribution row and tree
records for SIZE candidates); the medians of R rounds are printed, and their ratio.
The rate a client sustains bounds the workers it can keep busy: at 60 units a second and
units of 30 s, about 1,800 workers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from mastermind.engine.checkpoint import open_checkpoint

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}


def answer(size: int, rng: np.random.Generator) -> dict:
    return {
        "dists": rng.integers(0, 50, size=(1, 8), dtype=np.int64),
        "recs": rng.integers(0, 1000, size=(size, 5), dtype=np.int32),
        "rec_counts": np.array([size], dtype=np.int64),
    }


def rate(folder: str, name: str, units: int, size: int, commit_seconds: float) -> float:
    """Units recorded a second, from opening the file to closing it."""
    path = os.path.join(folder, name)
    rng = np.random.default_rng(1)
    answers = [answer(size, rng) for _ in range(units)]
    t0 = time.perf_counter()
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}) as store:
        store.commit_seconds = commit_seconds
        for i, a in enumerate(answers):
            store.record(f"walk/{i}", "d", a, size=size, seconds=0.1)
            store.flush(due_only=True)  # as the engine asks between its waits
    seconds = time.perf_counter() - t0
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}) as store:
        assert len(store) == units  # every row is there after the close
    os.remove(path)
    return units / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", type=int, default=64)
    args = ap.parse_args()
    each, batched = [], []
    with tempfile.TemporaryDirectory(dir=".") as folder:
        for r in range(args.repeat):
            each.append(rate(folder, f"each{r}.sqlite", args.units, args.size, 0.0))
            batched.append(rate(folder, f"batch{r}.sqlite", args.units, args.size, 1.0))
            print(
                f"round {r + 1}: one commit a unit {each[-1]:,.0f}/s, "
                f"one a second {batched[-1]:,.0f}/s",
                flush=True,
            )
    a, b = statistics.median(each), statistics.median(batched)
    print(
        f"units recorded a second (median of {args.repeat}, {args.units} units of "
        f"{args.size} candidates): one commit a unit {a:,.0f}, one a second {b:,.0f}; "
        f"ratio {b / a:.1f}"
    )


if __name__ == "__main__":
    main()
