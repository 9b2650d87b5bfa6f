"""Checks of the arguments the library's functions share (the game, thread counts, time
limits, memory budgets, progress callbacks), with messages in the package's own words:
every public entry point validates these through here.

>>> threads(2), threads(None) >= 1
(2, True)
>>> threads(70000)
Traceback (most recent call last):
...
mastermind.checks.ArgumentError: jobs must be between 1 and 256, not 70000
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Optional

import numpy as np

from .errors import MastermindError
from .game import CodeSets, GameError, shown
from .limits import MAX_JOBS, MAX_MEMORY


class ArgumentError(MastermindError):
    """An argument of the wrong kind or out of its range."""


def game(value: Any, who: str) -> Any:
    """``value`` if it is a game (:class:`~mastermind.game.Game` or
    :class:`~mastermind.custom.CustomGame`), else :class:`GameError`."""
    if not isinstance(value, CodeSets):
        raise GameError(f"{who}() needs a game such as mastermind.Game(4, 6), not {shown(value)}")
    return value


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def threads(jobs: Any) -> int:
    """The thread count ``jobs`` asks for (None: every core), 1..:data:`MAX_JOBS`."""
    if jobs is None:
        return min(cores(), MAX_JOBS)
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)):
        raise ArgumentError(f"jobs must be an integer, not {shown(jobs)}")
    if not 1 <= jobs <= MAX_JOBS:
        raise ArgumentError(f"jobs must be between 1 and {MAX_JOBS}, not {jobs}")
    return int(jobs)


def time_limit(value: Any) -> Optional[float]:
    """A positive number of seconds, or None."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not value > 0
        or value != value
        or value == float("inf")
    ):
        raise ArgumentError(f"time_limit must be a positive number of seconds, not {shown(value)}")
    return float(value)


def progress(value: Any) -> Optional[Callable[[int, int], None]]:
    """A callable ``progress(done, total)``, or None."""
    if value is not None and not callable(value):
        raise ArgumentError(f"progress must be a function of (done, total), not {shown(value)}")
    return value


def memory(value: Any) -> int:
    """A positive number of bytes (a memo's budget)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ArgumentError(f"memory must be a positive number of bytes, not {shown(value)}")
    if value > MAX_MEMORY:
        raise ArgumentError(f"memory must be at most {MAX_MEMORY:,} bytes, not {value:,}")
    return int(value)
