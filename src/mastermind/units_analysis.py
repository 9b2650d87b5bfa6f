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

from . import _core, _symmetry, _walk
from .engine.units import Unit
from .rules import Strategy
from .stopping import Stopped, TimeLimitReached, new_flag
from .strategy_walk import Task, Top, graft, guess_lists, split_by_score, walk_tasks

__all__ = [
    "SPLIT_MIN",
    "UNIT_FLOOR",
    "UNITS_TARGET",
    "AnalysisPlan",
    "checkpoint_params",
    "merge_split",
    "plan_units",
    "walk_unit",
]

PROBE = 0.125
"""The share of its budget a unit first spends walking its subtrees whole (one kernel
call, no overhead); only a unit still walking then is walked in batches, able to split
(what the probe walked is lost: at most this share of the budget)."""

SPLIT_MIN = 3
"""A unit of one subtree splits one level down only if the subtree has at least this
many candidates (a smaller one is walked whole in any budget)."""

UNIT_FLOOR = 64
"""Candidates a unit gathers at least (subtrees this small are grouped)."""

UNITS_TARGET = 512
"""About how many units the small subtrees are grouped into (each gathers at least
secrets / UNITS_TARGET candidates); larger subtrees are units of their own."""


def checkpoint_params(
    game: Any,
    strategy: Strategy,
    candidates_only: bool,
    g0: int,
    tree: bool,
    symmetry: bool,
    plain: bool,
) -> dict[str, Any]:
    """What an analysis unit's answer depends on, beside the game: its checkpoint's
    parameters."""
    return {
        "strategy": strategy.value,
        "candidates_only": bool(candidates_only),
        "first": game.format_code(g0),
        "tree": bool(tree),
        "symmetry": bool(symmetry),
        "plain": bool(plain),
    }


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

    def __init__(
        self,
        game: Any,
        top: Top,
        strategy: Strategy,
        candidates_only: bool,
        tree: bool,
        symmetry: bool,
        plain: bool,
    ):
        self.game = game
        self.top = top
        self.groups = plan_units(top.tasks, int(game.secrets.size))
        self.units: list[Unit] = []
        for number, group in enumerate(self.groups):
            sel = [top.tasks[i] for i in group]
            width = max(t.history.size for t in sel)
            histories = np.zeros((len(sel), width), dtype=np.int32)
            for row, t in enumerate(sel):
                histories[row, : t.history.size] = t.history
            args = {
                "strategy": strategy.value,
                "candidates_only": bool(candidates_only),
                "tree": bool(tree),
                "symmetry": bool(symmetry),
                "plain": bool(plain),
                "cands": np.concatenate([t.cands for t in sel]).astype(np.int32),
                "sizes": np.array([t.cands.size for t in sel], dtype=np.int64),
                "depths": np.array([t.depth for t in sel], dtype=np.int32),
                "histories": histories,
                "hlens": np.array([t.history.size for t in sel], dtype=np.int32),
            }
            self.units.append(
                Unit(
                    f"walk/{number}",
                    "mastermind.units_analysis:walk_unit",
                    args,
                    int(args["cands"].size),
                )
            )
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
        if (
            dists.ndim != 2
            or dists.shape[0] != sizes.size
            or dists.dtype.kind not in "iu"
            or (dists < 0).any()
            or not np.array_equal(dists.sum(axis=1), sizes)
        ):
            return False
        if not unit.args["tree"]:
            return True
        recs, counts = np.asarray(result["recs"]), np.asarray(result["rec_counts"])
        if (
            recs.ndim != 2
            or recs.shape[1] != 5
            or counts.shape != sizes.shape
            or (counts < 1).any()
            or int(counts.sum()) != recs.shape[0]
        ):
            return False
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        return bool(np.array_equal(recs[starts, 3], sizes) and (recs[starts, 0] == -1).all())

    # ------------------------------------------------------------ splits
    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """The sub-units of a split (:func:`walk_unit` past its budget): one per subtree
        it had not walked, keyed ``PARENT/I`` (I its place among the split's subtrees)."""
        first = int(split["done"])
        cuts = np.cumsum(split["rsizes"])[:-1]
        children = []
        for i, (c, d, h, hl) in enumerate(
            zip(np.split(split["rcands"], cuts), split["rdepths"], split["rhist"], split["rhlens"])
        ):
            args = dict(unit.args)
            args.update(
                cands=np.ascontiguousarray(c, dtype=np.int32),
                sizes=np.array([c.size], dtype=np.int64),
                depths=np.array([d], dtype=np.int32),
                histories=np.ascontiguousarray(h[:hl][None, :], dtype=np.int32),
                hlens=np.array([hl], dtype=np.int32),
            )
            children.append(Unit(f"{unit.key}/{first + i}", unit.func, args, int(c.size)))
        return children

    def valid_split(self, unit: Unit, split: dict[str, Any]) -> bool:
        """Whether a recorded split adds up: its subtrees hold the unit's candidates (less
        the one its guess found), the walked ones' distributions their sizes."""
        wsizes = np.asarray(split["wsizes"])
        done = int(split["done"])
        sizes = np.asarray(unit.args["sizes"])
        if int(split["guess"]) >= 0:
            ok = sizes.size == 1 and int(wsizes.sum()) + int(split["won"]) == int(sizes[0])
        else:
            ok = np.array_equal(wsizes, sizes)
        dists = np.asarray(split["dists"])
        return bool(
            ok
            and 0 <= done <= wsizes.size
            and dists.shape[0] == done
            and np.array_equal(dists.sum(axis=1), wsizes[:done])
            and np.array_equal(np.asarray(split["rsizes"]), wsizes[done:])
        )

    def merge(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> Optional[dict[str, Any]]:
        """The unit's answer once every sub-unit has its own (:func:`merge_split`)."""
        return merge_split(unit.key, unit.args, split, answers)

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


def walk_unit(
    game: Any,
    *,
    stop: Any,
    strategy: str,
    candidates_only: bool,
    tree: bool,
    symmetry: bool,
    plain: bool,
    cands: np.ndarray,
    sizes: np.ndarray,
    depths: np.ndarray,
    histories: np.ndarray,
    hlens: np.ndarray,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """One unit, on a worker: its subtrees walked by the kernel in one thread; their
    distributions (one row each) and, with ``tree``, their records (concatenated, with
    each subtree's number of rows).

    With a ``budget`` (seconds) the unit first walks its subtrees whole for
    :data:`PROBE` of it; past that, it may split: a unit of one subtree (of
    :data:`SPLIT_MIN` candidates or more) plays its node's guess here and walks the
    subtrees below it, a unit of several walks them, in small batches; past the budget
    it stops and hands back a split (``split=1``): the rows of the subtrees walked so
    far and the subtrees left (:meth:`AnalysisPlan.expand` makes them units).  The
    probe and the batch in progress when the budget ran out are the only work lost."""
    flag = stop if stop is not None else new_flag()
    how = Strategy.parse(strategy)
    cuts = np.cumsum(sizes)[:-1]
    sel = [
        Task(np.ascontiguousarray(c), int(d), np.ascontiguousarray(h[:hl]), None, None)
        for c, d, h, hl in zip(np.split(cands, cuts), depths, histories, hlens)
    ]
    if budget is None or (len(sel) == 1 and sel[0].cands.size < SPLIT_MIN):
        # (a subtree too small to split is walked whole: a split must make progress)
        dists, recs = walk_tasks(
            game, how, candidates_only, tree, symmetry, plain, 1, sel, None, flag
        )
        return _answer(dists, recs if tree else None)
    deadline = _core.monotonic() + max(0.0, budget)
    if budget > 0:  # most units are far below their budget: first, the plain walk
        flag.set_time_limit(budget * PROBE)
        try:
            dists, recs = walk_tasks(
                game, how, candidates_only, tree, symmetry, plain, 1, sel, None, flag
            )
            return _answer(dists, recs if tree else None)
        except (Stopped, TimeLimitReached):
            if flag.value != _core.STOP_DEADLINE:
                raise
            flag.clear()
        finally:
            flag.set_time_limit(0)
    guess, won, slots = -1, 0, [-1] * len(sel)
    if len(sel) == 1 and sel[0].cands.size >= SPLIT_MIN:
        t = sel[0]
        guess = _node_guess(game, how, candidates_only, symmetry, plain, t, flag)
        history = np.append(t.history, np.int32(guess)).astype(np.int32)
        sel, slots = [], []
        for slot, part in split_by_score(game, guess, t.cands):
            if slot == game.win_slot:
                won = 1
            else:
                sel.append(Task(part, t.depth + 1, history, None, None))
                slots.append(slot)
        depth = t.depth
    else:
        depth = int(depths[0]) if depths.size else 0
    rows: list[np.ndarray] = []
    recs_done: list[np.ndarray] = []
    done = 0
    total = sum(int(t.cands.size) for t in sel)
    # each history's guesses computed once for the unit, not once per batch
    lists = (
        guess_lists(game, sel, symmetry and not candidates_only, flag)
        if sel
        else (None, None, None)
    )
    for batch in _batches(sel, max(UNIT_FLOOR, total // 16)):
        left = deadline - _core.monotonic()
        if left <= 0:
            break
        flag.set_time_limit(left)
        try:
            dists, recs = walk_tasks(
                game,
                how,
                candidates_only,
                tree,
                symmetry,
                plain,
                1,
                sel[done : done + batch],
                None,
                flag,
                lists=lists,
                first=done,
            )
        except (Stopped, TimeLimitReached):  # (the kernel's, or a check between calls)
            if flag.value != _core.STOP_DEADLINE:
                raise
            flag.clear()
            break
        finally:
            flag.set_time_limit(0)
        rows.extend(dists)
        if tree and recs is not None:
            recs_done.extend(recs)
        done += batch
    if guess < 0 and done == len(sel):  # walked whole within its budget
        return _answer(np.array(rows), recs_done if tree else None)
    width = max([r.size for r in rows], default=1)
    dists = np.zeros((done, width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    rest = sel[done:]
    hwidth = max([t.history.size for t in rest], default=1)
    rhist = np.zeros((len(rest), max(1, hwidth)), dtype=np.int32)
    for i, t in enumerate(rest):
        rhist[i, : t.history.size] = t.history
    out = _answer(dists, recs_done if tree else None)
    out.update(
        {
            "split": 1,
            "guess": int(guess),
            "won": int(won),
            "depth": int(depth),
            "done": done,
            "wsizes": np.array([t.cands.size for t in sel], dtype=np.int64),
            "wslots": np.array(slots, dtype=np.int32),
            "rcands": (
                np.concatenate([t.cands for t in rest]).astype(np.int32)
                if rest
                else np.zeros(0, dtype=np.int32)
            ),
            "rsizes": np.array([t.cands.size for t in rest], dtype=np.int64),
            "rdepths": np.array([t.depth for t in rest], dtype=np.int32),
            "rhist": rhist,
            "rhlens": np.array([t.history.size for t in rest], dtype=np.int32),
        }
    )
    if not rest:  # split one level down and walked whole within its budget
        return merge_split("", {"tree": tree, "sizes": sizes}, out, {})  # type: ignore
    return out


def merge_split(
    key: str, args: dict[str, Any], split: dict[str, Any], answers: dict[str, dict[str, Any]]
) -> Optional[dict[str, Any]]:
    """The answer of unit ``key`` (arguments ``args``) that split, once every sub-unit
    has its own (None before): the walked subtrees' and the sub-units' rows in order,
    folded back into the split node when the unit had split one level down (its guess,
    its win, its records on top).  Exactly the answer of the unit walked whole."""
    done = int(split["done"])
    wsizes = np.asarray(split["wsizes"])
    if len(answers) < wsizes.size - done:
        return None
    tree = bool(args["tree"])
    rows = list(np.asarray(split["dists"]))
    recs: list[np.ndarray] = []
    if tree:
        cuts = np.cumsum(split["rec_counts"])[:-1]
        recs = [r for r in np.split(split["recs"], cuts)] if done else []
    for i in range(done, wsizes.size):
        answer = answers[f"{key}/{i}"]
        rows.append(np.asarray(answer["dists"])[0])
        if tree:
            recs.append(np.asarray(answer["recs"]))
    width = max(r.size for r in rows) if rows else 1
    dists = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    g = int(split["guess"])
    if g >= 0:  # one subtree, split below its node: fold the rows back into it
        depth = int(split["depth"])
        row = dists.sum(axis=0)
        if row.size <= depth:
            row = np.concatenate([row, np.zeros(depth + 1 - row.size, dtype=np.int64)])
        row[depth] += int(split["won"])
        dists = row[None, :]
        if tree:
            top = np.array([[-1, -1, g, int(args["sizes"][0]), depth]], dtype=np.int32)
            parts = [top]
            offset = 1
            for slot, r in zip(np.asarray(split["wslots"]).tolist(), recs):
                r = np.array(r, dtype=np.int32, copy=True)
                root = r[:, 0] < 0
                r[~root, 0] += offset
                r[root, 0] = 0
                r[root, 1] = slot
                parts.append(r)
                offset += r.shape[0]
            recs = [np.concatenate(parts)]
    out: dict[str, Any] = {"dists": dists}
    if tree:
        out["recs"] = (
            np.concatenate(recs).astype(np.int32) if recs else np.zeros((0, 5), dtype=np.int32)
        )
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out


def _answer(dists: Any, recs: Optional[list]) -> dict[str, Any]:
    """A unit's answer: the distribution rows and, for a tree, the records."""
    out: dict[str, Any] = {"dists": np.asarray(dists, dtype=np.int64)}
    if recs is not None:
        out["recs"] = (
            np.concatenate(recs).astype(np.int32) if recs else np.zeros((0, 5), dtype=np.int32)
        )
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out


def _node_guess(
    game: Any, how: Strategy, candidates_only: bool, symmetry: bool, plain: bool, t: Task, flag: Any
) -> int:
    """The guess the kernel's walk plays at the root of subtree ``t``: the rule's scan
    over the guesses the walk scans there (one per symmetry class of the history)."""
    guesses = game.guesses
    if symmetry and not candidates_only:
        guesses = _symmetry.canonical_guesses(game.kernel, game.guesses, t.history, flag)
    blanks = symmetry and game.guesses.size == game.size
    return int(
        _walk.choose(
            game.kernel,
            guesses,
            t.cands,
            how.kind,
            candidates_only,
            game.secrets_are_guesses,
            1,
            blanks,
            flag,
        )
    )


def _batches(sel: list[Task], most: int) -> list[int]:
    """``sel`` cut into runs of consecutive subtrees walked in one kernel call: one
    subtree alone when large, else neighbours up to ``most`` candidates."""
    out: list[int] = []
    i = 0
    while i < len(sel):
        j, size = i + 1, int(sel[i].cands.size)
        while j < len(sel) and size + sel[j].cands.size <= most:
            size += int(sel[j].cands.size)
            j += 1
        out.append(j - i)
        i = j
    return out
