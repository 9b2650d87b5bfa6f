"""What an analysis unit does on its worker, and how a split unit's answer is put back
together (the plan that makes the units is :mod:`mastermind.analysis.units`).

* :func:`scan_unit`: one block of a large node's guess scan: the block's best guess by the
  strategy's choice rule, with its key.
* :func:`walk_unit`: subtrees walked by the kernel; past its budget, a unit hands back
  the subtrees it had not walked (after playing its node's guess, when it holds one
  subtree), and :func:`child_groups` / :func:`merge_split` make them sub-units and fold
  their answers back: exactly the answer of the unit walked whole.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

import numpy as np

from ..kernel import _core, _symmetry
from ..rules import Strategy
from ..stopping import Stopped, TimeLimitReached, new_flag
from ..strategy_tree import split_by_score
from . import _scan, _walk
from .walk import Task, guess_lists, walk_tasks

__all__ = [
    "PROBE",
    "SPLIT_MIN",
    "UNIT_FLOOR",
    "child_groups",
    "merge_split",
    "scan_unit",
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


_NODES: dict[tuple, tuple] = {}
_NODES_LOCK = threading.Lock()


def _node_lists(
    game: Any,
    candidates_only: bool,
    symmetry: bool,
    history: np.ndarray,
    slots: np.ndarray,
    flag: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """A node's candidates (the secrets left by its history's scores) and the guesses
    the walk scans there (its candidates, one guess per symmetry class of its history, or
    every guess); the last few nodes kept per process (a node's blocks share them)."""
    key = (id(game), candidates_only, symmetry, history.tobytes(), slots.tobytes())
    with _NODES_LOCK:
        hit = _NODES.get(key)
    if hit is not None and hit[0] is game:
        return hit[1], hit[2]
    cands = game.secrets
    for g, s in zip(history.tolist(), slots.tolist()):
        cands = game.kernel.filter(int(g), int(s), cands)
    if candidates_only:
        glist = cands
    elif symmetry:
        glist = _symmetry.canonical_guesses(game.kernel, game.guesses, history, flag)
        if flag.value != _core.STOP_NONE:  # the list is void
            raise Stopped("the scan was stopped")
    else:
        glist = game.guesses
    with _NODES_LOCK:
        if len(_NODES) >= 4:
            _NODES.clear()
        _NODES[key] = (game, cands, glist)
    return cands, glist


def scan_unit(
    game: Any,
    *,
    stop: Any,
    strategy: str,
    candidates_only: bool,
    symmetry: bool,
    history: np.ndarray,
    slots: np.ndarray,
    lo: int,
    hi: int,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """One block of a node's scan, on a worker: the node (after the guesses ``history``
    answered by the scores ``slots``), the guesses ``lo:hi`` of its guess list; the best
    of them by the strategy's choice rule (``guess``), its ``key`` and whether it is a
    candidate (``cand``).  The node's guess is the least (key, not a candidate, guess)
    over its blocks.  Never splits (``budget`` is not needed: a block is small)."""
    flag = stop if stop is not None else new_flag()
    how = Strategy.parse(strategy)
    history = np.ascontiguousarray(history, dtype=np.int32)
    cands, glist = _node_lists(
        game, candidates_only, symmetry, history, np.asarray(slots, dtype=np.int32), flag
    )
    block = np.ascontiguousarray(glist[int(lo) : int(hi)])
    g, key, cand = _scan.best_guess(game.kernel, block, cands, how.kind, 1, flag)
    if flag.value != _core.STOP_NONE:  # stopped or past a deadline: the answer is partial
        raise Stopped("the scan was stopped")
    return {"guess": int(g), "key": int(key), "cand": int(bool(cand))}


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


def child_groups(split: dict[str, Any]) -> list[tuple[int, int]]:
    """The sub-units of a split, as runs (lo, hi) of the subtrees it left: below a node
    the unit played (its parts, in score order), neighbours together until a run holds
    :data:`UNIT_FLOOR` candidates (a unit of a few candidates costs more to send than to
    walk); a unit of several subtrees that split hands each back alone (so that a split
    always makes smaller units, whatever the budget)."""
    sizes = [int(x) for x in np.asarray(split["rsizes"]).tolist()]
    if int(split["guess"]) < 0:
        return [(i, i + 1) for i in range(len(sizes))]
    groups: list[tuple[int, int]] = []
    lo, size = 0, 0
    for i, n in enumerate(sizes):
        size += n
        if size >= UNIT_FLOOR:
            groups.append((lo, i + 1))
            lo, size = i + 1, 0
    if lo < len(sizes):
        groups.append((lo, len(sizes)))
    return groups


def merge_split(
    key: str, args: dict[str, Any], split: dict[str, Any], answers: dict[str, dict[str, Any]]
) -> Optional[dict[str, Any]]:
    """The answer of unit ``key`` (arguments ``args``) that split, once every sub-unit
    has its own (None before): the walked subtrees' and the sub-units' rows in order,
    folded back into the split node when the unit had split one level down (its guess,
    its win, its records on top).  Exactly the answer of the unit walked whole."""
    done = int(split["done"])
    groups = child_groups(split)
    if len(answers) < len(groups):
        return None
    tree = bool(args["tree"])
    rows = list(np.asarray(split["dists"]))
    recs: list[np.ndarray] = []
    if tree:
        cuts = np.cumsum(split["rec_counts"])[:-1]
        recs = [r for r in np.split(split["recs"], cuts)] if done else []
    for lo, hi in groups:
        answer = answers[f"{key}/{done + lo}"]
        rows.extend(np.asarray(answer["dists"])[: hi - lo])
        if tree:
            cuts = np.cumsum(answer["rec_counts"])[:-1]
            recs.extend(np.split(np.asarray(answer["recs"]), cuts))
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
    g = _walk.choose(
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
    if flag.value != _core.STOP_NONE or g < 0:  # stopped part-way: the guess is void
        raise Stopped("the scan was stopped")
    return int(g)


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
