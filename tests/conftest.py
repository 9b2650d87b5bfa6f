import gzip
import os
import shutil
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# The tests of Ctrl-C need Python's own SIGINT handler.  A shell that starts a command in
# the background without job control (``cmd &`` in a script) makes it ignore SIGINT, and
# Python then installs no handler: ``_thread.interrupt_main()`` does nothing, and the
# programs the tests start inherit the ignored signal (seen as a test of Ctrl-C waiting
# for a whole [5,8] search).  Put Python's handler back for the tests.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Deterministic property tests: the same examples on every run and machine.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=150)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# Tests that need a program of the system rather than of Python (Chromium and its driver,
# Graphviz's dot) skip where it is missing, with a reason that starts with NEEDS_A_PROGRAM;
# the run then ends with one line that names them and the command that installs them.
NEEDS_A_PROGRAM = "needs a program this machine lacks:"
INSTALL_PROGRAMS = "sudo apt-get install chromium chromium-driver graphviz"


def pytest_unconfigure(config):
    """The line, after the run's own summary."""
    terminalreporter = config.pluginmanager.get_plugin("terminalreporter")
    if terminalreporter is None:
        return
    skipped = terminalreporter.stats.get("skipped", [])
    lacking = [r for r in skipped if NEEDS_A_PROGRAM in str(getattr(r, "longrepr", ""))]
    if lacking:
        terminalreporter.write_line(
            f"{len(lacking)} skipped for want of Chromium, chromedriver or Graphviz's dot: "
            f"on Debian or Ubuntu, {INSTALL_PROGRAMS} runs them too (as .ci/run does)"
        )


# What a test's subprocess keeps of this environment even when it is given a bare one:
# the sanitizer run's runtime and options (.ci/sanitize) and the forced kernel target.
KEPT_ENVIRONMENT = (
    "LD_PRELOAD",
    "ASAN_OPTIONS",
    "UBSAN_OPTIONS",
    "PYTHONMALLOC",
    "MASTERMIND_SIMD",
)


class OneUnitPlan:
    """An engine plan (mastermind.engine.units.Plan) that offers one unit and keeps its
    answer: the smallest client a unit kind's worker can be run through."""

    def __init__(self, unit):
        self.unit, self.kind = unit, unit.kind
        self.offered, self.result = False, None

    def next(self):
        if self.offered:
            return None
        self.offered = True
        return self.unit

    def take(self, unit, result):
        self.result = result
        return []

    def done(self):
        return self.result is not None

    def known(self):
        return 1


def bare_environment(**variables: str) -> dict[str, str]:
    """An environment of ``variables`` and an empty PATH, with what ``KEPT_ENVIRONMENT``
    names taken from this one."""
    kept = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
    return {**kept, "PATH": "", **variables}


def peak_in_a_fresh_process(setup: str, code: str) -> int:
    """The most bytes Python and NumPy held at once (tracemalloc) while ``code`` ran, in a
    fresh interpreter after ``setup``: tracemalloc counts every thread of a process, and in
    the suite's own a thread that another test left at work would count too.  ``code``
    must end normally (expected errors caught in it)."""
    import subprocess
    import sys

    import mastermind

    script = "\n".join(
        [setup, "import tracemalloc", "tracemalloc.start()", code,
         "print(tracemalloc.get_traced_memory()[1])"]
    )  # fmt: skip
    path = str(Path(mastermind.__file__).resolve().parents[1])
    tests = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=bare_environment(PYTHONPATH=f"{path}:{tests}"),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return int(done.stdout.split()[-1])


# Python source to put at the top of a script run in a subprocess: it sends the process
# Ctrl-C (SIGINT) once a long kernel call is under way, that is once the main thread waits
# (in mastermind.stopping.run_stoppable) for the worker thread that runs the call: the
# interruption then happens while the kernel works, whatever the speed of the machine.
CTRL_C_AT_WORK = """
import os as _os, signal as _signal, sys as _sys, threading as _threading, time as _time

_working = _threading.Event()


def _main_waits_for_a_worker():
    frame = _sys._current_frames().get(_threading.main_thread().ident)
    names = set()
    while frame is not None:
        names.add(frame.f_code.co_name)
        frame = frame.f_back
    others = [t for t in _threading.enumerate()
              if t not in (_threading.main_thread(), _threading.current_thread())]
    return bool(others) and "run_stoppable" in names


def _ctrl_c_at_work():
    while not _working.is_set():
        if _main_waits_for_a_worker():
            _working.set()
            _os.kill(_os.getpid(), _signal.SIGINT)
            return
        _time.sleep(0.001)


_watcher = _threading.Thread(target=_ctrl_c_at_work, daemon=True)
_watcher.start()
"""


@pytest.fixture
def ctrl_c_at_work() -> str:
    """Python source that makes a script send itself Ctrl-C once a long kernel call is
    under way (see ``CTRL_C_AT_WORK``); the script sets ``_working`` and joins
    ``_watcher`` when its call returned without being interrupted."""
    return CTRL_C_AT_WORK


# The program as ``python -m mastermind`` runs it, to put after ``CTRL_C_AT_WORK``: the
# command sends itself Ctrl-C (or what the test substitutes) once its kernel is at work.
RUN_THE_PROGRAM = """
import runpy
_sys.argv[0] = "mastermind"
try:
    runpy.run_module("mastermind", run_name="__main__")
finally:
    _working.set()
"""


# ---------------------------------------------------------------------- old checkpoints
# Checkpoints written by earlier versions of the package (tests/data/checkpoints, gzip):
# the tests that read them back unpack a copy, and fail if any unit runs instead.
CHECKPOINTS = Path(__file__).resolve().parent / "data" / "checkpoints"


@pytest.fixture
def unpacked(tmp_path):
    """``unpacked(NAME)``: a fresh copy of the stored checkpoint NAME, its path."""

    def unpack(name: str) -> str:
        path = tmp_path / name
        with gzip.open(CHECKPOINTS / f"{name}.gz", "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        return str(path)

    return unpack


@pytest.fixture
def no_unit_runs(monkeypatch):
    """Any unit that would run instead of being read back fails the test."""
    import mastermind.engine.executors as executors

    def refuse(*args, **kwargs):
        raise AssertionError(f"a unit ran: {args[1]} {sorted(args[2])}")

    monkeypatch.setattr(executors, "run_unit", refuse)
