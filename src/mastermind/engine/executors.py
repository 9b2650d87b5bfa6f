"""Where units of work run (:mod:`mastermind.engine.units`): on a Dask cluster, or on threads
of this process.

``scheduler`` is a Dask scheduler's address (``"tcp://10.0.0.5:8786"``, ``"tls://..."``)
or ``"local:N"``: a LocalCluster of N worker processes on this machine (one thread each),
started for the run and closed after it.  ``client`` is an existing
``distributed.Client``, used as it is and left open.  Dask is imported only here and
only when one of them is given: ``pip install 'mastermind-analysis[distributed]'``.
docs/distributed.md shows how to start schedulers and workers by hand, on SLURM and on
Kubernetes, and how to secure them.

>>> parse_scheduler("local:2"), parse_scheduler("tcp://10.0.0.5:8786")
(('local', 2), ('address', 'tcp://10.0.0.5:8786'))
>>> parse_scheduler("local:0")
Traceback (most recent call last):
...
mastermind.engine.executors.SchedulerError: scheduler local:0: the number of worker processes must be between 1 and 256
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import re
import signal
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from ..checks import WireForm
from ..errors import MastermindError, MissingTool
from ..interrupts import ask_to_stop, deferring_interrupts
from ..limits import MAX_JOBS
from ..stopping import new_flag
from .units import Unit
from .workers import run_remote, run_unit

__all__ = ["CONNECT_TIMEOUT", "SchedulerError", "open_executor", "parse_scheduler"]

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a scheduler's answer before giving up on its address."""

_ADDRESS = re.compile(r"^([a-z][a-z0-9+.-]*://)?[^\s/:]+(:\d+)?/?$", re.IGNORECASE)


class SchedulerError(MastermindError):
    """A scheduler that cannot be used: a malformed address, ``local:0``, an address with
    nothing answering, Dask missing, workers without the same mastermind."""


def parse_scheduler(text: Any) -> tuple[str, Any]:
    """``("local", N)`` for ``"local:N"``, ``("address", text)`` for an address."""
    if not isinstance(text, str) or not text.strip():
        raise SchedulerError(
            f"a scheduler is an address such as tcp://host:8786 or local:N, not {text!r}"
        )
    text = text.strip()
    if text.lower().startswith("local"):
        m = re.fullmatch(r"local:(\d+)", text, re.IGNORECASE)
        if m is None:
            raise SchedulerError(
                f"scheduler {text}: write local:N, N the number of worker processes (e.g. local:2)"
            )
        n = int(m.group(1))
        if not 1 <= n <= MAX_JOBS:
            raise SchedulerError(
                f"scheduler {text}: the number of worker processes must be between 1 and {MAX_JOBS}"
            )
        return "local", n
    if not _ADDRESS.match(text):
        raise SchedulerError(
            f"scheduler {text}: not an address such as tcp://host:8786 (or local:N)"
        )
    return "address", text


class DaskMissing(SchedulerError, MissingTool):
    """Dask's distributed package is not installed: a tool missing, not bad input."""


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise DaskMissing(
            "a Dask scheduler needs the distributed package: pip install "
            "'mastermind-analysis[distributed]'"
        ) from None
    return distributed


def _version() -> str:
    """The mastermind version a worker has (run on each worker when connecting)."""
    from ..version import __version__

    return __version__


