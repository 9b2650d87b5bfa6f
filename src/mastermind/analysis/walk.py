"""The strategy tree of a one-step strategy, as the analyses build it: its top two levels
expanded here (their large scans on every thread), the independent subtrees below them
walked by the kernel (:func:`walk_tasks`), the pieces put back together (:func:`graft`).

The in-process analysis (:func:`mastermind.analysis.exhaustive.analyze`) and its plan of units
(:mod:`mastermind.analysis.units`) both build on these, so both give the same tree
(a :class:`mastermind.strategy_tree.Node` at each guess).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from ..checks import ArgumentError
from ..game import CodeLike, Score
from ..kernel import _symmetry
from ..limits import INLINE_PAIRS
from ..stopping import run_stoppable, stopped
from ..strategy_tree import Node, build_tree, split_by_score
from . import _walk
from .strategies import Strategy, choose_guess, first_guess

if TYPE_CHECKING:
    from ..game import GameCore, GameLike

__all__ = [
    "EXPAND_MIN",
    "How",
    "Task",
    "Top",
    "expand_top",
    "graft",
    "guess_lists",
    "resolve_first",
    "walk_tasks",
]


class How(NamedTuple):
    """How an analysis plays, beside its game and opening: the strategy, the guess pool
    (``candidates_only``), whether it builds the tree, scans one guess per symmetry
    class (``symmetry``, never with ``plain``) or scores every guess in full (``plain``),
    and the threads it may use."""

    strategy: Strategy
    candidates_only: bool = False
    tree: bool = False
    symmetry: bool = False
    plain: bool = False
    threads: int = 1

    def blanks(self, game: GameCore) -> bool:
        """Whether colours absent from every candidate may be scanned as one (symmetry
        over a guess set of every code)."""
        return self.symmetry and game.guesses.size == game.size


def resolve_first(
    game: GameLike,
    strategy: Strategy,
    first: Optional[CodeLike],
    *,
    candidates_only: bool,
    plain: bool = False,
) -> int:
    """The opening: ``first`` checked (a candidate when only candidates may be played),
    or the one the rule chooses (over the symmetry classes; with ``plain``, by the full
    scan)."""
    if first is None and plain:  # the full scan, not the symmetry classes
        return choose_guess(game, game.secrets, strategy, candidates_only=candidates_only)
    if first is None:
        return first_guess(game, strategy, candidates_only=candidates_only)
    g = game.guess(first)
    if candidates_only and not game.is_secret(g):
        raise ArgumentError(
            f"{game.format_code(g)} is not a candidate, and only candidates may be played"
        )
    return g


class Task(NamedTuple):
    """A subtree below the expanded top: its candidates, the number of its first guess,
    the guesses played before it, and where its tree hangs (parent node, score; None
    for a subtree walked on a worker, whose tree the plan hangs)."""

    cands: np.ndarray
    depth: int
    history: np.ndarray
    parent: Optional[Node]
    score: Optional[Score]


@dataclass
class Top:
    """The expanded top of a strategy tree: the secrets found there (``dist``), the tree
    so far (``root``, when asked for) and the subtrees below it, largest first."""

    dist: dict[int, int]
    root: Optional[Node]
    tasks: list[Task]


def expand_top(game: GameLike, how: How, g0: int, flag: Any) -> Top:
    """The top two levels of the strategy tree, expanded here (their large scans shared
    by the threads of ``how``); the independent subtrees below them, largest first."""
    kernel = game.kernel
    total = int(game.secrets.size)
    dist: dict[int, int] = {}
    root = Node(g0, total) if how.tree else None
    tasks: list[Task] = []
    h1 = np.array([g0], dtype=np.int32)
    level2 = (
        run_stoppable(lambda f: _symmetry.canonical_guesses(kernel, game.guesses, h1, f), flag)
        if how.symmetry and not how.candidates_only
        else game.guesses
    )
    stopped(flag)
    expand_min = EXPAND_MIN if not how.plain else total + 1
    for s1, part in split_by_score(game, g0, game.secrets):
        if s1 == game.win_slot:
            dist[1] = dist.get(1, 0) + 1
            continue
        if part.size <= expand_min:
            tasks.append(Task(part, 2, h1, root, game.slots[s1]))
            continue
        g2 = int(
            run_stoppable(
                partial(_choose, game, how, level2, part),
                flag,
                inline=level2.size * part.size < INLINE_PAIRS,
            )
        )
        stopped(flag)  # a deadline leaves choose's answer partial: not the rule's guess
        node = Node(g2, int(part.size)) if how.tree else None
        if root is not None:
            root.children[game.slots[s1]] = node  # type: ignore[assignment]
        h2 = np.array([g0, g2], dtype=np.int32)
        for s2, sub in split_by_score(game, g2, part):
            if s2 == game.win_slot:
                dist[2] = dist.get(2, 0) + 1
            else:
                tasks.append(Task(sub, 3, h2, node, game.slots[s2]))
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].cands.size)
    return Top(dist, root, [tasks[i] for i in order])


def _choose(game: GameLike, how: How, guesses: np.ndarray, cands: np.ndarray, flag: Any) -> int:
    """The kernel's walk's guess at a node (every thread of ``how``)."""
    return _walk.choose(
        game.kernel,
        guesses,
        cands,
        how.strategy.kind,
        cands_only=how.candidates_only,
        shortcut_ok=game.secrets_are_guesses,
        threads=how.threads,
        blanks=how.blanks(game),
        stop=flag,
    )


def walk_tasks(
    game: GameCore,
    how: How,
    sel: list[Task],
    flag: Any,
    *,
    counter: Optional[np.ndarray] = None,
    lists: Optional[tuple] = None,
    first: int = 0,
) -> tuple[np.ndarray, Optional[list]]:
    """The kernel's walk of the subtrees ``sel`` (in that order, one per thread of
    ``how``): their distributions, one row each, and their records (or None).  Each
    subtree's answer depends on it alone, never on the threads or on the other subtrees;
    ``counter[0]`` counts the secrets found so far.

    ``lists``: the guess lists (:func:`guess_lists`) of a longer list of subtrees, of
    which ``sel`` starts at place ``first`` (computed once when the list is walked in
    batches); by default they are computed for ``sel``."""
    cands = np.concatenate([t.cands for t in sel])
    offsets = np.concatenate([[0], np.cumsum([t.cands.size for t in sel])]).astype(np.int64)
    depths = np.array([t.depth for t in sel], dtype=np.int32)
    width = max(1, max(t.history.size for t in sel))
    histories = np.zeros((len(sel), width), dtype=np.int32)
    for row, t in enumerate(sel):
        histories[row, : t.history.size] = t.history
    hlens = np.array([t.history.size for t in sel], dtype=np.int32)
    if lists is None:
        glists, goffsets, task_glist = guess_lists(game, how, sel, flag)
    else:
        glists, goffsets, task_glist = lists
        if task_glist is not None:
            task_glist = np.ascontiguousarray(task_glist[first : first + len(sel)])
    stopped(flag)
    dists, recs, _ = _walk.walk_many(
        game.kernel,
        game.guesses,
        cands,
        offsets,
        depths,
        histories,
        hlens,
        how.strategy.kind,
        cands_only=how.candidates_only,
        shortcut_ok=game.secrets_are_guesses,
        record=how.tree,
        symmetry=how.symmetry,
        blanks=how.blanks(game),
        threads=how.threads,
        plain=how.plain,
        glists=glists,
        goffsets=goffsets,
        task_glist=task_glist,
        done=counter,
        stop=flag,
    )
    return dists, recs


def graft(
    game: GameLike, sel: list[Task], dists: np.ndarray, recs: Optional[list], dist: dict[int, int]
) -> None:
    """Add the walked subtrees' distributions to ``dist`` and hang their trees."""
    for depth, count in enumerate(dists.sum(axis=0).tolist()):
        if count:
            dist[depth] = dist.get(depth, 0) + count
    for row, t in enumerate(sel):
        if t.parent is not None and t.score is not None and recs is not None:
            t.parent.children[t.score] = build_tree(game, recs[row])


EXPAND_MIN = 64  # parts this small are walked whole by one thread


def guess_lists(
    game: GameCore, how: How, tasks: list[Task], flag: Any
) -> tuple[Optional[np.ndarray], Optional[np.ndarray], Optional[np.ndarray]]:
    """The canonical guesses of each distinct history among ``tasks``, computed once:
    (concatenated lists, offsets, list number of every task); Nones without symmetry (or
    when only candidates are played: the walk scans them)."""
    if not how.symmetry or how.candidates_only:
        return None, None, None
    index: dict[bytes, int] = {}
    lists: list[np.ndarray] = []
    task_glist = np.empty(len(tasks), dtype=np.int32)
    for i, t in enumerate(tasks):
        key = t.history.tobytes()
        if key not in index:
            index[key] = len(lists)
            lists.append(_symmetry.canonical_guesses(game.kernel, game.guesses, t.history, flag))
        task_glist[i] = index[key]
    offsets = np.concatenate([[0], np.cumsum([g.size for g in lists])]).astype(np.int64)
    return np.concatenate(lists).astype(np.int32), offsets, task_glist
