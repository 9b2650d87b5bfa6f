"""One-step strategies: valuations of a partition table and the choice rule.

Every valuation is turned into an integer *key*, lower is better, computed in the kernel:

============== ================================ =======================
strategy        valuation (better)                 key
============== ================================ =======================
minmax          largest part (lower)               max T
entropy         -sum p log2 p (higher)             sum T log2 T, exact-tie integer image
parts           non-empty parts (higher)           -parts
expected-size   sum T^2 / |K| (lower)              sum T^2
first-candidate the first candidate                (no scan)
============== ================================ =======================

The choice rule: best key, then a guess that is a candidate, then the smallest index.

>>> from mastermind.game import Game
>>> g = Game(4, 6)
>>> [g.format_code(choose_guess(g, g.secrets, s)) for s in Strategy]
['1122', '1234', '1123', '1123', '1111']
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union, cast

import numpy as np

from .. import checks
from ..checks import HistoryError
from ..errors import shown
from ..game import CodeError, Game
from ..kernel import _core, _symmetry
from ..limits import INLINE_PAIRS
from ..rules import Strategy, StrategyError
from ..stopping import new_flag, run_stoppable
from . import _scan, _walk

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = [
    "Choice",
    "Strategy",
    "StrategyError",
    "Valuations",
    "choose_guess",
    "first_guess",
    "next_guess",
    "symmetry_classes",
]


@dataclass(frozen=True)
class Valuations:
    """All four valuations of one partition table, as people read them."""

    max_part: int
    entropy: float
    expected_size: float
    parts: int

    @classmethod
    def of(cls, table: Sequence[int] | np.ndarray) -> "Valuations":
        t = [int(x) for x in table if x]
        total = sum(t)
        if total == 0:
            return cls(0, 0.0, 0.0, 0)
        ent = math.log2(total) - math.fsum(x * math.log2(x) for x in t) / total
        return cls(max(t), abs(ent), math.fsum(x * x for x in t) / total, len(t))


def choose_guess(
    game: GameLike,
    candidates: np.ndarray,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    candidates_only: bool = False,
    guesses: np.ndarray | None = None,
    *,
    jobs: Optional[int] = None,
) -> int:
    """The guess the strategy plays with ``candidates`` left (sorted int32 indices).

    ``guesses`` defaults to the game's guess set (or the candidates with
    ``candidates_only``).  One candidate is played at once; ``first-candidate`` plays the
    lexicographically first candidate.  ``jobs`` threads share a large scan (default:
    every core; the answer never depends on it); Ctrl-C stops it.
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    strategy = Strategy.parse(strategy)
    checks.game(game, "choose_guess")
    threads = checks.threads(jobs)
    cands = game.as_indices(candidates, what="candidates")
    if cands.size == 0:
        raise CodeError("no candidate is left: the scores given are inconsistent")
    if cands.size == 1 or strategy is Strategy.FIRST_CANDIDATE:
        return int(cands[0])
    pool = cands if candidates_only else game.as_indices(guesses, game.guesses, "guesses")
    if pool.size == 0:
        raise CodeError("no guess is allowed")
    g, _, _ = run_stoppable(
        lambda flag: _scan.best_guess(game.kernel, pool, cands, strategy.kind, threads, flag),
        inline=pool.size * cands.size < INLINE_PAIRS,
    )
    return int(g)


@dataclass(frozen=True)
class Choice:
    """A guess chosen by :func:`next_guess`: ``complete`` is False when a time limit cut
    the scan short (the guess is then the best of those examined: the candidates first,
    or the first candidate when not even one was)."""

    guess: int
    complete: bool
    seconds: float


