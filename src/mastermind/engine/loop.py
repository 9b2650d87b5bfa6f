"""The loop that runs a plan's units on an executor (:func:`execute`): the units a
checkpoint holds taken from it, the others run and recorded as they finish, units that
split on their budget followed down and merged back, a sample of the answers re-run on
the client (:mod:`mastermind.engine.spotcheck`), Ctrl-C, a stop flag and a time limit
obeyed with every finished unit kept."""

from __future__ import annotations

import time
import warnings
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional, cast

from .. import checks
from ..kernel import _core
from ..stopping import Stopped, stopped
from .spotcheck import Mismatch, Sampler, SpotCheckWarning, first_difference
from .units import (
    Executor,
    Plan,
    SplitPlan,
    Unit,
    UnitError,
    is_split,
    recorded_digests,
)
from .workers import UnitFailed

__all__ = ["CheckpointWarning", "Counts", "execute"]


class CheckpointWarning(UserWarning):
    """A recorded answer was damaged, or did not hold for its unit: it runs again."""


def _valid(plan: Any, unit: "Unit", result: dict[str, Any]) -> bool:
    """Whether ``result`` holds for ``unit`` as its plan checks it (``plan.valid``, when
    the plan has one); an answer the check cannot even read does not hold."""
    valid = getattr(plan, "valid", None)
    if valid is None:
        return True
    try:
        return bool(valid(unit, result))
    except Exception:  # a missing field, a wrong shape: the answer is not one
        return False


@dataclass
class Counts:
    """What :func:`execute` did: units run here, taken from the checkpoint, split (run
    here or taken), and the (size, seconds) of each unit run (worker seconds);
    ``records`` (key, parent, size, seconds, split) of each unit run here."""

    ran: int = 0
    resumed: int = 0
    split: int = 0
    costs: list[tuple[int, float]] = field(default_factory=list)
    records: list[tuple[str, str, int, float, bool]] = field(default_factory=list)
    rechecked: int = 0  # answers re-run on the client and compared (spot-checks)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def units(self) -> int:
        return self.ran + self.resumed


def execute(
    plan: Plan,
    executor: Executor,
    store: Any = None,
    flag: Any = None,
    progress: Optional[Callable[[int, int], None]] = None,
    time_limit: Optional[float] = None,
    unit_seconds: Optional[float] = None,
    *,
    recheck: float = 0.0,
    rechecker: Optional[Executor] = None,
) -> Counts:
    """Run ``plan`` to the end on ``executor``: units recorded in ``store`` (a
    :class:`~mastermind.engine.checkpoint.Checkpoint`) are taken from it, the others run
    and are recorded as they finish.  ``time_limit`` (seconds) or ``flag`` (a stop flag,
    set from elsewhere) end the run: :class:`~mastermind.stopping.TimeLimitReached` or
    KeyboardInterrupt, every unit finished so far recorded; so does Ctrl-C.
    ``progress(done, to_run)`` counts the units run in this call.

    ``unit_seconds`` (the plan must have ``expand`` and ``merge``): each unit's budget;
    a unit past it hands back a split, its sub-units run in their turn (before the plan's
    next units) with the same budget, recursively, and the plan's ``merge`` makes the
    parent's answer from theirs.  A split is recorded like an answer (with its parent),
    so a resume goes on from the sub-units, whatever budget it is given.

    ``recheck`` (a fraction, 0 to 1): spot-checks.  That share of the units, picked by a
    key the executor cannot know, is run again on ``rechecker`` (an executor of this
    process; by default ``executor``) and the answers compared, whether they came from
    a worker or from the checkpoint; until then a picked unit's answer waits.  A unit
    whose answers differ is said in one :class:`SpotCheckWarning` naming the unit and
    where its answer came from, the re-run's answer is used (and recorded), and
    ``Counts.mismatches`` lists it.  Whole answers are compared (field by field, or as
    the plan's ``differs(unit, a, b)`` reads them, when it has one); a split (which
    depends on the time its unit ran) is not, its sub-units' answers are."""
    from ..interrupts import keeping_lost_interrupts, take_stop_request
    from ..stopping import TimeLimitReached

    deadline = None if time_limit is None else time.monotonic() + time_limit
    loop = _Loop(plan, executor, store, unit_seconds, checks.recheck(recheck), rechecker)
    reported = -1
    try:
        with keeping_lost_interrupts():
            while True:
                loop.offer()
                if plan.done():
                    break
                if not loop.inflight and not loop.rechecks:  # pragma: no cover - a plan
                    raise RuntimeError(f"the {plan.kind} plan stalled")  # that offers nothing
                loop.collect(flag)
                if plan.done():
                    break
                if flag is not None:
                    stopped(flag)
                if take_stop_request():  # a Ctrl-C dropped in a finaliser
                    raise KeyboardInterrupt
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeLimitReached("the time limit was reached")
                if progress is not None and loop.counts.ran != reported:
                    reported = loop.counts.ran
                    progress(
                        reported, max(plan.known() + loop.extra - loop.counts.resumed, reported)
                    )
            if take_stop_request():  # (dropped as the last units ended)
                raise KeyboardInterrupt
    except BaseException:
        if flag is not None and flag.value == _core.STOP_NONE:
            flag.set()  # units running on threads here stop within milliseconds
        executor.cancel(list(loop.inflight))
        loop.rechecker.cancel(list(loop.rechecks))
        raise
    if loop.inflight:
        executor.cancel(list(loop.inflight))
    if loop.rechecks:
        loop.rechecker.cancel(list(loop.rechecks))
    if progress is not None:
        progress(loop.counts.ran, loop.counts.ran)
    return loop.counts


