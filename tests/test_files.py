"""Every file the package writes or locks, made one way (mastermind.files and the
checkpoint's lock): temporary files nobody can predict or plant a link at, outputs that
are descriptors written in place (``-``, ``/dev/stdout``, ``/dev/fd/N``,
``/proc/self/fd/N``), Graphviz's picture through the same path, what a killed run left
removed by the next one, the certificate under the rules of every other output, and a
lock file that is never followed, truncated or removed unless the run made it.

Everything is made inside the test's own folder; the programs run in subprocesses where
descriptors, umasks and signals matter."""

from __future__ import annotations

import fcntl
import gzip
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mastermind
from mastermind import Game, MastermindError, worst_case
from mastermind.engine.checkpoint import CheckpointError, open_checkpoint
from mastermind.engine.run_lock import lock_path
from mastermind.files import Destination, FileError, OutputError, remove_leftovers
from mastermind.verify import verify_file
from mastermind.views import tree as views_tree

SRC = Path(mastermind.__file__).resolve().parents[1]
GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}


def env(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1", **extra)


def program(*argv: str, **kw) -> subprocess.CompletedProcess:
    if "stdout" not in kw:
        kw["capture_output"] = True
    else:
        kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "mastermind", *argv], text=True, env=env(), timeout=300, **kw
    )


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


# ---------------------------------------------------------------------- temporary files
def test_a_link_planted_at_the_old_temporary_name_receives_nothing(tmp_path):
    """The certificate's temporary file had a name anyone could predict (PATH.partPID)
    and was opened through a link put there: the link's target got the certificate
    and the certificate path became a link to it."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = tmp_path / "c.gz"
    (tmp_path / f"c.gz.part{os.getpid()}").symlink_to(victim)
    result = worst_case(Game(3, 3), certificate=str(path))
    assert result.certificate is not None
    assert victim.read_text() == "precious\n"
    assert not path.is_symlink() and verify_file(str(path)).lower == 4
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["c.gz", f"c.gz.part{os.getpid()}", "victim.txt"]


def test_the_temporary_file_is_made_new_beside_its_target_and_locked(tmp_path):
    target = tmp_path / "out.txt"
    d = Destination(str(target))
    try:
        temp = Path(d.temp)
        assert temp.parent == tmp_path and temp.name.startswith(".out.txt.")
        assert temp.name.endswith(".part") and not temp.is_symlink()
        with open(temp, "rb") as other, pytest.raises(BlockingIOError):  # held by the writer
            fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        d.discard()
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------- leftovers
def _old(path: Path, text: str = "") -> Path:
    path.write_text(text)
    then = time.time() - 3600
    os.utime(path, (then, then))
    return path


def test_what_killed_runs_left_is_removed_and_nothing_else(tmp_path):
    target = tmp_path / "out.json"
    stale = [_old(tmp_path / ".out.json.abcd1234.part"), _old(tmp_path / ".out.json.z_9y8x7w.part")]
    kept = [
        _old(tmp_path / ".other.json.abcd1234.part"),  # another output's
        _old(tmp_path / ".out.json.abc.part"),  # not a name mkstemp gives
        _old(tmp_path / "out.json.abcd1234.part"),  # no leading dot
        tmp_path / ".out.json.newer123.part",  # written after the run started
    ]
    kept[-1].write_text("")
    future = time.time() + 3600
    os.utime(kept[-1], (future, future))
    link = tmp_path / ".out.json.linkabcd.part"
    link.symlink_to(kept[0])
    busy = _old(tmp_path / ".out.json.busy0000.part")
    with open(busy, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # a run writing it now
        with Destination(str(target)) as d:
            d.write("{}\n")
    assert target.read_text() == "{}\n"
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and link.is_symlink() and busy.exists()


def test_a_sigkilled_run_leaves_a_temporary_file_the_next_run_removes(tmp_path):
    target = tmp_path / "tree.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mastermind", "tree", "-n", "6", "-k", "9", "-o", str(target)],
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob(".tree.json.*.part")) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    left = list(tmp_path.glob(".tree.json.*.part"))
    assert len(left) == 1 and not target.exists()
    time.sleep(0.05)  # (a file system's clock may count in coarse steps)
    done = program("tree", "-n", "2", "-k", "2", "--format", "json", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["tree.json"]


def test_removing_leftovers_of_a_folder_that_cannot_be_read_is_quiet(tmp_path):
    assert remove_leftovers(str(tmp_path / "missing" / "x"), time.time()) == []


# ---------------------------------------------------------------------- in place
@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_a_descriptor_named_by_a_path_appends_as_the_shell_asked(tmp_path, name):
    """``-o /proc/self/fd/1 >> run.log``: the output joins run.log's earlier lines (it
    replaced the whole file)."""
    log = tmp_path / "run.log"
    log.write_text("earlier line\n")
    with open(log, "a") as out:
        done = program("tree", "-n", "2", "-k", "2", "--format", "json", "-o", name, stdout=out)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("earlier line\n{") and f"wrote {name}" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.log"]


def test_a_link_to_standard_output_is_written_in_place(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("earlier line\n")
    link = tmp_path / "out.json"
    link.symlink_to("/dev/stdout")
    with open(log, "a") as out:
        done = program(
            "tree", "-n", "2", "-k", "2", "--format", "json", "-o", str(link), stdout=out
        )
    assert done.returncode == 0, done.stderr
    assert log.read_text().startswith("earlier line\n{") and link.is_symlink()


def test_dash_is_standard_output(tmp_path):
    done = program("tree", "-n", "2", "-k", "2", "--format", "json", "-o", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("{"), done.stderr
    assert list(tmp_path.iterdir()) == []
    done = program("bound", "-n", "2", "-k", "2", "--witness", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith('{"pegs": 2'), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_descriptor_that_is_not_open_is_refused_before_the_work(tmp_path):
    with pytest.raises(FileError, match="cannot write /dev/fd/97: Bad file descriptor"):
        Destination("/dev/fd/97")


# ---------------------------------------------------------------------- Graphviz
FAKE_DOT = """#!{python}
import sys
sys.stdout.write("<svg>" + sys.stdin.read()[:10] + "</svg>")
sys.stdout.flush()
if "-o" in sys.argv:
    open(sys.argv[sys.argv.index("-o") + 1], "w").write("written by dot itself")
