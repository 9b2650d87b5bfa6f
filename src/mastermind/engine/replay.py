"""A checkpoint replayed through a plan with nothing run: :class:`DryExecutor` takes
every unit the engine offers it as an open question and ends the run as soon as the
engine waits, so :func:`~mastermind.engine.loop.execute` gives the plan every answer the
checkpoint holds (splits and their merges included, exactly as a run would) and leaves
the frontier (``open``).  The campaigns (worst case and optimum) work their state out
so, without a worker.
"""

from __future__ import annotations

from typing import Any, Optional

from .units import Unit

__all__ = ["DryExecutor", "Replayed"]


class Replayed(Exception):
    """The end of a replay (not a Ctrl-C, which still interrupts it)."""


class DryExecutor:
    """Runs nothing: every unit offered to it is an open question.  With it the engine
    replays a checkpoint (recorded answers, splits and their merges, exactly as a run
    would) and stops at once; ``open`` is the frontier left."""

    def __init__(self) -> None:
        self.open: dict[str, Unit] = {}
        self.ending = False

    def slots(self) -> int:
        return 1 << 30

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        self.open[unit.key] = unit
        return unit.key

    def wait(self, handles: list, timeout: float) -> list:
        self.ending = True
        raise Replayed  # everything recorded has been taken: the frontier is left

    def cancel(self, handles: list) -> None:
        if not self.ending:
            for key in handles:
                self.open.pop(key, None)
