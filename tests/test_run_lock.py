"""One run per checkpoint (mastermind.engine.run_lock): a second run on a checkpoint in use
is refused at once, naming the first, whether or not the first holds SQLite's lock at
that moment; readers are not refused; a run that ends, however it ends, leaves no lock."""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import mastermind
from mastermind.engine import run_lock
from mastermind.engine.checkpoint import CheckpointError, open_checkpoint
from mastermind.engine.run_lock import RunLock, lock_path

pytestmark = pytest.mark.skipif(run_lock.fcntl is None, reason="no flock here")

SRC = Path(mastermind.__file__).resolve().parents[1]
GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}
ME = f"{socket.gethostname()}:{os.getpid()}"


def test_a_second_run_is_refused_at_once_naming_the_first(tmp_path):
    """Between two commits a run holds no SQLite lock at all (here: every row
    committed), so SQLite alone would let a second run in to share the file."""
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {}) as store:
        store.record("walk/0", "d", {"v": 0}, size=1, seconds=0.1)
        store.flush()
        with pytest.raises(CheckpointError, match=f"in use by another run \\({ME}\\)"):
            open_checkpoint(path, "analyze", GAME, {})
        with open_checkpoint(path, "analyze", GAME, {}, read_only=True) as reader:
            assert reader.keys() == {"walk/0"}
        assert os.path.exists(lock_path(path))
    assert not os.path.exists(lock_path(path))
    with open_checkpoint(path, "analyze", GAME, {}) as store:  # free again
        assert store.keys() == {"walk/0"}


def test_a_refused_or_failed_open_keeps_no_lock(tmp_path):
    """An open that fails after taking the lock (another run's file) lets it go."""
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {}):
        pass
    with pytest.raises(CheckpointError, match="another run"):
        open_checkpoint(path, "bound", GAME, {})
    assert not os.path.exists(lock_path(path))
    open_checkpoint(path, "analyze", GAME, {}).close()


HOLDER = """
import sys, time
from mastermind.engine.checkpoint import open_checkpoint
store = open_checkpoint(sys.argv[1], "analyze", {"type": "game", "n": 4, "k": 6,
                        "variant": "classic"}, {})
print("holding", flush=True)
time.sleep(600)
"""


def test_a_run_killed_outright_leaves_no_stale_lock(tmp_path):
    """kill -9: the kernel lets the lock go with the process; its file stays and the
    next run takes it over."""
    path = str(tmp_path / "c.sqlite")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, path], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "holding"
        with pytest.raises(CheckpointError, match=f"in use by another run \\(.*:{proc.pid}\\)"):
            open_checkpoint(path, "analyze", GAME, {})
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
    assert os.path.exists(lock_path(path))  # (left behind, not held)
    with open_checkpoint(path, "analyze", GAME, {}) as store:
        assert len(store) == 0
    assert not os.path.exists(lock_path(path))


def test_a_lock_file_removed_between_open_and_lock_is_not_trusted(tmp_path, monkeypatch):
    """The holder removes its file as it lets go: a run that opened the old file just
    before must not hold a lock no other run can see; it takes the new file instead."""
    path = str(tmp_path / "c.sqlite")
    real = run_lock.fcntl.flock
    calls = []

    def flock(fd, op):
        if not calls:  # the holder leaves between this run's open and its lock
            os.remove(lock_path(path))
        calls.append(fd)
        return real(fd, op)

    monkeypatch.setattr(run_lock.fcntl, "flock", flock)
    lock = RunLock(path)
    assert lock.acquire() is None
    assert len(calls) == 2
    assert os.fstat(lock._fd).st_ino == os.stat(lock_path(path)).st_ino
    monkeypatch.setattr(run_lock.fcntl, "flock", real)
    assert RunLock(path).acquire() == ME
    lock.release()
    assert not os.path.exists(lock_path(path))


def test_no_lock_where_the_lock_file_cannot_be_made(tmp_path):
    """A folder that does not exist (or cannot be written): no lock, no error here;
    SQLite's own refusal says what is wrong."""
    lock = RunLock(str(tmp_path / "missing" / "c.sqlite"))
    assert lock.acquire() is None
    lock.release()
