"""Stopping kernel calls: Ctrl-C from Python stops the kernel's threads too, time limits
cut analyses and scans, a suggestion within a budget is the best found in it."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mastermind
from mastermind import Game, _core, _scan, analyze, choose_guess
from mastermind.stopping import TimeLimitReached, new_flag, run_stoppable
from mastermind.strategies import next_guess

SRC = Path(mastermind.__file__).resolve().parents[1]

PROBE = """
import os, signal, sys, threading, time
import mastermind as mm
g = mm.Game({n}, {k})
threading.Timer({after}, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    {call}
    print("finished")
except KeyboardInterrupt:
    print("interrupted", round(time.monotonic() - start, 2))
time.sleep(0.3)
cpu = time.process_time()
time.sleep(1.0)
print("threads", len(threading.enumerate()), "cpu", round(time.process_time() - cpu, 3))
"""


@pytest.mark.parametrize("n,k,call,after", [
    (6, 9, "mm.analyze(g)", 1.5),                      # a minute
    (8, 7, "mm.solve(g, '12345671')", 1.5),            # half a minute
    (8, 7, "s = mm.Session(g); s.record('11223344', '1 3'); s.suggest()", 0.8),  # 2.3 s
    (6, 9, "mm.choose_guess(g, g.filter(g.secrets, '112233', '1 0'))", 1.5)])
def test_interrupting_python_stops_the_kernel(n, k, call, after):
    """KeyboardInterrupt in the caller: the kernel's worker stops too (no thread of the
    package left, no CPU used afterwards)."""
    probe = (PROBE.replace("{call}", call).replace("{n}", str(n)).replace("{k}", str(k))
             .replace("{after}", str(after)))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": ""}, timeout=120)
    lines = done.stdout.split("\n")
    assert lines[0].startswith("interrupted"), done.stdout + done.stderr
    assert float(lines[0].split()[1]) < after + 1.0
    threads, cpu = lines[1].split()[1], float(lines[1].split()[3])
    assert threads == "1" and cpu < 0.1


def test_time_limit_stops_an_analysis():
    start = time.monotonic()
    with pytest.raises(TimeLimitReached):
        analyze(Game(6, 9), time_limit=0.5)
    assert time.monotonic() - start < 0.5 + 1.0


def test_a_set_flag_voids_a_scan_and_a_deadline_gives_the_best_so_far():
    g = Game(5, 8)
    cands = g.filter(g.secrets, "11223", "1 1")
    flag = new_flag()
    flag.set()
    with pytest.raises(KeyboardInterrupt):
        run_stoppable(lambda f: _scan.best_guess(g.kernel, g.guesses, cands, 0, 1, f), flag)
    best = choose_guess(g, cands)
    past = [g.code("11223")]
    full = next_guess(g, cands, history=past)
    assert full.complete and full.guess == best  # the symmetry-reduced scan's answer
    cut = next_guess(g, cands, history=past, time_limit=1e-6)
    assert not cut.complete and cut.guess in g.guesses


def test_a_budget_short_of_the_scan_keeps_the_candidates_first():
    """On [7,8] a second guess takes seconds: a 0.2 s budget plays the best code found,
    which is a candidate when no other code was examined in time."""
    g = Game(7, 8)
    first = g.code("1122334")
    cands = g.filter(g.secrets, first, "1 2")
    choice = next_guess(g, cands, history=[first], time_limit=0.2)
    assert not choice.complete and choice.seconds < 0.2 + 1.0
    assert choice.guess in cands or choice.guess in g.guesses


def test_run_stoppable_from_another_thread_runs_inline():
    box = {}

    def target():
        box["g"] = run_stoppable(lambda f: threading.current_thread().name)

    t = threading.Thread(target=target, name="not-main")
    t.start()
    t.join()
    assert box["g"] == "not-main"


def test_kernel_flag_values():
    flag = _core.StopFlag()
    assert flag.value == _core.STOP_NONE
    flag.set_time_limit(1e-9)
    time.sleep(0.01)
    g = Game(4, 6)
    _scan.best_guess(g.kernel, g.guesses, g.secrets, 0, 1, flag)
    assert flag.value == _core.STOP_DEADLINE
    flag.clear()
    flag.set_time_limit(0)
    _, key, _ = _scan.best_guess(g.kernel, g.guesses, g.secrets, 0, 1, flag)
    assert flag.value == _core.STOP_NONE and key == 256
    assert np.isfinite(_core.monotonic())
