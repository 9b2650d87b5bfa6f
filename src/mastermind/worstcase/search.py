"""The exact worst-case search as the library drives it: :class:`Search` (one search
context over a game: its guess set, mode and memo, in the kernel's ``_search``), the
checks of its arguments, and what it reports (:class:`SearchUnfinished`,
:class:`SearchStats`, :class:`Witnessed`).

:mod:`mastermind.worstcase.bounds` (the public questions), :mod:`mastermind.worstcase.finder` (budgeted
rounds over the top levels) and :mod:`mastermind.worstcase.units` (the root's questions as
units) all search through it.

>>> from mastermind.game import Game
>>> g = Game(3, 3)
>>> s = Search(g, g.guesses, candidates_only=False, symmetry=True, memory=1 << 20)
>>> s.run(g.secrets, 4)[0], s.run(g.secrets, 3)[0]
(True, False)
>>> s.witness(g.secrets, 4).size
27
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, cast

import numpy as np

from .. import checks
from ..kernel import _core, _symmetry
from ..stopping import new_flag, run_stoppable
from ..strategy_tree import Node, build_tree, split_by_score
from . import _search

if TYPE_CHECKING:
    from ..game import Game, GameLike

__all__ = [
    "REASONS",
    "BoundsError",
    "Search",
    "SearchStats",
    "SearchUnfinished",
    "Witnessed",
    "deadline",
    "prepare",
    "separable",
]


BoundsError = checks.ArgumentError
"""Bad arguments to a bounds function (the package's
:class:`~mastermind.checks.ArgumentError`, by its earlier name)."""


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


REASONS = {
    _core.STOP_DEADLINE: "time-limit",
    _core.STOP_REQUESTED: "interrupted",
    _core.STOP_NODE_LIMIT: "node-limit",
}


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
class Search:
    """One exact search context (guess set, mode, memo) over a game."""

    def __init__(
        self,
        game: GameLike,
        guesses: np.ndarray,
        *,
        candidates_only: bool,
        symmetry: bool,
        memory: int,
    ):
        self.game = game
        self.candidates_only = candidates_only
        # Absent colours may be merged inside a guess only when the merged guess is
        # allowed too: the guess set is every code.
        merge_dead = candidates_only or int(guesses.size) == game.size
        if game.symmetric:  # (a Game: only Mastermind's sets are symmetric)
            mastermind = cast("Game", game)
            digits, n, k = np.ascontiguousarray(mastermind.digits), mastermind.n, mastermind.k
        else:  # a custom game: no colours, so no symmetry and no merged colours
            digits, n, k = np.zeros((game.size, 1), dtype=np.uint8), 1, 1
            symmetry = merge_dead = False
        self.core = _search.Searcher(
            game.kernel, digits, n, k, guesses, candidates_only, symmetry, merge_dead, int(memory)
        )
        self.symmetry = symmetry
        self.guess_set = guesses
        self.stop: Optional[_core.StopFlag] = None  # a flag set from elsewhere stops runs

    @property
    def nodes(self) -> int:
        return int(self.core.stats["nodes"])

    def root_pool(self, history: Optional[np.ndarray]) -> Optional[np.ndarray]:
        """The guesses to try at the root of a set reached after the guesses ``history``:
        one per orbit under the colour and position permutations fixing every guess
        played (they map the set onto itself; more of them than the set's own symmetry
        finds, which permutes colours or positions, never both together); None when
        the search has no symmetry, or no history is given."""
        if history is None or len(history) == 0 or not self.symmetry or self.candidates_only:
            return None
        return _symmetry.canonical_guesses(
            self.game.kernel, self.guess_set, np.ascontiguousarray(history, dtype=np.int32)
        )

    def run(
        self,
        cands: np.ndarray,
        d: int,
        deadline: Optional[float] = None,
        node_limit: int = 0,
        pool: Optional[np.ndarray] = None,
        tries: Optional[np.ndarray] = None,
    ) -> tuple[bool, int]:
        """(answer, guess that works at the root).  Runs the kernel through
        :func:`~mastermind.stopping.run_stoppable` so that Ctrl-C (or :attr:`stop`, when
        set) stops it cleanly; raises :class:`SearchUnfinished` when stopped.  ``pool``:
        the guesses the root ranks (:meth:`root_pool`), else its canonical ones;
        ``tries``: those of them it tries (then False says only that none of them
        works)."""
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
            r, g = run_stoppable(
                lambda f: self.core.run(cands, d, node_limit, f, pool, tries), flag
            )
        except KeyboardInterrupt:
            raise SearchUnfinished(
                "interrupted", self.nodes - nodes0, time.monotonic() - start
            ) from None
        if r < 0:
            raise SearchUnfinished(
                REASONS.get(self.core.aborted, "interrupted"),
                self.nodes - nodes0,
                time.monotonic() - start,
            )
        return bool(r), int(g)

    def witness(self, cands: np.ndarray, d: int, deadline: Optional[float] = None) -> Node:
        """The strategy tree of a set known solvable within d guesses."""
        return build_tree(self.game, self.witness_records(cands, d, deadline))

    def witness_records(
        self, cands: np.ndarray, d: int, deadline: Optional[float] = None
    ) -> np.ndarray:
        """The strategy tree of a set known solvable within d guesses, as the kernel's
        tree records (parent, slot, guess, size, depth), depth-first, children in slot
        order: at each set the guess the search finds first."""
        recs: list[tuple[int, int, int, int, int]] = []
        self._witness(cands, d, deadline, recs, -1, -1, 1)
        return np.array(recs, dtype=np.int32).reshape(-1, 5)

    def _witness(
        self,
        cands: np.ndarray,
        d: int,
        deadline: Optional[float],
        recs: list,
        parent: int,
        slot: int,
        depth: int,
    ) -> None:
        m = int(cands.size)
        if m == 1:
            recs.append((parent, slot, int(cands[0]), 1, depth))
            return
        ok, g = self.run(cands, d, deadline)
        if not ok or g < 0:  # pragma: no cover - would be a kernel bug
            raise RuntimeError("the search lost a solvable set")
        node = len(recs)
        recs.append((parent, slot, g, m, depth))
        for s, part in split_by_score(self.game, g, cands):
            if s != self.game.win_slot:
                self._witness(part, d - 1, deadline, recs, node, s, depth + 1)

    def fill(self, stats: "SearchStats", seconds: float) -> None:
        """Copy the search's counters into ``stats``."""
        st = self.core.stats
        stats.nodes = int(st["nodes"])
        stats.leaves = int(st["leaves"])
        stats.hits = int(st["hits"])
        stats.memo_entries = int(st["memo_entries"])
        stats.seconds = seconds


