"""Worst-case bounds: :func:`solution_exists` and the exact optimum :func:`worst_case`
(DESIGN section 4).

``solution_exists(game, d)`` decides whether some strategy finds every candidate within
``d`` guesses (the winning guess counts).  The search (in :mod:`mastermind._core`) is
exact: it only cuts with proved bounds, so a ``False`` is a proof.  A ``True`` can come
with its witness, a strategy tree that :func:`check_strategy` verifies independently by
playing it, with a plain-Python scorer, against every candidate.

>>> from mastermind.game import Game
>>> g = Game(3, 3)
>>> solution_exists(g, 3), solution_exists(g, 4)
(False, True)
>>> ok, tree = solution_exists(g, 4, witness=True)
>>> check_strategy(g, tree)
4
>>> w = worst_case(Game(4, 6))
>>> w.lower, w.upper, w.exact
(5, 5, True)
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Optional, Union, overload

import numpy as np

from . import _core, _search
from . import checks
from .analysis import Node, analyze
from .custom import CustomGame
from .game import CodeLike, Game, Score, reference_score
from .rules import guesses_text
from .stopping import TimeLimitReached, new_flag, run_stoppable
from .strategies import Strategy, symmetry_classes

DEFAULT_MEMORY = 1 << 30  # bytes the memo of one search may use
_QUICK = 2.0  # seconds a cheap proof at the lower bound may take (a quarter of a limit)
_FIND_MIN = 2500  # games with this many secrets search their gap with mastermind.finder


class BoundsError(ValueError):
    """Bad arguments to a bounds function."""


class StrategyCheckError(ValueError):
    """A strategy tree that does not do what it claims."""


class SearchUnfinished(Exception):
    """The search stopped before it had an answer (time limit, node budget, Ctrl-C).

    Attributes
    ----------
    reason : ``"time-limit"``, ``"node-limit"`` or ``"interrupted"``.
    nodes : nodes searched before it stopped.
    seconds : time spent.
    """

    def __init__(self, reason: str, nodes: int, seconds: float):
        super().__init__(f"search stopped ({reason}) after {nodes:,} nodes, {seconds:.1f} s")
        self.reason = reason
        self.nodes = nodes
        self.seconds = seconds


_REASONS = {_core.STOP_DEADLINE: "time-limit", _core.STOP_REQUESTED: "interrupted",
            _core.STOP_NODE_LIMIT: "node-limit"}


class Witnessed(NamedTuple):
    """``solution_exists(..., witness=True)``: the answer and, when True, the strategy."""

    exists: bool
    tree: Optional[Node]


@dataclass
class SearchStats:
    """What a search cost: nodes expanded (memo misses with >= 3 candidates, including
    the d = 2 separation checks), memo hits and entries, seconds."""

    nodes: int = 0
    leaves: int = 0
    hits: int = 0
    memo_entries: int = 0
    seconds: float = 0.0


# ---------------------------------------------------------------------- the searcher
class _Search:
    """One exact search context (guess set, mode, memo) over a game."""

    def __init__(self, game: Game, guesses: np.ndarray, candidates_only: bool,
                 symmetry: bool, memory: int):
        self.game = game
        self.candidates_only = candidates_only
        # Absent colours may be merged inside a guess only when the merged guess is
        # allowed too: the guess set is every code.
        merge_dead = candidates_only or int(guesses.size) == game.size
        if game.symmetric:
            digits, n, k = np.ascontiguousarray(game.digits), game.n, game.k
        else:  # a custom game: no colours, so no symmetry and no merged colours
            digits, n, k = np.zeros((game.size, 1), dtype=np.uint8), 1, 1
            symmetry = merge_dead = False
        self.core = _search.Searcher(game.kernel, digits, n, k, guesses, candidates_only,
                                   symmetry, merge_dead, int(memory))
        self.guess_set = guesses
        self.stop: Optional[_core.StopFlag] = None  # a flag set from elsewhere stops runs

    @property
    def nodes(self) -> int:
        return int(self.core.stats["nodes"])

    def run(self, cands: np.ndarray, d: int, deadline: Optional[float] = None,
            node_limit: int = 0) -> tuple[bool, int]:
        """(answer, guess that works at the root).  Runs the kernel through
        :func:`~mastermind.stopping.run_stoppable` so that Ctrl-C (or :attr:`stop`, when
        set) stops it cleanly; raises :class:`SearchUnfinished` when stopped."""
        start = time.monotonic()
        nodes0 = self.nodes
        seconds = None
        if deadline is not None:
            seconds = deadline - start
            if seconds <= 0:
                raise SearchUnfinished("time-limit", 0, 0.0)
            if self.stop is not None:  # pragma: no cover - a deadline needs its own flag
                raise ValueError("a deadline and a shared stop flag at once")
        flag = new_flag(seconds) if self.stop is None else self.stop
        try:
            r, g = run_stoppable(lambda f: self.core.run(cands, d, node_limit, f), flag)
        except KeyboardInterrupt:
            raise SearchUnfinished("interrupted", self.nodes - nodes0,
                                   time.monotonic() - start) from None
        if r < 0:
            raise SearchUnfinished(_REASONS.get(self.core.aborted, "interrupted"),
                                   self.nodes - nodes0, time.monotonic() - start)
        return bool(r), int(g)

    def witness(self, cands: np.ndarray, d: int, deadline: Optional[float]) -> Node:
        """The strategy tree of a set known solvable within d guesses."""
        kernel = self.game.kernel
        m = int(cands.size)
        if m == 1:
            return Node(int(cands[0]), 1)
        ok, g = self.run(cands, d, deadline)
        if not ok or g < 0:  # pragma: no cover - would be a kernel bug
            raise RuntimeError("the search lost a solvable set")
        node = Node(g, m)
        labels = kernel.slots(g, cands)
        for s in np.unique(labels):
            if s == self.game.win_slot:
                continue
            part = np.ascontiguousarray(cands[labels == s])
            node.children[self.game.slots[s]] = self.witness(part, d - 1, deadline)
        return node


def _prepare(game: Game, candidates: Any, guesses: Any, candidates_only: bool,
             symmetry: bool) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Validated (candidates, guess set, symmetry allowed, all candidates guessable)."""
    _check_game(game)
    cands = game.as_indices(candidates, game.secrets, "candidates")
    if guesses is None:
        pool = game.guesses
    else:
        if candidates_only:
            raise BoundsError("give either guesses or candidates_only, not both")
        pool = game.as_indices(guesses, None, "guesses")
        if pool.size == 0:
            raise BoundsError("the guess set is empty")
        # symmetry needs a guess set closed under colour and position permutations
        symmetry = symmetry and bool(np.array_equal(pool, game.guesses))
    # a candidate that may not be played can never be found
    guessable = bool(np.isin(cands, pool).all())
    return np.ascontiguousarray(cands), np.ascontiguousarray(pool), symmetry, guessable