def next_guess(
    game: Game,
    candidates: np.ndarray,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    *,
    candidates_only: bool = False,
    history: Sequence[int] = (),
    time_limit: Optional[float] = None,
    jobs: Optional[int] = None,
) -> Choice:
    """The strategy's guess after the guesses ``history`` (code indices) left
    ``candidates``: the same guess as :func:`choose_guess`, found faster by scanning one
    guess per symmetry class of the history (as the analyses do), and within
    ``time_limit`` seconds if given (see :class:`Choice`).  Ctrl-C stops it.

    >>> from mastermind.game import Game
    >>> g = Game(4, 6)
    >>> first = g.code("1122")
    >>> c = next_guess(g, g.filter(g.secrets, first, "1 0"), history=[first])
    >>> g.format_code(c.guess), c.complete
    ('1344', True)
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    strategy = Strategy.parse(strategy)
    checks.game(game, "next_guess")
    threads = checks.threads(jobs)
    limit = checks.time_limit(time_limit)
    cands = game.as_indices(candidates, what="candidates")
    start = time.perf_counter()
    if cands.size == 0:
        raise CodeError("no candidate is left: the scores given are inconsistent")
    if cands.size == 1 or strategy is Strategy.FIRST_CANDIDATE:
        return Choice(int(cands[0]), True, time.perf_counter() - start)
    kernel = game.kernel
    if isinstance(history, (str, bytes)) or not isinstance(history, Iterable):
        raise HistoryError(f"history is the guesses played (codes), not {shown(history)}")
    past = np.array([game.guess(h) for h in history], dtype=np.int32)
    symmetric = game.symmetric and not candidates_only
    blanks = symmetric and game.guesses.size == game.size

    def work(flag: Any) -> int:
        pool = cands if candidates_only else game.guesses
        if symmetric:
            pool = _symmetry.canonical_guesses(kernel, pool, past, flag)
        if flag.value == _core.STOP_DEADLINE:  # out of time before any guess was scored
            return -1
        return _walk.choose(
            kernel,
            pool,
            cands,
            strategy.kind,
            cands_only=candidates_only,
            shortcut_ok=game.secrets_are_guesses,
            threads=threads,
            blanks=blanks,
            stop=flag,
        )

    flag = new_flag(limit)
    g = run_stoppable(
        work, flag, inline=limit is None and game.guesses.size * cands.size < INLINE_PAIRS
    )
    if flag.value == _core.STOP_REQUESTED:  # pragma: no cover - run_stoppable raised already
        raise KeyboardInterrupt
    complete = flag.value == _core.STOP_NONE
    return Choice(int(g) if g >= 0 else int(cands[0]), complete, time.perf_counter() - start)


def symmetry_classes(game: GameLike) -> list[int]:
    """Index of the smallest code of each first-guess symmetry class.

    Permuting colours and positions maps H(n,k) onto itself; a class is a multiplicity
    pattern (a partition of n into at most k parts) and its smallest code writes the
    colours in first-use order, most frequent first: [4,6] gives 1111 1112 1122 1123 1234.
    Only games whose guess and secret sets are closed under those permutations (all the
    built-in variants) may use this; for a game without that symmetry
    (``game.symmetric`` false: custom games) every guess is its own class.
    """
    if not game.symmetric:
        return [int(g) for g in game.guesses]
    mastermind = cast("Game", game)  # (only Mastermind's sets are symmetric)
    reps = []
    for parts in _partitions(mastermind.n, min(mastermind.n, mastermind.k)):
        colours = [c + 1 for c, m in enumerate(parts) for _ in range(m)]
        idx = mastermind.index(colours)
        if game.is_guess(idx):
            reps.append(idx)
    return sorted(reps)


def _partitions(n: int, most: int, largest: int | None = None) -> list[list[int]]:
    """Partitions of n into at most ``most`` parts, parts non-increasing."""
    largest = n if largest is None else largest
    if n == 0:
        return [[]]
    if most == 0:
        return []
    out: list[list[int]] = []
    for first in range(min(n, largest), 0, -1):
        out.extend([first] + rest for rest in _partitions(n - first, most - 1, first))
    return out


def first_guess(
    game: GameLike,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    candidates_only: bool = False,
    *,
    jobs: Optional[int] = None,
) -> int:
    """The rule-chosen opening: the best symmetry-class representative (equal to the full
    scan over the guess set, since the key and candidacy are class properties and a class's
    representative is its smallest index).  Games without that symmetry (custom games,
    ``game.symmetric`` false) get the full scan of :func:`choose_guess`."""
    candidates_only = checks.flag(candidates_only, "candidates_only")
    strategy = Strategy.parse(strategy)
    checks.game(game, "first_guess")
    threads = checks.threads(jobs)
    cands = game.secrets
    if strategy is Strategy.FIRST_CANDIDATE:
        return int(cands[0])
    if not game.symmetric:  # custom games: a full scan
        return choose_guess(game, cands, strategy, candidates_only, jobs=jobs)
    reps = np.array(symmetry_classes(game), dtype=np.int32)
    if candidates_only:
        reps = reps[np.isin(reps, cands)]
    g, _, _ = run_stoppable(
        lambda flag: _scan.best_guess(game.kernel, reps, cands, strategy.kind, threads, flag),
        inline=reps.size * cands.size < INLINE_PAIRS,
    )
    return int(g)
