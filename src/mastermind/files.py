"""Every file the package writes, made one way: :class:`Destination`.

A regular file (or a name not taken yet) is written whole in a temporary file beside it
and renamed onto it at the end (:meth:`Destination.commit`): a run stopped halfway (Ctrl-C,
SIGTERM, an error, a full disk) leaves the file as it was.  The temporary file is made
by :func:`tempfile.mkstemp` in the target's own folder (created with ``O_CREAT|O_EXCL``,
a name nobody can predict and plant a link at), held with an advisory lock while it is
written, and named ``.NAME.XXXXXXXX.part``; a run killed outright (SIGKILL, power loss)
leaves it behind, and the next run on the same output removes it (only files of that
pattern for that name, owned by this user, older than the run and locked by nobody).
The new file keeps the permission bits (and, for root, the owner) of the file it
replaces; a new one gets those the umask allows.  A symbolic link is followed: the file
it names is replaced, the link stays.

Anything else is written *in place*, at the end, never removed nor replaced: a device,
a FIFO, a terminal; ``-`` (standard output); a descriptor named by path, ``/dev/stdout``,
``/dev/fd/N``, ``/proc/self/fd/N`` or ``/proc/PID/fd/N`` (directly or through links).
A descriptor of this process is written through as it is open, so ``-o /dev/stdout >>
run.log`` appends to run.log as the shell's ``>>`` asks; another process's is opened
for appending when it is a regular file.  Its bytes wait in a private temporary file
until then.

Errors: a path that cannot be written is a :class:`FileError` (a
:class:`~mastermind.errors.MastermindError`), raised when the destination is opened,
before the work; a write that fails later (a full disk or device) is an
:class:`OutputError` naming the file.

This module imports nothing but :mod:`mastermind.errors` (the command line uses it
before it loads NumPy).

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> with Destination(str(path)) as d:
...     d.write("done\\n")
>>> path.read_text(), sorted(p.name for p in path.parent.iterdir())
('done\\n', ['out.txt'])
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
import time
from typing import IO, Any, Optional, Union

from .errors import MastermindError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "O_CLOEXEC",
    "O_NOCTTY",
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "STDOUT",
    "TEMP_SUFFIX",
    "Destination",
    "FileError",
    "OutputError",
    "check_output",
]

STDOUT = "-"
"""The path that means standard output."""

TEMP_SUFFIX = ".part"
"""The suffix of the temporary file beside an output (``.NAME.XXXXXXXX.part``)."""

# the flags of ``os.open`` that a platform may lack (0 there): every module that opens a
# file itself (this one, the run lock) takes them from here
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NOCTTY = getattr(os, "O_NOCTTY", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

# a descriptor named by a path: /dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N
_DESCRIPTOR = re.compile(
    r"/dev/(?:fd/(?P<dev_fd>[0-9]+)|std(?P<std>in|out|err))"
    r"|/proc/(?P<pid>self|thread-self|[0-9]+)(?:/task/[0-9]+)?/fd/(?P<proc_fd>[0-9]+)"
)
_STANDARD = {"in": 0, "out": 1, "err": 2}


class FileError(MastermindError):
    """An output path that cannot be written (found before the work): one line."""


class OutputError(Exception):
    """An output that could not be written at the end (a full disk or device), naming the
    file: nothing in the request was wrong, but the work is not delivered."""


def _reason(e: OSError) -> str:
    return str(e.strerror or e)


# ---------------------------------------------------------------------- the paths
def _descriptor(path: str) -> Optional[tuple[Optional[int], str]]:
    """``(fd, path)`` when ``path`` names an open descriptor (directly or through links
    at any depth): ``fd`` when it is one of this process's, None for another process's
    (then ``path`` is the ``/proc`` path to open); None for any other path."""
    here = os.path.abspath(path)
    for _ in range(40):  # (the kernel's own limit on links followed)
        here = os.path.join(os.path.realpath(os.path.dirname(here)), os.path.basename(here))
        match = _DESCRIPTOR.fullmatch(here)
        if match is not None:
            if match["std"]:
                return _STANDARD[match["std"]], here
            if match["dev_fd"]:
                return int(match["dev_fd"]), here
            if match["pid"] in ("self", "thread-self", str(os.getpid())):
                return int(match["proc_fd"]), here
            return None, here
        try:
            target = os.readlink(here)
        except OSError:  # not a link (or nothing there): an ordinary path
            return None
        here = os.path.join(os.path.dirname(here), target)  # (an absolute target as it is)
    return None


def check_output(path: Any, what: str = "the output") -> str:
    """``path`` as an output may be: a name (``-`` for standard output), not a directory,
    in a folder that exists; :class:`FileError` otherwise, before anything is made."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise FileError(f"{what} is written to a path, not {path!r}")
    if not path:
        raise FileError(f"{what}: an empty file name")
    if "\0" in path:
        raise FileError(f"{what}: a file name cannot hold a NUL character")
    if path == STDOUT:
        return path
    named = _descriptor(path)
    if named is not None:
        if named[0] is not None:
            try:
                os.fstat(named[0])
            except OSError as e:
                raise FileError(f"cannot write {path}: {_reason(e)}") from None
        return path
    try:
        st: Optional[os.stat_result] = os.stat(path)  # (through a symbolic link)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise FileError(f"cannot write {path}: {_reason(e)}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise FileError(f"cannot write {path}: it is a directory")
    if st is None:
        folder = os.path.dirname(os.path.realpath(path))
        if not os.path.isdir(folder):
            raise FileError(f"cannot write {path}: No such file or directory (no folder {folder})")
    return path


