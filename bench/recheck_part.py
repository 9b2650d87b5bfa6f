"""Re-decide one part of the p(5,8) campaign in a single search call, without the engine.

    python bench/recheck_part.py OPENING SCORE [--guesses 5] [--memory MB]

The campaign decides a part (the secrets left after OPENING scores SCORE) through the
engine: units, splits into the guesses' parts, a checkpoint, runs resumed over days.
This asks the same question of `solution_exists(Game(5, 8), GUESSES, part)` in one call,
the search's own recursion and memo from the root of the part down: none of the
engine's bookkeeping (plans, splits, cancelled units, rows dropped once decided) is in
the path.  It prints the answer, the nodes, the CPU seconds and the wall seconds, and
exits 0 when the answer is what results/p58/state.json records for the part (1 if not,
2 if the state does not record the part as decided).

    python bench/recheck_part.py 12345 "0 2"          # refuted within 5 more?
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "src"))


def recorded(opening: str, score: str) -> str | None:
    """The state results/p58 records for the part ('refuted', 'solvable', 'open'...)."""
    state = json.loads((HERE / "results" / "p58" / "state.json").read_text())
    want = score.split()
    for op in state.get("openings", []):
        if op.get("opening") != opening:
            continue
        for part in op.get("parts", []):
            if str(part.get("score", "")).split() == want:
                return part.get("state")
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("opening", help="the first guess, as the campaign names it (12345)")
    parser.add_argument("score", help='its score, blacks and whites ("0 2")')
    parser.add_argument("--guesses", type=int, default=5, help="guesses left (default 5)")
    parser.add_argument("--memory", type=int, default=4096, help="the memo's MB")
    args = parser.parse_args()
    from mastermind import Game
    from mastermind.worstcase.bounds import solution_exists
    from mastermind.worstcase.search import SearchStats

    game = Game(5, 8)
    part = np.asarray(game.filter(game.secrets, args.opening, args.score), dtype=np.int32)
    print(
        f"{args.opening} = ({args.score}): {part.size:,} codes, within {args.guesses}?", flush=True
    )
    stats = SearchStats()
    cpu, wall = time.process_time(), time.monotonic()
    ok = solution_exists(game, args.guesses, part, stats=stats, memory=args.memory << 20)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    answer = "solvable" if ok else "refuted"
    print(f"{answer}: {stats.nodes:,} nodes, {cpu:,.1f} CPU-s, {wall:,.1f} s", flush=True)
    state = recorded(args.opening, args.score)
    if state not in ("solvable", "refuted"):
        print(f"results/p58/state.json records the part as {state!r}")
        return 2
    print(
        f"results/p58/state.json records it {state}: {'agrees' if state == answer else 'DIFFERS'}"
    )
    return 0 if state == answer else 1


if __name__ == "__main__":
    sys.exit(main())
