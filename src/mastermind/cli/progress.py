"""The progress bar long commands show on a terminal."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class ProgressBar:
    """A progress bar on stderr, shown only on a terminal and only after ``delay`` seconds.

    Called as ``bar(done, total)`` (the library's ``progress`` callback); ``unit`` names
    what is counted.
    """

    def __init__(self, label: str, stream: TextIO = sys.stderr, delay: float = 1.0,
                 enabled: Optional[bool] = None, unit: str = "secrets"):
        self.label = label
        self.stream = stream
        self.start = time.monotonic()
        self.delay = delay
        self.enabled = stream.isatty() if enabled is None else enabled
        self.unit = unit
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.start
        if not self.enabled or elapsed < self.delay:
            return
        frac = done / total if total else 1.0
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        self.stream.write(f"\r{self.label} [{bar}] {frac:6.1%} {done:,}/{total:,} "
                          f"{self.unit}, {elapsed:.1f}s elapsed, ~{eta:.0f}s left ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
