"""Stopping kernel calls: Ctrl-C from Python stops the kernel's threads too, time limits
cut analyses and scans, a suggestion within a budget is the best found in it."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import bare_environment

import mastermind
from mastermind import Game, analyze, choose_guess
from mastermind.analysis import _scan
from mastermind.analysis.strategies import next_guess
from mastermind.kernel import _core
from mastermind.stopping import TimeLimitReached, new_flag, run_stoppable

SRC = Path(mastermind.__file__).resolve().parents[1]

PROBE = """
import threading, time
import mastermind as mm
g = mm.Game({n}, {k})
try:
    {call}
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
_working.set()
_watcher.join()
time.sleep(0.3)
cpu = time.process_time()
time.sleep(1.0)
print("threads", len(threading.enumerate()), "cpu", round(time.process_time() - cpu, 3))
"""


@pytest.mark.parametrize(
    "n,k,call",
    [
        (6, 9, "mm.analyze(g)"),
        (8, 7, "mm.solve(g, '12345671', first='11223344')"),
        (8, 7, "s = mm.Session(g); s.record('11223344', '1 3'); s.suggest()"),
        (6, 9, "mm.choose_guess(g, g.filter(g.secrets, '112233', '1 0'))"),
    ],
)
def test_interrupting_python_stops_the_kernel(n, k, call, ctrl_c_at_work):
    """KeyboardInterrupt in the caller while the kernel works (sent once the call is under
    way): the kernel's worker stops too (no thread of the package left, no CPU used
    afterwards).  The timeout only guards against a probe that never ends.

    [8,7]'s solve is given its opening: the scan of the opening classes reads the stop
    flag between guesses only (each a pass over 5,764,801 codes, about a second here)."""
    probe = ctrl_c_at_work + (
        PROBE.replace("{call}", call).replace("{n}", str(n)).replace("{k}", str(k))
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=bare_environment(PYTHONPATH=str(SRC)),
        timeout=300,
    )
    lines = done.stdout.split("\n")
    assert lines[0] == "interrupted", done.stdout + done.stderr
    threads, cpu = lines[1].split()[1], float(lines[1].split()[3])
    assert threads == "1" and cpu < 0.1


def test_time_limit_stops_an_analysis():
    """[6,9] takes a minute: half a second stops it with TimeLimitReached, no answer."""
    with pytest.raises(TimeLimitReached):
        analyze(Game(6, 9), time_limit=0.5)


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
    assert not cut.complete
    assert_best_examined(g, cands, cut.guess)


def assert_best_examined(g: Game, cands: np.ndarray, guess: int) -> None:
    """A minmax guess cut short is the best of the codes examined, and the candidates are
    examined first, from the first one (the first candidate is played when none was): so
    its largest part is no larger than the first candidate's, and a code outside the
    candidates is played only when strictly better (ties go to candidates)."""

    def largest_part(code: int) -> int:
        return int(g.kernel.histogram(int(code), cands).max())

    bound = largest_part(cands[0])
    if guess in cands:
        assert largest_part(guess) <= bound
    else:
        assert largest_part(guess) < bound


def test_a_budget_short_of_the_scan_keeps_the_candidates_first():
    """On [7,8] a second guess takes seconds (over 300,000 candidates): a 0.05 s budget
    plays the best code examined in it."""
    g = Game(7, 8)
    first = g.code("1122334")
    cands = g.filter(g.secrets, first, "1 2")
    choice = next_guess(g, cands, history=[first], time_limit=0.05)
    assert not choice.complete
    assert_best_examined(g, cands, choice.guess)


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


def looks_at_flag(call) -> int:
    """How many times ``call(flag)`` (single-threaded kernel work) looks at its stop flag
    when it runs to the end."""
    flag = _core.StopFlag()
    flag.stop_after_polls(1 << 50)
    call(flag)
    return (1 << 50) - flag.polls_left


def test_stop_after_polls_is_a_deadline_at_a_chosen_look():
    g = Game(4, 6)
    scan = lambda f: _scan.best_guess(g.kernel, g.guesses, g.secrets, 0, 1, f)  # noqa: E731
    looks = looks_at_flag(scan)
    assert looks > 1
    for polls, stops in ((0, True), (looks - 1, True), (looks, False)):
        flag = _core.StopFlag()
        flag.stop_after_polls(polls)
        _, key, _ = scan(flag)
        assert (flag.value == _core.STOP_DEADLINE) == stops
        assert stops or (key == 256 and flag.polls_left == 0)
    assert _core.StopFlag().polls_left == -1


def test_a_walk_stopped_at_any_look_at_its_flag_raises_or_is_whole():
    """A deadline at every look a whole [4,6] walk takes at its stop flag (its nodes,
    their scans, the moment between a node's look and its scan's first one): each walk
    raises Stopped or gives the whole walk's answer, never a guess from a scan that
    examined nothing (which read codes out of bounds) or was cut short."""
    g = Game(4, 6)
    dist, recs = kernel_walk(g, None, record=True)[:2]
    looks = looks_at_flag(lambda f: kernel_walk(g, f, record=True))
    assert looks > 1000  # (the nodes and the scans)
    for polls in range(looks + 1):
        flag = new_flag()
        flag.stop_after_polls(polls)
        try:
            got = kernel_walk(g, flag, record=True)
        except _core.Stopped:
            assert flag.value == _core.STOP_DEADLINE and polls < looks
            continue
        assert polls == looks
        assert np.array_equal(got[0], dist) and np.array_equal(got[1], recs)


@pytest.mark.parametrize(
    "n,k,max_guesses,memo",
    [
        (3, 6, 0, 1 << 24),
        (5, 3, 0, 1 << 24),
        (4, 4, 4, 1 << 24),
        (3, 5, 0, 1 << 24),
        (3, 6, 0, 4096),
        (4, 4, 4, 4096),
    ],
)
def test_an_optimal_search_stopped_at_any_look_proves_only_what_holds(n, k, max_guesses, memo):
    """The optimal search stopped at every look it takes at its flag: either the whole
    answer, or a stop whose proved lower bound is at most the optimum and whose best
    strategy so far (when it has one) is a strategy for every secret, of the total it
    claims, no better than the optimum (and within the guess limit).  With a memo too
    small to keep that strategy (4 KiB), its parts are searched again when its tree is
    built, under a deadline of the build's own: the stops still give their trees."""
    from mastermind.optimum import _optimal
    from mastermind.optimum.search import new_optimizer
    from mastermind.strategy_tree import replay_records

    g = Game(n, k)
    cands = np.ascontiguousarray(g.secrets)
    none = np.zeros(0, dtype=np.int32)

    def run(flag=None):
        return new_optimizer(g, candidates_only=False, memory=memo, threads=1).run(
            cands, none, max_guesses, 0, -1, flag
        )

    status, best, _, tree = run()
    assert status == _optimal.RUN_OPTIMUM
    looks = looks_at_flag(run)
    trees = 0
    for polls in range(looks + 1):
        flag = new_flag()
        flag.stop_after_polls(polls)
        got = run(flag)
        if polls == looks:
            assert got[0] == status and got[1] == best and np.array_equal(got[3], tree)
            continue
        assert got[0] == _optimal.RUN_STOPPED and got[2] <= best
        if got[1] < 0:
            assert len(got[3]) == 0
            continue
        trees += 1
        total, deepest = replay_records(g, got[3], cands)
        assert total == got[1] >= best and deepest <= (max_guesses or deepest)
    assert trees  # (some stops had a strategy to give)


