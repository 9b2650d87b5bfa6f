"""The expected-case optimum: the strategy with the least total number of guesses over
all secrets (DESIGN section 7), proved by an exact branch-and-bound search.

:func:`optimal` returns an :class:`Optimum`: the least total (the winning guess counts),
the distribution and maximum of a strategy reaching it, and that strategy as a tree of
:class:`~mastermind.analysis.Node` (so :func:`~mastermind.bounds.check_strategy` can
verify it and :mod:`mastermind.tree` can draw it).  With ``max_guesses`` D, the optimum
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
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Optional

import numpy as np

from . import _core, _optimal, checks
from .analysis import Node, _build_tree, _in_score_order, analyze
from .game import CodeLike, Game
from .rules import Strategy
from .stopping import TimeLimitReached, new_flag, run_stoppable

__all__ = ["DEFAULT_MEMORY", "Optimum", "optimal"]

DEFAULT_MEMORY = 1 << 30  # bytes the memo of one search may use

#: the one-step strategies whose trees give the search its first upper bound
SEEDS = (Strategy.ENTROPY, Strategy.EXPECTED_SIZE, Strategy.PARTS, Strategy.MINMAX)

Progress = Callable[[int, int], None]


@dataclass
class Optimum:
    """The result of :func:`optimal`.

    ``exact`` is True when the total is proved least; otherwise (a time limit, Ctrl-C)
    ``lower`` is the proved lower bound and the strategy the best found.  ``feasible`` is
    False when no strategy finds every secret within ``max_guesses`` (then there is no
    tree and no total).  ``source`` tells where the strategy comes from: ``"search"`` or
    the one-step strategy the search could not improve on in time.
    """

    game: Any
    candidates_only: bool
    max_guesses: Optional[int]
    first_guess: Optional[int]
    distribution: dict[int, int]
    exact: bool
    lower: Optional[int]
    tree: Optional[Node]
    status: str                  # "exact", "time-limit" or "interrupted"
    source: str
    nodes: int = 0
    seconds: float = 0.0
    strategy: str = "optimal"    # how tree exports name it
    history: list[tuple[int, int]] = field(default_factory=list)  # (guess, slot) played before
    secrets_left: int = 0        # the secrets the history leaves (all, without one)
    units: Optional[int] = None          # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held

    @property
    def feasible(self) -> bool:
        return bool(self.distribution) or not self.exact

    @property
    def secrets(self) -> int:
        return self.secrets_left or sum(self.distribution.values())

    @property
    def total(self) -> Optional[int]:
        return sum(d * c for d, c in self.distribution.items()) if self.distribution else None

    @property
    def average(self) -> Optional[Fraction]:
        total = self.total
        return None if total is None else Fraction(total, self.secrets)

    @property
    def max(self) -> Optional[int]:
        return max(self.distribution) if self.distribution else None

    def summary(self) -> str:
        """One line: the total, the average, the maximum, whether it is proved."""
        if not self.feasible:
            return (f"no strategy finds every secret within {self.max_guesses} guesses "
                    f"(proved)")
        if self.total is None:
            return f"no strategy found yet ({self.status}); the optimum is at least {self.lower}"
        avg = self.average
        assert avg is not None
        head = (f"total {self.total} ({avg.numerator}/{avg.denominator} = {float(avg):.4f} "
                f"a secret), max {self.max}")
        if self.exact:
            return f"{head}: the least possible"
        return f"{head}: the least is between {self.lower} and {self.total} ({self.status})"

    def to_json(self, tree: bool = False) -> dict[str, Any]:
        game = self.game
        avg = self.average
        out: dict[str, Any] = {
            "pegs": game.n,
            "colours": game.k,
            "variant": game.variant.value,
            "candidates_only": self.candidates_only,
            "max_guesses": self.max_guesses,
            "total": self.total,
            "secrets": self.secrets,
            "average": None if avg is None else float(avg),
            "average_fraction": None if avg is None else f"{avg.numerator}/{avg.denominator}",
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "first_guess": (None if self.first_guess is None
                            else game.format_code(self.first_guess)),
            "history": [[game.format_code(g), str(game.slots[s])] for g, s in self.history],
            "exact": self.exact,
            "lower": self.lower,
            "feasible": self.feasible,
            "status": self.status,
            "source": self.source,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
        if tree and self.tree is not None:
            out["tree"] = self.tree.to_json(game)
        return out


def optimal(game: Any, *, max_guesses: Optional[int] = None, candidates_only: bool = False,
            first: Optional[CodeLike] = None, history: Iterable[tuple[CodeLike, Any]] = (),
            time_limit: Optional[float] = None, jobs: Optional[int] = None,
            progress: Optional[Progress] = None, memory: int = DEFAULT_MEMORY,
            scheduler: Optional[str] = None, client: Any = None,
            checkpoint: Optional[str] = None) -> Optimum:
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
    """
    checks.game(game, "optimal")
    if not game.secrets_are_guesses and not candidates_only:
        raise checks.ArgumentError(f"in {game.name} some secrets cannot be guessed")
    if max_guesses is not None and (isinstance(max_guesses, bool) or not isinstance(
            max_guesses, (int, np.integer)) or not 1 <= max_guesses <= 64):
        raise checks.ArgumentError(f"max_guesses must be an integer 1..64, not {max_guesses!r}")
    threads = checks.threads(jobs)
    limit = checks.time_limit(time_limit)
    progress = checks.progress(progress)
    if isinstance(memory, bool) or not isinstance(memory, (int, np.integer)) or memory < 1:
        raise checks.ArgumentError(f"memory must be a positive number of bytes, not {memory!r}")
    played = [(game.guess(g), game.slot(s)) for g, s in history]
    cands = game.candidates((g, game.slots[s]) for g, s in played)
    if cands.size == 0:
        raise checks.ArgumentError("no secret is consistent with that history")
    hist = np.array([g for g, _ in played], dtype=np.int32)
    g0 = None if first is None else game.guess(first)
    if g0 is not None and candidates_only and not game.is_secret(g0):
        raise checks.ArgumentError(f"{game.format_code(g0)} is not a candidate, and only "
                                   "candidates may be played")
    if scheduler is not None or client is not None or checkpoint is not None:
        if played:
            raise checks.ArgumentError("a history cannot be combined with a scheduler or a "
                                       "checkpoint (the units split the game from its root)")
        from .units_optimal import optimal_units

        return optimal_units(game, max_guesses=max_guesses, candidates_only=candidates_only,
                             g0=g0, limit=limit, threads=threads, progress=progress,
                             memory=int(memory), scheduler=scheduler, client=client,
                             checkpoint=checkpoint)
    start = time.perf_counter()
    flag = new_flag(limit)
    status, seed = "exact", None
    if limit is not None and not played:
        # a strategy to fall back on if the search is stopped before it finds one (the
        # search needs no seed: its first strategy comes as fast as a heuristic's)
        try:
            seed = _seed(game, candidates_only, max_guesses, g0, limit, threads)
            flag = new_flag(limit - (time.perf_counter() - start))
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "interrupted"
    search = _optimal.Optimizer(game.kernel, game.guesses, candidates_only, game.symmetric,
                                game.symmetric and game.guesses.size == game.size, int(memory),
                                threads)
    found: Optional[tuple] = None
    if status != "interrupted":             # (out of time: the search's bound at least)
        try:
            found = run_stoppable(
                lambda f: search.run(cands, hist,
                                     int(max_guesses or 0),
                                     0 if seed is None else seed.total + 1,
                                     -1 if g0 is None else g0, f),
                flag, every=(None if progress is None else lambda: progress(*search.progress)))
        except TimeLimitReached:  # (the kernel hands back what it found, see below)
            status = "time-limit"
        except KeyboardInterrupt:
            status = "interrupted"
    return _result(game, candidates_only, max_guesses, g0, seed, found, status, flag, search,
                   time.perf_counter() - start, cands.size, played)


