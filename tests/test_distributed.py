"""Runs on a Dask cluster (mastermind.engine.executors): one LocalCluster of two worker
processes for the whole module.  Each run through the cluster gives bit for bit the
in-process answer (analysis, worst-case proof, optimal search, on several games and
variants), and survives a worker killed in the middle, a client killed in the middle
(then resumed from its checkpoint), and refuses a checkpoint of another run.

Skipped where Dask's distributed package is not installed (the ``distributed`` extra)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import mastermind  # noqa: E402
from mastermind import Game, analyze, optimal, solution_exists, worst_case  # noqa: E402
from mastermind.custom import two_d  # noqa: E402
from mastermind.engine.checkpoint import CheckpointError, read_costs  # noqa: E402
from mastermind.worstcase.bounds import check_strategy  # noqa: E402

SRC = str(Path(mastermind.__file__).resolve().parents[1])  # the package under test


class TwoWorkers:
    """A LocalCluster of two worker processes, started again whole when a worker that a
    test killed is not back within a minute (its nanny restarts it; under load a restart
    has been seen to fail, and every test after it would then wait on it)."""

    def __init__(self):
        self.start()

    def start(self):
        self.cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=50,
        )  # fmt: skip
        self.client = distributed.Client(self.cluster)

    def close(self):
        self.client.close()
        self.cluster.close()

    def ready(self):
        try:
            self.client.wait_for_workers(2, timeout=60)
        except TimeoutError:
            self.close()
            self.start()
            self.client.wait_for_workers(2, timeout=300)  # (a guard only)
        return self.client


@pytest.fixture(scope="module")
def cluster():
    two = TwoWorkers()
    try:
        yield two
    finally:
        two.close()


@pytest.fixture
def workers(cluster):
    """The client, with both workers up (a test before may have killed one)."""
    return cluster.ready()


def same_analysis(a, b):
    assert a.distribution == b.distribution
    assert (a.total, a.max, a.first_guess) == (b.total, b.max, b.first_guess)
    assert a.tree == b.tree


@pytest.mark.parametrize(
    "game, strategy, options",
    [
        (Game(4, 6), "minmax", {"tree": True}),
        (Game(4, 6), "entropy", {"candidates_only": True, "tree": True}),
        (Game(4, 7), "parts", {}),
        (Game(4, 6, "bulls-and-cows"), "minmax", {"tree": True}),
        (Game(4, 6, "black-peg"), "entropy", {}),
    ],
)
def test_an_analysis_on_the_cluster_is_the_in_process_one(workers, game, strategy, options):
    here = analyze(game, strategy, **options)
    there = analyze(game, strategy, client=workers, **options)
    same_analysis(there, here)
    assert there.units >= 2 and there.units_resumed == 0


def test_a_custom_game_runs_on_the_cluster_from_its_score_table(workers):
    here = optimal(two_d())
    there = optimal(two_d(), client=workers)
    assert (there.total, there.distribution, there.tree) == (
        here.total,
        here.distribution,
        here.tree,
    )


@pytest.mark.parametrize("n, k", [(4, 6), (3, 5)])
def test_a_worst_case_proof_on_the_cluster_is_the_in_process_one(workers, n, k):
    game = Game(n, k)
    here = worst_case(game)
    there = worst_case(game, client=workers)
    assert (there.lower, there.upper, there.lower_proof) == (
        here.lower,
        here.upper,
        here.lower_proof,
    )
    assert there.witness == here.witness and check_strategy(game, there.witness) == there.upper
    assert there.units > 0


@pytest.mark.parametrize("n, k", [(4, 5), (3, 4)])
def test_an_optimal_search_on_the_cluster_is_the_in_process_one(workers, n, k):
    game = Game(n, k)
    here = optimal(game)
    there = optimal(game, client=workers)
    assert there.exact and (there.total, there.distribution) == (here.total, here.distribution)
    assert there.tree == here.tree


def killer(workers, killed, after):
    """A progress callback that, once ``after`` units are done (and not all), kills a
    busy worker (SIGKILL) once, noting it in ``killed``."""

    def kill_one(done, total):
        if killed or done < after or done >= total:
            return
        busy = [w for w, tasks in workers.processing().items() if tasks]
        pids = workers.run(os.getpid, workers=busy[:1] or None)
        pid = next(iter(pids.values()))
        os.kill(pid, signal.SIGKILL)
        killed.append((pid, done, total))

    return kill_one


def test_a_worker_killed_in_the_middle_changes_nothing(workers, tmp_path):
    """At the first finished unit, a worker running others is killed: Dask runs its units
    again elsewhere (its nanny starts a new worker) and the answer is the same."""
    game = Game(5, 6)
    here = analyze(game, "minmax")
    path = str(tmp_path / "k.sqlite")
    killed = []
    kill_one = killer(workers, killed, after=1)

    there = analyze(game, "minmax", client=workers, checkpoint=path, progress=kill_one)
    assert killed, "the run ended before a worker could be killed"
    assert there.distribution == here.distribution and there.total == here.total
    assert len(read_costs(path)) == there.units


@pytest.mark.parametrize(
    "n, k, options", [(3, 5, {"tree": True}), (4, 4, {"candidates_only": True, "tree": True})]
)
def test_units_split_to_the_smallest_on_the_cluster_give_the_in_process_analysis(
    workers, n, k, options
):
    game = Game(n, k)
    here = analyze(game, "minmax", **options)
    there = analyze(game, "minmax", client=workers, unit_seconds=0, **options)
    same_analysis(there, here)
    assert there.units_split > 0


@pytest.mark.parametrize("d, exists", [(4, False), (5, True)])
def test_questions_split_to_single_guesses_on_the_cluster_keep_their_verdict(workers, d, exists):
    game = Game(3, 5)
    there = solution_exists(
        game, d, witness=True, candidates_only=True, client=workers, unit_seconds=0
    )
    assert there.exists is exists
    if exists:
        assert check_strategy(game, there.tree, candidates_only=True) <= d


def test_an_optimal_search_split_to_the_smallest_on_the_cluster_is_the_in_process_one(workers):
    game = Game(4, 5)
    here = optimal(game, max_guesses=5)
    there = optimal(game, max_guesses=5, client=workers, unit_seconds=0)
    assert there.exact and there.distribution == here.distribution and there.tree == here.tree
    assert there.units_split > 0


def test_a_worker_killed_in_the_middle_of_an_optimal_split_changes_nothing(workers, tmp_path):
    """Every subtree that can split does at once; once a few units have run, a busy
    worker is killed: the strategy is the in-process one."""
    game = Game(4, 5)
    here = optimal(game)
    killed = []
    kill_one = killer(workers, killed, after=5)

    path = str(tmp_path / "ko.sqlite")
    there = optimal(game, client=workers, checkpoint=path, unit_seconds=0, progress=kill_one)
    assert killed, "the run ended before a worker could be killed"
    assert there.exact and there.tree == here.tree and there.units_split > 0
    assert len(read_costs(path)) == there.units


def test_a_worker_killed_in_the_middle_of_a_split_changes_nothing(workers, tmp_path):
    """Every unit splits at once; once a few have, a busy worker is killed: the units it
    ran run again elsewhere, the splits recorded stay, the answer is the same."""
    game = Game(4, 4)
    here = analyze(game, "entropy", tree=True)
    path = str(tmp_path / "ks.sqlite")
    killed = []
    kill_one = killer(workers, killed, after=5)

    there = analyze(
        game,
        "entropy",
        tree=True,
        client=workers,
        checkpoint=path,
        unit_seconds=0,
        progress=kill_one,
    )
    assert killed, "the run ended before a worker could be killed"
    same_analysis(there, here)
    assert there.units_split > 0 and len(read_costs(path)) == there.units


def cli(*args, **kwargs):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-m", "mastermind", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,
    )


def rows(path):
    try:
        with closing(sqlite3.connect(path, timeout=1)) as conn, conn:
            return conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    except sqlite3.Error:
        return 0


ANSWER = (
    "pegs",
    "colours",
    "variant",
    "strategy",
    "first_guess",
    "secrets",
    "total",
    "average_fraction",
    "max",
    "distribution",
)


def test_a_client_killed_in_the_middle_resumes_from_its_checkpoint(workers, tmp_path):
    """The command killed (SIGKILL) once some units are recorded, then run again: it takes
    those from the file and answers what an uninterrupted run answers."""
    address = workers.scheduler.address
    path = str(tmp_path / "c.sqlite")
    command = (
        "analyze",
        "-n",
        "6",
        "-k",
        "6",
        "--strategy",
        "minmax",
        "--json",
        "--scheduler",
        address,
        "--checkpoint",
        path,
    )
    first = cli(*command)
    deadline = time.monotonic() + 60
    while rows(path) < 2 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.poll() is None, "the first run ended before it could be killed"
    first.send_signal(signal.SIGKILL)
    first.communicate()
    kept = rows(path)
    assert kept >= 2
    second = cli(*command)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    resumed = json.loads(out)
    assert resumed["units_resumed"] >= kept > 0 and resumed["units"] > resumed["units_resumed"]
    here = analyze(Game(6, 6), "minmax").to_json()
    assert {k: resumed[k] for k in ANSWER} == {k: here[k] for k in ANSWER}


def test_a_checkpoint_of_another_run_is_refused_in_one_line(workers, tmp_path):
    path = str(tmp_path / "o.sqlite")
    analyze(Game(4, 5), "minmax", client=workers, checkpoint=path)
    with pytest.raises(CheckpointError, match="another run"):
        analyze(Game(4, 5), "entropy", client=workers, checkpoint=path)
    address = workers.scheduler.address
    for other in (
        ("analyze", "-n", "4", "-k", "6"),
        ("analyze", "-n", "4", "-k", "5", "--strategy", "parts"),
        ("bound", "-n", "4", "-k", "5"),
    ):
        p = cli(*other, "--scheduler", address, "--checkpoint", path)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 2, (out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "another run" in lines[0] and "Traceback" not in err


@pytest.mark.slow
def test_local_n_starts_and_closes_a_cluster_of_its_own():
    """``scheduler="local:N"`` (what ``--scheduler local:N`` does): a LocalCluster for the
    call (slow: it starts processes of its own, beside the module's cluster)."""
    game = Game(4, 5)
    there = analyze(game, "entropy", tree=True, scheduler="local:1")
    same_analysis(there, analyze(game, "entropy", tree=True))


def test_a_unit_whose_answer_was_lost_with_its_worker_is_waited_for_again():
    """A future seen done, then ``lost`` (its worker died before its answer was fetched)
    is not an answer: the executor leaves it in flight until the scheduler reruns it."""
    from mastermind.engine.executors import DaskExecutor

    class Future:
        def __init__(self, status, value=None):
            self.status, self.value = status, value

        def result(self):
            return self.value

        def exception(self):
            return ValueError("boom") if self.status == "error" else None

    ex = DaskExecutor.__new__(DaskExecutor)
    futures = [Future("lost"), Future("pending"), Future("finished", {"d": 1}), Future("error")]
    ex._wait = lambda handles, timeout, return_when: (set(handles), set())
    out = {id(f): (r, e) for f, r, e in ex.wait(futures, 0.1)}
    assert id(futures[0]) not in out and id(futures[1]) not in out
    assert out[id(futures[2])] == ({"d": 1}, None)
    assert isinstance(out[id(futures[3])][1], ValueError)


def test_a_signal_during_a_wait_for_units_is_raised_after_their_answers_are_kept():
    """Ctrl-C (or SIGTERM) inside a wait on the client is held to its end: a sync client
    interrupted as it hands a call to its loop's thread logs a traceback of its own.
    Answers that wait collected are handed back, the stop recorded for the engine's loop
    (which records them, then stops); with none, the interrupt is raised at once."""
    from mastermind.engine.executors import DaskExecutor
    from mastermind.interrupts import take_stop_request

    class Future:
        status = "finished"

        def result(self):
            return {"d": 1}

    def interrupted_wait(done):
        def wait(handles, timeout, return_when):
            os.kill(os.getpid(), signal.SIGINT)  # (as a Ctrl-C arriving in the call)
            time.sleep(0.05)
            return (set(handles) if done else set()), set()

        return wait

    ex = DaskExecutor.__new__(DaskExecutor)
    take_stop_request()
    ex._wait = interrupted_wait(True)
    f = Future()
    assert ex.wait([f], 0.1) == [(f, {"d": 1}, None)]
    assert take_stop_request()
    ex._wait = interrupted_wait(False)
    with pytest.raises(KeyboardInterrupt):
        ex.wait([f], 0.1)
    assert not take_stop_request()
