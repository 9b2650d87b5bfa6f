"""A [5,8] strategy with a small total: the opening and the second guesses chosen by a rule
or by a look-ahead, and below them, at every position after two guesses, the exact
optimum of the secrets left (``mastermind.optimal(game, history=...)``, all guesses
allowed), each within a time limit (past it, the best strategy that search found).

The tree is assembled, replayed secret by secret with the plain-Python scorer
(:func:`mastermind.worstcase.check.strategy_distribution`), and written in ``mastermind
tree --format json``'s format with the distribution and the per-position record.  The
positions are units of work of the package's engine (kind ``"optimum.position"``:
:func:`mastermind.optimum.solver.position_unit`), run on ``--workers`` threads and
recorded in a checkpoint (``--cache``, SQLite) as each finishes, so a stopped run
resumes where it was.  A position whose search found no strategy in its time is tried
again with three times the time.

Usage (from the repository root, after ``pip install -e .`` or with PYTHONPATH=src)::

    python scripts/optimum/record_5_8.py [--first 11234] [--second entropy] [--workers 2]
        [--part-limit 600] [--cache record_5_8.checkpoint] [--out results/record_5_8.json]

``--second`` names the one-step rule choosing each second guess (a Strategy name), or
``best`` to try the second guesses of every rule at each part of the opening and keep the
one whose positions cost the least.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional

import numpy as np

from mastermind import Game
from mastermind.analysis.exhaustive import Node, analyze
from mastermind.analysis.strategies import choose_guess
from mastermind.engine.options import RunOptions
from mastermind.engine.run import open_run
from mastermind.engine.units import Unit
from mastermind.optimum.solver import Optimum
from mastermind.strategy_tree import build_tree, in_score_order, replay_records
from mastermind.worstcase.check import strategy_distribution

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
from _common import log  # noqa: E402

PUBLISHED = 179274  # the best published total (supermastermind)
RULES = ("entropy", "parts", "expected-size", "minmax")


def subtree_total(game: Game, node: Node, depth: int = 1) -> int:
    """Guesses over the secrets of ``node``'s set, its own guess counted as ``depth``."""
    total, rest = 0, node.size
    for score, child in node.children.items():
        if score.black != game.n:
            total += subtree_total(game, child, depth + 1)
            rest -= child.size
    return total + rest * depth


def position_key(g1: int, s1: int, g2: int, s2: int) -> str:
    return f"{g1}/{s1}/{g2}/{s2}"


# --------------------------------------------------------------- the positions as units
class Positions:
    """The positions to solve as a plan of the engine: one unit (kind
    ``"optimum.position"``) per position, the largest first; a position whose search
    found no strategy in its time runs again with three times the time.  Each answer
    goes into ``answers`` (by position key) as it comes."""

    kind = "optimum.position"

    def __init__(self, game: Game, jobs: list[tuple], args: argparse.Namespace, answers: dict):
        self.game, self.args, self.answers = game, args, answers
        self.todo = [self.unit(job, again=False) for job in sorted(jobs, key=lambda j: -j[-1])]
        self.jobs = {self.unit_key(j[0], again): j for j in jobs for again in (False, True)}
        self.waiting = 0
        self.planned = len(self.todo)

    @staticmethod
    def unit_key(key: str, again: bool) -> str:
        return f"position {key}{' again' if again else ''}"

    def unit(self, job: tuple, *, again: bool) -> Unit:
        key, g1, s1, g2, s2, size = job
        history = np.array([[g1, s1], [g2, s2]], dtype=np.int32)
        limit = self.args.part_limit * (3 if again else 1)
        return Unit(
            self.unit_key(key, again),
            "optimum.position",
            {"history": history, "time_limit": limit, "memory": self.args.memory << 20},
            size,
            # (a checkpoint's answer serves whatever --part-limit a later run is given)
            identity={"history": history, "again": again},
        )

    def next(self) -> Optional[Unit]:
        if not self.todo:
            return None
        self.waiting += 1
        return self.todo.pop(0)

    def valid(self, unit: Unit, result: dict) -> bool:
        """Whether a recorded answer holds: its strategy replays on the position's
        secrets to its total."""
        if result["total"] < 0:
            return "recs" not in result
        (g1, s1), (g2, s2) = unit.args["history"].tolist()
        cands = self.game.candidates([(g1, self.game.slots[s1]), (g2, self.game.slots[s2])])
        cost = replay_records(self.game, result["recs"], cands)
        return cost is not None and cost[0] == result["total"]

    def take(self, unit: Unit, result: dict) -> list[str]:
        self.waiting -= 1
        job = self.jobs[unit.key]
        if result["total"] < 0 and not unit.key.endswith(" again"):
            self.todo.insert(0, self.unit(job, again=True))
            self.planned += 1
            return []
        self.answers[job[0]] = result
        log(
            f"  {job[0]}: {result['secrets']} secrets, total "
            + ("none" if result["total"] < 0 else str(result["total"]))
            + ("" if result["exact"] else f" (best found, >= {result['lower']})")
            + f", {round(float(result.get('seconds', 0.0)), 2)} s"
        )
        return []

    def done(self) -> bool:
        return not self.todo and not self.waiting

    def known(self) -> int:
        return self.planned


