"""The worst-case search's refutations in two builds, by interleaved processes: the
guesses that the p(5,8) campaign works through, each refuted part by part.

    python bench/refute_ab.py OTHER_CHECKOUT [--start 243] [--guesses 20] [--rounds 1]

The question: after the opening 11234 scores (1 2), 3,510 secrets are left and the
campaign asks, of each second guess, whether every part it leaves can be solved within
4 more guesses.  The second guesses are taken in the search's own order (one per
symmetry class of the opening, the order in which the campaign hands them out), from
``--start`` on.  A guess is refuted as the campaign refutes it: its parts of three codes
or more, the largest first, each asked ``solution_exists(game, 4, part)`` until one is
not solvable (every part is asked when none fails).

OTHER_CHECKOUT is another clone or worktree of the project with its extension built in
place (``python setup.py build_ext --inplace``).  Each guess runs in a fresh process per
build (``PYTHONPATH`` set to that checkout's ``src``), the two builds alternating, the one
that goes first alternating too.  Printed per guess: each build's CPU seconds and the
ratio new / base; the answers (each part's verdict) and the nodes must agree or the
script stops.  Then the median ratio over the guesses: the figure to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # (a checkout built in place; PYTHONPATH picks another)
    sys.path.insert(0, str(HERE / "src"))

# What each process runs: the parts in order until one is refuted, with its CPU time and
# nodes (SearchStats lived in mastermind.bounds before the package's families).
WORKER = """
import json, sys, time
import numpy as np
from mastermind import Game, solution_exists
try:
    from mastermind.worstcase.search import SearchStats
except ImportError:
    from mastermind.bounds import SearchStats
game = Game(5, 8)
answers, nodes, start = [], 0, time.process_time()
for part in json.load(sys.stdin):
    stats = SearchStats()
    ok = solution_exists(game, 4, np.array(part, dtype=np.int32), stats=stats)
    answers.append(bool(ok))
    nodes += stats.nodes
    if not ok:
        break
print(json.dumps({"seconds": time.process_time() - start, "answers": answers, "nodes": nodes}))
"""


def second_guesses(game, cands: np.ndarray) -> list[int]:
    """The second guesses the search tries on ``cands`` after 11234, in its order."""
    from mastermind.analysis.strategies import symmetry_classes  # noqa: F401 (the loader)
    from mastermind.kernel import _symmetry
    from mastermind.worstcase.search import Search
    from mastermind.worstcase.units import root_openings

    history = np.array([game.code("11234")], dtype=np.int32)
    pool = _symmetry.canonical_guesses(game.kernel, game.guesses, history)
    order = Search(
        game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26
    ).core.order
    return root_openings(game, cands, pool, 5, order, game.kernel.nslots - 1) or []


def parts_of(game, guess: int, cands: np.ndarray) -> list[list[int]]:
    """The guess's parts of three codes or more on ``cands``, the largest first."""
    from mastermind.strategy_tree import split_by_score

    parts = [p for s, p in split_by_score(game, guess, cands) if s != game.win_slot]
    return [p.tolist() for p in sorted(parts, key=lambda p: -p.size) if p.size >= 3]


def run_side(tree: Path, parts: list[list[int]]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    done = subprocess.run(
        [sys.executable, "-c", WORKER],
        input=json.dumps(parts),
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"the search failed in {tree}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the other checkout (built in place)")
    parser.add_argument("--start", type=int, default=243, help="the first guess's rank")
    parser.add_argument("--guesses", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    from mastermind import Game

    game = Game(5, 8)
    cands = np.asarray(game.filter(game.secrets, "11234", "1 2"), dtype=np.int32)
    order = second_guesses(game, cands)
    chosen = order[args.start : args.start + args.guesses]
    print(f"{cands.size} codes, {len(order)} second guesses; ranks {args.start}..", flush=True)
    sides = {"base": args.base.resolve(), "new": HERE}
    ratios = []
    for i, guess in enumerate(chosen):
        parts = parts_of(game, guess, cands)
        seconds: dict[str, list[float]] = {"base": [], "new": []}
        seen = {}
        for r in range(args.rounds):
            names = ["base", "new"] if (i + r) % 2 == 0 else ["new", "base"]
            for side in names:
                got = run_side(sides[side], parts)
                seconds[side].append(got["seconds"])
                seen.setdefault(side, (got["answers"], got["nodes"]))
        if seen["base"] != seen["new"]:
            sys.exit(f"guess {game.format_code(guess)}: the builds disagree: {seen}")
        ratio = statistics.median(n / b for b, n in zip(seconds["base"], seconds["new"]))
        ratios.append(ratio)
        answers, nodes = seen["new"]
        print(
            f"{args.start + i:4d} {game.format_code(guess)}  parts asked {len(answers):2d}"
            f" ({'refuted' if not answers[-1] else 'all solvable'}), {nodes:,} nodes"
            f"  base {statistics.median(seconds['base']):8.2f} s"
            f"  new {statistics.median(seconds['new']):7.2f} s  new/base {ratio:.3f}",
            flush=True,
        )
    print(f"median of the ratios over {len(ratios)} guesses: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
