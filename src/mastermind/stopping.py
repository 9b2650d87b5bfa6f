"""Kernel calls that Ctrl-C and time limits can stop.

The kernel runs without the GIL, so Python's Ctrl-C handler cannot run while it works.
:func:`run_stoppable` therefore runs the call in a worker thread and waits for it in the
calling (main) thread: a KeyboardInterrupt there sets the call's
:class:`~mastermind.kernel._core.StopFlag`, which the kernel's scans, walks and searches read
every few milliseconds; the worker returns, and the KeyboardInterrupt goes on.  No thread
of the package is left computing.  A time limit is a deadline on the same flag; the
flag's value says why a call stopped (``_core.STOP_REQUESTED``, ``_core.STOP_DEADLINE``).

>>> from mastermind.analysis import _scan
>>> from mastermind.game import Game
>>> g = Game(4, 6)
>>> g.format_code(run_stoppable(
...     lambda flag: _scan.best_guess(g.kernel, g.guesses, g.secrets, 0, 1, flag))[0])
'1122'
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Optional, TypeVar

from .interrupts import ask_to_stop, keeping_lost_interrupts, take_stop_request
from .kernel import _core

__all__ = [
    "TimeLimitReached",
    "ask_to_stop",
    "new_flag",
    "run_stoppable",
    "stopped",
    "take_stop_request",
    "Stopped",
]

T = TypeVar("T")
Stopped = _core.Stopped


class TimeLimitReached(Exception):
    """A computation stopped by its time limit before it had an answer."""


def new_flag(time_limit: Optional[float] = None) -> _core.StopFlag:
    """A stop flag, with a deadline ``time_limit`` seconds from now (if given)."""
    flag = _core.StopFlag()
    if time_limit is not None:
        flag.set_time_limit(max(float(time_limit), 1e-9))
    return flag


def stopped(flag: _core.StopFlag) -> None:
    """Raise what a set flag means: KeyboardInterrupt (a stop request) or
    :class:`TimeLimitReached` (its deadline passed); nothing when it is clear."""
    if flag.value == _core.STOP_REQUESTED:
        raise KeyboardInterrupt
    if flag.value == _core.STOP_DEADLINE:
        raise TimeLimitReached("the time limit was reached")


def run_stoppable(
    work: Callable[[_core.StopFlag], T],
    flag: Optional[_core.StopFlag] = None,
    *,
    inline: bool = False,
    every: Optional[Callable[[], None]] = None,
) -> T:
    """``work(flag)``, run so that Ctrl-C stops it: in a worker thread, waited for by this
    one, which sets ``flag`` on KeyboardInterrupt, waits for the worker (it sees the flag
    within milliseconds) and re-raises.  ``inline`` (small work), or a call from a thread
    other than the main one (signals only reach the main thread), runs it here.  A
    kernel call that saw the flag raises :class:`Stopped`, translated here into
    KeyboardInterrupt or :class:`TimeLimitReached`.  ``every()``, if given, is called
    about ten times a second while the worker runs (progress reports)."""
    flag = new_flag() if flag is None else flag
    if inline or threading.current_thread() is not threading.main_thread():
        try:
            result = work(flag)
        except Stopped:
            stopped(flag)
            raise
        if flag.value == _core.STOP_REQUESTED or take_stop_request():  # the result is void
            raise KeyboardInterrupt
        return result
    box: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            box["result"] = work(flag)
        except BaseException as e:  # handed to the caller's thread below
            box["error"] = e
        finally:
            finished.set()

    worker = threading.Thread(target=target, name="mastermind-kernel", daemon=True)
    try:
        with keeping_lost_interrupts():
            worker.start()
            while not finished.wait(0.1 if every else 0.05):
                if take_stop_request():  # a Ctrl-C dropped in a finaliser
                    raise KeyboardInterrupt
                if every:
                    every()
            if take_stop_request():  # (dropped as the work ended: its result is void too)
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        # (a Ctrl-C during start() or a wait: the worker is told, and waited for on its
        # own event, which an interrupted wait leaves intact, unlike an interrupted join)
        flag.set()
        if worker.ident is not None:
            while not finished.wait(0.05):
                pass
        raise
    if "error" in box:
        if isinstance(box["error"], Stopped):
            stopped(flag)
        raise box["error"]
    if flag.value == _core.STOP_REQUESTED:  # stopped from elsewhere: the result is void
        raise KeyboardInterrupt
    return box["result"]
