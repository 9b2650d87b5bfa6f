"""How a computation runs, as one value: its threads, time limit, progress callback and
memo budget, and whether and where its work runs as units (a scheduler, a client, a
checkpoint) with what budget per unit and what share spot-checked.  None of them
changes an answer.

Each entry point (:func:`~mastermind.analysis.exhaustive.analyze`,
:func:`~mastermind.worstcase.exists.solution_exists`,
:func:`~mastermind.worstcase.bounds.worst_case`,
:func:`~mastermind.optimum.solver.optimal`, the campaigns) builds its
:class:`RunOptions` once from its own keywords, which checks them
(:mod:`mastermind.checks`; a malformed scheduler is refused here too, before any work),
and hands it down to :func:`~mastermind.engine.run.open_run`.

>>> RunOptions.of(jobs=2).as_units, RunOptions.of(jobs=2, scheduler="local:2").as_units
(False, True)
>>> RunOptions.of(recheck=2)
Traceback (most recent call last):
...
mastermind.checks.ArgumentError: recheck must be a fraction of the units from 0 to 1, not 2
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from .. import checks
from ..limits import DEFAULT_MEMORY, MAX_BATCH, UNIT_SECONDS

__all__ = ["RunOptions"]

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunOptions:
    """How a computation runs (never what it answers), every field checked when it is
    made (:class:`~mastermind.checks.ArgumentError` for a bad one).

    ``threads``: threads here (1 .. :data:`~mastermind.limits.MAX_JOBS`);
    ``time_limit``: seconds, or None; ``progress``: called as ``progress(done,
    total)``, or None; ``memory``: bytes a search's memo may use; ``unit_seconds``: with
    units, each unit's budget (None: never split); ``recheck``: with units, the share
    of them spot-checked (0 to 1); ``batch``: units sent to a worker as one task;
    ``scheduler``, ``client``, ``checkpoint``: where the units run and are recorded
    (any of them: the work runs as units, :attr:`as_units`)."""

    threads: int
    time_limit: Optional[float] = None
    progress: Optional[Progress] = None
    memory: int = DEFAULT_MEMORY
    unit_seconds: Optional[float] = UNIT_SECONDS
    recheck: float = 0.0
    batch: int = 1
    scheduler: Optional[str] = None
    client: Any = None
    checkpoint: Optional[str] = None

    def __post_init__(self) -> None:
        checked = {
            "threads": checks.threads(self.threads),
            "time_limit": checks.time_limit(self.time_limit),
            "progress": checks.progress(self.progress),
            "memory": checks.memory(self.memory),
            "unit_seconds": checks.unit_seconds(self.unit_seconds),
            "recheck": checks.recheck(self.recheck),
            "batch": checks.integer(self.batch, "batch", 1, MAX_BATCH),
        }
        if self.scheduler is not None:
            from .executors import parse_scheduler

            parse_scheduler(self.scheduler)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(
        cls,
        *,
        jobs: Optional[int] = None,
        time_limit: Optional[float] = None,
        progress: Optional[Progress] = None,
        memory: int = DEFAULT_MEMORY,
        unit_seconds: Optional[float] = UNIT_SECONDS,
        recheck: float = 0.0,
        batch: int = 1,
        scheduler: Optional[str] = None,
        client: Any = None,
        checkpoint: Optional[str] = None,
    ) -> RunOptions:
        """The options a public function's keywords ask for (``jobs``: None for every
        core), checked."""
        return cls(
            checks.threads(jobs),
            time_limit,
            progress,
            memory,
            unit_seconds,
            recheck,
            batch,
            scheduler,
            client,
            checkpoint,
        )

    @property
    def as_units(self) -> bool:
        """Whether the work runs as units (a scheduler, a client or a checkpoint)."""
        return self.scheduler is not None or self.client is not None or self.checkpoint is not None