def _check_game(game: Any) -> None:
    if not isinstance(game, (Game, CustomGame)):
        raise BoundsError(f"expected a Game or a CustomGame, got {type(game).__name__}")


def _check_guesses(max_guesses: Any) -> int:
    if isinstance(max_guesses, bool) or not isinstance(max_guesses, (int, np.integer)):
        raise BoundsError(f"max_guesses must be an integer, not {max_guesses!r}")
    if not 0 <= max_guesses <= 100:
        raise BoundsError(f"max_guesses must be between 0 and 100, not {max_guesses}")
    return int(max_guesses)


def _deadline(time_limit: Optional[float]) -> Optional[float]:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not (
            time_limit > 0):
        raise BoundsError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
    return time.monotonic() + float(time_limit)


# ---------------------------------------------------------------------- public API
@overload
def solution_exists(game: Game, max_guesses: int, candidates: Any = ..., guesses: Any = ...,
                    *, witness: Literal[False] = ..., candidates_only: bool = ...,
                    symmetry: bool = ..., time_limit: Optional[float] = ...,
                    node_limit: int = ..., memory: int = ...,
                    stats: Optional[SearchStats] = ...) -> bool: ...


@overload
def solution_exists(game: Game, max_guesses: int, candidates: Any = ..., guesses: Any = ...,
                    *, witness: Literal[True], candidates_only: bool = ...,
                    symmetry: bool = ..., time_limit: Optional[float] = ...,
                    node_limit: int = ..., memory: int = ...,
                    stats: Optional[SearchStats] = ...) -> Witnessed: ...


