"""The checkpoint file (mastermind.engine.checkpoint), and runs that record their units in one
and resume from it, in this process (no Dask): analyses, proofs and optimal searches
stopped part-way give, resumed, exactly the uninterrupted answer."""

import io
import os
import sqlite3
import stat
import zipfile
from contextlib import closing

import numpy as np
import pytest

from mastermind import Game, analyze, optimal, worst_case
from mastermind.custom import two_d
from mastermind.engine.checkpoint import FORMAT, CheckpointError, open_checkpoint, read_costs
from mastermind.engine.rows import ANSWER_MAGIC, decode, encode
from mastermind.worstcase.bounds import check_strategy

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}


def test_a_unit_is_recorded_and_read_back(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}) as store:
        assert len(store) == 0 and store.get("walk/0") is None
        store.record(
            "walk/0",
            "d0",
            {"dists": np.arange(6).reshape(2, 3), "ok": 1},
            size=12,
            seconds=0.25,
            worker="w:1",
        )
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}) as store:
        rec = store.get("walk/0")
        assert rec.digest == "d0" and rec.size == 12 and rec.worker == "w:1"
        assert rec.result["dists"].tolist() == [[0, 1, 2], [3, 4, 5]] and rec.result["ok"] == 1
        assert store.header()["format"] == FORMAT and store.header()["kind"] == "analyze"
        store.record("walk/0", "d0", {"ok": 0}, size=12, seconds=1.0)  # a later answer
        assert store.get("walk/0").result == {"ok": 0} and len(store) == 1
    assert read_costs(path) == [("walk/0", 12, 1.0)]


def test_answers_are_stored_without_pickle(tmp_path):
    """The answer column holds each field's name, dtype, shape and raw numbers after a
    magic (no pickle: an object array is refused); an earlier version's ``.npz`` bytes
    (a zip of one .npy file per name) still decode."""
    answer = {"recs": np.arange(10, dtype=np.int32).reshape(2, 5), "value": 7}
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {}) as store:
        store.record("walk/0", "d0", answer, size=2, seconds=0.1)
    with closing(sqlite3.connect(path)) as conn, conn:
        (blob,) = conn.execute("SELECT result FROM units WHERE key = 'walk/0'").fetchone()
    assert blob.startswith(ANSWER_MAGIC) and answer["recs"].tobytes() in blob
    out = decode(blob)
    assert out["value"] == 7 and out["recs"].dtype == np.int32 and out["recs"].shape == (2, 5)
    assert out["recs"].tolist() == answer["recs"].tolist()
    with pytest.raises(TypeError, match="numbers and arrays only"):
        encode({"x": np.array([object()])})
    old = io.BytesIO()
    np.savez(old, **{"recs": answer["recs"], "value": np.asarray(7)})
    with zipfile.ZipFile(io.BytesIO(old.getvalue())) as z:
        assert sorted(z.namelist()) == ["recs.npy", "value.npy"]
    back = decode(old.getvalue())
    assert back["value"] == 7 and back["recs"].tolist() == answer["recs"].tolist()


@pytest.mark.parametrize(
    "damage",
    [lambda b: b[:-3], lambda b: b[:9], lambda b: b[:4] + b"\xff" + b[5:], lambda b: b + b"x"],
)
def test_a_damaged_answer_never_decodes_to_another(damage):
    """Cut, a length changed, bytes after the end: an error, never a wrong answer."""
    blob = encode({"ok": 1, "nodes": 12, "recs": np.arange(35, dtype=np.int32).reshape(7, 5)})
    with pytest.raises(Exception):  # noqa: B017 (any error: the row is run again)
        decode(damage(blob))


@pytest.mark.parametrize(
    "kind, game, params, what",
    [
        ("bound", GAME, {"strategy": "minmax"}, "kind: analyze there, bound here"),
        ("analyze", dict(GAME, k=7), {"strategy": "minmax"}, "[4,6] classic there, [4,7]"),
        ("analyze", GAME, {"strategy": "entropy"}, "strategy: minmax there, entropy here"),
        ("analyze", GAME, {"strategy": "minmax", "first": "1123"}, "first: null there, 1123"),
    ],
)
def test_a_checkpoint_of_another_run_is_refused(tmp_path, kind, game, params, what):
    path = str(tmp_path / "c.sqlite")
    open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}).close()
    with pytest.raises(CheckpointError, match="give another file") as e:
        open_checkpoint(path, kind, game, params)
    assert what in str(e.value) and "\n" not in str(e.value)