def _seed(game: Any, candidates_only: bool, max_guesses: Optional[int], g0: Optional[int],
          limit: Optional[float], threads: int) -> Any:
    """The best one-step strategy within the constraints (an analysis with its tree), or
    None when none of them keeps within ``max_guesses``."""
    start = time.perf_counter()
    best = None
    for strategy in SEEDS:
        left = None if limit is None else limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            raise TimeLimitReached("the time limit was reached")
        a = analyze(game, strategy, candidates_only=candidates_only, first=g0, tree=True,
                    jobs=threads, time_limit=left)
        if max_guesses is not None and a.max > max_guesses:
            continue
        if best is None or a.total < best.total:
            best = a
    return best


def _result(game: Any, candidates_only: bool, max_guesses: Optional[int], g0: Optional[int],
            seed: Any, found: Optional[tuple], status: str, flag: Any, search: Any,
            seconds: float, secrets: int, history: list[tuple[int, int]]) -> Optimum:
    """The Optimum from the search's answer (or from the seed when it did not improve)."""
    nodes = int(search.stats["nodes"])
    if found is None:  # stopped before the search, or the kernel's answer was lost
        found = search.last
    code, value, lower, recs = (found if found is not None
                                else (_optimal.RUN_STOPPED, -1, 0, None))
    if code == _optimal.RUN_ABOVE_LIMIT and seed is None:
        # nothing at all: no strategy within max_guesses
        return Optimum(game, candidates_only, max_guesses, g0, {}, True, None, None, status,
                       "search", nodes, seconds, history=history, secrets_left=secrets)
    if code == _optimal.RUN_ABOVE_LIMIT:  # pragma: no cover - the seed is within the limit
        raise RuntimeError("the optimal search lost its seed strategy")
    if code == _optimal.RUN_OPTIMUM or (value >= 0 and (seed is None or value < seed.total)):
        tree = _in_score_order(_build_tree(game, recs))
        source = "search"
    elif seed is not None:
        tree, source = seed.tree, f"{seed.strategy.value} strategy"
    else:
        tree, source = None, "search"
    dist: dict[int, int] = {}
    if tree is not None:
        for depth, node in tree.walk():
            won = node.size - sum(c.size for c in node.children.values())
            if won:
                dist[depth] = dist.get(depth, 0) + won
    total = sum(d * c for d, c in dist.items()) if dist else None
    exact = code == _optimal.RUN_OPTIMUM
    low = int(value) if exact else max(int(lower), 0)
    if not exact and status == "exact":
        status = "time-limit" if flag.value == _core.STOP_DEADLINE else "interrupted"
    if total is not None and low >= total:
        exact, low = True, total
    return Optimum(game, candidates_only, max_guesses,
                   None if tree is None else tree.guess, dict(sorted(dist.items())), exact,
                   low, tree, "exact" if exact else status, source, nodes, seconds,
                   history=history, secrets_left=secrets)