def solution_exists(game: Game, max_guesses: int,
                    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
                    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None, *,
                    witness: bool = False, candidates_only: bool = False,
                    symmetry: bool = True, time_limit: Optional[float] = None,
                    node_limit: int = 0, memory: int = DEFAULT_MEMORY,
                    stats: Optional[SearchStats] = None, scheduler: Optional[str] = None,
                    client: Any = None, checkpoint: Optional[str] = None
                    ) -> Union[bool, Witnessed]:
    """Is there a strategy that finds every candidate within ``max_guesses`` guesses?

    The winning guess counts.  The search is exact: a ``False`` is a proof.

    Parameters
    ----------
    game : Game
    max_guesses : int
        The number of guesses allowed (0..100).
    candidates : codes, optional
        The codes that may still be the secret (default: every secret of the game).
    guesses : codes, optional
        The codes that may be played (default: the game's guess set).  A candidate that
        is not among them can never be found, so the answer is then False.
    witness : bool
        Also return the strategy tree: the result is ``Witnessed(exists, tree)``.
    candidates_only : bool
        Only codes that can still be the secret may be played.
    symmetry : bool
        Try one guess per symmetry class (DESIGN section 5); same answers, less work.
    time_limit : float, optional
        Seconds; :class:`SearchUnfinished` is raised when it runs out (also on Ctrl-C,
        or when ``node_limit`` nodes, if positive, have been searched).
    memory : int
        Bytes the memo may use (it stops growing, the search goes on).
    stats : SearchStats, optional
        Filled with the search's cost.
    scheduler, client, checkpoint : optional
        Run the question as units, one per part of each opening (a Dask scheduler's
        address or ``"local:N"``, a ``distributed.Client``, an SQLite checkpoint; for
        every secret of the game only; docs/distributed.md).  The same answers.

    Returns
    -------
    bool, or Witnessed when ``witness``.

    >>> from mastermind.game import Game
    >>> g = Game(4, 6)
    >>> solution_exists(g, 5), solution_exists(g, 4)
    (True, False)
    >>> solution_exists(g, 2, candidates=g.candidates([("1122", "1 0")]))
    False
    """
    d = _check_guesses(max_guesses)
    if not isinstance(node_limit, int) or node_limit < 0:
        raise BoundsError(f"node_limit must be a non-negative integer, not {node_limit!r}")
    if scheduler is not None or client is not None or checkpoint is not None:
        if candidates is not None or guesses is not None or node_limit or stats is not None:
            raise BoundsError("with a scheduler, a client or a checkpoint the question is "
                              "about every secret: no candidates, guesses, node_limit or "
                              "stats")
        _check_game(game)
        from .units_bounds import solution_exists_units

        return solution_exists_units(game, d, witness=witness,
                                     candidates_only=candidates_only, symmetry=symmetry,
                                     time_limit=time_limit, memory=memory,
                                     scheduler=scheduler, client=client,
                                     checkpoint=checkpoint)
    deadline = _deadline(time_limit)
    start = time.monotonic()
    cands, pool, sym, guessable = _prepare(game, candidates, guesses, candidates_only,
                                           symmetry)
    if cands.size == 0:
        ok, tree = True, None
    elif not guessable:
        ok, tree = False, None
    else:
        search = _Search(game, pool, candidates_only, sym, memory)
        try:
            ok, _ = search.run(cands, d, deadline, node_limit)
            tree = search.witness(cands, d, deadline) if ok and witness else None
        finally:
            if stats is not None:
                _fill(stats, search, time.monotonic() - start)
    if witness:
        return Witnessed(ok, tree)
    return ok


