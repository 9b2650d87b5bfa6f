"""The open case: is there a strategy for [5,8] that always wins within 6 guesses?

5 guesses are not enough (``solution_exists(Game(5, 8), 5)`` is False, a fraction of a
second), and heuristic strategies need 7.  p(5,8) = 6 holds exactly when some first guess
(one per symmetry class) splits the 32768 codes into parts that are each solvable within
5 more guesses.  This script decides as many (first guess, part) pairs as it can within a
wall-clock budget, single-threaded, with one shared exact search (its memo is kept across
parts and rounds; answers never depend on the guess order, so rounds alternate orders):

* a part proved unsolvable within 5 eliminates its first guess (a proof);
* a first guess whose parts are all proved solvable proves p(5,8) = 6: the witness is
  then built, checked by :func:`mastermind.worstcase.bounds.check_strategy` and written out.

Usage: PYTHONPATH=src python scripts/worstcase/attempt_5_8.py [budget_seconds] [classes] [out.json]
(``classes``: how many first-guess classes, most informative first, to work on.)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

from mastermind.analysis.strategies import symmetry_classes
from mastermind.game import Game
from mastermind.kernel import _core
from mastermind.strategy_tree import Node
from mastermind.worstcase.bounds import SearchUnfinished, check_strategy, solution_exists
from mastermind.worstcase.search import Search

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
from _common import log  # noqa: E402

ORDERS = {_core.VAL_PARTS: "parts", _core.VAL_MINMAX: "minmax", _core.VAL_ENTROPY: "entropy"}
ROUNDS = [
    (_core.VAL_PARTS, 10),
    (_core.VAL_MINMAX, 20),
    (_core.VAL_ENTROPY, 40),
    (_core.VAL_PARTS, 80),
    (_core.VAL_MINMAX, 160),
    (_core.VAL_ENTROPY, 320),
    (_core.VAL_PARTS, 640),
    (_core.VAL_MINMAX, 1280),
    (_core.VAL_ENTROPY, 2560),
]


def opening_classes(game: Game) -> list[tuple[int, int, dict[int, np.ndarray]]]:
    """(entropy key, first guess, its parts by score slot) for one first guess per
    symmetry class, most informative first."""
    secrets = game.secrets
    classes = []
    for g in symmetry_classes(game):
        labels = game.kernel.slots(g, secrets)
        parts = {
            int(s): np.ascontiguousarray(secrets[labels == s])
            for s in np.unique(labels)
            if s != game.win_slot
        }
        key = int(game.kernel.keys(np.array([g], dtype=np.int32), secrets, 1)[0])
        classes.append((key, g, parts))
    classes.sort()
    return classes


def new_status(game: Game, classes: list) -> dict[str, dict]:
    """What is known of each first guess and each of its parts: nothing yet."""
    status: dict[str, dict] = {}
    for _, g, parts in classes:
        code = game.format_code(g)
        status[code] = {
            "parts": {
                str(game.slots[s]): {
                    "size": int(p.size),
                    "result": None,
                    "nodes": 0,
                    "seconds": 0.0,
                }
                for s, p in parts.items()
            },
            "eliminated": False,
            "proved": False,
        }
        log(
            f"first guess {code}: part sizes "
            f"{sorted((int(p.size) for p in parts.values()), reverse=True)}"
        )
    return status


def decide_part(
    search: Search, game: Game, code: str, slot: int, part: np.ndarray, entry: dict, deadline: float
) -> None:
    """Ask whether ``part`` is solvable within 5 guesses until ``deadline``; the answer
    (or None) and the effort go into ``entry``."""
    now = time.monotonic()
    n0 = search.nodes
    try:
        ok, _ = search.run(part, 5, deadline)
        entry["result"] = ok
    except SearchUnfinished:
        pass
    entry["nodes"] += search.nodes - n0
    entry["seconds"] = round(entry["seconds"] + time.monotonic() - now, 2)
    word = {True: "solvable in 5", False: "NOT solvable in 5", None: "undecided"}[entry["result"]]
    log(
        f"{code} {game.slots[slot]} size {part.size}: {word} "
        f"({search.nodes - n0:,} nodes, {time.monotonic() - now:.1f} s)"
    )


def one_round(
    search: Search, game: Game, focus: list, status: dict[str, dict], limit: float, end: float
) -> Optional[tuple[int, dict[int, np.ndarray]]]:
    """Every undecided part of the first guesses still in play, smallest first, up to
    ``limit`` seconds each (and no later than ``end``): the first guess and its parts
    once all of them are solvable, else None."""
    for _, g, parts in focus:
        code = game.format_code(g)
        st = status[code]
        if st["eliminated"]:
            continue
        for s, part in sorted(parts.items(), key=lambda sp: sp[1].size):
            entry = st["parts"][str(game.slots[s])]
            if entry["result"] is not None:
                continue
            now = time.monotonic()
            if now >= end:
                break
            decide_part(search, game, code, s, part, entry, min(end, now + limit))
            if entry["result"] is False:
                st["eliminated"] = True
                log(f"first guess {code} ELIMINATED")
                break
        if all(e["result"] for e in st["parts"].values()):
            st["proved"] = True
            return g, parts
    return None


def write_witness(
    search: Search, game: Game, proved: tuple[int, dict[int, np.ndarray]], path: str
) -> None:
    """The strategy that wins within 6 guesses, built, checked and written to ``path``."""
    g, parts = proved
    log(f"every part of {game.format_code(g)} is solvable in 5: building the witness")
    root = Node(g, int(game.secrets.size))
    for s, part in parts.items():
        root.children[game.slots[s]] = search.witness(part, 5, None)
    worst = check_strategy(game, root)
    log(f"witness checked: worst case {worst} guesses")
    with open(path, "w") as f:
        json.dump({"pegs": 5, "colours": 8, "max_guesses": worst, "tree": root.to_json(game)}, f)


def write_summary(
    search: Search, status: dict[str, dict], five: bool, budget: float, start: float, path: str
) -> None:
    summary = {
        "budget_s": budget,
        "elapsed_s": round(time.monotonic() - start, 1),
        "five_guesses": five,
        "nodes": search.nodes,
        "stats": search.core.stats,
        "eliminated": [c for c, st in status.items() if st["eliminated"]],
        "proved_by": [c for c, st in status.items() if st["proved"]],
        "parts_solvable_in_5": {
            c: sum(1 for e in st["parts"].values() if e["result"] is True)
            for c, st in status.items()
        },
        "detail": status,
    }
    with open(path, "w") as f:
        json.dump(summary, f, indent=1, default=str)
    log(f"summary written to {path}")
    log(
        json.dumps(
            {
                k: summary[k]
                for k in ("elapsed_s", "nodes", "eliminated", "proved_by", "parts_solvable_in_5")
            }
        )
    )


def main() -> None:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2400.0
    nclasses = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    out_path = sys.argv[3] if len(sys.argv) > 3 else "attempt_5_8.json"
    start = time.monotonic()
    end = start + budget
    game = Game(5, 8)
    t0 = time.monotonic()
    five = solution_exists(game, 5)
    log(f"[5,8] within 5 guesses: {five} ({time.monotonic() - t0:.2f} s)")
    search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=2 << 30)
    classes = opening_classes(game)
    status = new_status(game, classes)
    proved = None
    for order, limit in ROUNDS:
        if time.monotonic() >= end or proved:
            break
        search.core.order = order
        log(f"round: order {ORDERS[order]}, up to {limit} s per part")
        proved = one_round(search, game, classes[:nclasses], status, limit, end)
    if proved:
        write_witness(search, game, proved, out_path.replace(".json", "_witness.json"))
    write_summary(search, status, five, budget, start, out_path)


if __name__ == "__main__":
    main()
