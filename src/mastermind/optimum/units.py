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

With a unit budget (``unit_seconds``), a part whose search runs past it splits: the
worker hands back the guesses its search would try at the part's set (their order and
bounds, from the scan it had made), and the part's set becomes a choice of its own,
made by the same rules as the root's (:mod:`mastermind.optimum.choice`): its parts are
units keyed ``PARENT/GUESS/SLOT`` (which split in turn), offered as the executor has
room, with the limits the answers so far allow, the small ones solved at once here.
The split part's answer is then the one its own search would have given, its tree
included.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..engine.units import Unit
from ..kernel import _core
from ..stopping import Stopped, new_flag
from ..strategy_tree import replay_records, split_by_score
from . import _optimal
from ._optimal import RUN_ABOVE_LIMIT, RUN_OPTIMUM, RUN_STOPPED
from .choice import INF, NO_LIMIT, Choice, Opening, from_scan, records, root_order, scanned
from .search import Answer, new_optimizer

if TYPE_CHECKING:
    from ..game import GameCore, GameLike

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


class OptimalPlan:
    """The openings' parts as units, the most promising openings first; done when every
    opening is solved exactly or ruled out.

    With a unit budget a part past it splits (:func:`optimal_unit`): its set becomes a
    :class:`~mastermind.optimum.choice.Choice` of its own, whose parts are offered one at
    a time as the executor has room (:meth:`more`), with the limits the answers so far
    give them, small ones solved at once here; its answer, once its choice is made
    (:meth:`merge`), is the answer the part's own search would have given."""

    kind = "optimal"

    def __init__(
        self,
        openings: list[Opening],
        estt: list[int],
        dl: int,
        *,
        limited: bool,
        candidates_only: bool,
        memory: int,
        recorded: set[str],
        game: GameLike,
        cands: Optional[np.ndarray] = None,
        played: Optional[np.ndarray] = None,
    ):
        self.game = game
        # the guesses played before the root's set (a position's history), for the units
        self.played = np.zeros(0, dtype=np.int32) if played is None else played
        self.root = Choice(
            game, np.zeros(0, dtype=np.int32) if cands is None else cands, openings, estt
        )
        self.openings = openings
        self.dl = dl
        self.limited = limited
        self.candidates_only = candidates_only
        self.memory = memory
        # the checkpoint's keys: the root's parts (offered first on a resume), and those
        # below them (each split offers its own recorded parts first)
        self.recorded = {k for k in recorded if k.count("/") == 2}
        self.below: dict[str, set[str]] = {}  # a split's key -> its recorded parts' keys
        for k in recorded:
            if k.count("/") > 2:
                self.below.setdefault(k.rsplit("/", 2)[0], set()).add(k)
        self.inflight: dict[str, tuple[int, int]] = {}
        self.splits: dict[str, _Split] = {}  # key of a unit that split -> its choice
        self.offered = 0
        self.nodes = 0
        self.inline = 0  # parts of split units solved here at once

    # -- the state
    def best(self) -> tuple[int, int]:
        """(least total known, the number of its opening), or (INF, -1)."""
        return self.root.best()

    def threshold(self, i: int) -> int:
        return self.root.threshold(i)

    def alive(self, i: int) -> bool:
        return self.root.alive(i)

    def done(self) -> bool:
        return self.root.done()

    def known(self) -> int:
        return self.offered

    def chosen(self) -> Optional[Opening]:
        return self.root.chosen()

    def lower(self) -> int:
        """A proved lower bound of the optimum (the least bound of an opening still in
        the running)."""
        return self.root.lower()

    # -- the units
    def _unit(self, key: str, history: np.ndarray, part: np.ndarray, dl: int, limit: int) -> Unit:
        args = {
            "cands": part,
            "history": history,
            "max_guesses": dl - 1 if self.limited else 0,
            "candidates_only": self.candidates_only,
            "memory": self.memory,
        }
        return Unit(key, "optimum.part", dict(args, limit=limit), int(part.size), identity=args)

    def next(self) -> Optional[Unit]:
        first_pass = bool(self.recorded)
        root = self.root
        pick = root.pick(
            (lambda i, s: f"part/{root.openings[i].guess}/{s}" in self.recorded)
            if first_pass
            else None
        )
        if pick is None:
            if first_pass:  # every recorded unit offered: now the others
                self.recorded.clear()
                return self.next()
            return None
        i, s = pick
        g = root.openings[i].guess
        key = f"part/{g}/{s}"
        self.recorded.discard(key)
        root.inflight.add((i, s))
        self.inflight[key] = (i, s)
        self.offered += 1
        history = np.append(self.played, np.int32(g)).astype(np.int32)
        return self._unit(key, history, root.part(i, s), self.dl, root.limit_of(i, s))

    def answer(self, *, done: bool) -> Answer:
        """The search's answer as the in-process search gives it: the chosen opening's
        tree (exact when ``done``), or no strategy, or only a lower bound."""
        o = self.chosen()
        if o is not None:
            total = o.bound()
            return Answer(
                RUN_OPTIMUM if done else RUN_STOPPED,
                total,
                total if done else self.lower(),
                records(o),
            )
        if done:
            return Answer(RUN_ABOVE_LIMIT, INF, INF, None)
        return Answer(RUN_STOPPED, -1, self.lower(), None)

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit (:func:`valid_answer`)."""
        return valid_answer(self.game, unit, result)

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        i, s = self.inflight.pop(unit.key)
        self.nodes += int(result.get("nodes", 0))
        self.root.take(i, s, result)
        dead = set(self.root.dead_inflight())
        return [k for k, p in self.inflight.items() if p in dead]

    # -- units that split
    def valid_split(self, unit: Unit, split: dict[str, Any]) -> bool:
        """A recorded split names guesses of the game, one bound each."""
        openings = np.asarray(split["openings"])
        return bool(
            openings.ndim == 1
            and np.asarray(split["bounds"]).shape == openings.shape
            and np.isin(openings, self.game.guesses).all()
        )

    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """A part that split: its set's choice, made here; its parts are offered one
        at a time (:meth:`more`), none at once."""
        self.splits[unit.key] = _Split(self, unit, split)
        return []

    def more(self, unit: Unit, split: dict[str, Any], answers: dict[str, Any]) -> Optional[Unit]:
        """The next part a split unit's choice needs solved, as a unit (parts too small
        to split are solved here at once)."""
        st = self.splits.get(unit.key)
        return None if st is None else st.more(answers)

    def merge(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> Optional[dict[str, Any]]:
        """A split unit's answer once its choice is made: the same as its own search's
        (the tree replayed on its set), or None while open."""
        st = self.splits.get(unit.key)
        if st is None:
            return None
        out = st.merge(answers)
        if out is not None:
            del self.splits[unit.key]
        return out

    def unneeded(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> list[str]:
        """The parts being solved for a split unit whose openings are out of the running."""
        st = self.splits.get(unit.key)
        return [] if st is None else st.unneeded()


def _guess_slot(key: str) -> tuple[int, int]:
    """The opening's guess and the slot a part's key PARENT/GUESS/SLOT names."""
    _, guess, slot = key.rsplit("/", 2)
    return int(guess), int(slot)


class _Split:
    """The choice at the set of a unit that split: its openings from the worker's scan,
    its limit, a total some strategy reaches there, the parts solved so far."""

    def __init__(self, plan: OptimalPlan, unit: Unit, split: dict[str, Any]):
        game = plan.game
        self.plan = plan
        self.unit = unit
        args = unit.args
        self.cands = args["cands"]
        self.history = np.asarray(args["history"], dtype=np.int32)
        self.max_guesses = int(args["max_guesses"])
        dl = self.max_guesses or NO_LIMIT
        openings, estt = from_scan(
            game,
            self.cands,
            dl,
            split["openings"],
            split["bounds"],
            split["key2"],
            split["notcand"],
            int(split["bnode"]),
        )
        limit = int(split["limit"])
        upper = int(split["upper"])
        self.choice = Choice(
            game,
            self.cands,
            openings,
            estt,
            limit if limit > 0 else INF,
            upper if upper > 0 else INF,
        )
        self.dl = dl
        # its own parts' keys (PARENT/GUESS/SLOT) the checkpoint holds, and as (opening,
        # slot) pairs: offered first on a resume (a set lookup each, not a key made)
        self.recorded = set(plan.below.get(unit.key, ()))
        at = {o.guess: i for i, o in enumerate(self.choice.openings)}
        self.recorded_at = {
            (at[g], s) for g, s in (_guess_slot(k) for k in self.recorded) if g in at
        }
        # ... in the order pick() meets them: opening, then its parts largest first
        self.queue = sorted(
            (i, self.choice.largest_first(i).index(s), s)
            for i, s in self.recorded_at
            if s in self.choice.largest_first(i)
        )
        self.queue.reverse()  # (popped from the end)
        self.keys: dict[str, tuple[int, int]] = {}  # sub-unit key -> (opening, slot)
        self.seen: dict[str, int] = {}  # sub-unit key -> id of the answer taken
        self.retake: set[str] = set()  # re-offered parts: their next answer replaces one
        self.answers: dict[str, Any] = {}  # the answers read last, and how many
        self.counted = 0
        self.nodes = int(split.get("nodes", 0))

    def _key(self, i: int, s: int) -> str:
        return f"{self.unit.key}/{self.choice.openings[i].guess}/{s}"

    def _take(self, answers: dict[str, Any]) -> None:
        """The parts' answers not taken yet: those added to ``answers`` since the last
        call (the engine's dict of this split's answers only grows, in order), and the
        re-offered parts' whose answer is replaced in place."""
        if answers is not self.answers or len(answers) < self.counted:
            self.answers, self.counted = answers, 0
        added = list(itertools.islice(reversed(answers), len(answers) - self.counted))
        fresh = [(k, answers[k]) for k in reversed(added)]
        self.counted = len(answers)
        fresh += [(k, answers[k]) for k in list(self.retake) if k in answers]
        for key, a in fresh:
            if self.seen.get(key) == id(a) or key not in self.keys:
                continue
            self.seen[key] = id(a)
            self.retake.discard(key)
            i, s = self.keys[key]
            self.nodes += int(a.get("nodes", 0))
            self.choice.take(i, s, a)

    def _recorded_pick(self) -> Optional[tuple[int, int]]:
        """What ``choice.pick`` would give among the parts the checkpoint holds: the first
        in its order still to solve.  A part met that never can be again (its opening
        complete or out of the running, for good: bounds only rise and the best total
        only falls; or the part solved or being solved) is dropped, so a resume replays
        its recorded parts in time proportional to their number."""
        choice, queue = self.choice, self.queue
        while queue:
            i, _, s = queue[-1]
            o = choice.openings[i]
            taken = (i, s) not in self.recorded_at or s in o.exact or (i, s) in choice.inflight
            if not (taken or o.complete() or not choice.alive(i)):
                return i, s
            queue.pop()
        return None

    def more(self, answers: dict[str, Any]) -> Optional[Unit]:
        self._take(answers)
        plan, choice = self.plan, self.choice
        recorded, recorded_at = self.recorded, self.recorded_at
        while True:
            pick = self._recorded_pick() or choice.pick()
            if pick is None:
                return None
            i, s = pick
            part = choice.part(i, s)
            limit = choice.limit_of(i, s)
            history = np.append(self.history, np.int32(choice.openings[i].guess)).astype(np.int32)
            if part.size <= small_set(plan.game):  # solved here at once
                a = optimal_unit(
                    plan.game,
                    stop=None,
                    cands=part,
                    history=history,
                    max_guesses=self.dl - 1 if plan.limited else 0,
                    limit=limit,
                    candidates_only=plan.candidates_only,
                    memory=SMALL_MEMORY,
                )
                plan.inline += 1
                self.nodes += int(a.get("nodes", 0))
                choice.take(i, s, a)
                continue
            unit = plan._unit(self._key(i, s), history, part, self.dl, limit)
            recorded.discard(unit.key)
            recorded_at.discard((i, s))
            choice.inflight.add((i, s))
            self.keys[unit.key] = (i, s)
            if unit.key in answers:  # solved before below a lower limit: this answer is new
                self.seen[unit.key] = id(answers[unit.key])
                self.retake.add(unit.key)
            return unit

    def merge(self, answers: dict[str, Any]) -> Optional[dict[str, Any]]:
        self._take(answers)
        if not self.choice.done():
            return None
        out = self.choice.answer()
        out["nodes"] = self.nodes
        if out["status"] == RUN_OPTIMUM:
            played = replay_records(
                self.plan.game,
                out["recs"],
                self.cands,
                candidates_only=bool(self.unit.args["candidates_only"]),
            )
            if played is None or played[0] != out["value"]:  # pragma: no cover - a bug
                raise RuntimeError(f"the tree put together for {self.unit.key} does not hold")
        return out

    def unneeded(self) -> list[str]:
        dead = set(self.choice.dead_inflight())
        if not dead:
            return []
        out = [k for k, p in self.keys.items() if p in dead]
        for k in out:
            self.choice.inflight.discard(self.keys.pop(k))
        return out