sys.exit({status})
"""


def fake_dot(tmp_path: Path, monkeypatch, status: int) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dot = bin_dir / "dot"
    dot.write_text(FAKE_DOT.format(python=sys.executable, status=status))
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def test_graphviz_draws_into_the_safe_path(tmp_path, monkeypatch):
    """dot draws to its standard output; the file is made as every output is: through
    a link, with the permissions of the file it replaces."""
    fake_dot(tmp_path, monkeypatch, 0)
    real = tmp_path / "real.svg"
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "tree.svg"
    link.symlink_to(real)
    views_tree.render("digraph {}", str(link))
    assert real.read_text() == "<svg>digraph {}</svg>" and link.is_symlink()
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "real.svg", "tree.svg"]


def test_graphviz_failing_halfway_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    fake_dot(tmp_path, monkeypatch, 1)
    target = tmp_path / "tree.svg"
    target.write_text("old")
    with pytest.raises(views_tree.TreeError, match="dot failed"):
        views_tree.render("digraph {}", str(target))
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "tree.svg"]


# ---------------------------------------------------------------------- certificates
def test_a_certificate_follows_a_link_and_keeps_its_permissions(tmp_path):
    real = tmp_path / "real.gz"
    real.write_bytes(b"old")
    real.chmod(0o600)
    link = tmp_path / "c.gz"
    link.symlink_to(real)
    done = program("bound", "-n", "3", "-k", "3", "--certificate", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert verify_file(str(link)).upper == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.gz", "real.gz"]


def test_a_certificate_into_a_device_is_written_in_place(tmp_path):
    out = tmp_path / "pipe"
    os.mkfifo(out)
    reader = os.open(out, os.O_RDWR)  # (read-write: opened without waiting for a writer)
    try:
        done = program("bound", "-n", "3", "-k", "3", "--certificate", str(out))
        assert done.returncode == 0, done.stderr
        data = os.read(reader, 1 << 20)
    finally:
        os.close(reader)
    assert gzip.decompress(data).startswith(b'{"format": "mastermind-certificate"')
    assert stat.S_ISFIFO(out.stat().st_mode)


@pytest.mark.parametrize("where", ["", "missing/c.gz", "."])
def test_a_certificate_path_that_cannot_be_is_refused_before_the_search(
    tmp_path, monkeypatch, where
):
    import mastermind.worstcase.bounds as bounds

    def no_search(*args, **kwargs):
        raise AssertionError("the search ran")

    monkeypatch.setattr(bounds, "_WorstCaseRun", no_search)
    path = "" if not where else str(tmp_path / where)
    with pytest.raises(MastermindError, match="empty file name|no folder|is a directory"):
        worst_case(Game(3, 3), certificate=path)


# ---------------------------------------------------------------------- the run's lock
def test_a_link_planted_as_the_lock_file_is_refused_and_never_written(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    path = tmp_path / "y.db"
    Path(lock_path(str(path))).symlink_to(victim)
    with pytest.raises(CheckpointError, match="lock file .* is a symbolic link"):
        open_checkpoint(str(path), "analyze", GAME, {})
    assert victim.read_text() == "precious\n" and Path(lock_path(str(path))).is_symlink()
    done = program("analyze", "-n", "2", "-k", "2", "--checkpoint", str(path))
    assert done.returncode == 2 and one_line(done.stderr) and "symbolic link" in done.stderr
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_lock_path_that_is_no_file_is_refused_in_one_line(tmp_path, kind):
    path = tmp_path / "y.db"
    node = Path(lock_path(str(path)))
    os.mkfifo(node) if kind == "fifo" else node.mkdir()
    done = program("analyze", "-n", "2", "-k", "2", "--checkpoint", str(path))
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "not a regular file" in done.stderr
    assert node.exists() and not path.exists()


def test_a_users_own_lock_file_is_locked_but_never_changed_nor_removed(tmp_path):
    path = tmp_path / "x.db"
    mine = Path(lock_path(str(path)))
    mine.write_text("my notes about x.db\n")
    with open_checkpoint(str(path), "analyze", GAME, {}) as store:
        with pytest.raises(CheckpointError, match=r"in use by another run \(another run\)"):
            open_checkpoint(str(path), "analyze", GAME, {})
        store.record("walk/0", "d", {"v": 0}, size=1, seconds=0.1)
    assert mine.read_text() == "my notes about x.db\n"


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def test_a_lock_file_a_killed_run_left_is_taken_over_and_removed(tmp_path):
    """Provably stale: it names this host and a process that is gone."""
    path = tmp_path / "x.db"
    Path(lock_path(str(path))).write_text(f"{socket.gethostname()}:{dead_pid()}\n")
    with open_checkpoint(str(path), "analyze", GAME, {}):
        text = Path(lock_path(str(path))).read_text()
        assert text == f"{socket.gethostname()}:{os.getpid()}\n"
    assert not os.path.exists(lock_path(str(path)))


@pytest.mark.parametrize("who", ["another host", "a live process"])
def test_a_lock_file_not_provably_stale_is_locked_but_never_changed_nor_removed(tmp_path, who):
    """A file that looks like a run's lock but names another host (as one carried from
    another machine may) or a process still alive is nobody's to take over."""
    path = tmp_path / "x.db"
    named = "somehost:99999999\n" if who == "another host" else f"{socket.gethostname()}:1\n"
    Path(lock_path(str(path))).write_text(named)
    with open_checkpoint(str(path), "analyze", GAME, {}):
        assert Path(lock_path(str(path))).read_text() == named
    assert Path(lock_path(str(path))).read_text() == named


# ---------------------------------------------------------------------- full disks
def full_device(path: Path) -> None:
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here: {e}")


def test_a_write_that_fails_names_the_file(tmp_path):
    node = tmp_path / "full"
    full_device(node)
    d = Destination(str(node), "--witness")
    d.write("x" * 100)
    with pytest.raises(OutputError, match=f"cannot write {node}: No space left on device"):
        d.commit()
