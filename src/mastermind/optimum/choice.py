"""The choice of a guess at one set, as the optimal search makes it, kept as answers
come in from elsewhere: the set's guesses in the search's order (:func:`root_order`),
each with its parts and what is known of their totals (:class:`Opening`), and the rules
that say which guesses are still in the running and which part to solve next
(:class:`Choice`).

The units of an optimal search (:mod:`mastermind.optimum.units`) use one choice at the
root of the game and one more at each set whose unit split past its budget.  The rules
are the search's own, so the guess chosen is the one the search in a single process
chooses: among the guesses with the least total, the first in the order (the bound from
the counting estimates, the sum of squared part sizes, candidates first, the index).  A
guess is dropped once its bound (the set's size plus each part's total, proved lower
bound or estimate) reaches the least total known (or passes it, for a guess earlier in
the order, which would win a tie), the limit below which the set's answer is wanted, or
one more than a total some strategy is known to reach.  Every bound only grows and every
threshold only shrinks, so a dropped guess never comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..strategy_tree import split_by_score
from . import _optimal
from ._optimal import NO_STRATEGY, RUN_ABOVE_LIMIT, RUN_OPTIMUM, est_table

if TYPE_CHECKING:
    from ..game import GameCore

__all__ = ["INF", "NO_LIMIT", "Choice", "Opening", "records", "root_order", "scanned"]

INF = NO_STRATEGY  # the kernel's "no strategy within the guesses left"
NO_LIMIT = _optimal.GUESSES_UNLIMITED  # guesses left when there is no limit (the kernel's)


class Opening:
    """One guess at a set: its place in the order, its parts (worked out when first
    needed) and their answers so far."""

    def __init__(self, guess: int, lb: int, key2: int, *, notcand: bool, m: int):
        self.guess = guess
        self.lb = lb  # the search's bound: m + the parts' estimates
        self.order = (lb, key2, notcand, guess)
        self.m = m  # the set's size
        self.parts: Optional[list[tuple[int, np.ndarray, int]]] = None  # (slot, codes, est)
        self.by_size: Optional[list[int]] = None  # the slots, the largest part first
        self.exact: dict[int, int] = {}  # slot -> exact total
        self.lower: dict[int, int] = {}  # slot -> proved lower bound
        self.recs: dict[int, np.ndarray] = {}
        self._bound: Optional[int] = None

    def bound(self) -> int:
        """m + the parts' totals, bounds or estimates: a lower bound of its total."""
        if self._bound is None:
            if self.parts is None:
                return min(self.lb, INF)
            total = self.m
            for s, _, est in self.parts:
                total += self.exact.get(s, self.lower.get(s, est))
            self._bound = min(total, INF)
        return self._bound

    def changed(self) -> None:
        """Its parts or their answers changed: the bound is worked out again."""
        self._bound = None

    def complete(self) -> bool:
        return self.parts is not None and len(self.exact) == len(self.parts)


def root_order(
    game: GameCore,
    cands: np.ndarray,
    *,
    candidates_only: bool,
    dl: int,
    max_guesses: int = 0,
    history: Optional[np.ndarray] = None,
    limit: int = 0,
) -> tuple[list[Opening], list[int]]:
    """The guesses the in-process search would explore at ``cands`` (after the guesses
    ``history``, for the symmetry), in its order: the kernel's own ranking at a node
    (:func:`mastermind.optimum._optimal.root_order`: one guess per symmetry class, the ones
    giving no information or no chance within ``max_guesses`` dropped, only those whose
    bound is below ``limit`` when one is given), and the estimate of a part of each size
    (``dl`` guesses left at the set)."""
    return from_scan(
        game,
        cands,
        dl,
        *scanned(
            game,
            cands,
            candidates_only=candidates_only,
            max_guesses=max_guesses,
            history=history,
            limit=limit,
        ),
    )