def _fill(stats: SearchStats, search: _Search, seconds: float) -> None:
    st = search.core.stats
    stats.nodes = int(st["nodes"])
    stats.leaves = int(st["leaves"])
    stats.hits = int(st["hits"])
    stats.memo_entries = int(st["memo_entries"])
    stats.seconds = seconds


def counting_bound(game: Game, candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
                   *, candidates_only: bool = False) -> int:
    """The smallest d that counting allows: d guesses find at most 1 + P + ... + P^(d-1)
    codes, P the most non-winning parts any allowed guess makes on the candidates (no
    subset gets more).  A lower bound on the worst case.

    >>> from mastermind.game import Game
    >>> counting_bound(Game(4, 6))
    4
    """
    cands, pool, _, _ = _prepare(game, candidates, None, candidates_only, True)
    if cands.size <= 1:
        return int(cands.size)
    if candidates is None:
        # every secret: the part count is a property of the guess's symmetry class
        reps = np.array(symmetry_classes(game), dtype=np.int32)
        pool = reps[np.isin(reps, cands)] if candidates_only else reps
    elif candidates_only:
        pool = cands
    hist = game.kernel.histograms(np.ascontiguousarray(pool), cands)
    nonwin = np.delete(hist, game.win_slot, axis=1)
    p = int((nonwin > 0).sum(axis=1).max())
    d, reach = 1, 1
    while reach < cands.size:
        d += 1
        reach = 1 + p * reach
    return d


def check_strategy(game: Game, tree: Node,
                   candidates: Union[Iterable[CodeLike], np.ndarray, None] = None, *,
                   guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
                   candidates_only: bool = False) -> int:
    """Play the strategy ``tree`` against every candidate; return its worst case.

    Independent of the search and the kernel: scores come from
    :func:`mastermind.game.reference_score` on colour tuples (a custom game's own score
    function, for a :class:`~mastermind.custom.CustomGame`).  Each node's guess must be
    an allowed guess (with ``candidates_only``: consistent with every score so far), each
    score must lead to a child or be the win.  :func:`strategy_distribution` gives the
    whole distribution.

    Raises
    ------
    StrategyCheckError
        With the secret and the path where the strategy fails.

    >>> from mastermind.game import Game
    >>> g = Game(2, 2)
    >>> check_strategy(g, Node(0, 4))
    Traceback (most recent call last):
    ...
    mastermind.bounds.StrategyCheckError: secret 12: after 11 scored 1 0 the strategy has no move
    """
    return max(strategy_distribution(game, tree, candidates, guesses=guesses,
                                     candidates_only=candidates_only))


