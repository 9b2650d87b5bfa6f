"""Loaded into each worker process of a ``local:N`` cluster (Dask's ``preload``): Ctrl-C
at the terminal reaches the whole process group, and the command itself stops its
workers in order; a worker taking the signal too would only print its own traceback."""

from __future__ import annotations

import signal
import threading
from typing import Any


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (its command line stops it)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