def scanned(
    game: GameCore,
    cands: np.ndarray,
    *,
    candidates_only: bool,
    max_guesses: int = 0,
    history: Optional[np.ndarray] = None,
    limit: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The kernel's scan of a set: (guesses, bounds, key2, notcand, best part count)."""
    blanks = game.symmetric and game.guesses.size == game.size
    hist = np.zeros(0, dtype=np.int32) if history is None else history
    guesses, bounds, key2, notcand, bnode = _optimal.root_order(
        game.kernel,
        game.guesses,
        cands,
        np.ascontiguousarray(hist, dtype=np.int32),
        cands_only=candidates_only,
        symmetry=game.symmetric,
        blanks=blanks,
        max_guesses=max_guesses,
        limit=limit,
    )
    return guesses, bounds, key2, notcand, int(bnode)


def from_scan(
    game: GameCore,
    cands: np.ndarray,
    dl: int,
    guesses: Any,
    bounds: Any,
    key2: Any,
    notcand: Any,
    bnode: int,
) -> tuple[list[Opening], list[int]]:
    """The openings of a scanned set (:func:`scanned`) and the estimate of a part of
    each size."""
    m = int(cands.size)
    estt = est_table(m, int(bnode), dl - 1)
    openings = [
        Opening(int(g), int(lb), int(k2), notcand=bool(nc), m=m)
        for g, lb, k2, nc in zip(
            np.asarray(guesses).tolist(),
            np.asarray(bounds).tolist(),
            np.asarray(key2).tolist(),
            np.asarray(notcand).tolist(),
        )
    ]
    return openings, estt


class Choice:
    """The guess chosen at one set (``cands``), as answers about its openings' parts
    come in: the openings in the search's order, ``limit`` (its answer is wanted only
    below it; INF: always) and ``upper`` (a total some strategy reaches there; INF:
    none known)."""

    def __init__(
        self,
        game: GameCore,
        cands: np.ndarray,
        openings: list[Opening],
        estt: list[int],
        limit: int = INF,
        upper: int = INF,
    ):
        self.game = game
        self.cands = cands
        self.openings = openings
        self.estt = estt
        self.limit = limit
        self.cap = min(limit, upper + 1 if upper < INF else INF)
        self.inflight: set[tuple[int, int]] = set()
        self._best: Optional[tuple[int, int]] = None  # (best, at), until an answer comes
        # the openings before this one are complete or out of the running, for good
        self._settled = 0

    # -- the state
    def parts(self, i: int) -> list[tuple[int, np.ndarray, int]]:
        """Opening i's non-winning parts (slot, codes, estimate), worked out once."""
        o = self.openings[i]
        if o.parts is None:
            game = self.game
            o.parts = [
                (s, part, self.estt[part.size])
                for s, part in split_by_score(game, o.guess, self.cands)
                if s != game.win_slot
            ]
            o.changed()
        return o.parts

    def best(self) -> tuple[int, int]:
        """(least total known below the limit, the number of its opening), or (INF, -1)."""
        if self._best is None:
            best, at = INF, -1
            for i, o in enumerate(self.openings):
                if o.complete() and o.bound() < min(best, self.limit):
                    best, at = o.bound(), i
            self._best = (best, at)
        return self._best

    def threshold(self, i: int) -> int:
        """The total opening i must stay below to win: the best (or the best + 1 for an
        opening before the best's in the order: it wins a tie), the limit, the upper
        bound + 1."""
        best, at = self.best()
        if at < 0:
            return self.cap
        return min(best + 1 if i < at else best, self.cap)

    def alive(self, i: int) -> bool:
        return self.openings[i].bound() < self.threshold(i)

    def done(self) -> bool:
        return all(o.complete() or not self.alive(i) for i, o in enumerate(self.openings))

    def chosen(self) -> Optional[Opening]:
        _, at = self.best()
        return self.openings[at] if at >= 0 else None

    def lower(self) -> int:
        """A proved lower bound of the set's total (the least bound of an opening still
        in the running, or complete)."""
        bounds = [o.bound() for i, o in enumerate(self.openings) if self.alive(i) or o.complete()]
        return min(bounds) if bounds else self.cap

    # -- the parts to solve
    def pick(self, first: Optional[Callable[[int, int], bool]] = None) -> Optional[tuple[int, int]]:
        """The next part to solve, as (opening, slot): the openings still in the running in
        order, each one's parts the largest first, not solved or being solved; with
        ``first``, only the parts it accepts.  None when there is none."""
        for i in range(self._settled, len(self.openings)):
            o = self.openings[i]
            if o.complete() or not self.alive(i):
                if i == self._settled:  # (never picked again: bounds only rise)
                    self._settled += 1
                continue
            for s in self.largest_first(i):
                if s in o.exact or (i, s) in self.inflight:
                    continue
                if first is not None and not first(i, s):
                    continue
                return i, s
        return None

    def largest_first(self, i: int) -> list[int]:
        """Opening i's parts' slots, the largest part first (as the search solves them)."""
        o = self.openings[i]
        if o.by_size is None:
            o.by_size = [s for s, _, _ in sorted(self.parts(i), key=lambda p: -p[1].size)]
        return o.by_size

    def part(self, i: int, s: int) -> np.ndarray:
        return next(p for t, p, _ in self.parts(i) if t == s)

    def limit_of(self, i: int, s: int) -> int:
        """The limit to solve part s of opening i below (0: none): what its opening's
        threshold leaves it beside the other parts' bounds."""
        o = self.openings[i]
        thr = self.threshold(i)
        if thr >= INF:
            return 0
        est = next(e for t, _, e in self.parts(i) if t == s)
        current = o.lower.get(s, est)
        return max(thr - (o.bound() - current), 0)

    def take(self, i: int, s: int, result: dict[str, Any]) -> None:
        """A part's answer: exact, or a lower bound (at or above its limit)."""
        self.inflight.discard((i, s))
        o = self.openings[i]
        status, value = int(result["status"]), int(result["value"])
        if status == RUN_OPTIMUM:
            o.exact[s] = value
            o.lower.pop(s, None)
            o.recs[s] = result["recs"]
        else:  # at or above its limit (or no strategy)
            o.lower[s] = max(o.lower.get(s, 0), value if value >= 0 else INF)
        o.changed()
        if self._best is not None and o.complete():  # the only way the best can change
            best, at = self._best
            if (o.bound(), i) < (best, at if at >= 0 else len(self.openings)) and (
                o.bound() < self.limit
            ):
                self._best = (o.bound(), i)

    def dead_inflight(self) -> list[tuple[int, int]]:
        """The parts being solved whose openings are out of the running."""
        return [(i, s) for i, s in self.inflight if not self.alive(i)]

    def answer(self) -> dict[str, Any]:
        """The set's answer once :meth:`done`: exact with its tree's records, or a
        lower bound at or above the limit."""
        o = self.chosen()
        if o is not None:
            return {"status": RUN_OPTIMUM, "value": o.bound(), "recs": records(o)}
        # (no guess at all below the cap: the total is at least the cap, no more is known)
        least = min((o.bound() for o in self.openings), default=self.cap)
        return {"status": RUN_ABOVE_LIMIT, "value": max(least, self.limit)}


def records(o: Opening) -> np.ndarray:
    """The tree's records below a complete opening: its guess, then each part's subtree
    (slot order)."""
    assert o.parts is not None
    rows = [np.array([[-1, -1, o.guess, o.m, 1]], dtype=np.int32)]
    base = 1
    for s, _, _ in sorted(o.parts, key=lambda p: p[0]):
        r = np.array(o.recs[s], dtype=np.int32, copy=True)
        r[:, 0] = np.where(r[:, 0] < 0, 0, r[:, 0] + base)
        r[0, 1] = s
        r[:, 4] += 1
        rows.append(r)
        base += r.shape[0]
    return np.concatenate(rows)
