"""What an analysis unit does on its worker, and how a split unit's answer is put back
together (the plan that makes the units is :mod:`mastermind.analysis.units`).

* :func:`scan_unit`: one block of a large node's guess scan: the block's best guess by the
  strategy's choice rule, with its key.
* :func:`walk_unit`: subtrees walked by the kernel; past its budget, a unit hands back
  the subtrees it had not walked (after playing its node's guess, when it holds one
  subtree), and :mod:`mastermind.analysis.splits` makes them sub-units and folds their
  answers back: exactly the answer of the unit walked whole.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from ..kernel import _core, _symmetry
from ..rules import Strategy
from ..stopping import Stopped, TimeLimitReached, new_flag
from ..strategy_tree import split_by_score
from . import _scan, _walk
from .splits import UNIT_FLOOR, answer_of, merge_split
from .walk import How, Task, guess_lists, walk_tasks

if TYPE_CHECKING:
    from ..game import GameCore

__all__ = [
    "PROBE",
    "SPLIT_MIN",
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


_NODES: dict[tuple, tuple] = {}
_NODES_LOCK = threading.Lock()


def _how(strategy: str, *, candidates_only: bool, tree: bool, symmetry: bool, plain: bool) -> How:
    """How a unit plays (its arguments), on one thread."""
    return How(
        Strategy.parse(strategy),
        candidates_only=candidates_only,
        tree=tree,
        symmetry=symmetry,
        plain=plain,
        threads=1,
    )


def _node_lists(
    game: GameCore, how: How, history: np.ndarray, slots: np.ndarray, flag: Any
) -> tuple[np.ndarray, np.ndarray]:
    """A node's candidates (the secrets left by its history's scores) and the guesses
    the walk scans there (its candidates, one guess per symmetry class of its history, or
    every guess); the last few nodes kept per process (a node's blocks share them)."""
    key = (id(game), how.candidates_only, how.symmetry, history.tobytes(), slots.tobytes())
    with _NODES_LOCK:
        hit = _NODES.get(key)
    if hit is not None and hit[0] is game:
        return hit[1], hit[2]
    cands = game.secrets
    for g, s in zip(history.tolist(), slots.tolist()):
        cands = game.kernel.filter(int(g), int(s), cands)
    if how.candidates_only:
        glist = cands
    elif how.symmetry:
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
    game: GameCore,
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
    how = _how(
        strategy, candidates_only=candidates_only, tree=False, symmetry=symmetry, plain=False
    )
    history = np.ascontiguousarray(history, dtype=np.int32)
    cands, glist = _node_lists(game, how, history, np.asarray(slots, dtype=np.int32), flag)
    block = np.ascontiguousarray(glist[int(lo) : int(hi)])
    g, key, cand = _scan.best_guess(game.kernel, block, cands, how.strategy.kind, 1, flag)
    if flag.value != _core.STOP_NONE:  # stopped or past a deadline: the answer is partial
        raise Stopped("the scan was stopped")
    return {"guess": int(g), "key": int(key), "cand": int(bool(cand))}


def walk_unit(
    game: GameCore,
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
    :data:`PROBE` of it (:func:`_probe`); past that, it may split: a unit of one subtree
    (of :data:`SPLIT_MIN` candidates or more) plays its node's guess here and walks the
    subtrees below it (:func:`_one_level_down`), a unit of several walks them, in small
    batches (:func:`_walk_batches`); past the budget it stops and hands back a split
    (``split=1``, :func:`_split_answer`): the rows of the subtrees walked so far and the
    subtrees left (:meth:`AnalysisPlan.expand` makes them units).  The probe and the
    batch in progress when the budget ran out are the only work lost."""
    flag = stop if stop is not None else new_flag()
    how = _how(strategy, candidates_only=candidates_only, tree=tree, symmetry=symmetry, plain=plain)
    cuts = np.cumsum(sizes)[:-1]
    sel = [
        Task(np.ascontiguousarray(c), int(d), np.ascontiguousarray(h[:hl]), None, None)
        for c, d, h, hl in zip(np.split(cands, cuts), depths, histories, hlens)
    ]
    if budget is None or (len(sel) == 1 and sel[0].cands.size < SPLIT_MIN):
        # (a subtree too small to split is walked whole: a split must make progress)
        dists, recs = walk_tasks(game, how, sel, flag)
        return answer_of(dists, recs if tree else None)
    deadline = _core.monotonic() + max(0.0, budget)
    if budget > 0:  # most units are far below their budget: first, the plain walk
        whole = _probe(game, how, sel, flag, budget * PROBE)
        if whole is not None:
            return whole
    if len(sel) == 1 and sel[0].cands.size >= SPLIT_MIN:
        down = _one_level_down(game, how, sel[0], flag)
    else:
        down = _Down(-1, 0, int(depths[0]) if depths.size else 0, sel, [-1] * len(sel))
    rows, recs_done, done = _walk_batches(game, how, down.sel, flag, deadline)
    if down.guess < 0 and done == len(down.sel):  # walked whole within its budget
        return answer_of(np.array(rows), recs_done if tree else None)
    out = _splitanswer_of(down, rows, recs_done if tree else None, done)
    if done == len(down.sel):  # split one level down and walked whole within its budget
        return merge_split("", {"tree": tree, "sizes": sizes}, out, {})  # type: ignore
    return out


def _probe(game: GameCore, how: How, sel: list[Task], flag: Any, seconds: float) -> Optional[dict]:
    """The unit's subtrees walked whole, if that takes at most ``seconds``; None past
    them (the flag cleared for what comes next)."""
    flag.set_time_limit(seconds)
    try:
        dists, recs = walk_tasks(game, how, sel, flag)
        return answer_of(dists, recs if how.tree else None)
    except (Stopped, TimeLimitReached):
        if flag.value != _core.STOP_DEADLINE:
            raise
        flag.clear()
        return None
    finally:
        flag.set_time_limit(0)


class _Down(NamedTuple):
    """What a unit walks after its probe: the guess it played at its node (or -1), its
    win there (0 or 1), the node's depth, the subtrees to walk and their slots."""

    guess: int
    won: int
    depth: int
    sel: list[Task]
    slots: list[int]


def _one_level_down(game: GameCore, how: How, t: Task, flag: Any) -> _Down:
    """A unit of one subtree: its node's guess played here, the parts below it."""
    guess = _node_guess(game, how, t, flag)
    history = np.append(t.history, np.int32(guess)).astype(np.int32)
    won, sel, slots = 0, [], []
    for slot, part in split_by_score(game, guess, t.cands):
        if slot == game.win_slot:
            won = 1
        else:
            sel.append(Task(part, t.depth + 1, history, None, None))
            slots.append(slot)
    return _Down(guess, won, t.depth, sel, slots)


def _walk_batches(
    game: GameCore, how: How, sel: list[Task], flag: Any, deadline: float
) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """``sel`` walked in small batches until the ``deadline``: the distribution rows and
    records of the subtrees walked, and how many they are."""
    rows: list[np.ndarray] = []
    recs_done: list[np.ndarray] = []
    done = 0
    total = sum(int(t.cands.size) for t in sel)
    # each history's guesses computed once for the unit, not once per batch
    lists = guess_lists(game, how, sel, flag) if sel else (None, None, None)
    for batch in _batches(sel, max(UNIT_FLOOR, total // 16)):
        left = deadline - _core.monotonic()
        if left <= 0:
            break
        flag.set_time_limit(left)
        try:
            part = sel[done : done + batch]
            dists, recs = walk_tasks(game, how, part, flag, lists=lists, first=done)
        except (Stopped, TimeLimitReached):  # (the kernel's, or a check between calls)
            if flag.value != _core.STOP_DEADLINE:
                raise
            flag.clear()
            break
        finally:
            flag.set_time_limit(0)
        rows.extend(dists)
        if how.tree and recs is not None:
            recs_done.extend(recs)
        done += batch
    return rows, recs_done, done


def _splitanswer_of(
    down: _Down, rows: list[np.ndarray], recs: Optional[list], done: int
) -> dict[str, Any]:
    """A split: the rows of the ``done`` subtrees walked, and the subtrees left."""
    width = max([r.size for r in rows], default=1)
    dists = np.zeros((done, width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    rest = down.sel[done:]
    hwidth = max([t.history.size for t in rest], default=1)
    rhist = np.zeros((len(rest), max(1, hwidth)), dtype=np.int32)
    for i, t in enumerate(rest):
        rhist[i, : t.history.size] = t.history
    out = answer_of(dists, recs)
    out.update(
        {
            "split": 1,
            "guess": int(down.guess),
            "won": int(down.won),
            "depth": int(down.depth),
            "done": done,
            "wsizes": np.array([t.cands.size for t in down.sel], dtype=np.int64),
            "wslots": np.array(down.slots, dtype=np.int32),
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
    return out


def _node_guess(game: GameCore, how: How, t: Task, flag: Any) -> int:
    """The guess the kernel's walk plays at the root of subtree ``t``: the rule's scan
    over the guesses the walk scans there (one per symmetry class of the history)."""
    guesses = game.guesses
    if how.symmetry and not how.candidates_only:
        guesses = _symmetry.canonical_guesses(game.kernel, game.guesses, t.history, flag)
    g = _walk.choose(
        game.kernel,
        guesses,
        t.cands,
        how.strategy.kind,
        cands_only=how.candidates_only,
        shortcut_ok=game.secrets_are_guesses,
        threads=1,
        blanks=how.blanks(game),
        stop=flag,
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