# ---------------------------------------------------------------------- executors
class LocalExecutor:
    """Units on ``threads`` threads of this process (the kernel releases the GIL); each
    unit has a stop flag of its own, set when it is cancelled or the run stops."""

    def __init__(self, game: object, threads: int):
        self.game = game
        self.threads = max(1, threads)
        self.pool = cf.ThreadPoolExecutor(
            max_workers=self.threads, thread_name_prefix="mastermind-unit"
        )
        self.flags: dict[Any, Any] = {}

    def slots(self) -> int:
        return self.threads

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        flag = new_flag()
        future = self.pool.submit(run_unit, self.game, unit.kind, unit.args, flag, budget)
        self.flags[future] = flag
        return future

    def wait(self, handles: list, timeout: float) -> list:
        done, _ = cf.wait(handles, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out = []
        for f in done:
            self.flags.pop(f, None)
            error = f.exception()
            out.append((f, None if error is not None else f.result(), error))
        return out

    def cancel(self, handles: list) -> None:
        for f in handles:
            flag = self.flags.pop(f, None)
            if flag is not None:
                flag.set()
            f.cancel()

    def close(self) -> None:
        for flag in self.flags.values():
            flag.set()
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Units as tasks of a Dask client; the game's definition goes to each worker once
    when it is large (a custom game's table).

    Ctrl-C and SIGTERM are held over each blocking call into the client (they are
    raised when it returns, within a fraction of a second): a sync client interrupted
    just as it hands a call to its event loop's thread logs a traceback of its own
    (``NameError: ... 'future'``, from ``distributed.utils.sync``)."""

    def __init__(self, client: Any, spec: WireForm):
        self.client = client
        self.spec: Any = spec
        if spec.heavy:
            with deferring_interrupts():
                self.spec = client.scatter(spec, broadcast=True, hash=False)
        self._slots = 2
        self._checked = -1e9
        self._wait = _dask().wait

    def slots(self) -> int:
        now = time.monotonic()
        if now - self._checked > 5.0:  # workers come and go: look again now and then
            self._checked = now
            with deferring_interrupts():
                threads = sum(self.client.nthreads().values())
            self._slots = max(2, 2 * threads)
        return self._slots

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        return self.client.submit(
            run_remote,
            self.spec,
            unit.kind,
            unit.args,
            None,
            budget,
            pure=False,
            key=f"mastermind-{unit.key}-{uuid.uuid4().hex[:10]}",
        )

    def where(self, handle: Any) -> Optional[str]:
        """The address of the worker that holds a finished unit's answer, as the
        scheduler knows it (None when it cannot say)."""
        try:
            with deferring_interrupts():
                holders = self.client.who_has([handle]).get(handle.key, ())
        except Exception:  # pragma: no cover - the scheduler is gone
            return None
        return ", ".join(holders) or None

    def wait(self, handles: list, timeout: float) -> list:
        out: list = []
        try:
            with deferring_interrupts():
                out = self._collect(handles, timeout)
        except KeyboardInterrupt:
            if not out:
                raise
            ask_to_stop()  # the loop records these answers first, then stops
        return out

    def _collect(self, handles: list, timeout: float) -> list:
        try:
            done, _ = self._wait(handles, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        out: list[tuple[Any, Any, Optional[BaseException]]] = []
        for f in done:
            status = f.status
            if status == "finished":
                out.append((f, f.result(), None))
            elif status == "cancelled":
                out.append((f, None, RuntimeError("the scheduler cancelled it (connection lost?)")))
            elif status == "error":
                out.append((f, None, f.exception()))
            # else "lost" or "pending" again: its worker died after it finished, before its
            # answer was fetched, and the scheduler runs it again; it comes back later
        return out

    def cancel(self, handles: list) -> None:
        if handles:
            try:
                with deferring_interrupts():
                    self.client.cancel(handles)
            except Exception:  # pragma: no cover - the scheduler is gone: nothing to cancel
                pass

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------- opening
@contextmanager
def open_executor(
    game: object, spec: WireForm, scheduler: Optional[str], client: Any, threads: int
) -> Iterator[Any]:
    """The executor for a run: threads here (no scheduler, no client), an existing
    client, a LocalCluster (``local:N``, closed at the end) or a scheduler's address."""
    if scheduler is None and client is None:
        ex = LocalExecutor(game, threads)
        try:
            yield ex
        finally:
            ex.close()
        return
    distributed = _dask()
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise SchedulerError(
                f"client must be a distributed.Client, not {type(client).__name__}"
            )
        yield DaskExecutor(client, spec)
        return
    kind, value = parse_scheduler(scheduler)
    cluster = runner = own = None
    try:
        # (Ctrl-C held while the cluster starts or the client connects: cut in the
        # middle, Dask leaves a cluster half started that it fails to close at exit)
        with deferring_interrupts():
            if kind == "local":
                runner = _quiet_loop()
                cluster = distributed.LocalCluster(
                    loop=runner.loop if runner is not None else None,
                    n_workers=value,
                    threads_per_worker=1,
                    processes=True,
                    # (its HTTP server on a free port: two local
                    # runs side by side do not collide on 8787)
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                    # Ctrl-C is the command's to handle: the workers
                    # block it (_quiet_loop) and ignore it (no tracebacks
                    # of theirs)
                    preload=["mastermind.engine.quiet_worker"],
                )
                own = distributed.Client(cluster)
            else:
                own = _connect(distributed, value)
        yield DaskExecutor(own, spec)
    finally:
        with deferring_interrupts():
            if own is not None:
                own.close()
            if cluster is not None:
                cluster.close()
            if runner is not None:
                runner.stop()


def _quiet_loop() -> Any:
    """The event loop a ``local:N`` cluster runs on, on a thread of its own that blocks
    SIGINT, or None where signal masks do not exist.  The worker processes are spawned
    from that thread and inherit its mask: Ctrl-C at the terminal, which reaches the
    whole process group, never reaches a worker, even one still importing Dask (it
    printed its traceback then, before its preload could ignore the signal); the
    command's own thread takes it.  Multiprocessing's resource tracker is started first,
    from here: starting it unblocks SIGINT in the thread that does."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        return None
    from multiprocessing import resource_tracker

    try:
        from distributed.utils import LoopRunner
    except ImportError:  # pragma: no cover - a Dask without it: its own loop, as before
        return None

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        runner = LoopRunner(asynchronous=False)
        runner.start()  # (its thread inherits the mask)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return runner


def _reachable(address: str) -> None:
    """For a TCP address (tcp://, tls:// or host:port), a plain connection first: a
    refused one is reported at once rather than after Dask's retries."""
    m = re.fullmatch(r"(?:(tcp|tls)://)?\[?([^\s/\]]+?)\]?(?::(\d+))?/?", address, re.IGNORECASE)
    if m is None or ("://" in address and m.group(1) is None):
        return
    host, port = m.group(2), int(m.group(3) or 8786)
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as e:
        raise SchedulerError(
            f"cannot reach a Dask scheduler at {address} ({e.strerror or e})"
        ) from None


def _connect(distributed: Any, address: str) -> Any:
    """A client of the scheduler at ``address``, its workers checked to run this
    version of mastermind."""
    from ..version import __version__

    _reachable(address)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SchedulerError(f"cannot reach a Dask scheduler at {address} ({reason})") from None
    try:
        versions = client.run(_version, on_error="return")
    except Exception as e:  # pragma: no cover - the scheduler went away at once
        client.close()
        raise SchedulerError(f"scheduler {address}: cannot ask its workers ({e})") from None
    for worker, version in versions.items():
        if version != __version__:
            client.close()
            what = (
                f"has mastermind {version}"
                if isinstance(version, str)
                else f"cannot run mastermind ({type(version).__name__}: {version})"
            )
            raise SchedulerError(
                f"scheduler {address}: worker {worker} {what}; this is "
                f"mastermind {__version__}: install the same version on "
                "every worker"
            )
    return client
