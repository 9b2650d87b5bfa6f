"""The expected-case optimum: the strategy with the least total number of guesses over
all secrets (the winning guess counts), proved by an exact branch-and-bound search.

:func:`optimal` returns an :class:`Optimum`: the least total (the winning guess counts),
the distribution and maximum of a strategy reaching it, and that strategy as a tree of
:class:`~mastermind.analysis.walk.Node` (so :func:`~mastermind.worstcase.bounds.check_strategy` can
verify it and :mod:`mastermind.views.tree` can draw it).  With ``max_guesses`` D, the optimum
among the strategies that never need more than D guesses.  The search is the kernel's
``_optimal``; every cut it makes is proved in docs/optimal.md.  With a time limit, the
best one-step strategy is played first, as the strategy to fall back on.

>>> from mastermind.game import Game
>>> best = optimal(Game(3, 3))
>>> best.total, best.distribution, best.exact, best.game.format_code(best.first_guess)
(73, {1: 1, 2: 7, 3: 18, 4: 1}, True, '112')
>>> optimal(Game(3, 3), max_guesses=3).feasible
False
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import checks
from ..analysis.exhaustive import analyze
from ..engine.options import RunOptions
from ..engine.run import open_run
from ..game import CodeLike
from ..kernel import _core
from ..limits import DEFAULT_MEMORY, MAX_OPTIMAL_GUESSES, UNIT_SECONDS
from ..stopping import Stopped, TimeLimitReached, new_flag, run_stoppable
from ..strategy_tree import tree_records
from .search import SEEDS, Answer, Optimum, new_optimizer, optimum_from
from .units import checkpoint_params, plan_optimal

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = ["DEFAULT_MEMORY", "Optimum", "optimal", "position_unit"]

Progress = Callable[[int, int], None]


def optimal(
    game: GameLike,
    *,
    max_guesses: Optional[int] = None,
    candidates_only: bool = False,
    first: Optional[CodeLike] = None,
    history: Iterable[tuple[CodeLike, Any]] = (),
    time_limit: Optional[float] = None,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
    memory: int = DEFAULT_MEMORY,
    scheduler: Optional[str] = None,
    client: Any = None,
    checkpoint: Optional[str] = None,
    unit_seconds: Optional[float] = UNIT_SECONDS,
    recheck: float = 0.0,
) -> Optimum:
    """The strategy with the least total number of guesses over every secret of ``game``.

    Parameters
    ----------
    game : Game or CustomGame
        Its secrets must all be guessable (every built-in variant, every custom game).
    max_guesses : int, optional
        Only strategies that never need more than this many guesses.
    candidates_only : bool
        Only codes that can still be the secret may be played.
    first : code, optional
        The opening guess (the optimum once it is played).
    history : (guess, score) pairs, optional
        Guesses already played and their scores: the optimum from that position on, over
        the secrets they leave (the distribution then counts the guesses still to come,
        the winning one included).  Raises ValueError when no secret is left.
    time_limit : float, optional
        Seconds; past them the result has ``exact`` False, the best strategy found and
        the proved ``lower`` bound.  Ctrl-C (KeyboardInterrupt) stops it likewise.
    jobs : int, optional
        Threads (default: every core); the strategy found never depends on it.
    progress : callable, optional
        Called as ``progress(done, total)`` with the root's guesses tried so far.
    memory : int
        Bytes the search's memo may use (then it stops growing, the search goes on).
    scheduler, client, checkpoint : optional
        Solve the subtrees below the root as units, one per part of each opening: on a
        Dask cluster (a scheduler's address or ``"local:N"``, or a
        ``distributed.Client``) or, with only a checkpoint, on threads here; each
        finished unit is recorded in the SQLite ``checkpoint`` and a rerun resumes
        (docs/distributed.md).  The same strategy; ``progress`` then counts units.
    unit_seconds : float, optional
        With units, each unit's budget: a subtree whose search runs past it splits, its
        set's guesses and their parts becoming units of their own (recursively), so no
        unit runs much longer (:data:`~mastermind.limits.UNIT_SECONDS` by default; 0
        splits every subtree that can be; None never splits).  The strategy never
        depends on it, nor on the three before.
    recheck : float
        With units, the fraction of them (0 to 1) spot-checked: re-run here and
        compared with the answer of the worker or checkpoint that gave it; a mismatch
        is a :class:`~mastermind.engine.spotcheck.SpotCheckWarning` and the re-run's answer
        is used (docs/distributed.md: the trust model).
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    checks.game(game, "optimal")
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
    q = _question(
        game,
        max_guesses,
        candidates_only=candidates_only,
        first=first,
        history=history,
        options=options,
    )
    return _as_units(game, q) if q.options.as_units else _here(game, q)


