"""Worst-case bounds: :func:`solution_exists` and the exact optimum :func:`worst_case`,
the fewest guesses that always suffice.

``solution_exists(game, d)`` decides whether some strategy finds every candidate within
``d`` guesses (the winning guess counts).  The search (:mod:`mastermind.worstcase.search`, over
the kernel's ``_search``) is exact: it only cuts with proved bounds, so a ``False`` is a proof.  A ``True`` can come
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

import functools
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Optional, Union, cast, overload

import numpy as np

from .. import checks
from ..analysis.exhaustive import analyze
from ..analysis.strategies import Strategy, symmetry_classes
from ..custom import CustomGame
from ..engine.run import open_run, wants_engine
from ..files import OutputError
from ..game import CodeLike, Game, Score, reference_score
from ..limits import DEFAULT_MEMORY, UNIT_SECONDS
from ..rules import guesses_text
from ..stopping import TimeLimitReached
from ..strategy_tree import Node
from .certify import CertificateStats, check_certifiable, write_certificate
from .finder import find_strategy
from .search import (
    BoundsError,
    Search,
    SearchStats,
    SearchUnfinished,
    Witnessed,
    deadline,
    prepare,
    separable,
)
from .units import UnitSearch, checkpoint_params

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = [
    "DEFAULT_MEMORY",
    "BoundsError",
    "SearchStats",
    "SearchUnfinished",
    "Step",
    "StrategyCheckError",
    "WorstCase",
    "Witnessed",
    "check_strategy",
    "counting_bound",
    "solution_exists",
    "strategy_distribution",
    "worst_case",
]

_QUICK = 2.0  # seconds a cheap proof at the lower bound may take (a quarter of a limit)
_FIND_MIN = 2500  # games with this many secrets search their gap with mastermind.worstcase.finder


class StrategyCheckError(checks.ArgumentError):
    """A strategy tree that does not do what it claims."""


# ---------------------------------------------------------------------- public API
@overload
def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Any = ...,
    guesses: Any = ...,
    *,
    witness: Literal[False] = ...,
    candidates_only: bool = ...,
    symmetry: bool = ...,
    time_limit: Optional[float] = ...,
    node_limit: int = ...,
    memory: int = ...,
    stats: Optional[SearchStats] = ...,
) -> bool: ...


@overload
def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Any = ...,
    guesses: Any = ...,
    *,
    witness: Literal[True],
    candidates_only: bool = ...,
    symmetry: bool = ...,
    time_limit: Optional[float] = ...,
    node_limit: int = ...,
    memory: int = ...,
    stats: Optional[SearchStats] = ...,
) -> Witnessed: ...


def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    witness: bool = False,
    candidates_only: bool = False,
    symmetry: bool = True,
    time_limit: Optional[float] = None,
    node_limit: int = 0,
    memory: int = DEFAULT_MEMORY,
    stats: Optional[SearchStats] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    checkpoint: Optional[str] = None,
    unit_seconds: Optional[float] = UNIT_SECONDS,
    recheck: float = 0.0,
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
        Try one guess per symmetry class (colour and position permutations that fix the
        position); same answers, less work.
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
    unit_seconds : float, optional
        With units: a question still searched after this many seconds splits into the
        questions of its guesses' parts (recursively); 0 splits at once, None never.
    recheck : float
        With units, the fraction of them (0 to 1) spot-checked: re-run here and
        compared with the answer of the worker or checkpoint that gave it; a mismatch
        is a :class:`~mastermind.engine.spotcheck.SpotCheckWarning` and the re-run's answer
        is used (docs/distributed.md: the trust model).

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
    candidates_only = checks.flag(candidates_only, "candidates_only")
    d = checks.max_guesses(max_guesses)
    node_limit = checks.integer(node_limit, "node_limit", 0)
    memory = checks.memory(memory)
    if wants_engine(scheduler, client, checkpoint):
        if candidates is not None or guesses is not None or node_limit or stats is not None:
            raise checks.ArgumentError(
                "with a scheduler, a client or a checkpoint the question is "
                "about every secret: no candidates, guesses, node_limit or "
                "stats"
            )
        return _exists_as_units(
            game,
            d,
            witness=witness,
            candidates_only=candidates_only,
            symmetry=symmetry,
            time_limit=time_limit,
            memory=memory,
            scheduler=scheduler,
            client=client,
            checkpoint=checkpoint,
            unit_seconds=checks.unit_seconds(unit_seconds),
            recheck=checks.recheck(recheck),
        )
    until = deadline(time_limit)
    start = time.monotonic()
    cands, pool, sym, guessable = prepare(
        game, candidates, guesses, candidates_only=candidates_only, symmetry=symmetry
    )
    if cands.size == 0:
        ok, tree = True, None
    elif not guessable:
        ok, tree = False, None
    else:
        search = Search(game, pool, candidates_only=candidates_only, symmetry=sym, memory=memory)
        try:
            ok, _ = search.run(cands, d, until, node_limit)
            tree = search.witness(cands, d, until) if ok and witness else None
        finally:
            if stats is not None:
                search.fill(stats, time.monotonic() - start)
    return Witnessed(ok, tree) if witness else ok


def _exists_as_units(
    game: Game,
    d: int,
    *,
    witness: bool,
    candidates_only: bool,
    symmetry: bool,
    time_limit: Any,
    memory: int,
    scheduler: Any,
    client: Any,
    checkpoint: Any,
    unit_seconds: Optional[float] = None,
    recheck: float = 0.0,
) -> Union[bool, Witnessed]:
    """:func:`solution_exists` for every secret of the game, the root's question run as
    units (:mod:`mastermind.worstcase.units`)."""
    checks.game(game, "solution_exists")
    until = deadline(time_limit)
    if not game.secrets_are_guesses and not candidates_only:
        return Witnessed(False, None) if witness else False  # a secret never played
    cands = np.ascontiguousarray(game.secrets)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(candidates_only=candidates_only, symmetry=symmetry, memory=memory),
        scheduler=scheduler,
        client=client,
        threads=checks.threads(None),
        checkpoint=checkpoint,
        recheck=recheck,
    ) as run:
        search = UnitSearch(
            Search(
                game,
                game.guesses,
                candidates_only=candidates_only,
                symmetry=symmetry,
                memory=memory,
            ),
            game,
            candidates_only=candidates_only,
            symmetry=symmetry,
            memory=memory,
            run=run,
            unit_seconds=unit_seconds,
        )
        ok, _ = search.run(cands, d, until)
        tree = search.witness(cands, d, until) if ok and witness else None
    return Witnessed(ok, tree) if witness else ok


def counting_bound(
    game: GameLike,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    candidates_only: bool = False,
) -> int:
    """The smallest d that counting allows: d guesses find at most 1 + P + ... + P^(d-1)
    codes, P the most non-winning parts any allowed guess makes on the candidates (no
    subset gets more).  A lower bound on the worst case.

    >>> from mastermind.game import Game
    >>> counting_bound(Game(4, 6))
    4
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    cands, pool, _, _ = prepare(
        game, candidates, None, candidates_only=candidates_only, symmetry=True
    )
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
    d = 1
    while separable(p, d) < cands.size:
        d += 1
    return d


