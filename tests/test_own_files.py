"""A folder's own files (mastermind.engine.own_files): written whole, read and appended
without ever following a link; a link, a FIFO or a device at one of their names refused
in one line and left as it was, nothing opened through it; nothing read past its cap.
Every link, FIFO and device is made in the test's own folder."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from mastermind import MastermindError
from mastermind.engine.own_files import (
    OwnDestination,
    UnsafeFile,
    append_own,
    check_own,
    read_own,
)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text("precious\n")
    return path


def special(path: Path, kind: str, victim: Path) -> None:
    """A link to the victim, a dangling link, a FIFO or a device at ``path``."""
    if kind == "link":
        path.symlink_to(victim)
    elif kind == "dangling link":
        path.symlink_to(victim.parent / "nothing" / "here")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # (/dev/zero's numbers)
        except (PermissionError, OSError) as e:
            pytest.skip(f"cannot make a device node here: {e}")


KINDS = ["link", "dangling link", "fifo", "device"]


def within(seconds: float, work, *args):
    """``work(*args)`` in a thread, which must end within ``seconds`` (a guard against
    a hang on a FIFO, not a measure): its exception, or None."""
    got: list = []

    def target():
        try:
            work(*args)
            got.append(None)
        except BaseException as e:
            got.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{work.__name__} hung"
    return got[0]


@pytest.mark.parametrize("kind", KINDS)
def test_writing_over_a_special_name_is_refused_and_leaves_it(tmp_path, victim, kind):
    path = tmp_path / "state.json"
    special(path, kind, victim)
    before = os.lstat(path)
    error = within(30, OwnDestination, str(path), "the state")
    assert isinstance(error, UnsafeFile) and isinstance(error, MastermindError)
    assert str(path) in str(error) and "\n" not in str(error)
    after = os.lstat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert victim.read_text() == "precious\n"
    assert not (victim.parent / "nothing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json", "victim.txt"]


@pytest.mark.parametrize("kind", KINDS)
def test_reading_or_appending_a_special_name_is_refused_without_blocking(tmp_path, victim, kind):
    path = tmp_path / "run.log"
    special(path, kind, victim)
    for work, args in ((read_own, ("the log", 100)), (append_own, ("line\n", "the log"))):
        error = within(30, work, str(path), *args)
        assert isinstance(error, UnsafeFile), (work.__name__, error)
    with pytest.raises(UnsafeFile):
        check_own(str(path), "the log")
    assert victim.read_text() == "precious\n"
    assert not (victim.parent / "nothing").exists()


def test_a_link_planted_at_the_temporary_name_of_old_receives_nothing(tmp_path, victim):
    """The temporary file is made new (O_EXCL, an unpredictable name): a link at the
    name earlier versions used is never written through."""
    (tmp_path / ".state.json.part").symlink_to(victim)
    with OwnDestination(str(tmp_path / "state.json"), "the state") as out:
        out.write("{}\n")
    assert (tmp_path / "state.json").read_text() == "{}\n"
    assert not (tmp_path / "state.json").is_symlink()
    assert victim.read_text() == "precious\n"


def test_a_regular_file_is_replaced_whole_appended_and_read(tmp_path):
    path = tmp_path / "run.log"
    append_own(str(path), "one\n", "the log")
    append_own(str(path), "two\n", "the log")
    assert read_own(str(path), "the log", 100) == b"one\ntwo\n"
    assert read_own(str(tmp_path / "none"), "the log", 100) is None
    path.chmod(0o640)
    with OwnDestination(str(path), "the log") as out:
        out.write("new\n")
    assert path.read_text() == "new\n" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.log"]


def test_a_file_past_its_cap_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "state.json"
    with open(path, "wb") as f:
        f.truncate(10 << 30)  # (sparse: ten gigabytes that take no room)
    with pytest.raises(UnsafeFile, match="holds 10,737,418,240 bytes: the state has at most 1,000"):
        read_own(str(path), "the state", 1000)


def test_a_folder_is_wanted_where_a_folder_is_kept(tmp_path, victim):
    (tmp_path / "shards").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(UnsafeFile, match="is a symbolic link"):
        check_own(str(tmp_path / "shards"), "the shards", folder=True)
    (tmp_path / "real").mkdir()
    assert check_own(str(tmp_path / "real"), "the shards", folder=True) is not None
    with pytest.raises(UnsafeFile, match="is a folder"):
        check_own(str(tmp_path / "real"), "the state")