class _Question:
    """An optimum asked for, its arguments checked: the position (``played``, its
    candidates ``cands``), the opening ``g0`` if given, and how to search
    (``options``: its threads, time limit, progress, memory and units)."""

    def __init__(
        self,
        game: GameLike,
        max_guesses: Optional[int],
        *,
        candidates_only: bool,
        g0: Optional[int],
        played: list[tuple[int, int]],
        cands: np.ndarray,
        options: RunOptions,
    ):
        self.max_guesses = max_guesses
        self.candidates_only = candidates_only
        self.g0 = g0
        self.played = played
        self.cands = cands
        self.options = options
        self.limit = options.time_limit
        self.threads = options.threads
        self.progress = options.progress
        self.memory = options.memory
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> Optional[float]:
        return None if self.limit is None else self.limit - self.elapsed()


def _question(
    game: GameLike,
    max_guesses: Any,
    *,
    candidates_only: bool,
    first: Any,
    history: Iterable[tuple[CodeLike, Any]],
    options: RunOptions,
) -> _Question:
    """The arguments of :func:`optimal` checked (the game and ``options`` already
    were), the position played out."""
    if not candidates_only:
        checks.guessable(game)
    if max_guesses is not None:
        max_guesses = checks.max_guesses(max_guesses, 1, MAX_OPTIMAL_GUESSES)
    played, cands = checks.history(game, history, "plan")
    g0 = None if first is None else game.guess(first)
    if g0 is not None and candidates_only and not _among(g0, cands):
        after = " after that history" if played else ""
        raise checks.ArgumentError(
            f"{game.format_code(g0)} is not a candidate{after}, and only candidates may be played"
        )
    return _Question(
        game,
        None if max_guesses is None else int(max_guesses),
        candidates_only=candidates_only,
        g0=g0,
        played=played,
        cands=cands,
        options=options,
    )


def _among(code: int, cands: np.ndarray) -> bool:
    """Whether ``code`` is in the sorted set ``cands``."""
    at = int(np.searchsorted(cands, code))
    return at < cands.size and int(cands[at]) == code


def fallback_strategy(
    game: GameLike,
    *,
    candidates_only: bool,
    max_guesses: Optional[int],
    g0: Optional[int],
    limit: Optional[float],
    threads: int,
) -> Any:
    """The best one-step strategy within the constraints (an analysis with its tree), or
    None when none of them keeps within ``max_guesses``."""
    start = time.perf_counter()
    best = None
    for strategy in SEEDS:
        left = None if limit is None else limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            raise TimeLimitReached("the time limit was reached")
        a = analyze(
            game,
            strategy,
            candidates_only=candidates_only,
            first=g0,
            tree=True,
            jobs=threads,
            time_limit=left,
        )
        if max_guesses is not None and a.max > max_guesses:
            continue
        if best is None or a.total < best.total:
            best = a
    return best


def _fallback(game: GameLike, q: _Question) -> tuple[Any, str]:
    """With a time limit, the best one-step strategy first (the search needs no seed: its
    first strategy comes as fast as a heuristic's, but a stop before it finds one must
    leave something to show): (the seed or None, the status so far)."""
    if q.limit is None or q.played:
        return None, "exact"
    try:
        return fallback_strategy(
            game,
            candidates_only=q.candidates_only,
            max_guesses=q.max_guesses,
            g0=q.g0,
            limit=q.limit,
            threads=q.threads,
        ), "exact"
    except TimeLimitReached:
        return None, "time-limit"
    except KeyboardInterrupt:
        return None, "interrupted"


