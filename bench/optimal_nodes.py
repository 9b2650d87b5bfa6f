"""The exact expected-case search's work per game, and the tree it finds: its nodes,
guesses scanned, CPU seconds (all threads) and wall seconds, and the sha256 of its tree's
records, each run in a fresh process.

    python bench/optimal_nodes.py [--base OTHER_CHECKOUT] [--rounds R] [--threads T] GAME...

GAME is N,K or N,K,VARIANT (``4,7``, ``4,10,bulls-and-cows``).  With ``--base`` (another
clone or worktree with its extension built in place), the runs alternate game by game
(base, this, base, this, ...) so that both see the same phases of a loaded machine, and
each game's line gives both sides' nodes and median CPU seconds, and the median over
rounds of the ratio this / base (below 1: this checkout is faster).  Node counts do not
depend on the load; the trees' hashes must be the same on both sides.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def measure(spec: str, threads: int) -> dict:
    """One search of the game ``spec`` in this process."""
    import numpy as np

    from mastermind import Game
    from mastermind.optimum.search import new_optimizer

    n, k, *variant = spec.split(",")
    game = Game(int(n), int(k), *variant)
    search = new_optimizer(game, candidates_only=False, memory=1 << 31, threads=threads)
    cands = np.asarray(game.secrets, dtype=np.int32)
    cpu, wall = time.process_time(), time.perf_counter()
    status, total, _, recs = search.run(cands, np.zeros(0, np.int32), 0, 0)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sha = hashlib.sha256(np.ascontiguousarray(recs, dtype="<i4").tobytes()).hexdigest()
    stats = search.stats
    return {
        "game": spec,
        "status": status,
        "total": total,
        "nodes": stats["nodes"],
        "scanned": stats["scanned"],
        "cpu": cpu,
        "wall": wall,
        "tree": sha[:16],
    }


def run(checkout: Path, spec: str, threads: int) -> dict:
    """One search in a fresh process on ``checkout``'s build."""
    env = dict(os.environ, PYTHONPATH=str(checkout / "src"))
    out = subprocess.run(
        [sys.executable, __file__, "--one", spec, "--threads", str(threads)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def report(spec: str, runs: dict[str, list[dict]]) -> str:
    """One line per game: each side's nodes, median CPU seconds and tree, the ratio."""
    parts = [spec]
    for side, rs in runs.items():
        cpu = statistics.median(r["cpu"] for r in rs)
        wall = statistics.median(r["wall"] for r in rs)
        parts.append(
            f"{side}: total {rs[0]['total']} nodes {rs[0]['nodes']:,} scanned "
            f"{rs[0]['scanned']:,} cpu {cpu:.3f} s wall {wall:.3f} s tree {rs[0]['tree']}"
        )
    if len(runs) == 2:
        base, new = runs.values()
        ratio = statistics.median(b["cpu"] / a["cpu"] for a, b in zip(base, new))
        parts.append(f"ratio {ratio:.3f}")
    return " | ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*")
    parser.add_argument("--base", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--one")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.threads)))
        return
    sides = {"base": args.base, "this": HERE} if args.base else {"this": HERE}
    for spec in args.games:
        runs: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(args.rounds):
            for side, checkout in sides.items():
                runs[side].append(run(checkout, spec, args.threads))
        print(report(spec, runs), flush=True)


if __name__ == "__main__":
    main()
