"""Compare the [5,8] analyses of this checkout with another build's, by interleaved runs.

    python bench/analyze_ab.py OTHER_CHECKOUT [--rounds 5] [--reps 3] [--jobs N]
                               [--strategies minmax,entropy,parts,expected-size]
                               [--base-env NAME=VALUE ...] [--new-env NAME=VALUE ...]

OTHER_CHECKOUT is another clone or worktree with its extension built in place, as for
bench/ab.py; it only needs ``mastermind.game.Game`` and ``mastermind.analysis.exhaustive.analyze``,
so it also compares against builds older than the benchmark suite's names.  Each round
starts one fresh process per build (which build goes first alternates from round to
round), with ``PYTHONPATH`` set to that checkout's ``src``; the process runs, for every
strategy, one warm-up analysis of ``Game(5, 8)`` and then ``--reps`` timed ones, keeping
the least wall time (the result's ``seconds``) and the least CPU time of the process
(``time.process_time``: every thread; with ``--jobs 1`` the figure other load on the
machine disturbs least).

Printed per strategy: each side's least times over all rounds, and the median over rounds
of the ratio new / base of the same round, for wall and for CPU time (below 1: this
checkout is faster).  ``--base-env`` and ``--new-env`` set environment variables for one
side's processes, as in bench/ab.py (e.g. ``--base-env MASTERMIND_SIMD=avx2``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
from mastermind.analysis.exhaustive import analyze
from mastermind.game import Game
strategies, reps, jobs = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]) or None
game = Game(5, 8)
out = {}
for s in strategies:
    analyze(game, s, jobs=jobs)
    wall, cpu = [], []
    for _ in range(reps):
        c = time.process_time()
        a = analyze(game, s, jobs=jobs)
        cpu.append(time.process_time() - c)
        wall.append(a.seconds)
    out[s] = [min(wall), min(cpu)]
print(json.dumps(out))
"""


def run(
    tree: Path, strategies: str, reps: int, jobs: int, extra: dict[str, str]
) -> dict[str, list[float]]:
    """One process of the tree: {strategy: [least wall seconds, least CPU seconds]}."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), **extra)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, strategies, str(reps), str(jobs)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"analyses failed in {tree}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the other checkout (built in place)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=3, help="timed analyses per process")
    parser.add_argument("--jobs", type=int, default=0, help="threads (0: the default)")
    parser.add_argument("--strategies", default="minmax,entropy,parts,expected-size")
    parser.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    envs = {
        side: dict(p.split("=", 1) for p in pairs)
        for side, pairs in (("base", args.base_env), ("new", args.new_env))
    }
    trees = {"base": args.base.resolve(), "new": HERE}
    runs: dict[str, list[dict[str, list[float]]]] = {"base": [], "new": []}
    for r in range(args.rounds):
        for side in ("base", "new") if r % 2 == 0 else ("new", "base"):
            print(f"round {r + 1}/{args.rounds}: {side} ({trees[side]})", file=sys.stderr)
            runs[side].append(run(trees[side], args.strategies, args.reps, args.jobs, envs[side]))
    print(
        f"{'strategy':<14}  {'base wall':>9}  {'new wall':>9}  {'new/base':>8}  "
        f"{'base CPU':>9}  {'new CPU':>9}  {'new/base':>8}"
    )
    for s in args.strategies.split(","):
        cells = []
        for i in (0, 1):
            b = min(run[s][i] for run in runs["base"])
            n = min(run[s][i] for run in runs["new"])
            ratio = statistics.median(
                nr[s][i] / br[s][i] for br, nr in zip(runs["base"], runs["new"])
            )
            cells.append(f"{b:9.4f}  {n:9.4f}  {ratio:8.3f}")
        print(f"{s:<14}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