def check_strategy(
    game: GameLike,
    tree: Node,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    candidates_only: bool = False,
) -> int:
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
    mastermind.worstcase.bounds.StrategyCheckError: secret 12: after 11 scored 1 0 the strategy has no move
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    return max(
        strategy_distribution(
            game, tree, candidates, guesses=guesses, candidates_only=candidates_only
        )
    )


def strategy_distribution(
    game: GameLike,
    tree: Node,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    candidates_only: bool = False,
) -> dict[int, int]:
    """{number of guesses: secrets} from playing the strategy ``tree`` against every
    candidate, as :func:`check_strategy` plays it (independently of the kernel).

    >>> from mastermind.game import Game
    >>> from mastermind.analysis.exhaustive import analyze
    >>> a = analyze(Game(3, 3), tree=True)
    >>> strategy_distribution(a.game, a.tree) == a.distribution
    True
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
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
        mastermind = cast("Game", game)
        colours: dict[int, tuple[int, ...]] = {}
        black_only = mastermind.variant.value == "black-peg"
        win = Score(mastermind.n, 0)

        def col(i: int) -> tuple[int, ...]:
            if i not in colours:
                colours[i] = mastermind.colours(i)
            return colours[i]

        def score(u: int, v: int) -> Any:
            s = reference_score(col(u), col(v))
            return Score(s.black, 0) if black_only else s

        def won(s: Any) -> bool:
            return s == win

    def where(secret: int, path: list[tuple[int, Any]]) -> str:
        return f"secret {game.format_code(secret)}: " + (
            "after " + ", ".join(f"{game.format_code(u)} scored {s}" for u, s in path)
            if path
            else "at the start"
        )

    dist: dict[int, int] = {}
    for secret in cands.tolist():
        node: Optional[Node] = tree
        path: list[tuple[int, Any]] = []
        while True:
            assert node is not None
            g = node.guess
            if not isinstance(g, (int, np.integer)) or not 0 <= g < game.size or (g not in allowed):
                raise StrategyCheckError(f"{where(secret, path)}: {g!r} is not an allowed guess")
            if candidates_only and any(score(u, g) != s for u, s in path):
                raise StrategyCheckError(
                    f"{where(secret, path)}: {game.format_code(g)} is not a candidate"
                )
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

    game: GameLike
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
    units: Optional[int] = None  # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held
    units_split: Optional[int] = None  # and how many split past their budget
    certificate: Optional[CertificateStats] = None  # the file written for ``certificate=``
    certificate_error: Optional[str] = None  # why it could not be written (a full disk)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    def summary(self) -> str:
        """One line: ``"5: a strategy needing at most 5 guesses exists; none with 4"``."""
        if self.exact:
            return (
                f"{self.upper}: a strategy needing at most {guesses_text(self.upper)} "
                f"exists; none with {self.upper - 1}"
            )
        return (
            f"{self.lower}..{self.upper}: a strategy needing at most "
            f"{guesses_text(self.upper)} exists; none with {self.lower - 1}; "
            f"{self.lower}..{self.upper - 1} undecided ({self.status})"
        )

    def _repr_html_(self) -> str:
        from ..views.notebook import worst_case_html

        return worst_case_html(self)

    def to_json(self, *, tree: bool = False) -> dict[str, Any]:
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
            "steps": [
                {
                    "guesses": s.guesses,
                    "exists": s.exists,
                    "nodes": s.nodes,
                    "seconds": round(s.seconds, 3),
                }
                for s in self.steps
            ],
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
            out["units_split"] = self.units_split
        if self.certificate is not None:
            c = self.certificate
            out["certificate"] = {
                "path": c.path,
                "claims": c.claims,
                "entries": c.entries,
                "bytes": c.size,
                "seconds": round(c.seconds, 3),
            }
        if self.certificate_error is not None:
            out["certificate_error"] = self.certificate_error
        if tree and self.witness is not None:
            out["witness"] = self.witness.to_json(self.game)
        return out


def worst_case(
    game: GameLike,
    *,
    candidates_only: bool = False,
    time_limit: Optional[float] = None,
    symmetry: bool = True,
    memory: int = DEFAULT_MEMORY,
    heuristics: Iterable[Union[str, Strategy]] = (Strategy.MINMAX,),
    jobs: Optional[int] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    checkpoint: Optional[str] = None,
    progress: Optional[Any] = None,
    unit_seconds: Optional[float] = UNIT_SECONDS,
    certificate: Optional[str] = None,
    recheck: float = 0.0,
) -> WorstCase:
    """The exact minimal worst case p(n,k): the fewest guesses that always suffice.

    In this order, all within ``time_limit``: the counting bound
    (:func:`counting_bound`) gives a lower bound; short searches at the lower bound raise
    it while they refute it quickly (or prove it, with a witness); the best of the
    ``heuristics`` strategies (played by :func:`mastermind.analysis.exhaustive.analyze`) gives an
    upper bound; then :func:`solution_exists` searches the gap from the top: a True
    lowers the upper bound (and gives its witness), a False proves the lower bound.  In
    games of 2,500 secrets or more the gap is searched by
    :func:`mastermind.worstcase.finder.find_strategy` (budgeted rounds over the top two levels,
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
    unit_seconds : float, optional
        With units: a question still searched after this many seconds splits into the
        questions of its guesses' parts, recursively (0: at once; None: never).  The
        same bounds and proofs; a witness put together from split questions may differ
        from the in-process one (it is replayed before it is used).
    certificate : str, optional
        Also write, to this path, a certificate of the bounds found (the witness, and
        the refutation of ``lower - 1`` found again through the same memo) that
        :mod:`mastermind.verify` checks on its own (docs/certificates.md);
        ``result.certificate`` describes the file, and stays None when a stop came first
        (nothing is written then) or the file could not be written (a full disk:
        ``result.certificate_error`` says so, the bounds stay).  A path that cannot be
        one (empty, in no folder, a directory) is refused before the search, with a
        :class:`~mastermind.files.FileError`.
    recheck : float
        With units, the fraction of them (0 to 1) spot-checked: re-run here and
        compared with the answer of the worker or checkpoint that gave it; a mismatch
        is a :class:`~mastermind.engine.spotcheck.SpotCheckWarning` and the re-run's answer
        is used (docs/distributed.md: the trust model).

    >>> from mastermind.game import Game
    >>> w = worst_case(Game(3, 5))
    >>> w.upper, w.exact, w.lower_proof, check_strategy(w.game, w.witness)
    (5, True, 'search', 5)
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    checks.game(game, "worst_case")
    if not candidates_only:
        checks.guessable(game)
    until = deadline(time_limit)
    threads = checks.threads(jobs)
    memory = checks.memory(memory)
    progress = checks.progress(progress)
    budget = checks.unit_seconds(unit_seconds)
    strategies = [Strategy.parse(h) for h in heuristics]
    recheck = checks.recheck(recheck)
    if certificate is not None:
        check_certifiable(game, candidates_only=candidates_only, path=certificate)
    local = Search(
        game, game.guesses, candidates_only=candidates_only, symmetry=symmetry, memory=memory
    )
    run_on = functools.partial(
        _WorstCaseRun,
        game,
        candidates_only=candidates_only,
        until=until,
        symmetry=symmetry,
        memory=memory,
        heuristics=strategies,
        threads=threads,
    )
    if not wants_engine(scheduler, client, checkpoint):
        return _certified(run_on(local, use_finder=True).result(), certificate, local, until)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(candidates_only=candidates_only, symmetry=symmetry, memory=memory),
        scheduler=scheduler,
        client=client,
        threads=threads,
        checkpoint=checkpoint,
        recheck=recheck,
    ) as run:
        units = UnitSearch(
            local,
            game,
            candidates_only=candidates_only,
            symmetry=symmetry,
            memory=memory,
            run=run,
            progress=progress,
            unit_seconds=budget,
        )
        # (the root's questions are the units: no budgeted rounds over the top)
        result = run_on(units, use_finder=False).result()
    result.units, result.units_resumed = run.units, run.resumed
    result.units_split = run.split
    return _certified(result, certificate, local, until)