# --------------------------------------------------------------- the run
class Run:
    def __init__(self, args: argparse.Namespace, game: Game, engine: Any):
        self.args = args
        self.game = game
        self.engine = engine  # the engine's run: its threads and checkpoint
        self.answers: dict[str, dict] = {}
        self._rule: dict[int, Node] = {}

    def positions(self, g1: int, part1: np.ndarray, s1: int, g2: int) -> list[tuple]:
        """The positions after g1 scored s1 and g2: (s2, key, size) for every non-winning
        score of g2 on part1."""
        game = self.game
        labels = game.kernel.slots(g2, part1)
        out = []
        for s2 in np.unique(labels).tolist():
            if s2 != game.win_slot:
                out.append((s2, position_key(g1, s1, g2, s2), int((labels == s2).sum())))
        return out

    def solve_all(self, jobs: list[tuple]) -> None:
        """Solve the positions not answered yet, on the engine (those its checkpoint
        holds are taken from it)."""
        todo = [j for j in jobs if j[0] not in self.answers]
        if not todo:
            return
        log(f"{len(todo)} positions to solve ({sum(j[-1] for j in todo)} secrets)")
        self.engine.execute(Positions(self.game, todo, self.args, self.answers))

    def second_total(self, g1: int, part1: np.ndarray, s1: int, g2: int) -> Optional[int]:
        """The total of part1 when g2 is played there and every position after it is
        solved (None while some position is missing or has no strategy)."""
        total = part1.size
        for s2, key, _size in self.positions(g1, part1, s1, g2):
            if key not in self.answers:
                return None
            best = self.position(g1, s1, g2, s2, key)
            if best is None:
                return None
            total += best[1]
        return total

    def position(
        self, g1: int, s1: int, g2: int, s2: int, key: str
    ) -> Optional[tuple[Node, int, str]]:
        """(tree, total, where it came from) of a solved position: the search's strategy,
        or the rule's subtree where the search, stopped by its time limit, found a worse
        one or none."""
        game = self.game
        rec = self.answers[key]
        best = None
        if rec["total"] >= 0:
            best = (in_score_order(build_tree(game, rec["recs"])), int(rec["total"]), "search")
        rule = self.rule_tree(g1)
        ruled = None if rule is None else rule.children.get(game.slots[s1])
        if ruled is not None and ruled.guess == g2:
            alt = ruled.children.get(game.slots[s2])
            if alt is not None and (best is None or subtree_total(game, alt) < best[1]):
                best = (alt, subtree_total(game, alt), self.args.second)
        return best

    def seconds_to_try(self, part1: np.ndarray) -> list[int]:
        game = self.game
        mode = self.args.second
        if mode != "best":
            return [choose_guess(game, part1, mode)]
        out: list[int] = []
        for rule in RULES:
            g = choose_guess(game, part1, rule)
            if g not in out:
                out.append(g)
        return out

    def run(self) -> None:
        game = self.game
        g1 = game.guess(self.args.first)
        secrets = game.secrets
        labels = game.kernel.slots(g1, secrets)
        parts = {
            s: np.ascontiguousarray(secrets[labels == s])
            for s in np.unique(labels).tolist()
            if s != game.win_slot
        }
        log(f"opening {game.format_code(g1)}: {len(parts)} parts")
        choice: dict[int, tuple[int, int]] = {}  # s1 -> (g2, total of the part)
        for s1, part1 in sorted(parts.items(), key=lambda kv: kv[1].size):
            tries = self.seconds_to_try(part1) if part1.size > 1 else [int(part1[0])]
            for g2 in tries:
                if part1.size == 1:
                    continue
                jobs = [
                    (key, g1, s1, g2, s2, size)
                    for s2, key, size in self.positions(g1, part1, s1, g2)
                ]
                self.solve_all(jobs)
            totals = {
                g2: (1 if part1.size == 1 else self.second_total(g1, part1, s1, g2)) for g2 in tries
            }
            best = min((t, g) for g, t in totals.items() if t is not None)
            choice[s1] = (best[1], best[0])
            log(
                f"part {game.slots[s1]} ({part1.size} secrets): "
                + ", ".join(f"{game.format_code(g)} {t}" for g, t in totals.items())
                + f" -> {game.format_code(best[1])}"
            )
        self.finish(g1, parts, choice)

    def rule_tree(self, g1: int) -> Optional[Node]:
        """The tree of the one-step rule (``--second``) from the same opening (computed
        once): a position whose search found worse keeps the rule's subtree."""
        if self.args.second not in RULES:
            return None
        if g1 not in self._rule:
            self._rule[g1] = analyze(self.game, self.args.second, first=g1, tree=True).tree
        return self._rule[g1]

    def finish(self, g1: int, parts: dict, choice: dict) -> None:
        game = self.game
        root = Node(g1, int(game.secrets.size))
        records = []
        for s1, part1 in parts.items():
            g2, _ = choice[s1]
            node = Node(g2, int(part1.size))
            root.children[game.slots[s1]] = node
            for s2, key, size in self.positions(g1, part1, s1, g2):
                rec = self.answers[key]
                sub, total, source = self.position(g1, s1, g2, s2, key)
                node.children[game.slots[s2]] = sub
                records.append(
                    {
                        "after": [
                            game.format_code(g1),
                            str(game.slots[s1]),
                            game.format_code(g2),
                            str(game.slots[s2]),
                        ],
                        "secrets": size,
                        "total": total,
                        "exact": bool(rec["exact"]),
                        "lower": int(rec["lower"]),
                        "seconds": round(float(rec.get("seconds", 0.0)), 2),
                        "tree_from": source,
                    }
                )
        log("replaying every secret with the plain-Python scorer ...")
        dist = strategy_distribution(game, root)
        total = sum(d * c for d, c in dist.items())
        claimed = int(game.secrets.size) + sum(t for _, t in choice.values())
        assert total == claimed, (total, claimed)
        result = Optimum(
            game,
            False,
            None,
            g1,
            dist,
            False,
            None,
            root,
            "heuristic",
            "record script",
            strategy="opening and second guesses by "
            f"{self.args.second}, then the exact optimum of each position",
        )
        from mastermind.views.tree import to_json

        doc = to_json(result)
        doc["method"] = {
            "first": game.format_code(g1),
            "second": self.args.second,
            "part_limit_s": self.args.part_limit,
            "positions": len(records),
            "positions_exact": sum(r["exact"] for r in records),
            "positions_from_the_rule": sum(r["tree_from"] != "search" for r in records),
            # (an absolute path is this machine's: its file name only)
            "command": "python scripts/optimum/record_5_8.py "
            + " ".join(Path(a).name if Path(a).is_absolute() else a for a in sys.argv[1:]),
        }
        doc["positions"] = records
        if (game.n, game.k) == (5, 8):  # the one game whose published best is known here
            doc["published_best"] = PUBLISHED
        Path(self.args.out).write_text(json.dumps(doc) + "\n")
        avg = total / game.secrets.size
        log(
            f"total {total} (average {avg:.5f}), max {max(dist)}, distribution "
            + "/".join(str(dist.get(d, 0)) for d in range(1, max(dist) + 1))
            + (
                f"; {'below' if total < PUBLISHED else 'not below'} the published {PUBLISHED}"
                if (game.n, game.k) == (5, 8)
                else ""
            )
            + f"; written to {self.args.out}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", "--pegs", type=int, default=5)
    p.add_argument("-k", "--colours", type=int, default=8)
    p.add_argument("--first", default="11234")
    p.add_argument("--second", default="entropy", choices=list(RULES) + ["best"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--part-limit",
        type=float,
        default=600.0,
        help="seconds per position (then the best strategy found)",
    )
    p.add_argument("--memory", type=int, default=3072, help="MB of memo per worker")
    p.add_argument(
        "--cache", default="record_5_8.checkpoint", help="the engine's checkpoint (SQLite)"
    )
    p.add_argument("--out", default="results/record_5_8.json")
    args = p.parse_args()
    game = Game(args.pegs, args.colours)
    with open_run(
        game,
        kind="optimal",
        params={"positions": "after two guesses, each within a time limit"},
        options=RunOptions.of(jobs=args.workers, checkpoint=args.cache),
    ) as engine:
        Run(args, game, engine).run()


if __name__ == "__main__":
    main()
