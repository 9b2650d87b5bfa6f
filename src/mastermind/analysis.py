"""Exhaustive analysis: play a strategy against every secret (DESIGN section 3).

>>> from mastermind.game import Game
>>> a = analyze(Game(4, 6), "minmax")
>>> a.total, a.max, a.distribution, str(a.average)
(5801, 5, {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}, '5801/1296')
>>> [(str(s.guess_text), str(s.score)) for s in solve(Game(4, 6), "6543")][:2]
[('1122', '0 0'), ('3345', '1 2')]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional, Union

import numpy as np

from . import _symmetry, _walk, checks
from .game import CodeLike, Game, Score
from .rules import DistributionSummary
from .stopping import new_flag, run_stoppable, stopped
from .strategies import (_STOPPABLE_PAIRS, Strategy, Valuations, choose_guess, first_guess,
                         next_guess, symmetry_classes)

Progress = Callable[[int, int], None]


@dataclass
class Node:
    """One node of a strategy tree: the guess played with ``size`` candidates left."""

    guess: int
    size: int
    children: dict[Score, "Node"] = field(default_factory=dict)

    def walk(self, depth: int = 1) -> Iterator[tuple[int, "Node"]]:
        """(depth, node) for every node, depth-first, the root at ``depth``."""
        yield depth, self
        for child in self.children.values():
            yield from child.walk(depth + 1)

    def to_json(self, game: Game) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": game.format_code(self.guess), "candidates": self.size}
        if self.children:
            out["children"] = {str(s): c.to_json(game) for s, c in self.children.items()}
        return out


@dataclass
class Analysis(DistributionSummary):
    """The result of :func:`analyze`."""

    game: Game
    strategy: Strategy
    candidates_only: bool
    first_guess: int
    distribution: dict[int, int]
    seconds: float = 0.0
    tree: Optional[Node] = None
    units: Optional[int] = None          # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held


    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pegs": self.game.n,
            "colours": self.game.k,
            "variant": self.game.variant.value,
            "strategy": self.strategy.value,
            "candidates_only": self.candidates_only,
            "first_guess": self.game.format_code(self.first_guess),
            "secrets": self.secrets,
            "total": self.total,
            "average": float(self.average),
            "average_fraction": f"{self.average.numerator}/{self.average.denominator}",
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "seconds": round(self.seconds, 6),
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
        if self.tree is not None:
            out["tree"] = self.tree.to_json(self.game)
        return out

    def plot(self, ax: Any = None) -> Any:
        """The distribution as bars on ``ax`` (default: a new figure), the game and the
        average in the title; returns the axes.  Needs matplotlib (``pip install
        'mastermind[plot]'``); :func:`mastermind.plot.save_plot` draws it to a file."""
        from .plot import plot_analysis

        return plot_analysis(self, ax)

    def _repr_html_(self) -> str:
        from .notebook import analysis_html

        return analysis_html(self)


def _resolve_first(game: Game, strategy: Strategy, candidates_only: bool,
                   first: Optional[CodeLike], plain: bool = False) -> int:
    if first is None and plain:  # the full scan, not the symmetry classes
        return choose_guess(game, game.secrets, strategy, candidates_only)
    if first is None:
        return first_guess(game, strategy, candidates_only)
    g = game.guess(first)
    if candidates_only and not game.is_secret(g):
        raise ValueError(f"{game.format_code(g)} is not a candidate, and only candidates may be played")
    return g


def analyze(game: Game, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
            candidates_only: bool = False, first: Optional[CodeLike] = None,
            tree: bool = False, jobs: Optional[int] = None,
            progress: Optional[Progress] = None, symmetry: bool = True,
            plain: bool = False, time_limit: Optional[float] = None,
            scheduler: Optional[str] = None, client: Any = None,
            checkpoint: Optional[str] = None) -> Analysis:
    """Play ``strategy`` against every secret of ``game``.

    Parameters
    ----------
    candidates_only : only candidates may be guessed (else every code of the guess set).
    first : the opening guess; by default the one the rule chooses.
    tree : also return the strategy tree (:class:`Node`).
    jobs : threads sharing the work (default: all cores, at most
        :data:`mastermind.checks.MAX_JOBS`); the result does not depend on it.
    progress : called as ``progress(secrets_done, secrets_total)`` (with a scheduler or
        a checkpoint: ``progress(units_done, units_to_run)``).
    symmetry : scan one guess per symmetry class at each node (DESIGN section 5); the
        result is identical either way, only the time differs.
    plain : score every allowed guess in full at every node: no symmetry, bound or
        shortcut (slow; the reference the fast path is tested against).
    time_limit : seconds; :class:`mastermind.stopping.TimeLimitReached` is raised when
        they run out.  Ctrl-C (KeyboardInterrupt) stops the kernel's threads too.
    scheduler : run the subtrees as units of work on a Dask cluster: its address
        (``"tcp://host:8786"``), or ``"local:N"`` for N worker processes on this machine
        (needs ``pip install 'mastermind[distributed]'``; docs/distributed.md).
    client : an existing ``distributed.Client`` to run the units on instead.
    checkpoint : an SQLite file recording each finished unit; the same call again
        resumes (:mod:`mastermind.checkpoint`).  The result never depends on these three.
    """
    strategy = Strategy.parse(strategy)
    checks.game(game, "analyze")
    threads = checks.threads(jobs)
    progress = checks.progress(progress)
    limit = checks.time_limit(time_limit)
    if scheduler is not None or client is not None or checkpoint is not None:
        from .units_analysis import analyze_units

        return analyze_units(game, strategy, candidates_only=candidates_only, first=first,
                             tree=tree, threads=threads, progress=progress,
                             symmetry=symmetry, plain=plain, time_limit=limit,
                             scheduler=scheduler, client=client, checkpoint=checkpoint)
    flag = new_flag(limit)
    start = time.perf_counter()
    g0 = _resolve_first(game, strategy, candidates_only, first, plain)
    use_symmetry = symmetry and game.symmetric and not plain
    # every code may be guessed: colours absent from all candidates act as one blank
    blanks = use_symmetry and game.guesses.size == game.size
    kernel = game.kernel
    total = int(game.secrets.size)
    if total <= _DIRECT_MAX:
        # A small game is walked whole by the kernel in this thread: cheaper than
        # expanding its top in Python and waking threads for work this small.
        if progress:
            progress(0, total)
        counts, recs, _ = run_stoppable(lambda f: _walk.walk(
            kernel, game.guesses, game.secrets, strategy.kind, candidates_only,
            game.secrets_are_guesses, g0, 1, tree, None, use_symmetry, 1, blanks, plain, f),
            flag, inline=True)
        if progress:
            progress(total, total)
        return Analysis(game, strategy, candidates_only, g0,
                        {d: int(c) for d, c in enumerate(counts.tolist()) if c},
                        time.perf_counter() - start,
                        _in_score_order(_build_tree(game, recs)) if tree else None)
    top = _expand_top(game, strategy, candidates_only, g0, tree, use_symmetry, plain,
                      threads, flag)
    dist, root, sel = top.dist, top.root, top.tasks
    done = total - sum(t.cands.size for t in sel)
    if progress:
        progress(done, total)
    # All subtrees go to the kernel in one call, largest first so that every thread stays
    # busy to the end; the call runs in a helper thread (the kernel releases the GIL)
    # while this one reports progress from the kernel's counter.
    if sel:
        counter = np.zeros(1, dtype=np.int64)

        def report() -> None:
            if progress:
                progress(done + int(counter[0]), total)

        dists, recs = run_stoppable(lambda f: walk_tasks(
            game, strategy, candidates_only, tree, use_symmetry, plain, threads, sel,
            counter, f), flag, every=report)
        graft(game, sel, dists, recs, dist)
        done += sum(int(t.cands.size) for t in sel)
        if progress:
            progress(done, total)
    if root is not None:
        _in_score_order(root)
    distribution = dict(sorted(dist.items()))
    return Analysis(game, strategy, candidates_only, g0, distribution,
                    time.perf_counter() - start, root)


class Task(NamedTuple):
    """A subtree below the expanded top: its candidates, the number of its first guess,
    the guesses played before it, and where its tree hangs (parent node, score)."""

    cands: np.ndarray
    depth: int
    history: np.ndarray
    parent: Optional[Node]
    score: Score


@dataclass
class Top:
    """The expanded top of a strategy tree: the secrets found there (``dist``), the tree
    so far (``root``, when asked for) and the subtrees below it, largest first."""

    dist: dict[int, int]
    root: Optional[Node]
    tasks: list[Task]


def _expand_top(game: Game, strategy: Strategy, candidates_only: bool, g0: int, tree: bool,
                use_symmetry: bool, plain: bool, threads: int, flag: Any) -> Top:
    """The top two levels of the strategy tree, expanded here (their large scans shared
    by ``threads`` threads); the independent subtrees below them, largest first."""
    kernel = game.kernel
    total = int(game.secrets.size)
    blanks = use_symmetry and game.guesses.size == game.size
    dist: dict[int, int] = {}
    root = Node(g0, total) if tree else None
    tasks: list[Task] = []
    h1 = np.array([g0], dtype=np.int32)
    level2 = (run_stoppable(lambda f: _symmetry.canonical_guesses(kernel, game.guesses, h1, f),
                            flag)
              if use_symmetry and not candidates_only else game.guesses)
    stopped(flag)
    expand_min = _EXPAND_MIN if not plain else total + 1
    for s1, part in _split(game, g0, game.secrets):
        if s1 == game.win_slot:
            dist[1] = dist.get(1, 0) + 1
            continue
        if part.size <= expand_min:
            tasks.append(Task(part, 2, h1, root, game.slots[s1]))
            continue
        # a small scan runs here: a worker thread (and the new OpenMP team it starts)
        # for each part measured 0.7 ms a call, more than the scan itself on [5,8]
        g2 = int(run_stoppable(lambda f: _walk.choose(
            kernel, level2, part, strategy.kind, candidates_only, game.secrets_are_guesses,
            threads, blanks, f), flag, inline=level2.size * part.size < _STOPPABLE_PAIRS))
        stopped(flag)  # a deadline leaves choose's answer partial: not the rule's guess
        node = Node(g2, int(part.size)) if tree else None
        if root is not None:
            root.children[game.slots[s1]] = node  # type: ignore[assignment]
        h2 = np.array([g0, g2], dtype=np.int32)
        for s2, sub in _split(game, g2, part):
            if s2 == game.win_slot:
                dist[2] = dist.get(2, 0) + 1
            else:
                tasks.append(Task(sub, 3, h2, node, game.slots[s2]))
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].cands.size)
    return Top(dist, root, [tasks[i] for i in order])


def walk_tasks(game: Game, strategy: Strategy, candidates_only: bool, tree: bool,
               use_symmetry: bool, plain: bool, threads: int, sel: list[Task],
               counter: Optional[np.ndarray], flag: Any) -> tuple[np.ndarray, Optional[list]]:
    """The kernel's walk of the subtrees ``sel`` (in that order, one per thread): their
    distributions, one row each, and their records (or None).  Each subtree's answer
    depends on it alone, never on the threads or on the other subtrees."""
    cands = np.concatenate([t.cands for t in sel])
    offsets = np.concatenate([[0], np.cumsum([t.cands.size for t in sel])]).astype(np.int64)
    depths = np.array([t.depth for t in sel], dtype=np.int32)
    width = max(1, max(t.history.size for t in sel))
    histories = np.zeros((len(sel), width), dtype=np.int32)
    for row, t in enumerate(sel):
        histories[row, :t.history.size] = t.history
    hlens = np.array([t.history.size for t in sel], dtype=np.int32)
    blanks = use_symmetry and game.guesses.size == game.size
    glists, goffsets, task_glist = _guess_lists(game, sel, use_symmetry and not candidates_only,
                                                flag)
    stopped(flag)
    dists, recs, _ = _walk.walk_many(
        game.kernel, game.guesses, cands, offsets, depths, histories, hlens, strategy.kind,
        candidates_only, game.secrets_are_guesses, tree, use_symmetry, blanks, threads,
        plain, glists, goffsets, task_glist, counter, flag)
    return dists, recs


def graft(game: Game, sel: list[Task], dists: np.ndarray, recs: Optional[list],
          dist: dict[int, int]) -> None:
    """Add the walked subtrees' distributions to ``dist`` and hang their trees."""
    for depth, count in enumerate(dists.sum(axis=0).tolist()):
        if count:
            dist[depth] = dist.get(depth, 0) + count
    for row, t in enumerate(sel):
        if t.parent is not None and recs is not None:
            t.parent.children[t.score] = _build_tree(game, recs[row])