#: memo bytes for the small parts a split unit's choice solves at once
SMALL_MEMORY = 1 << 22


def small_set(game: GameCore) -> int:
    """The largest set the kernel solves without a scan of its own (its few-code path,
    or no more codes than slots): never split, solved where it is met."""
    return max(_optimal.FEW_CODES_MAX, game.kernel.nslots)


def optimal_unit(
    game: GameCore,
    *,
    stop: Any,
    cands: np.ndarray,
    history: np.ndarray,
    max_guesses: int,
    limit: int,
    candidates_only: bool,
    memory: int,
    first: int = -1,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """One subtree, on a worker: the kernel's search on ``cands`` after ``history``,
    below ``limit`` (0: none); its status (``RUN_OPTIMUM`` exact, ``RUN_ABOVE_LIMIT``
    nothing below the limit), value (the total, or a lower bound >= the limit) and, when
    exact, its tree's records.

    With a ``budget`` (seconds) a search still running past it stops and the subtree
    splits (``split=1``): the guesses its search would try at its set, in its order,
    with their bounds (:func:`mastermind.optimum.choice.scanned`, only those below the
    limit and below one more than the best total the stopped search had found), for
    :meth:`OptimalPlan.expand`; or, when the stopped search had proved a lower bound at
    or above the limit, that answer."""
    search = new_optimizer(game, candidates_only=candidates_only, memory=memory, threads=1)
    flag = stop if stop is not None else new_flag()
    dl = int(max_guesses) or NO_LIMIT
    splits = budget is not None and cands.size > small_set(game) and dl > 2 and first < 0
    if budget is not None and splits:
        flag.set_time_limit(max(float(budget), 1e-9))
    status, value, lower, recs = search.run(
        cands, history, int(max_guesses), int(limit), int(first), flag
    )
    nodes = int(search.stats["nodes"])
    if status == RUN_STOPPED:
        if not (splits and flag.value == _core.STOP_DEADLINE):
            raise Stopped("the unit was stopped")
        flag.clear()
        flag.set_time_limit(0)
        if limit > 0 and lower >= limit:
            return {"status": RUN_ABOVE_LIMIT, "value": int(lower), "nodes": nodes}
        upper = int(value) if value > 0 else INF
        cap = min(int(limit) if limit > 0 else INF, upper + 1 if upper < INF else INF)
        guesses, bounds, key2, notcand, bnode = scanned(
            game,
            cands,
            candidates_only=candidates_only,
            max_guesses=int(max_guesses),
            history=history,
            limit=0 if cap >= INF else cap,
        )
        return {
            "split": 1,
            "nodes": nodes,
            "openings": guesses,
            "bounds": bounds,
            "key2": key2,
            "notcand": notcand.astype(np.int8),
            "bnode": int(bnode),
            "limit": int(limit),
            "upper": upper if upper < INF else 0,
        }
    out: dict[str, Any] = {"status": int(status), "value": int(value), "nodes": nodes}
    if status == RUN_OPTIMUM:
        out["recs"] = np.ascontiguousarray(recs, dtype=np.int32)
    return out


class WholePlan:
    """A small game (or one allowed two guesses or fewer) as one unit: the whole
    search on a worker."""

    kind = "optimal"

    def __init__(
        self,
        cands: np.ndarray,
        max_guesses: Optional[int],
        g0: Optional[int],
        *,
        candidates_only: bool,
        memory: int,
        game: GameLike,
        played: Optional[np.ndarray] = None,
    ):
        self.game = game
        self.unit = Unit(
            "whole",
            "optimum.part",
            {
                "cands": cands,
                "history": np.zeros(0, dtype=np.int32) if played is None else played,
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

    def answer(self, *, done: bool) -> Optional[Answer]:
        """The whole search's answer, or None when it did not finish."""
        if self.result is None:
            return None
        r = self.result
        return Answer(int(r["status"]), int(r["value"]), int(r["value"]), r.get("recs"))


def checkpoint_params(
    game: GameLike,
    *,
    candidates_only: bool,
    max_guesses: Optional[int],
    g0: Optional[int],
    played: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """What an optimal search's units answer depends on, beside the game (the memory
    does not change an exact answer): its checkpoint's parameters (``played``: the
    position's (guess, slot) pairs, named only when there are some, so a checkpoint of
    the whole game keeps the parameters it always had)."""
    params: dict[str, Any] = {
        "candidates_only": bool(candidates_only),
        "max_guesses": max_guesses,
        "first": None if g0 is None else game.format_code(g0),
    }
    if played:
        params["history"] = [[game.format_code(g), str(game.slots[s])] for g, s in played]
    return params


def plan_optimal(
    game: GameLike,
    max_guesses: Optional[int],
    *,
    candidates_only: bool,
    g0: Optional[int],
    memory: int,
    recorded: set[str],
    played: Sequence[tuple[int, int]] = (),
) -> Any:
    """The plan: the root's openings (just ``g0`` when given), or the whole search as
    one unit for a small game or two guesses or fewer.  ``played``: the (guess, slot)
    pairs of a position to start from (its candidates are the root's set; ``max_guesses``
    then counts the guesses still to come)."""
    cands = np.ascontiguousarray(game.candidates((g, game.slots[s]) for g, s in played))
    hist = np.array([g for g, _ in played], dtype=np.int32)
    dl = max_guesses or NO_LIMIT
    if cands.size <= small_set(game) or dl <= 2:
        return WholePlan(
            cands,
            max_guesses,
            g0,
            candidates_only=candidates_only,
            memory=memory,
            game=game,
            played=hist,
        )
    if g0 is not None:
        o = Opening(g0, 0, 0, notcand=False, m=int(cands.size))
        o.parts = [
            (s, part, 0) for s, part in split_by_score(game, g0, cands) if s != game.win_slot
        ]
        openings, estt = [o], list[int]()
    else:
        openings, estt = root_order(
            game,
            cands,
            candidates_only=candidates_only,
            dl=dl,
            max_guesses=max_guesses or 0,
            history=hist,
        )
    return OptimalPlan(
        openings,
        estt,
        dl,
        limited=bool(max_guesses),
        candidates_only=candidates_only,
        memory=memory,
        recorded=recorded,
        game=game,
        cands=cands,
        played=hist,
    )


def valid_answer(game: GameLike, unit: Unit, result: dict[str, Any]) -> bool:
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
    played = replay_records(
        game, recs, args["cands"], candidates_only=bool(args["candidates_only"])
    )
    if played is None or played[0] != value:
        return False
    return not args["max_guesses"] or played[1] <= int(args["max_guesses"])
