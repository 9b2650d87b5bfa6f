"""Where a campaign checkpoint's answers come from: computed by this checkpoint's runs,
imported from the shards (another machine's, or anyone's: a shard is a file of its
own), re-run here and found the same, or of unknown origin (a checkpoint made before
origins were kept).

A table of the checkpoint, ``campaign_origins`` (key, finished, origin), written by the
campaign alone: every row a restore imports is marked ``imported``, with its finishing
time; a row re-checked here and found right is marked ``rechecked``.  A row whose key
and finishing time match an entry has that entry's origin; any other row was written
by a run of this checkpoint (a unit run, or a question settled from its sub-answers:
that one is ``imported`` when an imported answer lay below it).  A checkpoint without
the table is older than it: its rows are of unknown origin.  ``campaign_rechecks``
keeps each re-check's verdict (the wrong ones said by every status after it).

The checkpoint is the machine's own: it is not in git (the shards are), so "here"
means this checkpoint's runs.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager

from ...engine.rows import LOCK_SECONDS, connect_read_only

__all__ = [
    "HERE",
    "IMPORTED",
    "RECHECKED",
    "UNKNOWN",
    "confirmed",
    "found_wrong",
    "mark_imported",
    "origin_of",
    "replaced",
    "track",
]

HERE, IMPORTED, RECHECKED, UNKNOWN = "here", "imported", "rechecked", "unknown"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS campaign_origins (
    key TEXT PRIMARY KEY, finished REAL NOT NULL, origin TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS campaign_rechecks (
    key TEXT NOT NULL, at REAL NOT NULL, origin TEXT NOT NULL, wrong INTEGER NOT NULL
);
"""


@contextmanager
def _writing(path: str, *, fresh: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection that writes the campaign's tables, committed at the end (the engine's
    own connection to the file, if open, must have nothing uncommitted).  The tables are
    made at the first write: the rows a checkpoint then holds are of unknown origin,
    unless it is ``fresh`` (made by the run that writes now, before any row)."""
    with closing(sqlite3.connect(path, timeout=LOCK_SECONDS)) as conn, conn:
        if not _tracked(conn):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            if not fresh:
                conn.execute(
                    "INSERT OR REPLACE INTO campaign_origins (key, finished, origin) "
                    "SELECT key, finished, ? FROM units",
                    (UNKNOWN,),
                )
        yield conn


def _tracked(conn: sqlite3.Connection) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'campaign_origins'"
    return conn.execute(query).fetchone() is not None


def mark_imported(path: str) -> None:
    """Every row of a checkpoint just made from the shards: imported."""
    with _writing(path) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO campaign_origins (key, finished, origin) "
            "SELECT key, finished, ? FROM units",
            (IMPORTED,),
        )


def track(path: str, *, fresh: bool) -> None:
    """The origins of a checkpoint a run has just opened, kept from now on: a ``fresh``
    one has no row to mark; the rows of one made before origins were kept are of
    unknown origin."""
    with _writing(path, fresh=fresh):
        pass


def origin_of(conn: sqlite3.Connection, key: str, finished: float) -> str:
    """The origin of the row (``key``, ``finished``) of the checkpoint open on ``conn``."""
    if not _tracked(conn):
        return UNKNOWN
    row = conn.execute(
        "SELECT origin FROM campaign_origins WHERE key = ? AND finished = ?", (key, finished)
    ).fetchone()
    if row is not None:
        return str(row[0])
    below = conn.execute(  # (a question settled here from answers imported below it)
        "SELECT origin FROM campaign_origins WHERE key > ? AND key < ? AND origin != ? LIMIT 1",
        (key + "/", key + "0", RECHECKED),
    ).fetchone()
    return HERE if below is None else str(below[0])


def confirmed(path: str, key: str, finished: float, origin: str) -> None:
    """A re-check found the answer of ``key`` (its row finished at ``finished``) right:
    the row is marked re-checked."""
    with _writing(path) as conn:
        _said(conn, key, origin, wrong=False)
        conn.execute(
            "INSERT OR REPLACE INTO campaign_origins (key, finished, origin) VALUES (?, ?, ?)",
            (key, finished, RECHECKED),
        )


def replaced(path: str, key: str, origin: str, *, wrong: bool) -> None:
    """The row of ``key`` was replaced by a re-run here (the answer it held ``wrong``,
    or not): the row is this checkpoint's own, and what was below it is forgotten."""
    with _writing(path) as conn:
        _said(conn, key, origin, wrong=wrong)
        conn.execute(
            "DELETE FROM campaign_origins WHERE key = ? OR (key > ? AND key < ?)",
            (key, key + "/", key + "0"),
        )


def _said(conn: sqlite3.Connection, key: str, origin: str, *, wrong: bool) -> None:
    conn.execute(
        "INSERT INTO campaign_rechecks (key, at, origin, wrong) VALUES (?, ?, ?, ?)",
        (key, time.time(), origin, int(wrong)),
    )


def found_wrong(path: str) -> list[tuple[str, str]]:
    """(key, origin) of every answer a re-check found wrong, in order."""
    with closing(connect_read_only(path)) as conn:
        try:
            rows = conn.execute(
                "SELECT key, origin FROM campaign_rechecks WHERE wrong = 1 ORDER BY at"
            ).fetchall()
        except sqlite3.OperationalError:  # (no re-check yet: no table)
            return []
    return [(str(k), str(o)) for k, o in rows]