def strategy_distribution(game: Game, tree: Node,
                          candidates: Union[Iterable[CodeLike], np.ndarray, None] = None, *,
                          guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
                          candidates_only: bool = False) -> dict[int, int]:
    """{number of guesses: secrets} from playing the strategy ``tree`` against every
    candidate, as :func:`check_strategy` plays it (independently of the kernel).

    >>> from mastermind.game import Game
    >>> from mastermind.analysis import analyze
    >>> a = analyze(Game(3, 3), tree=True)
    >>> strategy_distribution(a.game, a.tree) == a.distribution
    True
    """
    if not isinstance(tree, Node):
        raise StrategyCheckError(f"expected a strategy Node, got {type(tree).__name__}")
    cands = game.as_indices(candidates, game.secrets, "candidates")
    allowed = set(game.as_indices(guesses, game.guesses, "guesses").tolist())
    if isinstance(game, CustomGame):  # the game's own score function, not its table
        codes, fn, ends = game.codes, game.score_function, game.end_scores

        def score(u: int, v: int) -> Any:
            return fn(codes[u], codes[v])

        def won(s: Any) -> bool:
            return s in ends
    else:
        colours: dict[int, tuple[int, ...]] = {}
        black_only = game.variant.value == "black-peg"
        win = Score(game.n, 0)

        def col(i: int) -> tuple[int, ...]:
            if i not in colours:
                colours[i] = game.colours(i)
            return colours[i]

        def score(u: int, v: int) -> Any:
            s = reference_score(col(u), col(v))
            return Score(s.black, 0) if black_only else s

        def won(s: Any) -> bool:
            return s == win

    def where(secret: int, path: list[tuple[int, Any]]) -> str:
        return f"secret {game.format_code(secret)}: " + (
            "after " + ", ".join(f"{game.format_code(u)} scored {s}" for u, s in path)
            if path else "at the start")

    dist: dict[int, int] = {}
    for secret in cands.tolist():
        node: Optional[Node] = tree
        path: list[tuple[int, Any]] = []
        while True:
            assert node is not None
            g = node.guess
            if not isinstance(g, (int, np.integer)) or not 0 <= g < game.size or (
                    g not in allowed):
                raise StrategyCheckError(f"{where(secret, path)}: {g!r} is not an allowed "
                                         "guess")
            if candidates_only and any(score(u, g) != s for u, s in path):
                raise StrategyCheckError(f"{where(secret, path)}: {game.format_code(g)} is "
                                         "not a candidate")
            s = score(g, secret)
            path.append((g, s))
            if won(s):
                break
            if len(path) > 100:
                raise StrategyCheckError(f"{where(secret, path)}: more than 100 guesses")
            node = node.children.get(s)
            if node is None:
                raise StrategyCheckError(f"{where(secret, path)} the strategy has no move")
        dist[len(path)] = dist.get(len(path), 0) + 1
    return dict(sorted(dist.items()))


# ---------------------------------------------------------------------- the optimum
@dataclass
class Step:
    """One call of the search inside :func:`worst_case`."""

    guesses: int
    exists: Optional[bool]  # None: unfinished
    nodes: int
    seconds: float