def test_a_stopped_search_with_no_time_to_rebuild_its_tree_gives_none():
    """A stopped search rebuilds its best strategy's tree from the memo; what the memo no
    longer holds is searched again, under the build's own deadline (``rebuild_seconds``).
    With a memo of 4 KiB and no time at all, the stops that gave a tree with time to
    rebuild it give either the same tree (all of it found without a search) or none,
    never part of one; and some give none (the deadline is obeyed)."""
    from mastermind.optimum.search import new_optimizer

    g = Game(3, 6)
    cands = np.ascontiguousarray(g.secrets)
    none = np.zeros(0, dtype=np.int32)

    def run(flag=None, rebuild=-1.0):
        opt = new_optimizer(g, candidates_only=False, memory=4096, threads=1)
        opt.rebuild_seconds = rebuild
        return opt.run(cands, none, 0, 0, -1, flag)

    def stopped_at(polls, rebuild):
        flag = new_flag()
        flag.stop_after_polls(polls)
        return run(flag, rebuild)

    looks = looks_at_flag(run)
    dropped = 0
    for polls in range(looks):
        given, starved = stopped_at(polls, -1.0), stopped_at(polls, 0.0)
        assert starved[2] == given[2]  # the same proved bound
        if given[1] < 0:
            assert starved[1] < 0
        elif starved[1] < 0:
            assert len(starved[3]) == 0
            dropped += 1
        else:
            assert starved[1] == given[1] and np.array_equal(starved[3], given[3])
    assert dropped


def test_a_stop_while_an_optimum_s_tree_is_rebuilt_gives_the_optimum_as_its_bound():
    """With a memo of 4 KiB, the optimum's tree is rebuilt by searching its parts again
    (looks at the flag to the last): a stop asked then (Ctrl-C) ends the rebuilding at
    once; the run is stopped with no tree and the optimum as its proved bound.  (A time
    limit does not cut it: the optimum is found; the polls of a test's flag stand for
    the stop here.)"""
    from mastermind.optimum import _optimal
    from mastermind.optimum.search import new_optimizer

    g = Game(3, 6)
    cands = np.ascontiguousarray(g.secrets)
    none = np.zeros(0, dtype=np.int32)

    def run(flag=None):
        return new_optimizer(g, candidates_only=False, memory=4096, threads=1).run(
            cands, none, 0, 0, -1, flag
        )

    status, best, _, _ = run()
    assert status == _optimal.RUN_OPTIMUM
    looks = looks_at_flag(run)
    flag = new_flag()
    flag.stop_after_polls(looks - 1)  # (the last look: the rebuilding's)
    got = run(flag)
    assert got[0] == _optimal.RUN_STOPPED and got[1] == -1 and len(got[3]) == 0
    assert got[2] == best


