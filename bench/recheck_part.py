"""Re-decide parts of the p(5,8) campaign in a single search call each, without the engine.

    python bench/recheck_part.py OPENING SCORE [--guesses 5] [--memory MB] [--json]
    python bench/recheck_part.py --all [--memory MB] [--time-limit S]

The campaign decides a part (the secrets left after OPENING scores SCORE) through the
engine: units, splits into the guesses' parts, a checkpoint, runs resumed over days.
This asks the same question of the search in one call (`Search.run(part, GUESSES,
pool=...)`, as `solution_exists(Game(5, 8), GUESSES, part)` does, its root trying one
guess per symmetry class of the opening, as the campaign's units do: more symmetry than
the part's own), the search's own recursion and memo from the root of the part down:
none of the engine's bookkeeping (plans, splits, cancelled units, rows dropped once
decided) is in the path.  It prints the answer, the nodes, the CPU seconds, the wall seconds and the
peak resident memory, and exits 0 when the answer is what results/p58/state.json records
for the part (1 if not, 2 if the state does not record the part as decided).

The memo holds at most ``--memory`` MB (default 3,072) and lets its shallowest entries
go when full, so a part's search stays within it (the label rows add 256 MB at most).

``--all`` re-decides, one process each (so that each peak is its own), every part the
state records as refuted or proved at the root (for p(5,8): the 7 refuted parts, one per
opening), and prints a table; it exits 0 when every answer agrees.

    python bench/recheck_part.py 12345 "0 2"          # refuted within 5 more?
    python bench/recheck_part.py --all                # the 7 parts, one after the other
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

HERE = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # (a checkout built in place; PYTHONPATH picks another)
    sys.path.insert(0, str(HERE / "src"))

STATE = HERE / "results" / "p58" / "state.json"


def recorded(opening: str, score: str) -> Optional[str]:
    """The state results/p58 records for the part ('refuted', 'solvable', 'open'...)."""
    want = score.split()
    for op in json.loads(STATE.read_text()).get("openings", []):
        if op.get("opening") != opening:
            continue
        for part in op.get("parts", []):
            if str(part.get("score", "")).split() == want:
                return part.get("state")
    return None


def decided_parts() -> list[tuple[str, str, int]]:
    """(opening, score, codes) of each part the state records as the one that decided
    its opening (refuted, or proved with no note), the openings in the state's order."""
    out = []
    for op in json.loads(STATE.read_text()).get("openings", []):
        for part in op.get("parts", []):
            if part.get("state") == op.get("state") == "refuted" and not part.get("note"):
                out.append((op["opening"], part["score"], int(part["size"])))
    return out


def decide(opening: str, score: str, guesses: int, memory: int, limit: Optional[float]) -> dict:
    """The part's question asked in one call: its answer and what it cost."""
    from mastermind import Game
    from mastermind.worstcase.search import Search, SearchUnfinished, deadline

    game = Game(5, 8)
    part = np.asarray(game.filter(game.secrets, opening, score), dtype=np.int32)
    search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory << 20)
    pool = search.root_pool(np.array([game.code(opening)], dtype=np.int32))
    cpu, wall = time.process_time(), time.monotonic()
    try:
        ok, _ = search.run(part, guesses, deadline(limit), pool=pool)
        answer = "solvable" if ok else "refuted"
    except SearchUnfinished as e:
        answer = f"unfinished ({e.reason})"
    stats = search.core.stats
    return {
        "opening": opening,
        "score": score,
        "codes": int(part.size),
        "guesses": guesses,
        "answer": answer,
        "nodes": int(stats["nodes"]),
        "cpu_s": round(time.process_time() - cpu, 1),
        "wall_s": round(time.monotonic() - wall, 1),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10,
        "memory_mb": memory,
        "memo_evictions": int(stats["memo_evictions"]),
    }


def one(args: argparse.Namespace) -> int:
    print(f"{args.opening} = ({args.score}): within {args.guesses}?", file=sys.stderr, flush=True)
    got = decide(args.opening, args.score, args.guesses, args.memory, args.time_limit)
    state = recorded(args.opening, args.score)
    got["recorded"] = state
    if args.json:
        print(json.dumps(got), flush=True)
    else:
        print(
            f"{got['answer']}: {got['nodes']:,} nodes, {got['cpu_s']:,.1f} CPU-s, "
            f"{got['wall_s']:,.1f} s, peak {got['peak_mb']:,} MB; results/p58/state.json "
            f"records it {state}",
            flush=True,
        )
    if state not in ("solvable", "refuted"):
        return 2
    return 0 if state == got["answer"] else 1


def every(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = []
    for opening, score, _ in decided_parts():
        cmd = [sys.executable, __file__, opening, score, "--json", "--memory", str(args.memory)]
        if args.time_limit is not None:
            cmd += ["--time-limit", str(args.time_limit)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if not done.stdout.strip():
            sys.exit(f"{opening} ({score}): the search failed:\n{done.stderr[-2000:]}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(
            f"{opening} ({score}) {row['codes']:>6,}: {row['answer']}, {row['nodes']:>11,} "
            f"nodes, {row['cpu_s']:>8,.1f} CPU-s, {row['wall_s']:>8,.1f} s, peak "
            f"{row['peak_mb']:,} MB; recorded {row['recorded']}",
            flush=True,
        )
    agree = all(r["answer"] == r["recorded"] for r in rows)
    print(
        f"{len(rows)} parts, {sum(r['cpu_s'] for r in rows):,.1f} CPU-s, "
        f"peak {max((r['peak_mb'] for r in rows), default=0):,} MB: "
        f"{'every answer agrees' if agree else 'an answer DIFFERS or is unfinished'}"
    )
    return 0 if agree else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("opening", nargs="?", help="the first guess, as the campaign names it")
    parser.add_argument("score", nargs="?", help='its score, blacks and whites ("0 2")')
    parser.add_argument("--all", action="store_true", help="every part that decided an opening")
    parser.add_argument("--guesses", type=int, default=5, help="guesses left (default 5)")
    parser.add_argument("--memory", type=int, default=3072, help="the memo's MB (3,072)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per part")
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    args = parser.parse_args()
    if args.all:
        return every(args)
    if args.opening is None or args.score is None:
        parser.error("give OPENING SCORE, or --all")
    return one(args)


if __name__ == "__main__":
    sys.exit(main())
