"""Checkpoints: the finished units of a long run, kept in an SQLite file so that a run
stopped by Ctrl-C, a crash, a lost worker or a reboot resumes where it stopped
(docs/distributed.md says what a file holds).

A checkpoint has two tables.  ``header`` (name, value) says what run the units belong to:
the file format, the package version, the kind of run (``analyze``, ``bound``,
``optimal``), the game's definition and every parameter that can change a unit's answer;
:func:`open_checkpoint` refuses a file whose header differs from the run's, with a
one-line :class:`CheckpointError`, and never reuses its units silently.  ``units`` holds
one row per finished unit: its key (what question it answers, e.g. ``walk/17`` or
``exists/1123/5/4``), a digest of its input, its size (candidates), the seconds it took on
its worker, which worker, when, its answer (NumPy arrays in ``.npz`` form, no pickle) and
a checksum binding the answer to its unit (SHA-256 over the key, the digest and the
answer): an answer copied onto another unit's row, or damaged, is found on reading
(:class:`DamagedRow`) and the unit runs again; the plans also check that each answer
holds for its unit (``Plan.valid``).  A file that is not a checkpoint of this package,
or whose header is damaged, is refused in one line.
Rows are committed together, at most :data:`COMMIT_SECONDS` after their units finish
(the engine asks between its waits) and at once when the run ends, stops or fails
(:meth:`Checkpoint.close`): one synchronous commit a second rather than one a unit, so
a client keeps up with thousands of workers.  A stop at any moment leaves every
committed unit whole and nothing half-written; a run killed outright (``kill -9``, power
loss) loses at most the units of its last second, which run again.

>>> import pathlib, tempfile
>>> import numpy as np
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.sqlite"
>>> game = {"type": "game", "n": 4, "k": 6, "variant": "classic"}
>>> with open_checkpoint(str(path), "analyze", game, {"strategy": "minmax"}) as store:
...     store.record("walk/0", "abc", {"dist": np.arange(3)}, size=10, seconds=0.5)
>>> with open_checkpoint(str(path), "analyze", game, {"strategy": "minmax"}) as store:
...     sorted(store.keys()), store.get("walk/0").result["dist"].tolist()
(['walk/0'], [0, 1, 2])
>>> open_checkpoint(str(path), "analyze", game, {"strategy": "entropy"})
Traceback (most recent call last):
...
mastermind.engine.checkpoint.CheckpointError: checkpoint ...run.sqlite: was written for another run (strategy: minmax there, entropy here); give another file to start afresh
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from ..errors import MastermindError, ResourceError
from .rows import LOCK_SECONDS, Record, checksum, connect_read_only, decode, encode
from .run_lock import RunLock, UnsafeLockFile

__all__ = [
    "COMMIT_SECONDS",
    "FORMAT",
    "Checkpoint",
    "CheckpointError",
    "CheckpointWriteError",
    "DamagedRow",
    "check_path",
    "open_checkpoint",
    "read_costs",
    "read_units",
]

FORMAT = 2
"""The file format this version writes and reads."""

LOOSE_PARAMS = frozenset({"memory"})
"""Parameters no unit's answer depends on, which older files record in their header (the
search's memory budget): not compared when a file is opened, so a run may change them."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS header (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
    key TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    size INTEGER NOT NULL,
    seconds REAL NOT NULL,
    worker TEXT NOT NULL,
    finished REAL NOT NULL,
    result BLOB NOT NULL,
    checksum TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS splits (
    key TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    split INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dropped (key TEXT PRIMARY KEY, at REAL NOT NULL);
"""

# (a file written before units could split, or before settled units dropped their rows)
_SPLITS = """
CREATE TABLE IF NOT EXISTS splits (
    key TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    split INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS dropped (key TEXT PRIMARY KEY, at REAL NOT NULL);
"""


class CheckpointError(MastermindError):
    """A checkpoint file that cannot be used for this run: unreadable, unwritable, not a
    checkpoint, or written for another game, parameters or version."""


class CheckpointWriteError(CheckpointError, ResourceError):
    """A checkpoint that could not be written any more during the run (a full disk, the
    file moved, removed or kept locked under it): the run stops, unfinished (exit status
    1), not for bad input."""


class DamagedRow(CheckpointError):
    """A recorded unit whose row fails its checksum or cannot be read: its answer is not
    used (the unit runs again)."""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


COMMIT_SECONDS = 1.0
"""Seconds a finished unit's row may wait before it is committed (with the others of
that second): 0 commits each row as it is recorded."""


BUSY_ATTEMPTS = 10
"""How many waits of :data:`LOCK_SECONDS` a commit that must be made (at the close, or
asked for) gives another program's lock before the run stops."""


def _busy(e: sqlite3.OperationalError) -> bool:
    """Whether SQLite's error is another connection's lock on the file."""
    text = str(e).lower()
    return "locked" in text or "busy" in text


class Checkpoint:
    """An open checkpoint (from :func:`open_checkpoint`).  Its rows are committed by
    :meth:`flush` (at most ``commit_seconds`` after they are recorded, when the caller
    asks) and by :meth:`close`; reads see them at once."""

    def __init__(
        self,
        path: str,
        conn: sqlite3.Connection,
        commit_seconds: float = COMMIT_SECONDS,
        lock: Optional[RunLock] = None,
    ):
        self.path = path
        self._conn = conn
        self._lock = lock
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self.commit_seconds = float(commit_seconds)
        self.read_only = False  # (opened only to read: nothing is written, not even a settle)
        # rows that came from elsewhere (a campaign's shards): one recorded for another
        # input than its unit's is damaged, not a sign of another run (its unit runs again)
        self.foreign_rows = False
        self._dirty = False
        self._committed = time.monotonic()
        self._params: Optional[dict[str, Any]] = None

    def flush(self, *, due_only: bool = False) -> None:
        """Commit the rows recorded since the last commit (with ``due_only``, only once
        ``commit_seconds`` have passed since it)."""
        if not self._dirty:
            return
        now = time.monotonic()
        if due_only and now - self._committed < self.commit_seconds:
            return
        tries = 1 if due_only else BUSY_ATTEMPTS
        for attempt in range(tries):
            try:
                self._conn.commit()
                break
            except sqlite3.OperationalError as e:
                # another program reading the file (its status, a copy) holds it for
                # longer than the connection waits (LOCK_SECONDS): the rows stay in
                # the open transaction, and a due commit tries again a second later
                if due_only and _busy(e):
                    self._committed = now
                    return
                if not _busy(e) or attempt == tries - 1:
                    with self._writing():
                        raise
        self._dirty = False
        self._committed = now

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write to the file: SQLite's failure (the file moved, removed or made
        read-only under the run, the disk full) said as the checkpoint's, in one line."""
        try:
            yield
        except sqlite3.Error as e:
            if isinstance(e, sqlite3.OperationalError) and _busy(e):
                raise CheckpointWriteError(
                    f"checkpoint {self.path}: "
                    f"another program kept it locked too long ({e}); the units it had "
                    "committed stay in it; the run stops",
                ) from None
            raise CheckpointWriteError(
                f"checkpoint {self.path}: "
                f"cannot be written any more ({e}): was it moved, removed or made read-only, "
                "or is its disk full?  The units it had committed stay in it, if it is still "
                "there; the run stops",
            ) from None

    def keys(self) -> set[str]:
        """The keys of the units recorded so far."""
        return {row[0] for row in self._conn.execute("SELECT key FROM units")}

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])

    def get(self, key: str) -> Optional[Record]:
        """The recorded unit ``key``, or None; :class:`DamagedRow` when its row fails its
        checksum or cannot be read."""
        row = self._conn.execute(
            "SELECT key, digest, size, seconds, worker, result, checksum FROM units WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        try:
            if not (
                isinstance(row[1], str)
                and isinstance(row[5], bytes)
                and row[6] == checksum(key, row[1], row[5])
            ):
                raise ValueError("checksum")
            return Record(row[0], row[1], int(row[2]), float(row[3]), str(row[4]), decode(row[5]))
        except Exception:  # any damage: numpy's, zipfile's, int()'s words are no help
            raise DamagedRow(
                f"checkpoint {self.path}: the recorded answer of unit {key} "
                "is damaged or belongs to another unit; it is run again"
            ) from None

    def discard(self, key: str) -> None:
        """Drop the row of unit ``key`` (a damaged or wrong answer), committed at once
        (with any rows waiting); opened read-only, nothing is dropped (the row is just
        not used)."""
        if self.read_only:
            return
        with self._writing():
            self._conn.execute("DELETE FROM units WHERE key = ?", (key,))
        self._dirty = True
        self.flush()

    def record(
        self,
        key: str,
        digest: str,
        result: dict[str, Any],
        *,
        size: int,
        seconds: float,
        worker: Optional[str] = None,
        parent: str = "",
        split: bool = False,
    ) -> None:
        """Write one finished unit (a later answer for the same key, e.g. an exact value
        replacing a bound, replaces the row), committed with the others of its second
        (:meth:`flush`); ``parent`` (the unit that split into this one) and ``split``
        (this answer is a split: its sub-units follow) go to the table ``splits``,
        written first: a stop between the two leaves a ``splits`` row no unit joins, never
        a unit without its split flag."""
        blob = encode(result)
        with self._writing():
            if parent or split:
                self._conn.execute(
                    "INSERT OR REPLACE INTO splits (key, parent, split) VALUES (?, ?, ?)",
                    (key, str(parent), int(bool(split))),
                )
            self._conn.execute(
                "INSERT OR REPLACE INTO units (key, digest, size, seconds, worker, finished, "
                "result, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    digest,
                    int(size),
                    float(seconds),
                    worker or self.worker,
                    time.time(),
                    blob,
                    checksum(key, digest, blob),
                ),
            )
        self._dirty = True
        self.flush(due_only=True)

    def settle(self, key: str, digest: str, result: dict[str, Any], *, size: int) -> None:
        """Unit ``key``, which split, has its whole answer: it replaces the split (its
        seconds the worker-seconds of everything below it, its parent kept), and the rows
        of every unit below it, no longer needed, are dropped (``dropped`` says so, for
        the shards: :mod:`mastermind.engine.shards`)."""
        lo, hi = key + "/", key + "0"  # ("0" follows "/": every key below, and no other)
        below = "FROM units WHERE key > ? AND key < ?"
        with self._writing():
            spent = self._conn.execute(f"SELECT COALESCE(SUM(seconds), 0) {below}", (lo, hi))
            spent = spent.fetchone()[0]
            own = self._conn.execute("SELECT seconds FROM units WHERE key = ?", (key,)).fetchone()
            self._conn.execute(f"DELETE {below}", (lo, hi))
            self._conn.execute("DELETE FROM splits WHERE key > ? AND key < ?", (lo, hi))
            self._conn.execute("UPDATE splits SET split = 0 WHERE key = ?", (key,))
            self._conn.execute(
                "INSERT OR REPLACE INTO dropped (key, at) VALUES (?, ?)", (key, time.time())
            )
        seconds = float(spent) + (float(own[0]) if own else 0.0)
        self.record(key, digest, result, size=size, seconds=seconds)

    def units(self) -> list[tuple[str, str, int, float, bool]]:
        """(key, parent, size, seconds, split) of every recorded unit in the order they
        finished: ``parent`` the unit that split into it ("" for a unit of the plan),
        ``split`` whether its answer is a split (its seconds are those it worked before
        splitting).  The raw material of ``bench/simulate.py``."""
        rows = self._conn.execute(
            "SELECT u.key, COALESCE(s.parent, ''), u.size, u.seconds, COALESCE(s.split, 0) "
            "FROM units u LEFT JOIN splits s ON s.key = u.key ORDER BY u.finished"
        ).fetchall()
        try:
            return [(str(r[0]), str(r[1]), int(r[2]), float(r[3]), bool(r[4])) for r in rows]
        except (TypeError, ValueError):
            raise _fail(
                self.path,
                "is damaged (a unit's size or seconds is not a number); give another file",
            ) from None

    def costs(self) -> list[tuple[str, int, float]]:
        """(key, size, seconds) of every recorded unit, for cost models and benchmarks."""
        rows = self._conn.execute(
            "SELECT key, size, seconds FROM units ORDER BY finished"
        ).fetchall()
        try:
            return [(str(r[0]), int(r[1]), float(r[2])) for r in rows]
        except (TypeError, ValueError):
            raise _fail(
                self.path,
                "is damaged (a unit's size or seconds is not a number); give another file",
            ) from None

    def header(self) -> dict[str, Any]:
        """The header, parsed."""
        return _parse_header(self.path, self._conn.execute("SELECT name, value FROM header"))

    def params(self) -> dict[str, Any]:
        """The parameters the header records (read once)."""
        if self._params is None:
            params = self.header().get("params")
            self._params = params if isinstance(params, dict) else {}
        return self._params

    def close(self) -> None:
        """Commit what is waiting, then close the file."""
        try:
            self.flush()
        finally:
            try:
                self._conn.close()
            finally:
                if self._lock is not None:
                    self._lock.release()

    def __enter__(self) -> "Checkpoint":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def read_costs(path: str) -> list[tuple[str, int, float]]:
    """(key, size, seconds) of every unit recorded in the checkpoint at ``path``, in the
    order they finished (read only; for cost models and benchmarks)."""
    try:
        conn = connect_read_only(path)
        try:
            return Checkpoint(path, conn).costs()
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise _fail(path, f"cannot be read ({e})") from None


