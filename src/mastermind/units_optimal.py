"""The expected-case optimum as units of work: the subtrees below the root.

Each unit is one part of one opening (an allowed guess at the root, one per symmetry
class), solved exactly by the kernel's search on a worker with the opening as its
history (:func:`optimal_unit`).  An opening's total is the number of secrets plus its
parts' totals; the root plays the first opening, in the in-process search's order (the
bound from the counting estimates, the sum of squared part sizes, candidates first, the
index; docs/optimal.md), whose total is the least, so the strategy is the in-process one.

Units run with limits as answers come in: once an opening's total T is known, a part of
another opening is solved below the total that would let its opening still win (T, or
T + 1 for an opening earlier in the order, which wins a tie); an answer at or above that
limit is a proved lower bound and rules its opening out.  Limits never change the
answer: the chosen opening's parts are always solved exactly (docs/optimal.md, "The
strategy does not depend on how it was found").  Checkpoint kind ``optimal``; keys
``part/OPENING/SLOT``; a lower bound recorded for a part whose opening is still in the
running is solved again (the row is replaced).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _optimal
from ._optimal import NO_STRATEGY, RUN_ABOVE_LIMIT, RUN_OPTIMUM, RUN_STOPPED, est_table
from .engine.units import Unit, digest
from .optimal_search import Answer, new_optimizer
from .records import replay
from .stopping import Stopped, new_flag
from .strategy_walk import split_by_score

__all__ = [
    "INF",
    "OptimalPlan",
    "WholePlan",
    "checkpoint_params",
    "optimal_unit",
    "plan_optimal",
    "root_order",
    "valid_answer",
]

INF = NO_STRATEGY  # the kernel's "no strategy within the guesses left"
NO_LIMIT = 100  # guesses left when there is no limit


class Opening:
    """One root guess: its place in the order and its parts' answers so far."""

    def __init__(
        self,
        guess: int,
        lb: int,
        key2: int,
        notcand: bool,
        parts: list[tuple[int, np.ndarray, int]],
    ):
        self.guess = guess
        self.order = (lb, key2, notcand, guess)
        self.parts = parts  # (slot, candidates, estimate)
        self.exact: dict[int, int] = {}  # slot -> exact total
        self.lower: dict[int, int] = {}  # slot -> proved lower bound
        self.recs: dict[int, np.ndarray] = {}
        self.m = 0

    def bound(self) -> int:
        """m + the parts' totals, bounds or estimates: a lower bound of its total."""
        total = self.m
        for s, _, est in self.parts:
            total += self.exact.get(s, self.lower.get(s, est))
        return min(total, INF)

    def complete(self) -> bool:
        return len(self.exact) == len(self.parts)


def root_order(
    game: Any, cands: np.ndarray, candidates_only: bool, dl: int, max_guesses: int = 0
) -> list[Opening]:
    """The root's guesses the in-process search would explore, in its order, with their
    parts and the parts' estimates: the kernel's own ranking at a node
    (:func:`mastermind._optimal.root_order`: one guess per symmetry class, the ones giving
    no information or no chance within ``max_guesses`` dropped, the bound from the best
    part count)."""
    m = int(cands.size)
    blanks = game.symmetric and game.guesses.size == game.size
    guesses, bounds, key2, notcand, bnode = _optimal.root_order(
        game.kernel,
        game.guesses,
        cands,
        np.zeros(0, dtype=np.int32),
        candidates_only,
        game.symmetric,
        blanks,
        max_guesses,
    )
    estt = est_table(m, bnode, dl - 1)
    openings = []
    for g, lb, k2, nc in zip(guesses.tolist(), bounds.tolist(), key2.tolist(), notcand.tolist()):
        parts = [
            (s, part, estt[part.size])
            for s, part in split_by_score(game, g, cands)
            if s != game.win_slot
        ]
        o = Opening(g, lb, k2, bool(nc), parts)
        o.m = m
        openings.append(o)
    return openings


