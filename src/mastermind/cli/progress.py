"""The progress bar long commands show on a terminal, drawn by rich.

It shows the work done, the rate, the time spent and the time left, but the time left only
once an estimate means something: after at least :data:`HONEST_FRACTION` of the work and
:data:`HONEST_SECONDS` seconds (before that it says "estimating").  The estimate is the
whole run's average rate, not the last seconds', so it does not swing with the size of the
subtree being walked.  rich is imported only when the bar is actually drawn.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Optional, TextIO

HONEST_FRACTION = 0.05
HONEST_SECONDS = 5.0


def time_left(done: int, total: int, elapsed: float) -> Optional[float]:
    """Seconds left at the average rate so far, or None while that is no estimate yet.

    >>> time_left(10, 100, 20.0), time_left(1, 100, 20.0), time_left(50, 100, 2.0)
    (180.0, None, None)
    """
    if total <= 0 or done <= 0 or elapsed < HONEST_SECONDS or done < HONEST_FRACTION * total:
        return None
    return elapsed * (total - done) / done


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class ProgressBar:
    """A progress bar on ``stream`` (stderr), shown only on a terminal and only after
    ``delay`` seconds.

    Called as ``bar(done, total)`` (the library's ``progress`` callback); ``unit`` names
    what is counted.  :meth:`close` ends it (and leaves the finished bar on the screen).
    """

    def __init__(
        self,
        label: str,
        stream: TextIO = sys.stderr,
        delay: float = 1.0,
        enabled: Optional[bool] = None,
        unit: str = "secrets",
    ):
        self.label = label
        self.stream = stream
        self.start = time.monotonic()
        self.delay = delay
        self.enabled = _isatty(stream) if enabled is None else enabled
        self.unit = unit
        self._progress: Any = None
        self._task: Any = None

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def describe(self, text: str) -> None:
        """The bar's label from now on (what is being worked on)."""
        self.label = text
        if self._progress is not None:
            self._progress.update(self._task, description=text)

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._progress is None:
            if time.monotonic() - self.start < self.delay:
                return
            self._open(total)
        self._progress.update(self._task, completed=done, total=total)

    def _open(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            ProgressColumn,
            TaskProgressColumn,
            TextColumn,
        )
        from rich.text import Text

        start, unit = self.start, self.unit

        class Status(ProgressColumn):
            """``172,718/531,441 secrets  62,600/s  0:03 elapsed  0:05 left``."""

            def render(self, task: Any) -> Text:
                elapsed = time.monotonic() - start
                done, total = int(task.completed), int(task.total or 0)
                rate = done / elapsed if elapsed > 0 else 0.0
                left = time_left(done, total, elapsed)
                t = Text(f"{done:,}/{total:,} {unit}  ", style="progress.download")
                t.append(f"{rate:,.0f}/s  ", style="progress.data.speed")
                t.append(f"{_clock(elapsed)} elapsed  ", style="progress.elapsed")
                t.append(
                    "estimating" if left is None else f"{_clock(left)} left",
                    style="progress.remaining",
                )
                return t

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            TaskProgressColumn(),
            Status(),
            console=Console(file=self.stream),
            transient=False,
            refresh_per_second=5,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
