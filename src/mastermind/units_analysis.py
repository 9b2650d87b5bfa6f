"""An exhaustive analysis as units of work: the subtrees below the top two levels of the
strategy tree (:mod:`mastermind.strategy_walk`), the split
:func:`mastermind.analysis.analyze` makes for its threads, small subtrees grouped so
that a unit carries at least ``max(64, secrets / 512)`` candidates.

The top is expanded by the caller; each unit's subtrees are walked by the kernel on a worker
(:func:`walk_unit`), one thread each, and a subtree's walk depends on that subtree alone.
The distributions add up and the trees hang where the top left them, so the result is,
bit for bit, that of the in-process analysis, whatever the workers and the order in
which units finish.  With a checkpoint, each unit's distribution (and tree records, with
``tree``) is recorded as it finishes, and a rerun walks only the others.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .engine.units import Unit
from .rules import Strategy
from .stopping import new_flag
from .strategy_walk import Task, Top, graft, walk_tasks

__all__ = ["UNIT_FLOOR", "UNITS_TARGET", "AnalysisPlan", "checkpoint_params", "plan_units",
           "walk_unit"]

UNIT_FLOOR = 64
"""Candidates a unit gathers at least (subtrees this small are grouped)."""

UNITS_TARGET = 512
"""About how many units the small subtrees are grouped into (each gathers at least
secrets / UNITS_TARGET candidates); larger subtrees are units of their own."""


def checkpoint_params(game: Any, strategy: Strategy, candidates_only: bool, g0: int,
                      tree: bool, symmetry: bool, plain: bool) -> dict[str, Any]:
    """What an analysis unit's answer depends on, beside the game: its checkpoint's
    parameters."""
    return {"strategy": strategy.value, "candidates_only": bool(candidates_only),
            "first": game.format_code(g0), "tree": bool(tree),
            "symmetry": bool(symmetry), "plain": bool(plain)}


def plan_units(tasks: list[Task], secrets: int) -> list[list[int]]:
    """The tasks (largest first) grouped into units: consecutive tasks until a unit
    holds ``max(UNIT_FLOOR, secrets // UNITS_TARGET)`` candidates.  A function of the
    tasks alone (never of the workers), so a checkpoint's units stay the same."""
    least = max(UNIT_FLOOR, secrets // UNITS_TARGET)
    groups: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, t in enumerate(tasks):
        current.append(i)
        size += int(t.cands.size)
        if size >= least:
            groups.append(current)
            current, size = [], 0
    if current:
        groups.append(current)
    return groups


class AnalysisPlan:
    """Every unit at once (their answers never depend on each other); each answer's
    distribution is added to the top's, its trees grafted."""

    kind = "analyze"

    def __init__(self, game: Any, top: Top, strategy: Strategy, candidates_only: bool,
                 tree: bool, symmetry: bool, plain: bool):
        self.game = game
        self.top = top
        self.groups = plan_units(top.tasks, int(game.secrets.size))
        self.units: list[Unit] = []
        for number, group in enumerate(self.groups):
            sel = [top.tasks[i] for i in group]
            width = max(t.history.size for t in sel)
            histories = np.zeros((len(sel), width), dtype=np.int32)
            for row, t in enumerate(sel):
                histories[row, :t.history.size] = t.history
            args = {"strategy": strategy.value, "candidates_only": bool(candidates_only),
                    "tree": bool(tree), "symmetry": bool(symmetry), "plain": bool(plain),
                    "cands": np.concatenate([t.cands for t in sel]).astype(np.int32),
                    "sizes": np.array([t.cands.size for t in sel], dtype=np.int64),
                    "depths": np.array([t.depth for t in sel], dtype=np.int32),
                    "histories": histories,
                    "hlens": np.array([t.history.size for t in sel], dtype=np.int32)}
            self.units.append(Unit(f"walk/{number}", "mastermind.units_analysis:walk_unit",
                                   args, int(args["cands"].size)))
        self._next = 0
        self._left = len(self.units)

    def next(self) -> Optional[Unit]:
        if self._next >= len(self.units):
            return None
        self._next += 1
        return self.units[self._next - 1]

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit: one distribution per subtree,
        each summing to its subtree's secrets; with a tree, one run of records per
        subtree, each opening with a node of that size."""
        sizes = np.asarray(unit.args["sizes"])
        dists = np.asarray(result["dists"])
        if (dists.ndim != 2 or dists.shape[0] != sizes.size or dists.dtype.kind not in "iu"
                or (dists < 0).any() or not np.array_equal(dists.sum(axis=1), sizes)):
            return False
        if not unit.args["tree"]:
            return True
        recs, counts = np.asarray(result["recs"]), np.asarray(result["rec_counts"])
        if (recs.ndim != 2 or recs.shape[1] != 5 or counts.shape != sizes.shape
                or (counts < 1).any() or int(counts.sum()) != recs.shape[0]):
            return False
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        return bool(np.array_equal(recs[starts, 3], sizes) and (recs[starts, 0] == -1).all())

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        number = int(unit.key.split("/")[1])
        sel = [self.top.tasks[i] for i in self.groups[number]]
        recs = None
        if "recs" in result:
            cuts = np.cumsum(result["rec_counts"])[:-1]
            recs = np.split(result["recs"], cuts)
        graft(self.game, sel, result["dists"], recs, self.top.dist)
        self._left -= 1
        return []

    def done(self) -> bool:
        return self._left == 0

    def known(self) -> int:
        return len(self.units)


def walk_unit(game: Any, *, stop: Any, strategy: str, candidates_only: bool, tree: bool,
              symmetry: bool, plain: bool, cands: np.ndarray, sizes: np.ndarray,
              depths: np.ndarray, histories: np.ndarray, hlens: np.ndarray) -> dict[str, Any]:
    """One unit, on a worker: its subtrees walked by the kernel in one thread; their
    distributions (one row each) and, with ``tree``, their records (concatenated, with
    each subtree's number of rows)."""
    flag = stop if stop is not None else new_flag()
    cuts = np.cumsum(sizes)[:-1]
    sel = [Task(np.ascontiguousarray(c), int(d), np.ascontiguousarray(h[:hl]), None, None)
           for c, d, h, hl in zip(np.split(cands, cuts), depths, histories, hlens)]
    dists, recs = walk_tasks(game, Strategy.parse(strategy), candidates_only, tree, symmetry,
                             plain, 1, sel, None, flag)
    out: dict[str, Any] = {"dists": dists}
    if tree and recs is not None:
        out["recs"] = (np.concatenate(recs).astype(np.int32) if recs
                       else np.zeros((0, 5), dtype=np.int32))
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out