def test_a_checkpoint_of_another_version_or_format_is_refused(tmp_path):
    path = str(tmp_path / "c.sqlite")
    open_checkpoint(path, "analyze", GAME, {}).close()
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE header SET value = '\"0.0.1\"' WHERE name = 'version'")
    with pytest.raises(CheckpointError, match="written by mastermind 0.0.1"):
        open_checkpoint(path, "analyze", GAME, {})
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE header SET value = '99' WHERE name = 'format'")
    with pytest.raises(CheckpointError, match="has format 99"):
        open_checkpoint(path, "analyze", GAME, {})


def test_files_that_cannot_be_checkpoints_are_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some words in a file\n" * 20)
    with pytest.raises(CheckpointError, match="not a mastermind checkpoint"):
        open_checkpoint(str(text), "analyze", GAME, {})
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn, conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(CheckpointError, match="not a mastermind checkpoint"):
        open_checkpoint(str(other), "analyze", GAME, {})
    with pytest.raises(CheckpointError, match="is a directory"):
        open_checkpoint(str(tmp_path), "analyze", GAME, {})
    with pytest.raises(CheckpointError, match="no such folder"):
        open_checkpoint(str(tmp_path / "missing" / "c.sqlite"), "analyze", GAME, {})
    with pytest.raises(CheckpointError, match="file name"):
        open_checkpoint("", "analyze", GAME, {})


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_checkpoint_is_refused_before_the_work(tmp_path):
    path = tmp_path / "c.sqlite"
    open_checkpoint(str(path), "analyze", GAME, {}).close()
    path.chmod(stat.S_IRUSR)
    with pytest.raises(CheckpointError, match="cannot be written"):
        open_checkpoint(str(path), "analyze", GAME, {})


class StopAfter:
    """A progress callback that raises KeyboardInterrupt (Ctrl-C) after ``n`` units."""

    def __init__(self, n):
        self.n = n
        self.calls = []

    def __call__(self, done, total):
        self.calls.append((done, total))
        if done >= self.n:
            raise KeyboardInterrupt


@pytest.mark.parametrize(
    "n, k, variant, strategy, tree",
    [
        (5, 6, "classic", "minmax", True),
        (5, 6, "bulls-and-cows", "entropy", False),
        (4, 6, "black-peg", "parts", True),
    ],
)
def test_an_analysis_stopped_and_resumed_is_the_uninterrupted_one(
    tmp_path, n, k, variant, strategy, tree
):
    game = Game(n, k, variant)
    path = str(tmp_path / "a.sqlite")
    plain = analyze(game, strategy, tree=tree)
    with pytest.raises(KeyboardInterrupt):
        analyze(game, strategy, tree=tree, checkpoint=path, jobs=1, progress=StopAfter(2))
    kept = len(read_costs(path))
    assert kept >= 2
    again = analyze(game, strategy, tree=tree, checkpoint=path, jobs=2)
    assert again.units_resumed == kept and again.units > kept
    assert again.distribution == plain.distribution and again.tree == plain.tree
    assert again.first_guess == plain.first_guess
    js = again.to_json()
    assert js["units"] == again.units and js["units_resumed"] == kept
    third = analyze(game, strategy, tree=tree, checkpoint=path)
    assert third.units_resumed == third.units and third.distribution == plain.distribution


def test_a_checkpoint_refuses_another_strategy_or_tree_option(tmp_path):
    game = Game(4, 5)
    path = str(tmp_path / "a.sqlite")
    analyze(game, checkpoint=path)
    with pytest.raises(CheckpointError, match="strategy: minmax there, entropy here"):
        analyze(game, "entropy", checkpoint=path)
    with pytest.raises(CheckpointError, match="tree"):
        analyze(game, tree=True, checkpoint=path)
    with pytest.raises(CheckpointError, match=r"\[4,5\] classic there, \[4,6\]"):
        analyze(Game(4, 6), checkpoint=path)


