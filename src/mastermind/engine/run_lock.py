"""One run per checkpoint: an advisory lock taken when a run opens its checkpoint for
writing, held until it closes it.

SQLite's own locks cannot say whether another run uses a file: a run holds the write
lock only while it has rows waiting for their commit, so a second run would either wait
for it or slip in between two commits and then share the file, each doing the other's
units.  The lock is ``flock`` on a file beside the checkpoint (``PATH.lock``), never on
the checkpoint itself (closing another descriptor of the database would drop SQLite's
POSIX locks on it).  The kernel lets it go when the process ends, however it ends, so a
killed run leaves no stale lock, only the small file, which the next run takes over.  The
file holds the holder's host and process id, to name it in the refusal; it is removed
when the lock is let go.

Where ``flock`` does not exist (Windows), or the lock file cannot be made (a read-only
folder: SQLite refuses the checkpoint then anyway), no lock is taken and SQLite's locks
are all there is.
"""

from __future__ import annotations

import os
import socket
from typing import Optional

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunLock", "lock_path"]


def lock_path(path: str) -> str:
    """The lock file of the checkpoint at ``path``."""
    return path + ".lock"


class RunLock:
    """The lock of one checkpoint.  :meth:`acquire` returns ``None`` once it is held (or
    when no lock can be taken here), or the holder's name (``host:pid``, or ``"another
    run"`` when it cannot be read) when another run holds it; :meth:`release` lets it go."""

    def __init__(self, path: str):
        self.path = lock_path(path)
        self._fd: Optional[int] = None

    def acquire(self) -> Optional[str]:
        if fcntl is None:
            return None
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read(fd)
                os.close(fd)
                return holder or "another run"
            except OSError:  # a file system without flock
                os.close(fd)
                return None
            # the holder may have removed the file between our open and our lock: the
            # lock is then on a file no other run can find, so take the new one
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{socket.gethostname()}:{os.getpid()}\n".encode())
            self._fd = fd
            return None

    def release(self) -> None:
        """Remove the file and let the lock go (nothing when it is not held)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.remove(self.path)  # (removed while held: no run can take it meanwhile)
        except OSError:
            pass
        os.close(fd)


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode(errors="replace").strip()
    except OSError:
        return ""