# ---------------------------------------------------------------------- leftovers
def _leftover_pattern(name: str) -> re.Pattern[str]:
    """The names :func:`tempfile.mkstemp` gives the temporary files of output ``name``."""
    return re.compile(re.escape(f".{name}.") + r"[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX))


def remove_leftovers(target: str, before: float) -> list[str]:
    """Remove the temporary files that runs killed outright left beside ``target``: the
    files of its pattern owned by this user, last written before ``before`` (a time) and
    locked by no run; the paths removed."""
    folder, name = os.path.split(target)
    pattern = _leftover_pattern(name)
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return removed
    for entry in entries:
        if pattern.fullmatch(entry.name) and _remove_stale(entry.path, before):
            removed.append(entry.path)
    return removed


def _remove_stale(path: str, before: float) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    except OSError:  # a link, gone, not ours to read
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mtime >= before:
            return False
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a run writing it now
                return False
        now = os.lstat(path)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return False  # replaced meanwhile: not the file looked at
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- the writer
class Destination:
    """An output file, checked and opened before the work, written whole at the end (see
    the module's text).  :meth:`write` takes text (UTF-8) or bytes; :meth:`commit` puts
    them at ``path``, :meth:`discard` drops them; as a context manager it commits when
    its block ends normally and discards otherwise.  ``what`` names the output in
    messages (an option, ``"the certificate"``)."""

    def __init__(self, path: Any, what: str = "the output"):
        self.path = path = check_output(path, what)
        self.what = what
        self.fd_out: Optional[int] = None  # a descriptor of ours, written through
        self.target: Optional[str] = None  # the file replaced, or the path opened in place
        self.replaces = False
        started = time.time()
        named = _descriptor(path) if path != STDOUT else (1, path)
        st = None
        if named is not None:
            self.fd_out, self.target = named
            if self.fd_out is None:
                self._other_process(path)
        else:
            st = _stat(path)
            self.target = os.path.realpath(path)
            self.replaces = st is None or stat.S_ISREG(st.st_mode)
            if not self.replaces and not os.access(path, os.W_OK):
                raise FileError(f"cannot write {path}: Permission denied")
        folder = os.path.dirname(self.target) if self.replaces and self.target else None
        if folder is not None and self.target is not None:
            remove_leftovers(self.target, started)
        self._open_temp(folder, st)

    def _other_process(self, path: str) -> None:
        if not os.access(path, os.W_OK):
            raise FileError(f"cannot write {path}: Permission denied")

    def _open_temp(self, folder: Optional[str], st: Optional[os.stat_result]) -> None:
        name = os.path.basename(self.target or "output")
        try:
            fd, self.temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=TEMP_SUFFIX)
        except OSError as e:
            raise FileError(f"cannot write {self.path}: {_reason(e)}") from None
        try:  # (a signal now must not leave the temporary file behind)
            if fcntl is not None:
                with contextlib.suppress(OSError):  # (a file system without flock)
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.file: IO[bytes] = os.fdopen(fd, "w+b")
            if self.replaces:
                self._permissions(st)
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(self.temp)
            if isinstance(e, OSError):  # pragma: no cover - a folder refusing chmod
                raise FileError(f"cannot write {self.path}: {_reason(e)}") from None
            raise

    def _permissions(self, st: Optional[os.stat_result]) -> None:
        """The temporary file gets the mode (and, for root, the owner) of the file it
        replaces, or for a new file the mode the umask allows."""
        fd = self.file.fileno()
        if st is None:
            os.fchmod(fd, 0o666 & ~_umask())
            return
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
        mine = os.fstat(fd)
        if hasattr(os, "fchown") and (st.st_uid, st.st_gid) != (mine.st_uid, mine.st_gid):
            with contextlib.suppress(OSError):  # only root may give a file away
                os.fchown(fd, st.st_uid, st.st_gid)

    @property
    def in_place(self) -> bool:
        """Whether the output is written into (a device, a descriptor), not replaced."""
        return not self.replaces

    def write(self, data: Union[str, bytes]) -> None:
        """Add ``data`` (text is written as UTF-8)."""
        try:
            self.file.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as e:
            raise OutputError(f"cannot write {self.path}: {_reason(e)}") from None

    def flush(self) -> None:
        try:
            self.file.flush()
        except OSError as e:
            raise OutputError(f"cannot write {self.path}: {_reason(e)}") from None

    def commit(self) -> None:
        """Put the bytes written at ``path``; :class:`OutputError` when that fails (a
        full disk or device): then nothing changed at ``path`` (a replaced file), or
        what the device took is all it has."""
        try:
            self.file.flush()
            if self.replaces:
                assert self.target is not None
                os.fsync(self.file.fileno())
                os.replace(self.temp, self.target)
            else:
                self._copy_into()
        except OSError as e:
            raise OutputError(f"cannot write {self.path}: {_reason(e)}") from None
        finally:
            self.discard()

    def _copy_into(self) -> None:
        """The temporary file's bytes written into the output in place."""
        if self.fd_out is not None:
            if self.fd_out in (1, 2):  # what Python holds for it goes out first
                with contextlib.suppress(Exception):
                    (sys.stdout if self.fd_out == 1 else sys.stderr).flush()
            fd = os.dup(self.fd_out)
        else:
            assert self.target is not None
            flags = os.O_WRONLY | O_NOCTTY | O_CLOEXEC
            if stat.S_ISREG(os.stat(self.target).st_mode):  # (another process's file)
                flags |= os.O_APPEND
            fd = os.open(self.target, flags)
        try:
            self.file.seek(0)
            while True:
                chunk = self.file.read(1 << 16)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    def discard(self) -> None:
        """Drop the temporary file (nothing is written at ``path``)."""
        with contextlib.suppress(OSError):  # (the disk filled up meanwhile)
            self.file.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp)

    def __enter__(self) -> "Destination":
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FileError(f"cannot write {path}: {_reason(e)}") from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