class OptimalPlan:
    """The openings' parts as units, the most promising openings first; done when every
    opening is solved exactly or ruled out."""

    kind = "optimal"

    def __init__(
        self,
        openings: list[Opening],
        dl: int,
        limited: bool,
        candidates_only: bool,
        memory: int,
        recorded: set[str],
        game: Any = None,
    ):
        self.game = game
        self.openings = openings
        self.dl = dl
        self.limited = limited
        self.candidates_only = candidates_only
        self.memory = memory
        self.recorded = recorded
        self.inflight: dict[str, tuple[int, int]] = {}
        self.offered = 0
        self.nodes = 0

    # -- the state
    def best(self) -> tuple[int, int]:
        """(least total known, the number of its opening), or (INF, -1)."""
        best, at = INF, -1
        for i, o in enumerate(self.openings):
            if o.complete() and o.bound() < best:
                best, at = o.bound(), i
        return best, at

    def threshold(self, i: int) -> int:
        """The total opening i must stay below to win: the best, or the best + 1 for
        an opening before the best's in the order (it wins a tie)."""
        best, at = self.best()
        if at < 0:
            return INF
        return best + 1 if i < at else best

    def alive(self, i: int) -> bool:
        return self.openings[i].bound() < self.threshold(i)

    def done(self) -> bool:
        return all(o.complete() or not self.alive(i) for i, o in enumerate(self.openings))

    def known(self) -> int:
        return self.offered

    def chosen(self) -> Optional[Opening]:
        _, at = self.best()
        return self.openings[at] if at >= 0 else None

    def lower(self) -> int:
        """A proved lower bound of the optimum (the least bound of an opening still in
        the running)."""
        bounds = [o.bound() for i, o in enumerate(self.openings) if self.alive(i) or o.complete()]
        return min(bounds) if bounds else INF

    # -- the units
    def _unit(self, i: int, s: int, part: np.ndarray, limit: int) -> Unit:
        o = self.openings[i]
        args = {
            "cands": part,
            "history": np.array([o.guess], dtype=np.int32),
            "max_guesses": self.dl - 1 if self.limited else 0,
            "candidates_only": self.candidates_only,
            "memory": self.memory,
        }
        ident = digest("mastermind.units_optimal:optimal_unit", args)
        return Unit(
            f"part/{o.guess}/{s}",
            "mastermind.units_optimal:optimal_unit",
            dict(args, limit=limit),
            int(part.size),
            ident,
        )

    def next(self) -> Optional[Unit]:
        first_pass = bool(self.recorded)
        for i, o in enumerate(self.openings):
            if o.complete() or not self.alive(i):
                continue
            thr = self.threshold(i)
            for s, part, est in sorted(o.parts, key=lambda p: -p[1].size):
                key = f"part/{o.guess}/{s}"
                if s in o.exact or key in self.inflight:
                    continue
                if first_pass and key not in self.recorded:
                    continue
                self.recorded.discard(key)
                current = o.lower.get(s, est)
                limit = 0 if thr >= INF else thr - (o.bound() - current)
                self.inflight[key] = (i, s)
                self.offered += 1
                return self._unit(i, s, part, max(limit, 0))
        if first_pass:  # every recorded unit offered: now the others
            self.recorded.clear()
            return self.next()
        return None

    def answer(self, done: bool) -> Answer:
        """The search's answer as the in-process search gives it: the chosen opening's
        tree (exact when ``done``), or no strategy, or only a lower bound."""
        o = self.chosen()
        if o is not None:
            total = o.bound()
            return Answer(
                RUN_OPTIMUM if done else RUN_STOPPED,
                total,
                total if done else self.lower(),
                _records(o),
            )
        if done:
            return Answer(RUN_ABOVE_LIMIT, INF, INF, None)
        return Answer(RUN_STOPPED, -1, self.lower(), None)

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit (:func:`valid_answer`)."""
        return valid_answer(self.game, unit, result)

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        i, s = self.inflight.pop(unit.key)
        o = self.openings[i]
        self.nodes += int(result.get("nodes", 0))
        status, value = int(result["status"]), int(result["value"])
        if status == RUN_OPTIMUM:
            o.exact[s] = value
            o.lower.pop(s, None)
            o.recs[s] = result["recs"]
        else:  # at or above its limit (or no strategy)
            o.lower[s] = max(o.lower.get(s, 0), value if value >= 0 else INF)
        return [
            k
            for k, (j, _) in self.inflight.items()
            if not self.alive(j) and not self.openings[j].complete()
        ]


def optimal_unit(
    game: Any,
    *,
    stop: Any,
    cands: np.ndarray,
    history: np.ndarray,
    max_guesses: int,
    limit: int,
    candidates_only: bool,
    memory: int,
    first: int = -1,
) -> dict[str, Any]:
    """One subtree, on a worker: the kernel's search on ``cands`` after ``history``,
    below ``limit`` (0: none); its status (``RUN_OPTIMUM`` exact, ``RUN_ABOVE_LIMIT``
    nothing below the limit), value (the total, or a lower bound >= the limit) and, when
    exact, its tree's records."""
    search = new_optimizer(game, candidates_only, memory, 1)
    flag = stop if stop is not None else new_flag()
    status, value, lower, recs = search.run(
        cands, history, int(max_guesses), int(limit), int(first), flag
    )
    if status == RUN_STOPPED:
        raise Stopped("the unit was stopped")
    out: dict[str, Any] = {
        "status": int(status),
        "value": int(value),
        "nodes": int(search.stats["nodes"]),
    }
    if status == RUN_OPTIMUM:
        out["recs"] = np.ascontiguousarray(recs, dtype=np.int32)
    return out


