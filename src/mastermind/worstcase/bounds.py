"""The exact optimum of the worst case: :func:`worst_case`, p(n,k), the fewest guesses
that always suffice, between proved bounds.

It drives the others: the counting bound (:mod:`mastermind.worstcase.counting`), the
search of the exists question (:mod:`mastermind.worstcase.search`, as
:func:`mastermind.worstcase.exists.solution_exists` asks it), budgeted rounds for big
games (:mod:`mastermind.worstcase.finder`) and its certificate
(:mod:`mastermind.worstcase.certify`).  Its witness is a strategy tree that
:func:`mastermind.worstcase.check.check_strategy` verifies independently by playing it,
with a plain-Python scorer, against every candidate.  This module also gives the
worst-case questions' public names in one place (``solution_exists``,
``counting_bound``, ``check_strategy``, ...).

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
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from .. import checks
from ..analysis.exhaustive import analyze
from ..analysis.strategies import Strategy
from ..engine.options import RunOptions
from ..engine.run import open_run
from ..files import OutputError
from ..game import Game
from ..limits import DEFAULT_MEMORY, UNIT_SECONDS
from ..rules import guesses_text
from ..stopping import TimeLimitReached
from ..strategy_tree import Node
from .certify import CertificateStats, check_certifiable, write_certificate
from .check import StrategyCheckError, check_strategy, strategy_distribution
from .counting import counting_bound
from .exists import solution_exists
from .finder import find_strategy
from .search import (
    BoundsError,
    Search,
    SearchStats,
    SearchUnfinished,
    Witnessed,
    deadline,
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
    options = RunOptions.of(
        jobs=jobs,
        time_limit=time_limit,
        progress=progress,
        memory=memory,
        unit_seconds=unit_seconds,
        recheck=recheck,
        scheduler=scheduler,
        client=client,
        checkpoint=checkpoint,
    )
    memory = options.memory
    strategies = [Strategy.parse(h) for h in heuristics]
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
        threads=options.threads,
    )
    if not options.as_units:
        return _certified(run_on(local, use_finder=True).result(), certificate, local, until)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(candidates_only=candidates_only, symmetry=symmetry, memory=memory),
        options=options,
    ) as run:
        units = UnitSearch(
            local,
            game,
            candidates_only=candidates_only,
            symmetry=symmetry,
            memory=memory,
            run=run,
            progress=options.progress,
            unit_seconds=options.unit_seconds,
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