def _here(game: GameLike, q: _Question, stop: Any = None) -> Optimum:
    """The kernel's search in this process (on ``q.threads`` threads; ``stop``: the stop
    flag to search with, given the question's time limit, in place of a new one)."""
    seed, status = _fallback(game, q)
    flag = new_flag(q.left()) if stop is None else stop
    if stop is not None and q.limit is not None:
        stop.set_time_limit(max(float(q.limit - q.elapsed()), 1e-9))
    search = new_optimizer(
        game, candidates_only=q.candidates_only, memory=q.memory, threads=q.threads
    )
    hist = np.array([g for g, _ in q.played], dtype=np.int32)
    progress = q.progress
    found: Optional[Answer] = None
    if status != "interrupted":  # (out of time: the search's bound at least)
        try:
            found = Answer(
                *run_stoppable(
                    lambda f: search.run(
                        q.cands,
                        hist,
                        int(q.max_guesses or 0),
                        0 if seed is None else seed.total + 1,
                        -1 if q.g0 is None else q.g0,
                        f,
                    ),
                    flag,
                    every=(None if progress is None else lambda: progress(*search.progress)),
                )
            )
        except TimeLimitReached:  # (the kernel hands back what it found, see below)
            status = "time-limit"
        except KeyboardInterrupt:
            status = "interrupted"
    if found is None and search.last is not None:  # stopped: what the kernel had found
        found = Answer(*search.last)
    return optimum_from(
        game,
        candidates_only=q.candidates_only,
        max_guesses=q.max_guesses,
        g0=q.g0,
        seed=seed,
        found=found,
        status=status,
        deadline_passed=flag.value == _core.STOP_DEADLINE,
        nodes=int(search.stats["nodes"]),
        seconds=q.elapsed(),
        secrets=int(q.cands.size),
        history=q.played,
    )


def position_unit(
    game: GameLike, *, stop: Any, history: np.ndarray, time_limit: float, memory: int
) -> dict[str, Any]:
    """The optimum of one position within a time limit, as a unit of work (kind
    ``"optimum.position"``): what ``optimal(game, history=..., time_limit=..., jobs=1,
    memory=...)`` answers (past the limit, the best strategy its search found), its
    search stopped by ``stop`` (a cancel: :class:`~mastermind.stopping.Stopped`).
    ``history``: the position's (guess, score slot) pairs, one a row.  The answer: the
    position's ``secrets``, the ``total`` of its strategy (-1: none found), ``exact``,
    the proved ``lower`` bound, ``nodes``, and the strategy's records ``recs``
    (:func:`~mastermind.strategy_tree.tree_records`)."""
    played = [(int(g), game.slots[int(s)]) for g, s in np.asarray(history).reshape(-1, 2)]
    q = _question(
        game,
        None,
        candidates_only=False,
        first=None,
        history=played,
        options=RunOptions.of(jobs=1, time_limit=time_limit, memory=memory),
    )
    r = _here(game, q, stop=stop)
    if r.status == "interrupted":
        raise Stopped("the unit was stopped")
    out: dict[str, Any] = {
        "secrets": int(r.secrets),
        "total": -1 if r.total is None else int(r.total),
        "exact": int(r.exact),
        "lower": -1 if r.lower is None else int(r.lower),
        "nodes": int(r.nodes),
    }
    if r.tree is not None:
        out["recs"] = tree_records(game, r.tree)
    return out


def _params(game: GameLike, q: _Question) -> dict[str, Any]:
    """The checkpoint's parameters of the question (its position's history included)."""
    return checkpoint_params(
        game,
        candidates_only=q.candidates_only,
        max_guesses=q.max_guesses,
        g0=q.g0,
        played=q.played,
    )


def _as_units(game: GameLike, q: _Question) -> Optimum:
    """The subtrees below the root as units (:mod:`mastermind.optimum.units`), on a Dask
    cluster or on threads here, recorded in the checkpoint (as ``q.options`` say)."""
    flag = new_flag(q.limit)
    plan: Any = None
    budget = q.options.unit_seconds
    with open_run(game, kind="optimal", params=_params(game, q), options=q.options) as run:
        seed, status = _fallback(game, q)
        if status == "exact":
            plan = plan_optimal(
                game,
                q.max_guesses,
                candidates_only=q.candidates_only,
                g0=q.g0,
                memory=q.memory,
                recorded=set() if run.store is None else run.store.keys(),
                played=q.played,
            )
            try:
                run.execute(
                    plan,
                    flag,
                    q.progress,
                    q.left(),
                    budget if hasattr(plan, "expand") else None,
                )
            except TimeLimitReached:
                status = "time-limit"
            except KeyboardInterrupt:
                status = "interrupted"
    found = None if plan is None else plan.answer(done=status == "exact")
    result = optimum_from(
        game,
        candidates_only=q.candidates_only,
        max_guesses=q.max_guesses,
        g0=q.g0,
        seed=seed,
        found=found,
        status=status,
        deadline_passed=flag.value == _core.STOP_DEADLINE,
        nodes=0 if plan is None else plan.nodes,
        seconds=q.elapsed(),
        secrets=int(q.cands.size),
        history=q.played,
    )
    if plan is not None:
        result.units = run.units if status == "exact" else plan.offered
        result.units_resumed = run.resumed
        result.units_split = run.split
    return result