_EXPAND_MIN = 64  # parts this small are walked whole by one thread
_DIRECT_MAX = 2500  # games this small are walked whole by one thread ([4,7] and smaller)


def _in_score_order(root: Node) -> Node:
    """``root``, every node's children sorted by score."""
    for _, node in root.walk():
        node.children = dict(sorted(node.children.items()))
    return root


def _guess_lists(game: Game, tasks: list[Task], symmetric: bool, flag: Any
                 ) -> tuple[Optional[np.ndarray], Optional[np.ndarray], Optional[np.ndarray]]:
    """The canonical guesses of each distinct history among ``tasks``, computed once:
    (concatenated lists, offsets, list number of every task); Nones without symmetry."""
    if not symmetric:
        return None, None, None
    index: dict[bytes, int] = {}
    lists: list[np.ndarray] = []
    task_glist = np.empty(len(tasks), dtype=np.int32)
    for i, t in enumerate(tasks):
        key = t.history.tobytes()
        if key not in index:
            index[key] = len(lists)
            lists.append(_symmetry.canonical_guesses(game.kernel, game.guesses, t.history,
                                                     flag))
        task_glist[i] = index[key]
    offsets = np.concatenate([[0], np.cumsum([g.size for g in lists])]).astype(np.int64)
    return np.concatenate(lists).astype(np.int32), offsets, task_glist