def prepare(
    game: GameLike, candidates: Any, guesses: Any, *, candidates_only: bool, symmetry: bool
) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Validated (candidates, guess set, symmetry allowed, all candidates guessable)."""
    checks.game(game, "solution_exists")
    cands = game.as_indices(candidates, game.secrets, "candidates")
    if guesses is None:
        pool = game.guesses
    else:
        if candidates_only:
            raise checks.ArgumentError("give either guesses or candidates_only, not both")
        pool = game.as_indices(guesses, None, "guesses")
        if pool.size == 0:
            raise checks.ArgumentError("the guess set is empty")
        # symmetry needs a guess set closed under colour and position permutations
        symmetry = symmetry and bool(np.array_equal(pool, game.guesses))
    # a candidate that may not be played can never be found
    guessable = bool(np.isin(cands, pool).all())
    return np.ascontiguousarray(cands), np.ascontiguousarray(pool), symmetry, guessable


def deadline(time_limit: Any) -> Optional[float]:
    """The monotonic time ``time_limit`` seconds from now (checked), or None."""
    limit = checks.time_limit(time_limit)
    return None if limit is None else time.monotonic() + limit


def separable(p: int, d: int) -> int:
    """1 + p + ... + p^(d-1): the most codes d guesses can tell apart when no guess makes
    more than p non-winning parts (capped at 2**50).

    >>> separable(13, 3), separable(0, 5), separable(2, 0)
    (183, 1, 0)
    """
    return int(_search.separable(max(int(p), 0), max(int(d), 0)))
