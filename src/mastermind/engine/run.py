"""One run of a computation's units: its checkpoint and its executor opened together
(the checkpoint first, so a bad file costs nothing), the plans it executes counted, both
closed at the end.  How the run runs (where, on how many threads, recorded where) is
one checked value, a :class:`~mastermind.engine.options.RunOptions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Optional

from .loop import Counts, execute
from .spotcheck import Mismatch
from .units import Plan
from .workers import Specified

if TYPE_CHECKING:
    from .options import RunOptions

__all__ = ["Run", "open_run"]


class Run:
    """An open run: :meth:`execute` runs plans on its executor, recording their units in
    its checkpoint, spot-checking ``recheck`` of them on ``rechecker`` (an executor of
    this process); ``units``, ``resumed``, ``rechecked`` and ``mismatches`` add up over
    every plan it ran."""

    def __init__(self, executor: Any, store: Any, *, recheck: float = 0.0, rechecker: Any = None):
        self.executor = executor
        self.store = store
        self.recheck = recheck
        self.rechecker = rechecker
        self.units = 0
        self.resumed = 0
        self.split = 0
        self.rechecked = 0
        self.mismatches: list[Mismatch] = []
        self.records: list[tuple[str, str, int, float, bool]] = []

    def execute(
        self,
        plan: Plan,
        flag: Any = None,
        progress: Optional[Callable[[int, int], None]] = None,
        time_limit: Optional[float] = None,
        unit_seconds: Optional[float] = None,
    ) -> Counts:
        """:func:`~mastermind.engine.loop.execute` on this run's executor and checkpoint
        (``unit_seconds``: each unit's budget, past which it splits)."""
        counts = execute(
            plan,
            self.executor,
            self.store,
            flag,
            progress,
            time_limit,
            unit_seconds,
            recheck=self.recheck,
            rechecker=self.rechecker,
        )
        self.units += counts.units
        self.resumed += counts.resumed
        self.split += counts.split
        self.rechecked += counts.rechecked
        self.mismatches.extend(counts.mismatches)
        self.records.extend(counts.records)
        return counts


@contextmanager
def open_run(
    game: Specified, *, kind: str, params: dict[str, Any], options: RunOptions
) -> Iterator[Run]:
    """The run of one computation of ``kind`` (``analyze``, ``bound``, ``optimal``) on
    ``game`` as ``options`` say (checked when they were made, the scheduler's address
    too): the checkpoint opened for ``params`` (the parameters a unit's answer depends
    on), then the executor.  ``options.recheck``: the fraction of units spot-checked,
    re-run on one thread of this process (on a cluster) or on the run's own threads
    (without one).  ``options.batch``: units sent to a worker as one task, up to this
    many (:mod:`mastermind.engine.batching`; 1: one by one)."""
    from .executors import LocalExecutor, open_executor

    spec = game.spec()
    store = None
    if options.checkpoint is not None:
        from .checkpoint import open_checkpoint

        store = open_checkpoint(options.checkpoint, kind, spec.definition(), params)
    rechecker = None
    threads, recheck = options.threads, options.recheck
    try:
        with open_executor(game, spec, options.scheduler, options.client, threads) as executor:
            if recheck > 0 and not isinstance(executor, LocalExecutor):
                rechecker = LocalExecutor(game, threads)  # (the client: the machine trusted)
            if options.batch > 1:
                from .batching import Batching

                executor = Batching(executor, options.batch)
            yield Run(executor, store, recheck=recheck, rechecker=rechecker)
    finally:
        if rechecker is not None:
            rechecker.close()
        if store is not None:
            store.close()
