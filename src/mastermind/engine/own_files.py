"""The files a folder of the package's own holds (a campaign's ``campaign.json``,
``state.json``, shards, ``witness.json``, ``run.log``, checkpoint): read, written and
appended without ever following a link.

Such a folder travels between people (git carries it), so whatever it holds may come
from a stranger: a symbolic link planted at one of its names, a FIFO, a device, a file of
gigabytes.  Unlike an output the user names (``-o``, which :class:`~.files.Destination`
follows through a link on purpose), a file of the folder is the package's own: a link
or anything but a regular file there is refused in one line (:class:`UnsafeFile`), never
opened through; nothing is read past a cap given by the caller.

- :class:`OwnDestination`: a :class:`~.files.Destination` that writes the name itself (a
  temporary file made new beside it, renamed onto it at the end), refusing a link or a
  special file found there;
- :func:`read_own`: the bytes of a file opened with ``O_NOFOLLOW`` and ``O_NONBLOCK``
  (a FIFO never blocks), regular, at most ``most`` bytes;
- :func:`open_own`: the same file open, for a reader that streams it;
- :func:`append_own`: text added at the end of a file (made when missing), never through
  a link;
- :func:`check_own`: a name that must be a regular file, a folder, or nothing (looked at
  with ``lstat``, before SQLite or anyone else opens it).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "victim").write_text("mine")
4
>>> (folder / "state.json").symlink_to(folder / "victim")
>>> OwnDestination(str(folder / "state.json"), "the state")
Traceback (most recent call last):
...
mastermind.engine.own_files.UnsafeFile: .../state.json is a symbolic link: the state is never read or written through one; remove it
"""

from __future__ import annotations

import os
import stat
import time
from typing import IO, Optional

from ..files import (
    O_CLOEXEC,
    O_NOCTTY,
    O_NOFOLLOW,
    O_NONBLOCK,
    Destination,
    FileError,
    check_output,
    remove_leftovers,
)

__all__ = ["OwnDestination", "UnsafeFile", "append_own", "check_own", "open_own", "read_own"]


class UnsafeFile(FileError):
    """A link, a FIFO, a device or a folder where the package keeps a file of its own; or
    a file past the size it may have."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse(path: str, mode: int, what: str, doing: str) -> UnsafeFile:
    return UnsafeFile(f"{path} is {_kind(mode)}: {what} is never {doing} one; remove it")


def check_own(path: str, what: str, *, folder: bool = False) -> Optional[os.stat_result]:
    """``path`` looked at without following it: its ``lstat`` (None when nothing is
    there); :class:`UnsafeFile` for a link, or anything but a regular file (a folder
    with ``folder``)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise UnsafeFile(f"cannot read {path}: {e.strerror or e}") from None
    wanted = stat.S_ISDIR(st.st_mode) if folder else stat.S_ISREG(st.st_mode)
    if not wanted:
        doing = "kept in" if folder else "read or written through"
        raise _refuse(path, st.st_mode, what, doing)
    return st


class OwnDestination(Destination):
    """:class:`~.files.Destination` for a file of the package's own: the name itself is
    replaced at the end (a link planted there meanwhile is replaced, not followed); a
    link or a special file found there when it is opened is refused
    (:class:`UnsafeFile`), before anything is written."""

    def __init__(self, path: str, what: str):
        started = time.time()
        st = check_own(path, what)  # (first: check_output would follow a link)
        self.path = path = check_output(path, what)
        self.what = what
        if st is None and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise FileError(f"cannot write {path}: no folder {os.path.dirname(path)}")
        self.fd_out = None
        self.target = os.path.abspath(path)
        self.replaces = True
        remove_leftovers(self.target, started)
        self._open_temp(os.path.dirname(self.target), st)


def _open(path: str, what: str, flags: int) -> int:
    """``path`` opened with ``flags``, never through a link nor blocking on a FIFO;
    :class:`UnsafeFile` unless a regular file (FileNotFoundError as it is)."""
    try:
        fd = os.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0o666)
    except FileNotFoundError:
        raise
    except OSError as e:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = 0
        if mode and not stat.S_ISREG(mode):  # a link (ELOOP), a FIFO with no reader (ENXIO)
            raise _refuse(path, mode, what, "read or written through") from None
        raise UnsafeFile(f"cannot open {path}: {e.strerror or e}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _refuse(path, st.st_mode, what, "read or written through")
    return fd


def open_own(path: str, what: str, most: int) -> IO[bytes]:
    """``path`` open for reading (a regular file of at most ``most`` bytes, never through
    a link); FileNotFoundError when nothing is there."""
    fd = _open(path, what, os.O_RDONLY)
    size = os.fstat(fd).st_size
    if size > most:
        os.close(fd)
        raise UnsafeFile(f"{path} holds {size:,} bytes: {what} has at most {most:,}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_own(path: str, what: str, most: int) -> Optional[bytes]:
    """The bytes of ``path`` (None when nothing is there): a regular file of at most
    ``most`` bytes, opened without following a link (:class:`UnsafeFile` otherwise)."""
    try:
        f = open_own(path, what, most)
    except FileNotFoundError:
        return None
    chunks, held = [], 0
    with f:  # (in chunks: no buffer of the cap's size; a file that grows stops at it)
        while held <= most and (chunk := f.read(min(most + 1 - held, 1 << 20))):
            chunks.append(chunk)
            held += len(chunk)
    data = b"".join(chunks)
    if len(data) > most:
        raise UnsafeFile(f"{path} holds more than {most:,} bytes: {what} has no more")
    return data


def append_own(path: str, text: str, what: str) -> None:
    """``text`` added at the end of ``path`` (made when missing), never through a link
    or into a FIFO or a device (:class:`UnsafeFile`)."""
    fd = _open(path, what, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data) :]
    except OSError as e:
        raise FileError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)