def _split(game: Game, guess: int, cands: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The non-empty parts of ``cands`` by score against ``guess``, in slot order (each
    part sorted)."""
    labels = game.kernel.slots(guess, cands)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(game.nslots + 1))
    return [(s, np.ascontiguousarray(cands[order[bounds[s]:bounds[s + 1]]]))
            for s in range(game.nslots) if bounds[s + 1] > bounds[s]]


def _build_tree(game: Game, recs: np.ndarray) -> Node:
    """Nodes from the kernel's records (parent, slot, guess, size, depth), depth-first.

    Children are keyed by score, in slot order; the winning score has no child (the game
    ends there), so a node of size 1 without children is the winning guess.
    """
    nodes: list[Node] = []
    for parent, slot, guess, size, _depth in recs.tolist():
        node = Node(guess, size)
        nodes.append(node)
        if parent >= 0:
            nodes[parent].children[game.slots[slot]] = node
    return nodes[0]


@dataclass(frozen=True)
class Step:
    """One guess of a solved game: the guess, its score, and the candidates left after."""

    guess: int
    score: Score
    remaining: int
    guess_text: str


def solve(game: Game, secret: CodeLike, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
          candidates_only: bool = False, first: Optional[CodeLike] = None,
          jobs: Optional[int] = None) -> list[Step]:
    """The trace of one game against ``secret``: a list of :class:`Step`.  Ctrl-C stops it
    (within a fraction of a second, even on [8,8])."""
    strategy = Strategy.parse(strategy)
    checks.game(game, "solve")
    checks.threads(jobs)
    target = game.secret(secret)
    cands = game.secrets
    g = _resolve_first(game, strategy, candidates_only, first)
    steps: list[Step] = []
    win = game.slots[game.win_slot]
    while True:
        score = game.score_index(g, target)
        cands = game.kernel.filter(g, game.slot(score), cands)
        steps.append(Step(g, score, int(cands.size), game.format_code(g)))
        if score == win:
            return steps
        if len(steps) > 64:  # pragma: no cover - every strategy here splits or wins
            raise RuntimeError("the strategy does not terminate")
        g = next_guess(game, cands, strategy, candidates_only=candidates_only,
                       history=[st.guess for st in steps], jobs=jobs).guess


@dataclass(frozen=True)
class FirstGuessRow:
    """The four valuations of one first-guess symmetry class."""

    guess: int
    code: str
    table: tuple[int, ...]
    values: Valuations


def first_guess_table(game: Game) -> list[FirstGuessRow]:
    """All four valuations of every first-guess class (DESIGN section 2, "tab02").

    >>> from mastermind.game import Game
    >>> [(r.code, r.values.max_part, r.values.parts) for r in first_guess_table(Game(4, 6))]
    [('1111', 625, 5), ('1112', 317, 11), ('1122', 256, 13), ('1123', 276, 14), ('1234', 312, 14)]
    """
    rows = []
    for g in symmetry_classes(game):
        table = game.partition(g)
        rows.append(FirstGuessRow(g, game.format_code(g), tuple(int(x) for x in table),
                                  Valuations.of(table)))
    return rows