def read_units(path: str) -> list[tuple[str, str, int, float, bool]]:
    """(key, parent, size, seconds, split) of every unit recorded in the checkpoint at
    ``path`` (read only; :meth:`Checkpoint.units`)."""
    try:
        conn = connect_read_only(path)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "splits" not in tables:  # written before units could split
                return [(k, "", n, s, False) for k, n, s in Checkpoint(path, conn).costs()]
            return Checkpoint(path, conn).units()
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise _fail(path, f"cannot be read ({e})") from None


def _fail(path: str, what: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {path}: {what}")


def check_path(path: Any) -> str:
    """``path`` as a checkpoint may be: a regular file or a name not taken yet, in a
    folder that exists; :class:`CheckpointError` otherwise (a directory, a device, a
    FIFO), before anything is opened (SQLite would leave a journal beside a device)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise CheckpointError(f"a checkpoint must be a file name, not {path!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise _fail(path, "is a directory; give a file name")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise _fail(path, f"cannot be read ({e.strerror or e})") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise _fail(path, "is not a regular file (a device or a FIFO); give a file name")
    if not os.path.isdir(folder):
        raise _fail(path, f"no such folder {folder}")
    return path


def open_checkpoint(
    path: Any,
    kind: str,
    game: dict[str, Any],
    params: dict[str, Any],
    *,
    read_only: bool = False,
) -> Checkpoint:
    """Open (or create) the checkpoint at ``path`` for a run of ``kind`` on ``game`` with
    ``params``; :class:`CheckpointError` if it cannot be read and written or belongs to
    another run.  Checked before any work, so a bad path costs nothing.

    A checkpoint opened for writing is held by this run until it is closed
    (:mod:`.run_lock`): a second run on it is refused at once, naming the first.

    ``read_only``: an existing checkpoint, to read what it holds (while a run may be
    writing it); a write raises :class:`CheckpointError`."""
    from ..version import __version__

    path = check_path(path)
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    if read_only and fresh:
        raise _fail(path, "does not exist (or is empty): nothing to read")
    wanted = {
        "format": FORMAT,
        "package": "mastermind",
        "version": __version__,
        "kind": kind,
        "game": game,
        "params": params,
    }
    lock = None
    if not read_only:  # one run at a time: a second one is refused at once
        lock = RunLock(path)
        try:
            holder = lock.acquire()
        except UnsafeLockFile as e:
            raise _fail(path, str(e)) from None
        if holder is not None:
            raise _fail(
                path,
                f"is in use by another run ({holder}): wait for it to end, or give another file",
            )
    try:
        conn = _connect(path, wanted, fresh=fresh, read_only=read_only)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    store = Checkpoint(path, conn, lock=lock)
    store.read_only = read_only
    return store


def _connect(
    path: str, wanted: dict[str, Any], *, fresh: bool, read_only: bool
) -> sqlite3.Connection:
    """The checkpoint's connection, its header written (a fresh file) or checked."""
    try:
        if read_only:
            conn = connect_read_only(path, isolation_level="DEFERRED")
        else:
            conn = sqlite3.connect(path, timeout=LOCK_SECONDS, isolation_level="DEFERRED")
    except (sqlite3.Error, ValueError) as e:
        raise _fail(path, f"cannot open it ({e})") from None
    try:
        conn.execute("PRAGMA synchronous = FULL")
        if read_only:
            _check_header(path, conn, wanted)
        elif fresh:
            with conn:
                conn.executescript(_SCHEMA)
                conn.executemany(
                    "INSERT INTO header (name, value) VALUES (?, ?)",
                    [(k, _canonical(v)) for k, v in wanted.items()],
                )
        else:
            _check_header(path, conn, wanted)
            with conn:  # a write now: an unwritable file is found before the work
                conn.execute("UPDATE header SET value = value WHERE name = 'format'")
                conn.executescript(_SPLITS)  # (a file written before units could split)
    except sqlite3.DatabaseError as e:
        conn.close()
        text = str(e)
        if "not a database" in text or "malformed" in text:
            raise _fail(path, "is not a mastermind checkpoint (not an SQLite file)") from None
        if "readonly" in text or "read-only" in text or "unable to open" in text:
            raise _fail(path, "cannot be written (read-only file or folder)") from None
        if "locked" in text:  # (a reader, or a run of a version without the run lock)
            raise _fail(
                path,
                f"is in use by another program (its file stayed locked for {LOCK_SECONDS:g} "
                "s): wait for it to end, or give another file",
            ) from None
        raise _fail(path, f"cannot be used ({text})") from None
    except CheckpointError:
        conn.close()
        raise
    return conn


def _check_header(path: str, conn: sqlite3.Connection, wanted: dict[str, Any]) -> None:
    """Refuse a file whose header is not ``wanted``, naming the first difference."""
    try:
        rows = conn.execute("SELECT name, value FROM header").fetchall()
    except sqlite3.OperationalError:
        raise _fail(path, "is an SQLite file but not a mastermind checkpoint") from None
    have = _parse_header(path, rows)
    if have.get("package") != "mastermind":
        raise _fail(path, "is an SQLite file but not a mastermind checkpoint")
    if have.get("format") != FORMAT:
        raise _fail(
            path,
            f"has format {_show(have.get('format'))}, this version reads "
            f"format {FORMAT}; give another file to start afresh",
        )
    try:
        conn.execute(
            "SELECT key, digest, size, seconds, worker, finished, result, checksum "
            "FROM units LIMIT 0"
        )
    except sqlite3.OperationalError:
        raise _fail(
            path,
            "is damaged (its table of units is missing or altered); give "
            "another file to start afresh",
        ) from None
    if have.get("version") != wanted["version"]:
        raise _fail(
            path,
            f"was written by mastermind {have.get('version')}, this is "
            f"{wanted['version']}; give another file to start afresh",
        )
    for name in ("kind", "game"):
        if have.get(name) != wanted[name]:
            raise _fail(
                path,
                f"was written for another run ({_difference(name, have.get(name), wanted[name])}); "
                "give another file to start afresh",
            )
    there, here = have.get("params") or {}, wanted["params"]
    if not isinstance(there, dict):
        raise _fail(
            path,
            "is damaged (its header's parameters cannot be read); give another "
            "file to start afresh",
        )
    for name in list(here) + [n for n in there if n not in here]:
        if name not in LOOSE_PARAMS and there.get(name) != here.get(name):
            raise _fail(
                path,
                f"was written for another run "
                f"({_difference(name, there.get(name), here.get(name))}); "
                "give another file to start afresh",
            )


def _difference(name: str, there: Any, here: Any) -> str:
    """The difference between two header values: ``"strategy: minmax there, entropy
    here"``; when their texts look alike, the first field that differs, by its path
    (``"game.n: "4" there, 4 here"``), in its JSON form."""
    a, b = _show(there), _show(here)
    if a != b:
        return f"{name}: {a} there, {b} here"
    if isinstance(there, dict) and isinstance(here, dict):
        for key in sorted(set(there) | set(here), key=str):
            if key not in there or key not in here or there[key] != here[key]:
                return _difference(
                    f"{name}.{key}", there.get(key, _MISSING), here.get(key, _MISSING)
                )
    return f"{name}: {_json(there)} there, {_json(here)} here"


_MISSING = object()


def _json(value: Any) -> str:
    if value is _MISSING:
        return "(none)"
    try:
        return _canonical(value)
    except (RecursionError, ValueError, TypeError):
        return "(unreadable)"


def _parse_header(path: str, rows: Any) -> dict[str, Any]:
    """The header's rows parsed (JSON values); a damaged header is a
    :class:`CheckpointError` naming the file, never a parser's own words."""
    try:
        return {str(name): json.loads(value) for name, value in rows}
    except (TypeError, ValueError, RecursionError, MemoryError):
        raise _fail(
            path,
            "is damaged (its header cannot be read) or is not a mastermind "
            "checkpoint; give another file to start afresh",
        ) from None


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(none)"
    if isinstance(value, dict) and value.get("type") == "game":
        return f"[{value.get('n')},{value.get('k')}] {value.get('variant')}"
    if isinstance(value, str):
        return value
    try:
        return _canonical(value)
    except (RecursionError, ValueError):
        return "(unreadable)"