def _records(o: Opening) -> np.ndarray:
    """The whole tree's records: the root, then each part's subtree (slot order)."""
    rows = [np.array([[-1, -1, o.guess, o.m, 1]], dtype=np.int32)]
    base = 1
    for s, _, _ in sorted(o.parts, key=lambda p: p[0]):
        r = o.recs[s].copy()
        r[:, 0] = np.where(r[:, 0] < 0, 0, r[:, 0] + base)
        r[0, 1] = s
        r[:, 4] += 1
        rows.append(r)
        base += r.shape[0]
    return np.concatenate(rows)


class WholePlan:
    """A small game (or one allowed two guesses or fewer) as one unit: the whole
    search on a worker."""

    kind = "optimal"

    def __init__(
        self,
        cands: np.ndarray,
        max_guesses: Optional[int],
        g0: Optional[int],
        candidates_only: bool,
        memory: int,
        game: Any = None,
    ):
        self.game = game
        self.unit = Unit(
            "whole",
            "mastermind.units_optimal:optimal_unit",
            {
                "cands": cands,
                "history": np.zeros(0, dtype=np.int32),
                "max_guesses": max_guesses or 0,
                "limit": 0,
                "candidates_only": candidates_only,
                "memory": memory,
                "first": -1 if g0 is None else g0,
            },
            int(cands.size),
        )
        self.result: Optional[dict[str, Any]] = None
        self.offered = 0
        self.nodes = 0

    def next(self) -> Optional[Unit]:
        if self.offered:
            return None
        self.offered = 1
        return self.unit

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit (:func:`valid_answer`)."""
        return valid_answer(self.game, unit, result)

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        self.result = result
        self.nodes = int(result.get("nodes", 0))
        return []

    def done(self) -> bool:
        return self.result is not None

    def known(self) -> int:
        return 1

    def answer(self, done: bool) -> Optional[Answer]:
        """The whole search's answer, or None when it did not finish."""
        if self.result is None:
            return None
        r = self.result
        return Answer(int(r["status"]), int(r["value"]), int(r["value"]), r.get("recs"))


def checkpoint_params(
    game: Any, candidates_only: bool, max_guesses: Optional[int], g0: Optional[int]
) -> dict[str, Any]:
    """What an optimal search's units answer depends on, beside the game (the memory
    does not change an exact answer): its checkpoint's parameters."""
    return {
        "candidates_only": bool(candidates_only),
        "max_guesses": max_guesses,
        "first": None if g0 is None else game.format_code(g0),
    }


def plan_optimal(
    game: Any,
    max_guesses: Optional[int],
    candidates_only: bool,
    g0: Optional[int],
    memory: int,
    recorded: set[str],
) -> Any:
    """The plan: the root's openings (just ``g0`` when given), or the whole search as
    one unit for a small game or two guesses or fewer."""
    cands = np.ascontiguousarray(game.secrets)
    dl = max_guesses or NO_LIMIT
    if cands.size <= max(_optimal.FEW_CODES_MAX, game.kernel.nslots) or dl <= 2:
        return WholePlan(cands, max_guesses, g0, candidates_only, memory, game)
    if g0 is not None:
        parts = [(s, part, 0) for s, part in split_by_score(game, g0, cands) if s != game.win_slot]
        o = Opening(g0, 0, 0, False, parts)
        o.m = int(cands.size)
        openings = [o]
    else:
        openings = root_order(game, cands, candidates_only, dl, max_guesses or 0)
    return OptimalPlan(openings, dl, bool(max_guesses), candidates_only, memory, recorded, game)


def valid_answer(game: Any, unit: Unit, result: dict[str, Any]) -> bool:
    """Whether the answer of an :func:`optimal_unit` holds for ``unit``: a status it can
    record (exact, or nothing below the limit); when exact, its tree replays on the
    unit's set to its value, within its most guesses, opening with its first guess when
    it names one.  (A lower bound cannot be checked so cheaply: it is taken as it is.)
    Without the game (a plan built by hand) only the form is checked."""
    status, value = int(result["status"]), int(result["value"])
    if status not in (RUN_OPTIMUM, RUN_ABOVE_LIMIT) or (status == RUN_OPTIMUM and value <= 0):
        return False
    if status == RUN_ABOVE_LIMIT or game is None:
        return True
    recs = np.asarray(result["recs"])
    args = unit.args
    first = int(args.get("first", -1))
    if first >= 0 and (recs.ndim != 2 or recs.shape[0] == 0 or int(recs[0, 2]) != first):
        return False
    played = replay(game, recs, args["cands"], bool(args["candidates_only"]))
    if played is None or played[0] != value:
        return False
    return not args["max_guesses"] or played[1] <= int(args["max_guesses"])
