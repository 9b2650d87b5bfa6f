"""One run per checkpoint: an advisory lock taken when a run opens its checkpoint for
writing, held until it closes it.

SQLite's own locks cannot say whether another run uses a file: a run holds the write
lock only while it has rows waiting for their commit, so a second run would either wait
for it or slip in between two commits and then share the file, each doing the other's
units.  The lock is ``flock`` on a file beside the checkpoint (``PATH.lock``), never on
the checkpoint itself (closing another descriptor of the database would drop SQLite's
POSIX locks on it, and where ``flock`` is emulated by POSIX locks, on NFS, the two would
be one).  The kernel lets it go when the process ends, however it ends, so a killed run
leaves no stale lock, only the small file, which the next run takes over.

The lock file is nobody else's to touch: it is made with ``O_CREAT|O_EXCL|O_NOFOLLOW``
and holds the holder's host and process id (to name it in a refusal), and is removed when
the lock is let go.  A file already there is opened without following a link and without
truncating it: a symbolic link, a FIFO or a device there is refused
(:class:`UnsafeLockFile`, nothing opened through it); a regular file that a run of this
package provably left behind is taken over (its one line ``host:pid`` names this host and
a process that no longer exists: the run was killed); any other file (someone's own
``PATH.lock``, or one that names another host, or a live process, as a file carried from
elsewhere may) is locked as it is, never written, never removed.

Where ``flock`` does not exist (Windows), or the lock file cannot be made (a read-only
folder: SQLite refuses the checkpoint then anyway), no lock is taken and SQLite's locks
are all there is.
"""

from __future__ import annotations

import os
import re
import socket
import stat
from typing import Optional

from ..files import O_CLOEXEC, O_NOFOLLOW, O_NONBLOCK

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunLock", "UnsafeLockFile", "lock_path"]

_HOLDER = re.compile(rb"[^\s:]{1,255}:[0-9]{1,10}\n?")  # what a run writes in its lock file


class UnsafeLockFile(Exception):
    """Something at ``PATH.lock`` that this package did not make and must not open or
    write through: a symbolic link, a FIFO, a device, a directory."""


def lock_path(path: str) -> str:
    """The lock file of the checkpoint at ``path``."""
    return path + ".lock"


class RunLock:
    """The lock of one checkpoint.  :meth:`acquire` returns ``None`` once it is held (or
    when no lock can be taken here), or the holder's name (``host:pid``, or ``"another
    run"`` when it cannot be read) when another run holds it; it raises
    :class:`UnsafeLockFile` for a lock path that is not a regular file.  :meth:`release`
    lets it go."""

    def __init__(self, path: str):
        self.path = lock_path(path)
        self._fd: Optional[int] = None
        self._holder = f"{socket.gethostname()}:{os.getpid()}\n".encode()
        self._mine = False  # whether the file is this package's (written, then removed)

    def acquire(self) -> Optional[str]:
        if fcntl is None:
            return None
        while True:
            fd, created = self._open()
            if fd is None:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read(fd)
                os.close(fd)
                return holder.decode(errors="replace").strip() if _ours(holder) else "another run"
            except OSError:  # a file system without flock
                os.close(fd)
                return None
            # the holder may have removed the file between our open and our lock: the
            # lock is then on a file no other run can find, so take the new one
            if not _same(fd, self.path):
                os.close(fd)
                continue
            self._take(fd, created=created)
            return None

    def _open(self) -> tuple[Optional[int], bool]:
        """The lock file opened (made when missing: ``created``), never through a link;
        ``(None, False)`` when no lock file can be made here."""
        while True:
            try:
                flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC
                return os.open(self.path, flags, 0o644), True
            except FileExistsError:
                pass
            except OSError:  # a read-only folder, no folder
                return None, False
            try:
                st = os.lstat(self.path)
            except FileNotFoundError:  # removed meanwhile: make it
                continue
            except OSError:
                return None, False
            if not stat.S_ISREG(st.st_mode):
                what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
                raise UnsafeLockFile(
                    f"its lock file {self.path} is {what}, not one this package made: "
                    "remove it, or give another file"
                )
            fd = self._open_existing()
            if fd is not None:
                return fd, False

    def _open_existing(self) -> Optional[int]:
        for mode in (os.O_RDWR, os.O_RDONLY):  # (another user's file: read-only is enough)
            try:
                return os.open(self.path, mode | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            except FileNotFoundError:
                return None  # removed meanwhile: make it again
            except PermissionError:
                continue
            except OSError:  # a link put there meanwhile (ELOOP)
                raise UnsafeLockFile(
                    f"its lock file {self.path} is not a regular file: remove it, or give "
                    "another file"
                ) from None
        return None

    def _take(self, fd: int, *, created: bool) -> None:
        """The lock is ours: a file this package made (now, or by a run that was killed)
        gets our name; anyone else's file is only locked."""
        self._fd = fd
        self._mine = created or _stale(_read(fd))
        if not self._mine:
            return
        try:
            os.pwrite(fd, self._holder, 0)
            os.ftruncate(fd, len(self._holder))
        except OSError:  # (read-only: the lock holds all the same)
            self._mine = False

    def release(self) -> None:
        """Remove the file (when it is ours, as we wrote it) and let the lock go (nothing
        when it is not held)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:  # (removed while held: no run can take it meanwhile)
            if self._mine and _same(fd, self.path) and _read(fd) == self._holder:
                os.remove(self.path)
        except OSError:
            pass
        os.close(fd)


def _same(fd: int, path: str) -> bool:
    """Whether ``path`` (not followed) is still the file open as ``fd``."""
    try:
        a, b = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _ours(content: bytes) -> bool:
    """Whether a lock file's content is what a run of this package writes there."""
    return _HOLDER.fullmatch(content) is not None


def _stale(content: bytes) -> bool:
    """Whether a lock file's content names a run of this package, on this host, whose
    process is gone (a run killed outright): only such a file is taken over."""
    if not _ours(content):
        return False
    host, _, pid = content.decode().strip().rpartition(":")
    if host != socket.gethostname() or int(pid) <= 0:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # (alive, another user's; no process can have it)
        return False
    return False


def _read(fd: int) -> bytes:
    try:
        return os.pread(fd, 300, 0)
    except OSError:
        return b""