@dataclass
class _Pending:
    """A unit that split: its split answer, its sub-units' keys and whole answers."""

    unit: Unit
    split: dict[str, Any]
    children: list[str]
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class _Held:
    """A unit's answer waiting for its spot-check: where it came from, what it took."""

    unit: Unit
    result: dict[str, Any]
    source: str  # "worker host:pid (address)", or "the checkpoint"
    worker: str
    seconds: float
    resumed: bool


class _Loop:
    """The state of one :func:`execute`: the units in flight, the sub-units waiting, the
    units that split and wait for theirs, the checkpoint's keys already consulted, the
    counts."""

    def __init__(
        self,
        plan: Plan,
        executor: Executor,
        store: Any,
        unit_seconds: Optional[float] = None,
        recheck: float = 0.0,
        rechecker: Optional[Executor] = None,
    ):
        self.plan = plan
        self.executor = executor
        self.store = store
        self.sample = Sampler(recheck)
        self.rechecker: Executor = executor if rechecker is None else rechecker
        self.rechecks: dict[Any, _Held] = {}  # spot-checks running: handle -> the answer
        self.budget = None if unit_seconds is None else max(0.0, float(unit_seconds))
        self.counts = Counts()
        self.inflight: dict[Any, Unit] = {}
        self.handles: dict[str, list[Any]] = {}  # key -> its handles in ``inflight``
        self.consulted: set[str] = set()
        # the keys the checkpoint held at the start: a unit not among them is new, and
        # is run without a look at the file (a look costs a query per unit)
        self.held: set[str] = store.keys() if store is not None else set()
        self.waiting: deque[Unit] = deque()  # sub-units not offered yet
        self.queued: set[str] = set()  # their keys
        self.dropped: set[str] = set()  # keys in ``waiting`` no longer needed (skipped)
        self.parent: dict[str, str] = {}  # sub-unit key -> the key that split
        self.pending: dict[str, _Pending] = {}  # key that split -> its state
        self.extra = 0  # sub-units named so far (for progress)

    def offer(self) -> None:
        """Fill the executor's slots with the sub-units waiting, then the plan's next
        units (a unit the checkpoint holds is answered from it at once)."""
        while len(self.inflight) < self.executor.slots():
            unit: Optional[Unit]
            if self.waiting:
                unit = self.waiting.popleft()
                self.queued.discard(unit.key)
                if unit.key in self.dropped:
                    self.dropped.discard(unit.key)
                    continue
            else:
                unit = self._more()
                if unit is None and self.plan.done():
                    return
                if unit is None:
                    unit = self.plan.next()
                if unit is None:
                    return
            rec = self._recorded(unit)
            if rec is not None:
                self.counts.resumed += 1
                if not is_split(rec.result) and self.sample(unit):
                    self._hold(_Held(unit, rec.result, "the checkpoint", rec.worker, 0.0, True))
                else:
                    self._arrive(unit, rec.result)
            else:
                self._submit(unit)
            if self.plan.done():
                return

    def _more(self) -> Optional[Unit]:
        """One more sub-unit of the units that split (the plan's ``more``), the most
        recent split first; a split with none to give whose answer is decided passes
        its answer up."""
        more = getattr(self.plan, "more", None)
        if more is None:
            return None
        again = True
        while again:
            again = False
            for key in reversed(list(self.pending)):
                pend = self.pending.get(key)
                if pend is None:
                    continue
                unit = more(pend.unit, pend.split, pend.answers)
                if unit is not None:
                    self.parent[unit.key] = key
                    pend.children.append(unit.key)
                    self.extra += 1
                    return unit
                answer = cast(SplitPlan, self.plan).merge(pend.unit, pend.split, pend.answers)
                if answer is not None:
                    self._decided(key, answer)
                    again = True  # what it decided may let others go on
                    break
        return None

    def _recorded(self, unit: Unit) -> Any:
        """The checkpoint's record of ``unit`` (its first consultation only), or None."""
        if self.store is None or unit.key in self.consulted or unit.key not in self.held:
            return None
        self.consulted.add(unit.key)
        from .checkpoint import CheckpointError, DamagedRow

        try:
            rec = self.store.get(unit.key)
        except DamagedRow as e:
            return self._reject(unit, str(e))
        if rec is not None and rec.digest != unit.digest and rec.digest not in self._digests(unit):
            if getattr(self.store, "foreign_rows", False):  # (a stranger's row: damaged)
                return self._reject(
                    unit,
                    f"checkpoint {self.store.path}: the recorded row of unit {unit.key} "
                    "is for another input; it is run again",
                )
            raise CheckpointError(
                f"checkpoint {self.store.path}: unit {unit.key} does not "
                "match this run's; give another file"
            )
        if rec is not None and not is_split(rec.result) and not _valid(self.plan, unit, rec.result):
            return self._reject(
                unit,
                f"checkpoint {self.store.path}: the recorded answer of "
                f"unit {unit.key} does not hold for it; it is run again",
            )
        if rec is not None and is_split(rec.result) and not self._split_ok(unit, rec.result):
            return self._reject(
                unit,
                f"checkpoint {self.store.path}: the recorded split of "
                f"unit {unit.key} does not hold for it; it is run again",
            )
        return rec

    def _digests(self, unit: Unit) -> set[str]:
        """The digests the checkpoint may hold for ``unit`` (:func:`recorded_digests`)."""
        params = getattr(self.store, "params", None)
        args = unit.args if unit.identity is None else unit.identity
        return recorded_digests(unit.kind, args, params() if callable(params) else {})

    def _split_ok(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded split can be expanded (the plan's ``valid_split``, if any)."""
        check = getattr(self.plan, "valid_split", None)
        if not hasattr(self.plan, "expand"):
            return False
        if check is None:
            return True
        try:
            return bool(check(unit, result))
        except Exception:
            return False

    def _reject(self, unit: Unit, message: str) -> None:
        """A recorded answer not to be used: said once, its row dropped, the unit run."""
        warnings.warn(message, CheckpointWarning, stacklevel=2)
        self.store.discard(unit.key)
        return None

    def collect(self, flag: Any) -> None:
        """Wait a moment for finished units; record and hand each answer to the plan (a
        unit picked for a spot-check waits for its re-run first)."""
        wait = 0.2 if self.inflight else 0.0
        for handle, result, error in self.executor.wait(list(self.inflight), wait):
            unit = self._taken(handle)
            if unit is None:  # dropped meanwhile by an answer of the same batch
                continue
            if error is not None:
                if isinstance(error, Stopped) and flag is not None:
                    stopped(flag)
                what = (
                    error if isinstance(error, UnitFailed) else f"{type(error).__name__}: {error}"
                )
                raise UnitError(f"unit {unit.key} failed: {what}") from error
            seconds = float(result.pop("seconds", 0.0))
            worker = str(result.pop("worker", ""))
            if not is_split(result) and self.sample(unit):
                self._hold(
                    _Held(unit, result, self._source(handle, worker), worker, seconds, False)
                )
                continue
            self._record(unit, result, seconds, worker)
            self._arrive(unit, result)
            if self.plan.done():
                break
        self._collect_rechecks(flag, 0.0 if self.inflight else 0.2)
        if self.store is not None:  # the rows of the last second, committed
            self.store.flush(due_only=True)

    def _record(self, unit: Unit, result: dict[str, Any], seconds: float, worker: str) -> None:
        """A unit run here: its answer recorded in the checkpoint, and counted."""
        parent = self.parent.get(unit.key, "")
        split = is_split(result)
        if self.store is not None:
            self.store.record(
                unit.key,
                unit.digest,
                result,
                size=unit.size,
                seconds=seconds,
                worker=worker,
                parent=parent,
                split=split,
            )
        self.counts.ran += 1
        self.counts.costs.append((unit.size, seconds))
        self.counts.records.append((unit.key, parent, unit.size, seconds, split))

    # ------------------------------------------------------------------ spot-checks
    def _source(self, handle: Any, worker: str) -> str:
        """Who gave an answer: the worker as it names itself, and as its scheduler does."""
        where = getattr(self.executor, "where", None)
        address = where(handle) if where is not None else None
        return f"worker {worker}" + (f" ({address})" if address else "")

    def _hold(self, held: _Held) -> None:
        """A picked unit's answer waits; the unit runs again on the rechecker."""
        self.rechecks[self.rechecker.submit(held.unit, None)] = held

    def _collect_rechecks(self, flag: Any, timeout: float) -> None:
        """The spot-checks that ended: each answer compared with its re-run's."""
        if not self.rechecks:
            return
        for handle, result, error in self.rechecker.wait(list(self.rechecks), timeout):
            held = self.rechecks.pop(handle, None)
            if held is None:
                continue
            if error is not None:
                if isinstance(error, Stopped) and flag is not None:
                    stopped(flag)
                raise UnitError(
                    f"unit {held.unit.key}: its re-run on the client failed: "
                    f"{type(error).__name__}: {error}"
                ) from error
            result.pop("seconds", None)
            result.pop("worker", None)
            self._checked(held, result)

    def _checked(self, held: _Held, again: dict[str, Any]) -> None:
        """A spot-check's verdict: the answer kept, or the re-run's used and said."""
        self.counts.rechecked += 1
        unit, answer = held.unit, held.result
        differs = self._difference(unit, held.result, again)
        if differs is not None:
            self.counts.mismatches.append(Mismatch(unit.key, held.source, differs))
            warnings.warn(
                f"spot-check: unit {unit.key}: the answer from {held.source} differs from "
                f"its re-run on the client ({differs}); the re-run's answer is used",
                SpotCheckWarning,
                stacklevel=2,
            )
            answer = again
        if not held.resumed:
            self._record(unit, answer, held.seconds, held.worker if differs is None else "client")
        elif differs is not None and self.store is not None:
            self.store.record(unit.key, unit.digest, answer, size=unit.size, seconds=0.0)
        self._arrive(unit, answer)

    def _difference(self, unit: Unit, a: dict[str, Any], b: dict[str, Any]) -> Optional[str]:
        """The first field in which two answers of ``unit`` differ as its plan reads
        them (the plan's ``differs``, when it has one: an answer merged from a split's
        sub-answers counts other nodes than a whole run, and may hold another witness),
        or None when they agree."""
        differs = getattr(self.plan, "differs", None)
        if differs is None:
            return first_difference(a, b)
        try:
            return cast(Optional[str], differs(unit, a, b))
        except Exception:  # an answer its plan cannot even read does not agree
            return "its fields"

    # ------------------------------------------------------------------ splits
    def _arrive(self, unit: Unit, result: dict[str, Any]) -> None:
        """A unit's answer (run here or read back): a split names its sub-units, a whole
        answer goes to the unit that split into it, or to the plan."""
        if unit.key in self.parent and self.parent[unit.key] not in self.pending:
            return  # its parent was decided meanwhile: nothing waits for it
        if not is_split(result):
            self._whole(unit, result)
            return
        self.counts.split += 1
        children = cast(SplitPlan, self.plan).expand(unit, result)
        self.pending[unit.key] = _Pending(unit, result, [c.key for c in children])
        for c in children:
            self.parent[c.key] = unit.key
        self.waiting.extendleft(reversed(children))  # ahead of the units waiting before
        self.queued.update(c.key for c in children)
        self.extra += len(children)
        answer = cast(SplitPlan, self.plan).merge(unit, result, {})
        if answer is not None:
            self._decided(unit.key, answer)

    def _whole(self, unit: Unit, result: dict[str, Any]) -> None:
        """A unit's whole answer: to the unit that split into it, or to the plan."""
        parent = self.parent.get(unit.key)
        if parent is None:
            self._discard(self.plan.take(unit, result))
            return
        pend = self.pending[parent]
        pend.answers[unit.key] = result
        answer = cast(SplitPlan, self.plan).merge(pend.unit, pend.split, pend.answers)
        if answer is not None:
            self._decided(parent, answer)
            return
        unneeded = getattr(self.plan, "unneeded", None)
        if unneeded is not None:
            for key in unneeded(pend.unit, pend.split, pend.answers):
                self._forget(key)

    def _forget(self, key: str) -> None:
        """Cancel sub-unit ``key`` (no longer needed by its parent) and all below it.
        Only a key that split has units below it; a waiting one is skipped when its turn
        comes (no scan of the queue: a split can have 10^5 sub-units waiting)."""
        if key in self.pending:
            self._discard_below(key)
            del self.pending[key]
        self._cancel([key])
        if key in self.queued:
            self.dropped.add(key)

    def _decided(self, key: str, answer: dict[str, Any]) -> None:
        """A unit that split has its whole answer: what still runs or waits below it is
        no longer needed; the answer goes up."""
        pend = self.pending[key]
        self._discard_below(key)
        del self.pending[key]
        store = self.store
        if getattr(self.plan, "settles", False) and store is not None and not store.read_only:
            store.settle(key, pend.unit.digest, answer, size=pend.unit.size)
        self._whole(pend.unit, answer)

    # ------------------------------------------------------------------ in flight
    # (indexed by key both ways: a replay offers every recorded unit at once, and a scan
    # of them all for each unit dropped made a campaign's state take an hour)
    def _submit(self, unit: Unit) -> None:
        """``unit`` to the executor, in flight."""
        handle = self.executor.submit(unit, self.budget)
        self.inflight[handle] = unit
        self.handles.setdefault(unit.key, []).append(handle)

    def _taken(self, handle: Any) -> Optional[Unit]:
        """The unit of a handle that ended, no longer in flight (None: dropped before)."""
        unit = self.inflight.pop(handle, None)
        if unit is not None:
            mine = self.handles[unit.key]
            mine.remove(handle)
            if not mine:
                del self.handles[unit.key]
        return unit

    def _cancel(self, keys: Any) -> None:
        """Cancel the units in flight whose key is among ``keys``."""
        gone = [h for key in keys for h in self.handles.pop(key, ())]
        for h in gone:
            del self.inflight[h]
        if gone:
            self.executor.cancel(gone)

    def _below(self, key: str) -> list[str]:
        """The sub-units of ``key`` still alive, at any depth (the children of the
        units that split, followed down; a unit answered whole has none)."""
        out: list[str] = []
        todo = list(self.pending[key].children) if key in self.pending else []
        while todo:
            k = todo.pop()
            out.append(k)
            if k in self.pending:
                todo.extend(self.pending[k].children)
        return out

    def _discard_below(self, key: str) -> None:
        """Cancel and forget every sub-unit of ``key`` (running, waiting or split)."""
        below = self._below(key)
        self._cancel(below)
        for k in below:
            if k in self.queued:
                self.dropped.add(k)  # (skipped when its turn comes)
            self.pending.pop(k, None)

    def _discard(self, keys: list[str]) -> None:
        """Cancel the plan's units no longer needed, and everything below them."""
        if not keys:
            return
        wanted = set(keys)
        self._cancel(wanted)
        for key in wanted:
            self._discard_below(key)
            self.pending.pop(key, None)
