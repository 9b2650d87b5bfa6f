"""Loaded into each worker process of a ``local:N`` cluster (Dask's ``preload``): Ctrl-C
at the terminal reaches the whole process group, and the command itself stops its
workers in order; a worker taking the signal too would only print its own traceback.
Likewise a worker that outlives its scheduler by a heartbeat while the command closes
the cluster (SIGTERM, Ctrl-C) says nothing: a unit that fails is reported by the command
itself, with its cause."""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

_GONE = ("CommClosedError", "StreamClosedError")


class _ShutdownNoise(logging.Filter):
    """Drop the records of a worker losing its (closing) scheduler."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        text = record.getMessage()
        return not (
            kind in _GONE
            or "Failed to communicate with scheduler" in text
            or "Connection to scheduler broken" in text
        )


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (its command line stops it); keep quiet
    about a scheduler gone at the end."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    noise = _ShutdownNoise()
    for name in (
        "distributed.worker",
        "distributed.core",
        "distributed.nanny",
        "distributed.comm",
        "distributed.batched",
    ):
        logging.getLogger(name).addFilter(noise)