def _certified(
    result: WorstCase, path: Optional[str], search: Search, until: Optional[float]
) -> WorstCase:
    """``result`` with its certificate written to ``path`` (when asked and time is left);
    a file that cannot be written (a full disk) keeps the bounds, with
    ``certificate_error`` saying why no certificate came."""
    if path is None or result.witness is None or result.status == "interrupted":
        return result
    left = None if until is None else until - time.monotonic()
    if left is not None and left <= 0:
        return result
    try:
        result.certificate = write_certificate(
            path,
            cast("Game", result.game),  # (check_certifiable let a Mastermind game only)
            result.lower,
            result.upper,
            result.witness,
            search=search,
            time_limit=left,
        )
    except SearchUnfinished as e:
        result.status = e.reason if result.exact else result.status
    except KeyboardInterrupt:
        result.status = "interrupted"
    except OutputError as e:
        result.certificate_error = str(e)
    return result


class _WorstCaseRun:
    """One :func:`worst_case` computation: the bounds so far and the steps that moved
    them, in three phases (:meth:`result`)."""

    def __init__(
        self,
        game: GameLike,
        search: Any,
        *,
        candidates_only: bool,
        until: Optional[float],
        symmetry: bool,
        memory: int,
        heuristics: list[Strategy],
        threads: int,
        use_finder: bool,
    ):
        self.game = game
        self.search = search  # a Search, or the root's questions as units
        self.candidates_only = candidates_only
        self.until = until
        self.memory = memory
        self.heuristics = heuristics
        self.threads = threads
        self.use_finder = use_finder and symmetry
        self.start = time.monotonic()
        self.cands = game.secrets
        self.lower = counting_bound(game, candidates_only=candidates_only)
        self.lower_proof = "counting"
        # with no strategy at all, one guess per secret
        self.upper, self.source = int(self.cands.size), "trivial"
        self.tree: Optional[Node] = None
        self.heuristic: Optional[int] = None
        self.steps: list[Step] = []
        self.finder_nodes = 0  # nodes of the finder's own searches

    def result(self) -> WorstCase:
        """Run the phases until the bounds meet or the time or Ctrl-C stops them."""
        status = "exact"
        try:
            self.refute_lower()
            self.heuristic_upper()
            self.close_gap()
            self.trivial_witness()
        except SearchUnfinished as e:
            status = e.reason
        except KeyboardInterrupt:
            status = "interrupted"
        return WorstCase(
            self.game,
            self.candidates_only,
            self.lower,
            self.upper,
            self.lower_proof,
            self.source,
            status,
            self.heuristic,
            self.search.nodes + self.finder_nodes,
            time.monotonic() - self.start,
            self.tree,
            self.steps,
        )

    # ---------------------------------------------------------------- the phases
    def refute_lower(self) -> None:
        """1. The cheap proofs: raise the lower bound while refuting it is quick (a
        quarter of the time left, at most a few seconds), or prove it."""
        while self.lower < self.upper:
            left = self._left()
            quick = _QUICK if left is None else min(_QUICK, 0.25 * left)
            stop = time.monotonic() + quick
            ok = self._attempt(self.lower, stop if self.until is None else min(stop, self.until))
            if ok is None:
                return
            if ok:
                self._proved(self.lower, None)
                return
            self.lower, self.lower_proof = self.lower + 1, "search"

    def heuristic_upper(self) -> None:
        """2. The best heuristic strategy's worst case, and its tree, as upper bound."""
        for h in self.heuristics:
            if self.lower == self.upper:
                return
            left = self._left()
            if left is not None and left <= 0:
                raise self._out_of_time()
            try:
                a = analyze(
                    self.game,
                    h,
                    candidates_only=self.candidates_only,
                    tree=True,
                    jobs=self.threads,
                    time_limit=left,
                )
            except TimeLimitReached:
                raise self._out_of_time() from None
            if a.max < self.upper:
                self.upper, self.source, self.tree = a.max, f"{h.value} strategy", a.tree
            self.heuristic = a.max if self.heuristic is None else min(self.heuristic, a.max)

    def close_gap(self) -> None:
        """3. The gap, from the top: a True lowers the upper bound (with its witness), a
        False proves the lower one.  Big games search by the budgeted rounds of
        :mod:`mastermind.worstcase.finder` (the same exact answers, found sooner)."""
        while self.upper > self.lower:
            d = self.upper - 1
            if self.use_finder and self.cands.size >= _FIND_MIN:
                ok, found = self._find(d)
            else:
                ok, found = self._attempt(d, self.until), None
            if ok is None:
                raise self._out_of_time()
            if ok:
                self._proved(d, found)
            else:
                self.lower, self.lower_proof = self.upper, "search"

    def trivial_witness(self) -> None:
        """4. Bounds that met at the trivial upper bound (one guess per secret: [1,k],
        [n,1]) still get a witness: the first candidate played each time."""
        if self.tree is not None or self.lower != self.upper or self.source != "trivial":
            return
        a = analyze(self.game, Strategy.FIRST_CANDIDATE, candidates_only=True, tree=True, jobs=1)
        if a.max <= self.upper:
            self.tree = a.tree

    # ---------------------------------------------------------------- the steps
    def _left(self) -> Optional[float]:
        return None if self.until is None else self.until - time.monotonic()

    def _out_of_time(self) -> SearchUnfinished:
        return SearchUnfinished("time-limit", self.search.nodes, time.monotonic() - self.start)

    def _attempt(self, d: int, stop: Optional[float]) -> Optional[bool]:
        """One search at d, recorded; None when it did not finish by ``stop``."""
        t0, n0 = time.monotonic(), self.search.nodes
        try:
            ok: Optional[bool] = self.search.run(self.cands, d, stop)[0]
        except SearchUnfinished as e:
            self.steps.append(Step(d, None, self.search.nodes - n0, time.monotonic() - t0))
            if e.reason != "time-limit":  # Ctrl-C, a node budget: the whole call ends
                raise
            return None
        self.steps.append(Step(d, ok, self.search.nodes - n0, time.monotonic() - t0))
        return ok

    def _find(self, d: int) -> tuple[Optional[bool], Optional[Node]]:
        """find_strategy at d, recorded as one step; (None, None) when out of time."""
        left = self._left()
        if left is not None and left <= 0:
            return None, None
        shared = self.search if isinstance(self.search, Search) else None
        f = find_strategy(
            self.game,
            d,
            candidates_only=self.candidates_only,
            time_limit=left,
            memory=self.memory,
            search=shared,
        )
        ok = {"found": True, "refuted": False}.get(f.status)
        self.steps.append(Step(d, ok, f.nodes, f.seconds))
        self.finder_nodes += f.nodes
        if f.status == "interrupted":
            raise KeyboardInterrupt
        return ok, f.tree

    def _proved(self, d: int, tree: Optional[Node]) -> None:
        """d guesses suffice: the upper bound, with ``tree`` or the search's witness (a
        stop while it is built keeps the bound and the older tree)."""
        self.upper, self.source = d, "search"
        if tree is None:
            try:
                tree = self.search.witness(self.cands, d, self.until)
            except SearchUnfinished:
                self.source = "search (witness unfinished)"
                raise
        self.tree = tree
