"""Tiny units handed to the workers in batches: an executor wrapped so that the units
offered to it go out as tasks of up to ``size`` units each, which a worker runs one
after the other (:func:`run_batch`), and come back one by one, each with its own answer,
seconds and worker.  A cluster's cost per task (a few milliseconds of scheduling,
serialising and bookkeeping) then falls on a batch, not on each unit: the p(5,8)
campaign's smallest questions take 0.02 s of work.

The engine's loop sees an executor like any other (:class:`Batching`): a unit's handle,
its answer, its cancellation.  A batch goes out when it is full, or when the loop waits
for answers (so a batch never holds a unit back); a batch's units are cancelled when
every one of them is.  The answers are the units' own: batching changes what travels,
never what is computed.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Optional

from .kinds import worker
from .units import Unit

__all__ = ["Batching", "run_batch"]


def run_batch(
    game: object, *, stop: Any, units: list, budget: Optional[float] = None
) -> dict[str, Any]:
    """A batch on its worker: each (kind, arguments) run in turn, with ``budget``; the
    answers in order, each with its ``seconds`` and ``worker``."""
    answers = []
    here = f"{socket.gethostname()}:{os.getpid()}"
    for kind, args in units:
        fn = worker(kind)
        t0 = time.perf_counter()
        extra = {} if budget is None else {"budget": float(budget)}
        answer = fn(game, stop=stop, **args, **extra)
        answer["seconds"] = time.perf_counter() - t0
        answer["worker"] = here
        answers.append(answer)
    return {"answers": answers}


class _Handle:
    """A unit's place in a batch (what the engine's loop holds)."""

    __slots__ = ("batch", "index", "unit")

    def __init__(self, batch: "_Batch", index: int, unit: Unit):
        self.batch, self.index, self.unit = batch, index, unit


class _Batch:
    """Units sent as one task: their handles, the task's handle, what is cancelled."""

    def __init__(self) -> None:
        self.handles: list[_Handle] = []
        self.task: Any = None
        self.cancelled: set[int] = set()
        self.result: Optional[dict[str, Any]] = None
        self.error: Optional[BaseException] = None


class Batching:
    """``inner`` (an executor), its units sent in batches of up to ``size``."""

    def __init__(self, inner: Any, size: int):
        self.inner = inner
        self.size = max(1, int(size))
        self.open: Optional[_Batch] = None  # filling
        self.tasks: dict[Any, _Batch] = {}  # task handle -> batch in flight
        self.done: list[_Handle] = []  # answered, not handed to the loop yet

    def slots(self) -> int:
        return self.inner.slots() * self.size

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        batch = self.open
        if batch is None:
            batch = self.open = _Batch()
            self._budget = budget
        handle = _Handle(batch, len(batch.handles), unit)
        batch.handles.append(handle)
        if len(batch.handles) >= self.size:
            self._send()
        return handle

    def _send(self) -> None:
        """The batch being filled, sent as one task."""
        batch, self.open = self.open, None
        if batch is None or not batch.handles:
            return
        units = [(h.unit.kind, h.unit.args) for h in batch.handles]
        first = batch.handles[0].unit
        task = Unit(f"{first.key}+{len(units)}", "engine.batch", {"units": units}, first.size)
        batch.task = self.inner.submit(task, self._budget)
        self.tasks[batch.task] = batch

    def wait(self, handles: list, timeout: float) -> list:
        self._send()
        wanted = set(map(id, handles))
        if not any(id(h) in wanted for h in self.done):
            answered = self.inner.wait(list(self.tasks), timeout) if self.tasks else []
            for task, result, error in answered:
                batch = self.tasks.pop(task)
                batch.result, batch.error = result, error
                self.done.extend(h for h in batch.handles if h.index not in batch.cancelled)
        out, keep = [], []
        for h in self.done:
            if id(h) not in wanted:
                keep.append(h)
                continue
            b = h.batch
            answer = None if b.result is None else b.result["answers"][h.index]
            out.append((h, answer, b.error))
        self.done = keep
        return out

    def cancel(self, handles: list) -> None:
        for h in handles:
            b = h.batch
            b.cancelled.add(h.index)
            if b.task is not None and len(b.cancelled) == len(b.handles) and b.task in self.tasks:
                self.inner.cancel([b.task])
                del self.tasks[b.task]
        self.done = [h for h in self.done if h.index not in h.batch.cancelled]

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()
