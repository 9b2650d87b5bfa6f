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
its worker, which worker, when, and its answer (NumPy arrays in ``.npz`` form, no pickle).
Each row is written in a transaction of its own as soon as its unit finishes, so a
stop at any moment leaves every recorded unit whole and nothing half-written.

>>> import pathlib, tempfile
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

import io
import json
import os
import socket
import sqlite3
import stat
import time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..errors import MastermindError

__all__ = ["FORMAT", "Checkpoint", "CheckpointError", "Record", "open_checkpoint",
           "read_costs"]

FORMAT = 1
"""The file format this version writes and reads."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS header (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
    key TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    size INTEGER NOT NULL,
    seconds REAL NOT NULL,
    worker TEXT NOT NULL,
    finished REAL NOT NULL,
    result BLOB NOT NULL
);
"""


class CheckpointError(MastermindError):
    """A checkpoint file that cannot be used for this run: unreadable, unwritable, not a
    checkpoint, or written for another game, parameters or version."""


@dataclass(frozen=True)
class Record:
    """One finished unit read back: its input's digest, size, seconds and answer."""

    key: str
    digest: str
    size: int
    seconds: float
    worker: str
    result: dict[str, Any]


def encode(result: dict[str, Any]) -> bytes:
    """A unit's answer (names to arrays or numbers) as ``.npz`` bytes (no pickle)."""
    buf = io.BytesIO()
    np.savez(buf, **{name: np.asarray(value) for name, value in result.items()})
    return buf.getvalue()


def decode(blob: bytes) -> dict[str, Any]:
    """The answer :func:`encode` wrote; 0-d arrays come back as Python numbers."""
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        return {name: (z[name].item() if z[name].ndim == 0 else z[name]) for name in z.files}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Checkpoint:
    """An open checkpoint (from :func:`open_checkpoint`)."""

    def __init__(self, path: str, conn: sqlite3.Connection):
        self.path = path
        self._conn = conn
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    def keys(self) -> set[str]:
        """The keys of the units recorded so far."""
        return {row[0] for row in self._conn.execute("SELECT key FROM units")}

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])

    def get(self, key: str) -> Optional[Record]:
        """The recorded unit ``key``, or None."""
        row = self._conn.execute("SELECT key, digest, size, seconds, worker, result FROM "
                                 "units WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return Record(row[0], row[1], int(row[2]), float(row[3]), row[4], decode(row[5]))

    def record(self, key: str, digest: str, result: dict[str, Any], *, size: int,
               seconds: float, worker: Optional[str] = None) -> None:
        """Write one finished unit, in a transaction of its own (a later answer for the
        same key, e.g. an exact value replacing a bound, replaces the row)."""
        blob = encode(result)
        with self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO units (key, digest, size, seconds, worker, finished, "
                "result) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, digest, int(size), float(seconds), worker or self.worker, time.time(),
                 blob))

    def costs(self) -> list[tuple[str, int, float]]:
        """(key, size, seconds) of every recorded unit, for cost models and benchmarks."""
        return [(r[0], int(r[1]), float(r[2])) for r in
                self._conn.execute("SELECT key, size, seconds FROM units ORDER BY finished")]

    def header(self) -> dict[str, Any]:
        """The header, parsed."""
        return {name: json.loads(value) for name, value in
                self._conn.execute("SELECT name, value FROM header")}

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "Checkpoint":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def read_costs(path: str) -> list[tuple[str, int, float]]:
    """(key, size, seconds) of every unit recorded in the checkpoint at ``path``, in the
    order they finished (read only; for cost models and benchmarks)."""
    try:
        with sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True) as conn:
            return Checkpoint(path, conn).costs()
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


def open_checkpoint(path: Any, kind: str, game: dict[str, Any],
                    params: dict[str, Any]) -> Checkpoint:
    """Open (or create) the checkpoint at ``path`` for a run of ``kind`` on ``game`` with
    ``params``; :class:`CheckpointError` if it cannot be read and written or belongs to
    another run.  Checked before any work, so a bad path costs nothing."""
    from ..version import __version__

    path = check_path(path)
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    wanted = {"format": FORMAT, "package": "mastermind", "version": __version__,
              "kind": kind, "game": game, "params": params}
    try:
        conn = sqlite3.connect(path, timeout=30.0, isolation_level="DEFERRED")
    except sqlite3.Error as e:
        raise _fail(path, f"cannot open it ({e})") from None
    try:
        conn.execute("PRAGMA synchronous = FULL")
        if fresh:
            with conn:
                conn.executescript(_SCHEMA)
                conn.executemany("INSERT INTO header (name, value) VALUES (?, ?)",
                                 [(k, _canonical(v)) for k, v in wanted.items()])
        else:
            _check_header(path, conn, wanted)
            with conn:  # a write now: an unwritable file is found before the work
                conn.execute("UPDATE header SET value = value WHERE name = 'format'")
    except sqlite3.DatabaseError as e:
        conn.close()
        text = str(e)
        if "not a database" in text or "malformed" in text:
            raise _fail(path, "is not a mastermind checkpoint (not an SQLite file)") from None
        if "readonly" in text or "read-only" in text or "unable to open" in text:
            raise _fail(path, "cannot be written (read-only file or folder)") from None
        raise _fail(path, f"cannot be used ({text})") from None
    except CheckpointError:
        conn.close()
        raise
    return Checkpoint(path, conn)


def _check_header(path: str, conn: sqlite3.Connection, wanted: dict[str, Any]) -> None:
    """Refuse a file whose header is not ``wanted``, naming the first difference."""
    try:
        rows = dict(conn.execute("SELECT name, value FROM header").fetchall())
        conn.execute("SELECT key, digest, size, seconds, worker, finished, result FROM units "
                     "LIMIT 0")
    except sqlite3.OperationalError:
        raise _fail(path, "is an SQLite file but not a mastermind checkpoint") from None
    have = {name: json.loads(value) for name, value in rows.items()}
    if have.get("package") != "mastermind":
        raise _fail(path, "is an SQLite file but not a mastermind checkpoint")
    if have.get("format") != FORMAT:
        raise _fail(path, f"has format {have.get('format')}, this version reads format "
                          f"{FORMAT}; give another file to start afresh")
    if have.get("version") != wanted["version"]:
        raise _fail(path, f"was written by mastermind {have.get('version')}, this is "
                          f"{wanted['version']}; give another file to start afresh")
    for name in ("kind", "game"):
        if have.get(name) != wanted[name]:
            raise _fail(path, f"was written for another run ({name}: {_show(have.get(name))} "
                              f"there, {_show(wanted[name])} here); give another file to "
                              "start afresh")
    there, here = have.get("params") or {}, wanted["params"]
    for name in list(here) + [n for n in there if n not in here]:
        if there.get(name) != here.get(name):
            raise _fail(path, f"was written for another run ({name}: "
                              f"{_show(there.get(name))} there, {_show(here.get(name))} "
                              "here); give another file to start afresh")


def _show(value: Any) -> str:
    if isinstance(value, dict) and value.get("type") == "game":
        return f"[{value.get('n')},{value.get('k')}] {value.get('variant')}"
    if isinstance(value, str):
        return value
    return _canonical(value)
