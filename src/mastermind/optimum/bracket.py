"""A proved lower bound on the optimum (the least total number of guesses) of a game or of
a position, by an admissible bound tree over the top levels: one side of a bracket whose
other side is any strategy's total.

:func:`lower_bound` returns a :class:`LowerBound`.  Write T(S) for the optimum of a set S
of codes (the least total over S, every guess counted, the winning one included; what
:func:`mastermind.optimum.solver.optimal` computes) and b(S) for the most non-winning parts any
guess makes on S.  The bound of depth d, B(S, d), is:

* 1 for a single code (it is guessed: one guess);
* T(S) itself when S is small (at most ``exact_max`` codes, or too few for the kernel's
  scan: :data:`mastermind.optimum._optimal.FEW_CODES_MAX` on an encoded game) and d >= 1, found
  by the kernel's exact search within ``exact_seconds``; if the search does not finish,
  its proved lower bound (at least the estimate below);
* est(|S|, b) for d = 0, with b a bound on the part count of every guess on S (the
  parent's b(S'), or the number of non-winning scores at the top): the kernel's
  counting estimate (:func:`mastermind.optimum._optimal.est_table`, the least total of a tree
  whose nodes have at most b children, docs/optimal.md "1. The counting bound");
  with exact leaves (``exact_leaves`` > 0), T(S) instead when S has at most that many
  codes (or, if its search is stopped, its proved bound, at least the estimate): the
  tree's last level then counts its small parts exactly, where the estimate is weakest;
* for d >= 1: |S| + the least, over every guess g (one per class of the symmetry group
  fixing the history, the kernel's canonical guesses), of the sum over g's non-winning
  parts P of B(P, d - 1), with P's estimate taken with b(S).

Why it is admissible (B(S, d) <= T(S)), by induction on d: an optimal strategy for S
plays some guess g first; every secret of S pays that guess (the term |S|: the secret
equal to g, if any, is found by it and pays nothing more, which is why g's winning part
is left out); the secrets of each other part P pay what the strategy's subtree for P
costs, at least T(P), which is at least B(P, d - 1).  Taking the least over all guesses
covers g, and the symmetry only merges guesses whose parts are isomorphic (the same
totals).  At d = 0 the estimate is a lower bound because part counts only shrink on
subsets (docs/optimal.md, 1 and 2).  A stopped exact search's bound is proved by the
search itself, and an exact leaf is T(S) itself.  The bound never decreases with d: est(|P|, b(S)) <= est(|P|, b(P)) <=
B(P, 1), so each level can only raise its parts' terms.

The least over the guesses is found by branch and bound: the kernel's scan
(:func:`mastermind.optimum._optimal.root_order`) gives every guess its depth-1 bound (its parts
at their estimates) sorted increasingly; a guess's running bound is that bound plus, part
by part (the largest first), what the deeper bound adds to the part's estimate; a guess
is dropped once its running bound reaches the least total found, and the scan stops at
the first guess whose depth-1 bound does.  Every number kept is a lower bound of that
guess's B, so the least found is exactly B(S, d).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import checks
from ..kernel import _core
from ..limits import DEFAULT_MEMORY, MAX_BRACKET_DEPTH, MAX_EXACT_CODES
from ..stopping import Stopped, new_flag
from ..strategy_tree import split_by_score
from . import _optimal
from .search import new_optimizer

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = [
    "HOWS",
    "Bounder",
    "GuessBound",
    "LowerBound",
    "how_of",
    "lower_bound",
    "part_bound_unit",
]

#: the deepest bound tree asked for (each level multiplies the work by hundreds)


@dataclass
class GuessBound:
    """One guess at the position (a representative of its class): ``bound`` is a proved
    lower bound of the least total of the strategies that play it there; ``complete``
    False when the branch and bound stopped evaluating it (its bound then already
    reached the position's)."""

    guess: int
    bound: int
    complete: bool


@dataclass
class LowerBound:
    """The result of :func:`lower_bound`: ``bound`` <= the optimum of the position,
    obtained as ``how`` says (``"exact"``: the optimum itself, ``"solver"``: the exact
    search's proved bound when stopped, ``"depth d"``: the bound tree, ``"estimate"``:
    the counting estimate alone)."""

    game: GameLike
    history: list[tuple[int, int]]
    secrets: int
    depth: int
    bound: int
    how: str
    guesses: list[GuessBound] = field(default_factory=list)
    scans: int = 0  # kernel scans of a set's guesses (root_order calls)
    solves: int = 0  # exact searches of small sets
    solves_stopped: int = 0  # of them, stopped at exact_seconds
    seconds: float = 0.0

    @property
    def average(self) -> float:
        return self.bound / self.secrets

    def to_json(self) -> dict[str, Any]:
        game = self.game
        return {
            "history": [[game.format_code(g), str(game.slots[s])] for g, s in self.history],
            "secrets": self.secrets,
            "depth": self.depth,
            "bound": self.bound,
            "how": self.how,
            "guesses": [
                {"guess": game.format_code(g.guess), "bound": g.bound, "complete": g.complete}
                for g in self.guesses
            ],
            "scans": self.scans,
            "solves": self.solves,
            "solves_stopped": self.solves_stopped,
            "seconds": round(self.seconds, 3),
        }


def lower_bound(
    game: GameLike,
    *,
    history: Any = (),
    depth: int = 2,
    exact_max: int = 0,
    exact_seconds: float = 1.0,
    exact_leaves: int = 0,
    memory: int = DEFAULT_MEMORY,
    progress: Any = None,
) -> LowerBound:
    """A proved lower bound of the optimum (the least total number of guesses, the winning
    one included) of ``game`` from the position ``history`` ((guess, score) pairs), by
    the bound tree of ``depth`` levels described in this module's docstring.

    ``exact_max``: sets of at most this many codes are solved exactly (sets too small
    for the kernel's scan always are); ``exact_seconds``: the time each exact search may
    take before its proved lower bound is used; ``exact_leaves``: the parts of at most
    this many codes at the tree's last level are solved exactly too (0: estimated; 40
    costs about ten times the plain tree and raises it by about 1.5% on [5,8]'s parts);
    ``memory``: the exact search's memo; ``progress``: called as ``progress(done,
    total)`` with the first guesses evaluated so far.
    Every code the game allows may be guessed (the bound then holds for candidates-only
    play too).
    """
    start = time.perf_counter()
    checks.game(game, "lower_bound")
    checks.guessable(game)
    depth = checks.integer(depth, "depth", 0, MAX_BRACKET_DEPTH)
    exact_max = checks.integer(exact_max, "exact_max", 0, MAX_EXACT_CODES)
    cap = checks.seconds(exact_seconds, "exact_seconds")
    leaves = checks.integer(exact_leaves, "exact_leaves", 0, MAX_EXACT_CODES)
    memory = checks.memory(memory)
    progress = checks.progress(progress)
    played, cands = checks.history(game, history, "bound")
    bounder = Bounder(game, int(exact_max), cap, memory, exact_leaves=int(leaves))
    bounder.progress = progress
    hist = [g for g, _ in played]
    value, how, guesses = bounder.top(cands, hist, int(depth))
    return LowerBound(
        game,
        played,
        int(cands.size),
        int(depth),
        int(value),
        how,
        guesses,
        bounder.scans,
        bounder.solves,
        bounder.stopped,
        time.perf_counter() - start,
    )


def _codes(hist: list[int]) -> np.ndarray:
    return np.array(hist, dtype=np.int32)


class Bounder:
    """The bound tree's recursion over one game, with what it has learnt (the bounds of
    the sets met, by set and depth) kept between calls: :func:`lower_bound` makes one
    per call; a long computation (``scripts/optimum/bracket_5_8.py``) keeps one for many
    positions.  Trusts its arguments: ``cands`` is exactly the set ``hist`` (the guesses
    played, for the symmetry) leaves, sorted."""

    def __init__(
        self,
        game: GameLike,
        exact_max: int,
        exact_seconds: float,
        memory: int,
        *,
        exact_leaves: int = 0,
    ):
        self.game = game
        self.exact_max = exact_max
        self.exact_leaves = exact_leaves
        self.progress: Any = None  # progress(done, total) over the top call's guesses
        self.exact_seconds = exact_seconds
        self.blanks = bool(game.symmetric and game.guesses.size == game.size)
        self.search = new_optimizer(game, candidates_only=False, memory=memory, threads=1)
        self.known: dict[tuple[bytes, int], int] = {}
        self.solved: dict[bytes, tuple[int, bool]] = {}
        self.scans = 0
        self.solves = 0
        self.stopped = 0
        self.stop: Any = None  # a stop flag: set, the recursion raises Stopped

    # -- the pieces
    def estimate(self, m: int, b: int) -> int:
        """est(m, b): the least total of m codes when no guess makes more than b
        non-winning parts (2m - 1 if beyond the kernel's range)."""
        est = int(_optimal.est_table(m, b, _optimal.GUESSES_UNLIMITED - 1)[m])
        return est if est < _optimal.NO_STRATEGY else 2 * m - 1

    def scan(self, cands: np.ndarray, hist: list[int]) -> Optional[tuple[Any, Any, int]]:
        """The kernel's scan of every guess (one per class): guesses and their depth-1
        bounds, increasing, and b(S); None for a set too small for it."""
        try:
            gs, lbs, _, _, bnode = _optimal.root_order(
                self.game.kernel,
                self.game.guesses,
                cands,
                _codes(hist),
                cands_only=False,
                symmetry=self.game.symmetric,
                blanks=self.blanks,
                max_guesses=0,
            )
        except ValueError:  # too few codes for the scan: solved exactly instead
            return None
        self.scans += 1
        return gs, lbs, int(bnode)

    def solve(
        self, cands: np.ndarray, hist: list[int], seconds: Optional[float] = None
    ) -> tuple[int, bool]:
        """T(S) (True) or, if the search did not finish in time (``seconds``, by default
        ``exact_seconds``), its proved lower bound (False)."""
        key = cands.tobytes()
        got = self.solved.get(key)
        if got is not None and (got[1] or seconds is None):
            return got
        cap = self.exact_seconds if seconds is None else seconds
        status, value, lower, _ = self.search.run(cands, _codes(hist), 0, 0, -1, new_flag(cap))
        self.solves += 1
        if status == _optimal.RUN_OPTIMUM:
            got = (int(value), True)
        else:
            self.stopped += 1
            got = (int(lower), False)
        self.solved[key] = got
        return got

    # -- the recursion
    def bound(self, cands: np.ndarray, hist: list[int], d: int, b: int) -> tuple[int, str]:
        """B(S, d) with b bounding every guess's part count on S, and how it was found."""
        m = int(cands.size)
        if m == 1:
            return 1, "exact"
        if self.stop is not None and self.stop.value != _core.STOP_NONE:
            raise Stopped("the bound was stopped")
        est = self.estimate(m, b)
        if d == 0:
            return self.leaf(cands, hist, est)
        key = (cands.tobytes(), d)
        if key in self.known:
            v = self.known[key]
            return v, self._how(cands, d)
        v, how, _ = self.top(cands, hist, d, b, keep=False)
        self.known[key] = v
        return v, how

    def leaf(self, cands: np.ndarray, hist: list[int], est: int) -> tuple[int, str]:
        """B(S, 0): the estimate, or T(S) for a set within ``exact_leaves`` (the search's
        proved bound if it is stopped, never below the estimate)."""
        if cands.size > self.exact_leaves:
            return est, "estimate"
        value, exact = self.solve(cands, hist)
        return (value, "exact") if exact else (max(est, value), "solver")

    def _tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

    def _how(self, cands: np.ndarray, d: int) -> str:
        got = self.solved.get(cands.tobytes())
        if got is None:
            return f"depth {d}"
        return "exact" if got[1] else "solver"

    def top(
        self,
        cands: np.ndarray,
        hist: list[int],
        d: int,
        b: Optional[int] = None,
        *,
        keep: bool = True,
    ) -> tuple[int, str, list[GuessBound]]:
        """B(S, d), how, and at d >= 1 (with ``keep``) every guess with its bound."""
        game = self.game
        m = int(cands.size)
        if b is None:
            b = int(game.nslots) - 1
        if m == 1:
            return 1, "exact", []
        est = self.estimate(m, b)
        if d == 0:
            return est, "estimate", []
        small = m <= self.exact_max
        scanned = None if small else self.scan(cands, hist)
        lower = est
        if scanned is None:
            value, exact = self.solve(cands, hist)
            if exact:
                return value, "exact", []
            lower = max(est, value)
            scanned = self.scan(cands, hist)
            if scanned is None:
                return lower, "solver", []
        gs, lbs, bnode = scanned
        if (d == 1 and not self.exact_leaves) or len(gs) == 0:
            v = int(lbs[0]) if len(gs) else lower
            guesses = [GuessBound(int(g), int(lb), True) for g, lb in zip(gs, lbs)] if keep else []
            return max(v, lower), "depth 1" if v >= lower else "solver", guesses
        best, guesses = self._least(cands, hist, d, gs, lbs, bnode, keep=keep)
        if best >= _optimal.NO_STRATEGY:  # pragma: no cover - a candidate always helps
            return lower, "solver", guesses
        if lower > best:
            return lower, "solver", guesses
        return best, f"depth {d}", guesses

    def _least(
        self,
        cands: np.ndarray,
        hist: list[int],
        d: int,
        gs: Any,
        lbs: Any,
        bnode: int,
        *,
        keep: bool,
    ) -> tuple[int, list[GuessBound]]:
        """The least, over the scanned guesses (``gs``, their depth-1 bounds ``lbs``,
        increasing), of |S| + the sum of B(P, d - 1) over each guess's non-winning parts,
        by branch and bound; with ``keep``, every guess with its bound."""
        game = self.game
        m = int(cands.size)
        estt = _optimal.est_table(m, bnode, _optimal.GUESSES_UNLIMITED - 1)
        # at the last level only the exact leaves can add to a part's estimate
        most = self.exact_leaves if d == 1 else m
        best = _optimal.NO_STRATEGY
        guesses: list[GuessBound] = []
        for g, lb in zip(gs.tolist(), lbs.tolist()):
            if lb >= best:
                if not keep:
                    break
                guesses.append(GuessBound(g, int(lb), False))
                self._tick(len(guesses), len(gs))
                continue
            parts = [
                p
                for s, p in split_by_score(game, g, cands)
                if s != game.win_slot and p.size <= most
            ]
            parts.sort(key=lambda p: -p.size)
            running, complete = int(lb), False
            for p in parts:
                pv, _ = self.bound(p, hist + [g], d - 1, bnode)
                running += pv - int(estt[p.size])
                if running >= best:
                    break
            else:
                complete = True
            if keep:
                guesses.append(GuessBound(g, running, complete))
                self._tick(len(guesses), len(gs))
            best = min(best, running)
        return best, guesses


HOWS = {"exact": -1, "solver": -2, "estimate": -3}
"""How a part's bound was found, as a unit's answer says it (a number): "depth d" is d."""


def how_of(code: int) -> str:
    """The words of a ``how`` code (:data:`HOWS`): ``how_of(2) == "depth 2"``."""
    words = {v: k for k, v in HOWS.items()}
    return words[code] if code < 0 else f"depth {code}"


_BOUNDERS = threading.local()  # per thread (one a process on a cluster): settings -> Bounder


def _bounder(game: GameLike, settings: tuple[int, float, int, int]) -> Bounder:
    """This thread's Bounder for ``game`` with ``settings``, kept so that what it has
    learnt serves the next part (the game is kept by it: its id stays its own)."""
    kept = getattr(_BOUNDERS, "kept", None)
    if kept is None:
        kept = _BOUNDERS.kept = {}
    key = (id(game), *settings)
    if key not in kept:
        exact_max, exact_seconds, exact_leaves, memory = settings
        kept[key] = Bounder(game, exact_max, exact_seconds, memory, exact_leaves=exact_leaves)
    return kept[key]


def part_bound_unit(
    game: GameLike,
    *,
    stop: Any,
    codes: np.ndarray,
    opening: int,
    depth: int,
    b: int,
    exact_max: int,
    exact_seconds: float,
    exact_leaves: int,
    solve_seconds: float,
    memory: int,
) -> dict[str, Any]:
    """A proved lower bound of one part (``codes``, the sorted secrets left after the
    guess ``opening`` and one score) as a unit of work (kind ``"optimum.part_bound"``):
    :meth:`Bounder.bound` at ``depth`` with ``b`` bounding every guess's part count, or
    with ``solve_seconds`` > 0 :meth:`Bounder.solve` within that time (the search's
    proved bound if stopped).  The thread keeps one Bounder per game and settings, so
    what it learns serves the next parts; ``stop`` stops the recursion
    (:class:`~mastermind.stopping.Stopped`).  The answer: the ``bound``, ``how`` it was
    found (:func:`how_of`) and the ``took`` seconds."""
    bounder = _bounder(game, (exact_max, exact_seconds, exact_leaves, memory))
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    t = time.perf_counter()
    bounder.stop = stop
    try:
        if solve_seconds > 0:
            value, exact = bounder.solve(codes, [int(opening)], float(solve_seconds))
            how = "exact" if exact else "solver"
        else:
            value, how = bounder.bound(codes, [int(opening)], int(depth), int(b))
    finally:
        bounder.stop = None
    return {
        "bound": int(value),
        "how": HOWS[how] if how in HOWS else int(how.split()[-1]),  # ("depth d")
        "took": time.perf_counter() - t,
    }