def test_a_worst_case_proof_records_each_decided_part(tmp_path):
    game = Game(4, 6)
    path = str(tmp_path / "b.sqlite")
    plain = worst_case(game)
    # one thread: with more, a part of the next opening may be solved while the first
    # opening's last part is still running, recorded but never consulted by a resumed run
    w = worst_case(game, checkpoint=path, jobs=1)
    assert (w.lower, w.upper, w.exact, w.lower_proof) == (
        plain.lower,
        plain.upper,
        True,
        plain.lower_proof,
    )
    assert check_strategy(game, w.witness) == 5 and w.witness == plain.witness
    keys = [k for k, _, _ in read_costs(path)]
    assert keys and all(k.startswith("exists/") and k.count("/") == 3 for k in keys)
    again = worst_case(game, checkpoint=path, jobs=1)
    assert again.units_resumed == again.units == w.units and again.witness == w.witness


def test_a_refutation_recorded_serves_fewer_guesses_too(tmp_path):
    """A part refuted within e guesses is refuted within fewer: the file answers."""
    from mastermind.worstcase.bounds import solution_exists

    game = Game(3, 5)
    path = str(tmp_path / "b.sqlite")
    assert solution_exists(game, 4, checkpoint=path) is False
    recorded = len(read_costs(path))
    assert solution_exists(game, 4, checkpoint=path) is False
    assert len(read_costs(path)) == recorded
    ok, tree = solution_exists(game, 5, witness=True, checkpoint=path)
    assert ok and check_strategy(game, tree) <= 5


def test_an_optimal_search_stopped_and_resumed_is_the_uninterrupted_one(tmp_path):
    game = Game(4, 6)
    path = str(tmp_path / "o.sqlite")
    stopped = optimal(game, checkpoint=path, jobs=1, progress=StopAfter(3))
    assert stopped.status == "interrupted" and not stopped.exact  # Ctrl-C, reported
    kept = len(read_costs(path))
    best = optimal(game, checkpoint=path)
    assert best.total == 5625 and best.exact and best.units_resumed >= kept >= 3
    assert best.tree == optimal(game).tree


def test_a_custom_game_is_identified_by_its_score_table(tmp_path):
    path = str(tmp_path / "o.sqlite")
    best = optimal(two_d(), checkpoint=path)
    assert best.total == optimal(two_d()).total
    with pytest.raises(CheckpointError, match="another run"):
        optimal(two_d(4), checkpoint=path)