@dataclass
class WorstCase:
    """The result of :func:`worst_case`: ``lower <= p <= upper``, exact when equal.

    ``lower_proof`` is ``"counting"`` or ``"search"`` (a False of :func:`solution_exists`
    for ``lower - 1``); ``witness`` a strategy tree reaching ``upper`` (checked by
    :func:`check_strategy`; when a stop interrupted its construction, ``upper_source``
    says so and the tree is the previous, weaker one), ``upper_source`` where the upper
    bound came from; ``heuristic_upper`` the heuristic strategy's worst case; ``status`` is
    ``"exact"``, ``"time-limit"``, ``"node-limit"`` or ``"interrupted"``.
    """

    game: Game
    candidates_only: bool
    lower: int
    upper: int
    lower_proof: str
    upper_source: str
    status: str
    heuristic_upper: Optional[int] = None
    nodes: int = 0
    seconds: float = 0.0
    witness: Optional[Node] = None
    steps: list[Step] = field(default_factory=list)
    units: Optional[int] = None          # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    def summary(self) -> str:
        """One line: ``"5: a strategy needing at most 5 guesses exists; none with 4"``."""
        if self.exact:
            return (f"{self.upper}: a strategy needing at most {guesses_text(self.upper)} "
                    f"exists; none with {self.upper - 1}")
        return (f"{self.lower}..{self.upper}: a strategy needing at most "
                f"{guesses_text(self.upper)} exists; none with {self.lower - 1}; "
                f"{self.lower}..{self.upper - 1} undecided ({self.status})")

    def _repr_html_(self) -> str:
        from .notebook import worst_case_html

        return worst_case_html(self)

    def to_json(self, tree: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pegs": self.game.n,
            "colours": self.game.k,
            "variant": self.game.variant.value,
            "candidates_only": self.candidates_only,
            "lower": self.lower,
            "upper": self.upper,
            "exact": self.exact,
            "status": self.status,
            "lower_proof": self.lower_proof,
            "upper_source": self.upper_source,
            "heuristic_upper": self.heuristic_upper,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "steps": [{"guesses": s.guesses, "exists": s.exists, "nodes": s.nodes,
                       "seconds": round(s.seconds, 3)} for s in self.steps],
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
        if tree and self.witness is not None:
            out["witness"] = self.witness.to_json(self.game)
        return out


def worst_case(game: Game, *, candidates_only: bool = False,
               time_limit: Optional[float] = None, symmetry: bool = True,
               memory: int = DEFAULT_MEMORY,
               heuristics: Iterable[Union[str, Strategy]] = (Strategy.MINMAX,),
               jobs: Optional[int] = None, scheduler: Optional[str] = None,
               client: Any = None, checkpoint: Optional[str] = None,
               progress: Optional[Any] = None, _search: Any = None) -> WorstCase:
    """The exact minimal worst case p(n,k): the fewest guesses that always suffice.

    In this order, all within ``time_limit``: the counting bound
    (:func:`counting_bound`) gives a lower bound; short searches at the lower bound raise
    it while they refute it quickly (or prove it, with a witness); the best of the
    ``heuristics`` strategies (played by :func:`mastermind.analysis.analyze`) gives an
    upper bound; then :func:`solution_exists` searches the gap from the top: a True
    lowers the upper bound (and gives its witness), a False proves the lower bound.  In
    games of 2,500 secrets or more the gap is searched by
    :func:`mastermind.finder.find_strategy` (budgeted rounds over the top two levels,
    the same exact answers, found much sooner where the depth-first order stalls).

    Never raises on a time-out or Ctrl-C: the result then has ``status`` set and the
    bounds proved so far (with no strategy at all, the trivial upper bound: one guess
    per secret).

    Parameters
    ----------
    game : Game
        Its secrets must all be guessable (every built-in variant).
    candidates_only : bool
        Only codes that can still be the secret may be played.
    time_limit : float, optional
        Seconds for the whole call.
    symmetry : bool
        One guess per symmetry class (same answers, less work).
    memory : int
        Bytes the memo may use.
    heuristics : strategies
        Played to get the starting upper bound (and its witness); the best is kept.
    jobs : int, optional
        Threads for the heuristic analyses (default: every core).
    scheduler, client, checkpoint : optional
        Run the searches at the root as units, one per (opening, part, guesses left):
        on a Dask cluster (a scheduler's address or ``"local:N"``, or a
        ``distributed.Client``) or, with only a checkpoint, on threads here; every
        decided unit is recorded in the SQLite ``checkpoint`` and a rerun resumes
        (docs/distributed.md).  The same bounds, proofs and witness.
    progress : callable, optional
        With units: called as ``progress(units_done, units_to_run)``.

    >>> from mastermind.game import Game
    >>> w = worst_case(Game(3, 5))
    >>> w.upper, w.exact, w.lower_proof, check_strategy(w.game, w.witness)
    (5, True, 'search', 5)
    """
    _check_game(game)
    if not game.secrets_are_guesses and not candidates_only:
        raise BoundsError(f"in {game.name} some secrets cannot be guessed")
    if scheduler is not None or client is not None or checkpoint is not None:
        from .units_bounds import worst_case_units

        return worst_case_units(game, candidates_only=candidates_only, time_limit=time_limit,
                                symmetry=symmetry, memory=memory, heuristics=heuristics,
                                jobs=jobs, scheduler=scheduler, client=client,
                                checkpoint=checkpoint, progress=progress)
    deadline = _deadline(time_limit)
    threads = checks.threads(jobs)
    start = time.monotonic()
    cands = game.secrets
    lower = counting_bound(game, candidates_only=candidates_only)
    upper, source, tree = int(cands.size), "trivial", None  # one guess per secret
    heuristic: Optional[int] = None
    status = "exact"
    steps: list[Step] = []
    lower_proof = "counting"
    search = (_Search(game, game.guesses, candidates_only, symmetry, memory)
              if _search is None else _search)
    extra_nodes: list[int] = []     # nodes of the finder's own searches

    def left() -> Optional[float]:
        return None if deadline is None else deadline - time.monotonic()

    def attempt(d: int, until: Optional[float]) -> Optional[bool]:
        """One search at d, recorded; None when it did not finish by ``until``."""
        t0, n0 = time.monotonic(), search.nodes
        try:
            ok: Optional[bool] = search.run(cands, d, until)[0]
        except SearchUnfinished as e:
            steps.append(Step(d, None, search.nodes - n0, time.monotonic() - t0))
            if e.reason != "time-limit":  # Ctrl-C, a node budget: the whole call ends
                raise
            return None
        steps.append(Step(d, ok, search.nodes - n0, time.monotonic() - t0))
        return ok

    def find(d: int) -> tuple[Optional[bool], Optional[Node]]:
        """find_strategy at d, recorded as one step; (None, None) when out of time."""
        from .finder import find_strategy

        remaining = left()
        if remaining is not None and remaining <= 0:
            return None, None
        f = find_strategy(game, d, candidates_only=candidates_only, time_limit=remaining,
                          memory=memory)
        ok = {"found": True, "refuted": False}.get(f.status)
        steps.append(Step(d, ok, f.nodes, f.seconds))
        extra_nodes.append(f.nodes)
        if f.status == "interrupted":
            raise KeyboardInterrupt
        return ok, f.tree

    def out_of_time() -> SearchUnfinished:
        return SearchUnfinished("time-limit", search.nodes, time.monotonic() - start)

    def witness(d: int) -> Node:
        nonlocal source
        try:
            return search.witness(cands, d, deadline)
        except SearchUnfinished:  # the bound stands; keep the older tree
            source = "search (witness unfinished)"
            raise

    try:
        # 1. the cheap proofs: refute the lower bound while that is quick
        while lower < upper:
            remaining = left()
            quick = _QUICK if remaining is None else min(_QUICK, 0.25 * remaining)
            until = time.monotonic() + quick
            ok = attempt(lower, until if deadline is None else min(until, deadline))
            if ok is None:
                break
            if ok:
                upper, source = lower, "search"
                tree = witness(lower)
                break
            lower, lower_proof = lower + 1, "search"
        # 2. the heuristic upper bound
        for h in heuristics:
            if lower == upper:
                break
            remaining = left()
            if remaining is not None and remaining <= 0:
                raise out_of_time()
            try:
                a = analyze(game, h, candidates_only=candidates_only, tree=True, jobs=threads,
                            time_limit=remaining)
            except TimeLimitReached:
                raise out_of_time() from None
            if a.max < upper:
                upper, source, tree = a.max, f"{Strategy.parse(h).value} strategy", a.tree
            heuristic = a.max if heuristic is None else min(heuristic, a.max)
        # 3. the gap, from the top (big games: the budgeted rounds of mastermind.finder,
        # which share the effort among the top guesses; the same exact answers)
        while upper > lower:
            d = upper - 1
            if cands.size >= _FIND_MIN and symmetry and _search is None:
                # (a run as units searches through its own _search, part by part)
                ok, found_tree = find(d)
            else:
                ok, found_tree = attempt(d, deadline), None
            if ok is None:
                raise out_of_time()
            if ok:
                upper, source = d, "search"
                tree = found_tree if found_tree is not None else witness(d)
            else:
                lower, lower_proof = upper, "search"
    except SearchUnfinished as e:
        status = e.reason
    except KeyboardInterrupt:
        status = "interrupted"
    return WorstCase(game, candidates_only, lower, upper, lower_proof, source, status,
                     heuristic, search.nodes + sum(extra_nodes), time.monotonic() - start,
                     tree, steps)
