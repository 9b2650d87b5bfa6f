"""Ctrl-C that Python would drop: an interrupt raised while a finaliser runs.

Python cannot raise an exception out of a ``__del__`` method, a weak reference's callback
or a generator closed by the garbage collector: it hands it to ``sys.unraisablehook``,
which prints it, and goes on.  A KeyboardInterrupt (Ctrl-C, or SIGTERM on the command
line) that arrives while such code runs in the main thread is lost that way, and the work
it was meant to stop goes on, perhaps for hours.  The garbage collector runs finalisers
at any allocation, so the main thread's loop that waits for a kernel call or for units
can be in one when the signal comes.

:func:`keeping_lost_interrupts` puts a hook in place that records such an interrupt
(:func:`ask_to_stop`) instead; the waiting loops take the record
(:func:`take_stop_request`) and raise KeyboardInterrupt.

:func:`deferring_interrupts` holds Ctrl-C (and SIGTERM, where a Python handler takes it)
back over a short call that must not be cut in the middle: a call into a Dask client,
which runs its work on another thread's event loop and, interrupted before that work has
begun, logs a traceback of its own.  The signal is raised when the call returns.

This module imports nothing of the package (the command line uses it before it knows
whether any work will run).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ask_to_stop", "deferring_interrupts", "keeping_lost_interrupts", "take_stop_request"]

_ASKED = threading.Event()


def ask_to_stop() -> None:
    """Record a stop that could not be raised (see the module's text); the loops that
    wait for the kernel and for units take it and raise KeyboardInterrupt."""
    _ASKED.set()


def take_stop_request() -> bool:
    """Whether a stop was recorded (:func:`ask_to_stop`); the record is taken (cleared)."""
    if not _ASKED.is_set():
        return False
    _ASKED.clear()
    return True


def _hook(previous: Any) -> Any:
    """A ``sys.unraisablehook`` recording a dropped KeyboardInterrupt, passing anything
    else to ``previous``."""

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_type, type) and issubclass(
            unraisable.exc_type, KeyboardInterrupt
        ):
            ask_to_stop()
            return
        previous(unraisable)

    hook.keeps_interrupts = True  # type: ignore[attr-defined]
    return hook


@contextmanager
def keeping_lost_interrupts() -> Iterator[None]:
    """While open in the main thread, a KeyboardInterrupt that Python drops in a
    finaliser is recorded (:func:`ask_to_stop`) instead of lost; on leaving, the hook in
    place before is put back (unless something else has replaced ours meanwhile).  Opened
    again inside itself, or in another thread (signals reach the main thread only), it
    does nothing.

    >>> import gc
    >>> class Finaliser:
    ...     def __del__(self):
    ...         raise KeyboardInterrupt  # as a Ctrl-C arriving just then would
    >>> with keeping_lost_interrupts():
    ...     f = Finaliser()
    ...     del f  # (its KeyboardInterrupt goes to the hook)
    ...     print(take_stop_request(), take_stop_request())
    True False
    """
    if threading.current_thread() is not threading.main_thread() or getattr(
        sys.unraisablehook, "keeps_interrupts", False
    ):
        yield
        return
    previous = sys.unraisablehook
    hook = _hook(previous)
    sys.unraisablehook = hook
    try:
        yield
    finally:
        if sys.unraisablehook is hook:
            sys.unraisablehook = previous


_DEFERRED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


@contextmanager
def deferring_interrupts() -> Iterator[None]:
    """While open in the main thread, a Ctrl-C or SIGTERM whose handler is Python's own
    (Ctrl-C's KeyboardInterrupt, the command line's SIGTERM) is held: its handler is
    called on leaving, so the KeyboardInterrupt is raised after the block, not inside
    it.  A second signal while one is held is not held: a block that hangs can still be
    broken.  Signals left to the system (the default SIGTERM, an ignored one) are
    untouched; so is everything in another thread.  Blocks opened inside one another
    hold the signal to the outermost.  Keep the block short: Ctrl-C waits for it.

    >>> import os, signal
    >>> try:
    ...     with deferring_interrupts():
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         print("the block ends")
    ... except KeyboardInterrupt:
    ...     print("then the interrupt")
    the block ends
    then the interrupt
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[Any, Any]] = []

    def hold(signum: int, frame: Any) -> None:
        if held:  # asked again: not held any longer
            held.clear()
            previous[signum](signum, frame)
            return
        held.append((signum, frame))

    previous = {}
    for signum in _DEFERRED:
        handler = signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            signal.signal(signum, hold)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if held:
            signum, frame = held[0]
            previous[signum](signum, frame)