def _rows_seen_elsewhere(path: str) -> int:
    """The rows another connection reads: those committed."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    finally:
        conn.close()


def _two_rows_waiting(path: str):
    """An open checkpoint that commits once an hour, two rows recorded in it."""
    store = open_checkpoint(path, "analyze", GAME, {})
    store.commit_seconds = 3600.0
    store.record("walk/0", "d0", {"v": 1}, size=1, seconds=0.1)
    store.record("walk/1", "d1", {"v": 2}, size=1, seconds=0.1)
    return store


def test_rows_are_committed_together_and_all_at_the_close(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with _two_rows_waiting(path) as store:
        assert len(store) == 2  # the run itself reads them at once
        assert _rows_seen_elsewhere(path) == 0  # not committed within the hour
        store.flush(due_only=True)
        assert _rows_seen_elsewhere(path) == 0
        store.flush()
        assert _rows_seen_elsewhere(path) == 2
        store.record("walk/2", "d2", {"v": 3}, size=1, seconds=0.1)
    assert _rows_seen_elsewhere(path) == 3  # the close commits what waited


def test_no_wait_commits_each_row(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {}) as store:
        store.commit_seconds = 0.0
        for i in range(3):
            store.record(f"walk/{i}", "d", {"v": i}, size=1, seconds=0.1)
            assert _rows_seen_elsewhere(path) == i + 1


def test_a_discard_commits_the_rows_waiting(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with _two_rows_waiting(path) as store:
        store.discard("walk/0")
        assert _rows_seen_elsewhere(path) == 1


def test_a_checkpoint_removed_under_the_run_stops_it_in_one_line(tmp_path):
    """The file removed while the run writes it: SQLite refuses the next write (a
    database moved since it was opened); that is said as the checkpoint's error, naming
    the file, not as an internal one."""
    path = str(tmp_path / "c.sqlite")
    refused = pytest.raises(CheckpointError, match=r"c\.sqlite: cannot be written any more")
    with refused, open_checkpoint(path, "analyze", GAME, {}) as store:
        store.commit_seconds = 0.0
        store.record("walk/0", "d", {"v": 0}, size=1, seconds=0.1)
        os.remove(path)
        store.record("walk/1", "d", {"v": 1}, size=1, seconds=0.1)


def test_a_checkpoint_in_use_is_read_read_only_and_refused_for_writing(tmp_path, monkeypatch):
    """A second run is refused in one line (the run lock: tests/test_run_lock.py); a
    read-only open reads the rows committed, and refuses a write; an open that finds the
    file locked by another program (a reader, a run of another version) longer than
    the wait is refused in one line."""
    import mastermind.engine.checkpoint as checkpoint

    monkeypatch.setattr(checkpoint, "LOCK_SECONDS", 0.2)
    path = str(tmp_path / "c.sqlite")
    with pytest.raises(CheckpointError, match="nothing to read"):
        open_checkpoint(path, "analyze", GAME, {}, read_only=True)
    with open_checkpoint(path, "analyze", GAME, {}) as store:
        store.record("walk/0", "d", {"v": 0}, size=1, seconds=0.1)
        store.flush()
        store.commit_seconds = 3600.0
        store.record("walk/1", "d", {"v": 1}, size=1, seconds=0.1)  # (the lock held)
        with pytest.raises(CheckpointError, match="in use by another run"):
            open_checkpoint(path, "analyze", GAME, {})
        with open_checkpoint(path, "analyze", GAME, {}, read_only=True) as reader:
            assert reader.keys() == {"walk/0"} and reader.get("walk/0").result == {"v": 0}
            with pytest.raises(CheckpointError, match="cannot be written any more"):
                reader.record("walk/2", "d", {"v": 2}, size=1, seconds=0.1)
        with pytest.raises(CheckpointError, match="another run"):
            open_checkpoint(path, "bound", GAME, {}, read_only=True)
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM units").fetchone()  # (its lock held)
    with pytest.raises(CheckpointError, match="in use by another program"):
        open_checkpoint(path, "analyze", GAME, {})
    reader.rollback()
    reader.close()
    open_checkpoint(path, "analyze", GAME, {}).close()


def test_a_reader_holding_the_file_delays_the_commits_and_loses_nothing(tmp_path, monkeypatch):
    """A program reading the checkpoint (a status, a copy) holds a lock that a commit
    must wait for: a due commit that finds it held longer than the connection waits
    leaves its rows in the open transaction for the next one, and the run goes on; the
    close commits them once the reader is gone; a lock that outlasts every try stops
    the run in one line."""
    import mastermind.engine.checkpoint as checkpoint

    monkeypatch.setattr(checkpoint, "LOCK_SECONDS", 0.05)
    monkeypatch.setattr(checkpoint, "BUSY_ATTEMPTS", 2)
    path = str(tmp_path / "c.sqlite")
    store = open_checkpoint(path, "analyze", GAME, {})
    store.commit_seconds = 0.0
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM units").fetchone()  # (its lock held)
    for i in range(3):
        store.record(f"walk/{i}", "d", {"v": i}, size=1, seconds=0.1)  # (no error)
    assert reader.execute("SELECT COUNT(*) FROM units").fetchone()[0] == 0
    with pytest.raises(CheckpointError, match="another program kept it locked"):
        store.flush()
    reader.rollback()
    reader.close()
    store.record("walk/3", "d", {"v": 3}, size=1, seconds=0.1)
    store.close()
    assert _rows_seen_elsewhere(path) == 4


def test_a_run_killed_outright_resumes_to_the_uninterrupted_answer(tmp_path):
    """SIGKILL (no handler, no close) once some rows are committed: the file is whole and
    the same command finishes with the uninterrupted answer, reusing what was committed."""
    import signal
    import subprocess
    import sys
    import time

    import mastermind

    path = str(tmp_path / "c.sqlite")
    src = os.path.dirname(os.path.dirname(mastermind.__file__))
    cmd = [
        sys.executable,
        "-m",
        "mastermind",
        "analyze",
        "-n",
        "5",
        "-k",
        "6",
        "--strategy",
        "minmax",
        "--checkpoint",
        path,
        "--unit-seconds",
        "0",
        "--jobs",
        "1",
        "--json",
        "--no-progress",
    ]
    env = dict(os.environ, PYTHONPATH=src)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if _rows_seen_elsewhere(path) >= 1:  # the first second's rows
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.05)
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = _rows_seen_elsewhere(path)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    import json

    result = json.loads(done.stdout)
    assert result["total"] == analyze(Game(5, 6), "minmax").total
    if killed:  # (a machine fast enough finishes first: then the resume is whole)
        assert kept >= 1
        assert result["units_resumed"] >= kept