@pytest.mark.parametrize("n,k,d", [(4, 5, 5), (4, 5, 4), (5, 4, 5), (3, 6, 4)])
def test_a_worst_case_search_stopped_at_any_look_gives_no_answer(n, k, d):
    """``solution_exists``'s search stopped at every look it takes at its flag answers
    -1 (stopped, no guess) until the look that lets it finish with the whole answer."""
    from mastermind.worstcase.search import Search

    g = Game(n, k)
    cands = np.ascontiguousarray(g.secrets)

    def search():
        return Search(g, g.guesses, candidates_only=False, symmetry=True, memory=1 << 24).core

    whole = search().run(cands, d, 0)
    looks = looks_at_flag(lambda f: search().run(cands, d, 0, f))
    for polls in range(looks + 1):
        flag = new_flag()
        flag.stop_after_polls(polls)
        s = search()
        got = s.run(cands, d, 0, flag)
        if polls < looks:
            assert got == (-1, -1) and s.aborted == _core.STOP_DEADLINE
        else:
            assert got == whole


def test_interrupts_held_over_a_block_are_raised_after_it_and_a_second_one_at_once():
    """``deferring_interrupts``: a Ctrl-C inside the block runs its handler after the
    block; a second one inside it is not held (a hung block can be broken); the handlers
    are put back; a signal left to the system (the default SIGTERM) is not touched."""
    import os
    import signal

    from mastermind.interrupts import deferring_interrupts

    seen = []
    with pytest.raises(KeyboardInterrupt), deferring_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # (the handler runs in the main thread between bytecodes)
        seen.append("held")
    assert seen == ["held"]
    with pytest.raises(KeyboardInterrupt), deferring_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        seen.append("not reached")
    assert seen == ["held"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    calls = []
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with deferring_interrupts():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        signal.signal(signal.SIGTERM, lambda signum, frame: calls.append(signum))
        with deferring_interrupts():
            with deferring_interrupts():  # (held to the outermost block)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
            assert calls == []
        assert calls == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_an_interrupt_dropped_in_a_finaliser_still_stops_the_work(tmp_path):
    """Python drops a KeyboardInterrupt raised while a finaliser runs (a Ctrl-C landing
    in a ``__del__`` that the garbage collector called while the main thread waited: the
    work then went on to its end, a [5,8] search's hours in library use): the loops that
    wait for a kernel call and for units record it and raise it again, in library use as
    on the command line; anything else a finaliser raises still goes to the hook in place
    before."""
    import sys

    from mastermind.interrupts import keeping_lost_interrupts, take_stop_request

    class Finaliser:
        def __del__(self):
            raise KeyboardInterrupt  # as a signal handler would, at that moment

    class Faulty:
        def __del__(self):
            raise ValueError("a faulty finaliser")

    def drop_an_interrupt():
        Finaliser()  # (finalised at once)

    seen = []
    previous, collect = sys.unraisablehook, seen.append
    sys.unraisablehook = collect
    try:
        with keeping_lost_interrupts():
            drop_an_interrupt()
            assert take_stop_request() and not take_stop_request()  # recorded, then taken
            Faulty()
        assert sys.unraisablehook is collect  # put back
    finally:
        sys.unraisablehook = previous
    assert [u.exc_type for u in seen] == [ValueError]

    # a kernel call waited for: stopped at the wait after the drop
    g = Game(6, 9)
    flag = new_flag()
    with pytest.raises(KeyboardInterrupt):  # (a walk left whole would return, not raise)
        run_stoppable(lambda f: kernel_walk(g, f), flag, every=drop_an_interrupt)
    assert flag.value == _core.STOP_REQUESTED  # the kernel was told to stop

    # units: the engine's loop raises it between its waits
    def progress(done, total):
        if done >= 2:
            drop_an_interrupt()

    with pytest.raises(KeyboardInterrupt):
        analyze(Game(5, 6), checkpoint=str(tmp_path / "a.sqlite"), jobs=1, progress=progress)
    assert not take_stop_request()


def kernel_walk(g: Game, flag, record: bool = False) -> object:
    """The kernel's whole min-max walk of ``g`` (symmetry and absent colours on)."""
    from mastermind.analysis import _walk

    return _walk.walk(
        g.kernel,
        g.guesses,
        g.secrets,
        _core.VAL_MINMAX,
        cands_only=False,
        shortcut_ok=True,
        record=record,
        symmetry=True,
        blanks=True,
        stop=flag,
    )
