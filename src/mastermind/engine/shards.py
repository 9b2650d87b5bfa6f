"""A checkpoint's rows kept as append-only shards: compressed JSON-lines files in a
folder (``00001.jsonl.gz``, ``00002.jsonl.gz``, ...), each holding rows the shards before
it do not.  This is how a long campaign travels between machines and lives in git: an
export adds a shard of at most :data:`MOST_BYTES` and never rewrites an earlier one; an
import replays every shard, in the order of their numbers, into a new checkpoint.

A shard's first line says what it is: ``{"shard": N, "through": T, "units": U,
"header": {...}}`` (T: the latest finishing time of its rows, by its writer's clock, kept
for the record and never compared; U: its unit lines; the header: the checkpoint's,
naming its run).  Then one line per unit row: its key, input digest, size, seconds,
worker and finishing time, and its answer as JSON (``"answer"``: numbers as they are,
arrays as ``{"dtype", "shape", "values"}``), written so only when it encodes back to the
very bytes the checkpoint holds (else the bytes, ``"result"``, base64); the checksum
binding an answer to its unit is not written (the import computes it again from the same
bytes).  Then one line per ``splits`` row of those units (``{"split_of": KEY, "parent":
..., "split": ...}``).

Nothing in a shard takes away what another recorded.  A question decided after it split
keeps its whole answer, and the rows below it are no longer needed: the checkpoint drops
them as it goes, and an import leaves out, once every shard is read, the rows below any
unit whose answer is whole (earlier versions wrote ``{"drop": KEY}`` lines for this; they
are read and ignored).

Which rows an export writes, and whether a checkpoint lacks a shard, is decided by names,
never by clocks: the checkpoint keeps the (key, finishing time) of every row a shard holds
(table ``exported``) and the name and size of every shard it wrote or took (table
``shard_files``); an export writes the rows not among them, as the shard numbered one past
the highest number present.

Shards are input from strangers: :mod:`mastermind.engine.shard_reader` reads them, typed
and bounded.  A shard that cannot be read (a link, damaged, truncated, malformed, of
another run) or is missing (a gap in the numbers) is named once and left out: its units
run again.  A campaign's folder gets its checkpoint made again from its shards, where it
has none or lacks one of them, by :func:`restore_checkpoint`.

>>> answer_from_json(answer_to_json({"ok": 1, "recs": np.arange(3, dtype=np.int16)}))
{'ok': 1, 'recs': array([0, 1, 2], dtype=int16)}
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, Optional

import numpy as np

from ..errors import MastermindError
from .checkpoint import open_checkpoint
from .folder import CampaignFileError
from .own_files import OwnDestination, open_own
from .rows import LOCK_SECONDS, connect_read_only, decode, encode
from .shard_answers import answer_from_json
from .shard_reader import ERRORS, MOST_COMPRESSED, read_rows

__all__ = [
    "MOST_BYTES",
    "Imported",
    "ShardError",
    "answer_from_json",
    "answer_to_json",
    "behind",
    "export_shards",
    "import_shards",
    "restore_checkpoint",
    "shard_number",
    "shard_paths",
    "unusable",
]

MOST_BYTES = 10 << 20
"""The most compressed bytes a shard holds (an export of more rows writes several)."""

SLACK = 1 << 20
"""Room a shard keeps below :data:`MOST_BYTES`: what the compressor still holds when the
shard is cut, its first line and its splits."""
_UNIT_FIELDS = ("key", "digest", "size", "seconds", "worker", "finished")
_NAME = re.compile(r"([0-9]{1,30})\.jsonl\.gz")
_MOST_PROBLEMS = 20  # lines naming gaps in the numbers, at most (then how many more)

_TABLES = """
CREATE TABLE IF NOT EXISTS exported (key TEXT PRIMARY KEY, finished REAL NOT NULL);
CREATE TABLE IF NOT EXISTS shard_files (name TEXT PRIMARY KEY, bytes INTEGER NOT NULL);
"""


class ShardError(MastermindError):
    """Shards that cannot be used at all (a folder with none)."""


class Imported(NamedTuple):
    """What an import took: the units, the shards read, and one line for each shard
    left out (its units run again)."""

    units: int
    shards: int
    problems: list[str]


# ---------------------------------------------------------------------- answers
def answer_to_json(result: dict[str, Any]) -> dict[str, Any]:
    """A unit's decoded answer as JSON values (arrays with their dtype and shape)."""
    out: dict[str, Any] = {}
    for name, value in result.items():
        if isinstance(value, np.ndarray):
            out[name] = {
                "dtype": value.dtype.str,
                "shape": list(value.shape),
                "values": value.ravel().tolist(),
            }
        else:
            out[name] = value
    return out


def _line_of(row: tuple, seen: dict[bytes, Any]) -> str:
    """A unit row's line: its answer as JSON when that encodes back to its very bytes
    (answers repeat: ``seen`` keeps the small ones already converted)."""
    rec: dict[str, Any] = dict(zip(_UNIT_FIELDS, row[:6]))
    blob = bytes(row[6])
    doc = seen.get(blob, False)
    if doc is False:
        doc = answer_to_json(decode(blob))
        try:  # (an answer the import would not read back as it is: its bytes)
            if encode(answer_from_json(doc)) != blob:
                doc = None
        except ERRORS:
            doc = None
        if len(blob) <= 1024:
            seen[blob] = doc
    if doc is None:
        rec["result"] = base64.b64encode(blob).decode()
    else:
        rec["answer"] = doc
    return json.dumps(rec, separators=(",", ":")) + "\n"


# ---------------------------------------------------------------------- names
def shard_number(path: Path) -> int:
    """The number a shard's name gives it (``00012.jsonl.gz``: 12)."""
    return int(path.name.split(".")[0])


def shard_paths(folder: str | os.PathLike) -> list[Path]:
    """The shards of ``folder`` (names of digits then ``.jsonl.gz``, whatever they are),
    in the order of their numbers; none when there is no such folder."""
    try:
        names = [e.name for e in os.scandir(os.fspath(folder))]
    except (FileNotFoundError, NotADirectoryError):
        return []
    paths = [Path(folder) / n for n in names if _NAME.fullmatch(str(n))]
    return sorted(paths, key=lambda p: (shard_number(p), p.name))


def _size(path: Path) -> int:
    """A shard's bytes (never through a link: a link's own)."""
    try:
        return os.lstat(path).st_size
    except OSError:
        return -1


def _gaps(numbers: list[int], expected: int) -> list[str]:
    """One line per run of numbers missing below the highest (or ``expected``)."""
    have = sorted(set(numbers))
    ends = have + ([expected + 1] if expected > (have[-1] if have else 0) else [])
    lines, last = [], 0
    for n in ends:
        if n == last + 2:
            lines.append(f"shard {last + 1:05d} is missing: its units run again")
        elif n > last + 2:
            lines.append(f"shards {last + 1:05d} to {n - 1:05d} are missing: their units run again")
        last = n
    if len(lines) > _MOST_PROBLEMS:
        more = len(lines) - _MOST_PROBLEMS
        lines = lines[:_MOST_PROBLEMS] + [f"and {more} more gaps in the shards' numbers"]
    return lines


# ---------------------------------------------------------------------- export
def behind(checkpoint: str, folder: str | os.PathLike) -> bool:
    """Whether ``folder`` holds a shard ``checkpoint`` has neither written nor taken (by
    name and size: one that came with the files from another machine); a checkpoint of
    an earlier version, which does not say, is behind any shard."""
    present = {(p.name, _size(p)) for p in shard_paths(folder)}
    if not present:
        return False
    conn = connect_read_only(checkpoint)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "shard_files" not in tables:
            return True
        known = set(conn.execute("SELECT name, bytes FROM shard_files"))
    finally:
        conn.close()
    return not present <= known


def export_shards(checkpoint: str, folder: str | os.PathLike) -> list[Path]:
    """The rows of ``checkpoint`` no shard holds yet, written as new shards in
    ``folder`` (each whole or not at all), and noted in the checkpoint; the shards
    written (none when nothing is new)."""
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    number = max((shard_number(p) for p in shard_paths(folder)), default=0)
    uri = Path(checkpoint).resolve().as_uri() + "?mode=rw"  # (never made here)
    conn = sqlite3.connect(uri, uri=True, timeout=LOCK_SECONDS)
    written: list[Path] = []
    try:
        with conn:
            conn.executescript(_TABLES)
        header = {name: json.loads(value) for name, value in conn.execute("SELECT * FROM header")}
        rows = conn.execute(
            "SELECT u.key, u.digest, u.size, u.seconds, u.worker, u.finished, u.result "
            "FROM units u LEFT JOIN exported e ON e.key = u.key "
            "WHERE e.finished IS NULL OR e.finished != u.finished ORDER BY u.finished"
        ).fetchall()
        splits = {k: (p, s) for k, p, s in conn.execute("SELECT key, parent, split FROM splits")}
        seen: dict[bytes, Any] = {}
        start = 0
        while start < len(rows):
            number += 1
            path, end = _write_shard(folder, number, header, (rows, start), splits, seen)
            with conn:  # (after the shard: a stop between the two writes it again)
                conn.executemany(
                    "INSERT OR REPLACE INTO exported VALUES (?, ?)",
                    [(row[0], row[5]) for row in rows[start:end]],
                )
                conn.execute(
                    "INSERT OR REPLACE INTO shard_files VALUES (?, ?)", (path.name, _size(path))
                )
            written.append(path)
            start = end
    finally:
        conn.close()
    return written


def _write_shard(
    folder: Path,
    number: int,
    header: dict[str, Any],
    rows_from: tuple[list[tuple], int],
    splits: dict[str, tuple[str, int]],
    seen: dict[bytes, Any],
) -> tuple[Path, int]:
    """Shard ``number``: the rows from ``start`` until it holds :data:`MOST_BYTES`; its
    path and where the next one starts."""
    rows, start = rows_from
    lines: list[str] = []
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)  # (gzip's own: measures the shard)
    produced, held, end = 0, 0, start
    # compressed so far, and what the compressor holds counted at 4:1 (JSON lines compress
    # about 4.5:1): the shard's size, over-estimated
    while end < len(rows) and (end == start or produced + held // 4 < MOST_BYTES - SLACK):
        lines.append(_line_of(rows[end], seen))
        chunk = squeeze.compress(lines[-1].encode())
        produced, held = (produced + len(chunk), 0) if chunk else (produced, held + len(lines[-1]))
        end += 1
    keys = [row[0] for row in rows[start:end]]
    through = max(row[5] for row in rows[start:end])
    first = {"shard": number, "through": through, "units": end - start, "header": header}
    path = folder / f"{number:05d}.jsonl.gz"
    with (
        OwnDestination(str(path), "a shard") as out,
        gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as z,
    ):
        z.write((json.dumps(first) + "\n").encode())
        z.write("".join(lines).encode())
        for key in keys:
            if key in splits:
                parent, split = splits[key]
                z.write(
                    (
                        json.dumps({"split_of": key, "parent": parent, "split": split}) + "\n"
                    ).encode()
                )
    return path, end


# ---------------------------------------------------------------------- import
def import_shards(
    folder: str | os.PathLike,
    checkpoint: str,
    want: dict[str, Any],
    expected: int = 0,
) -> Imported:
    """A new checkpoint for the run ``want`` (its ``kind``, ``game`` and ``params``) made
    from the shards of ``folder``, in the order of their numbers (a later row of a key
    replaces an earlier one), then the rows below a whole answer left out.  A shard that
    cannot be read whole, or of another run, or a number missing among them (or after
    them, up to the ``expected`` count), is named in ``problems`` and left out;
    :class:`ShardError` when the folder holds no shard (no checkpoint is made then)."""
    paths = shard_paths(folder)
    if not paths:
        raise ShardError(f"{folder}: no shard")
    problems = _gaps([shard_number(p) for p in paths], expected)
    open_checkpoint(checkpoint, want["kind"], want["game"], want["params"]).close()
    units = taken = 0
    conn = sqlite3.connect(checkpoint, timeout=LOCK_SECONDS, isolation_level=None)
    try:
        conn.executescript(_TABLES)
        conn.execute("BEGIN")
        for path in paths:
            got = _take(conn, path, want)
            if isinstance(got, str):
                problems.append(f"{path.name} cannot be read ({got}): its units run again")
            else:
                units, taken = units + got, taken + 1
            conn.execute(
                "INSERT OR REPLACE INTO shard_files VALUES (?, ?)", (path.name, _size(path))
            )
        _leave_out_below_whole(conn)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return Imported(units, taken, problems)


_STATEMENTS = {
    "unit": "INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "split": "INSERT OR REPLACE INTO splits VALUES (?, ?, ?)",
}


def _take(conn: sqlite3.Connection, path: Path, want: dict[str, Any]) -> int | str:
    """One shard's rows into the checkpoint, all or none: their number, or why not."""
    conn.execute("SAVEPOINT shard")
    units = 0
    try:
        with open_own(str(path), "a shard", MOST_COMPRESSED) as raw:
            for kind, row in read_rows(raw, want):
                conn.execute(_STATEMENTS[kind], row)
                if kind == "unit":
                    conn.execute("INSERT OR REPLACE INTO exported VALUES (?, ?)", (row[0], row[5]))
                    units += 1
    except ERRORS as e:
        conn.execute("ROLLBACK TO shard")
        conn.execute("RELEASE shard")
        return _why(e)
    conn.execute("RELEASE shard")
    return units


def _leave_out_below_whole(conn: sqlite3.Connection) -> None:
    """The rows below a unit whose answer is whole (not a split) left out: its question
    was decided, so they are no longer needed (what the checkpoint that recorded them
    did when it was decided)."""
    whole = {
        row[0]
        for row in conn.execute(
            "SELECT u.key FROM units u LEFT JOIN splits s ON s.key = u.key "
            "WHERE COALESCE(s.split, 0) = 0"
        )
    }
    for table in ("units", "splits"):
        below = [
            (key,)
            for (key,) in conn.execute(f"SELECT key FROM {table}")  # noqa: S608 (ours)
            if any(key[:i] in whole for i, c in enumerate(key) if c == "/")
        ]
        conn.executemany(f"DELETE FROM {table} WHERE key = ?", below)  # noqa: S608 (ours)


def _why(e: BaseException) -> str:
    """One line saying why a shard cannot be used."""
    text = f"no field {e}" if isinstance(e, KeyError) else str(e) or type(e).__name__
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


def restore_checkpoint(
    checkpoint: str,
    shards: str,
    want: dict[str, Any],
    expected: int,
    log: Callable[[str], None],
) -> Optional[Imported]:
    """The checkpoint made again from the shards when there is none (a fresh clone) or
    when it lacks one of them (a shard that came with the files: the old checkpoint is
    kept aside as ``checkpoint.sqlite.behind``); each shard left out is said once (its
    units run again).  ``want``: the run the shards must belong to (its ``kind``,
    ``game`` and ``params``); ``expected``: the shards the last export left.  None when
    nothing was made.  To be called under the campaign's lock (:func:`hold`)."""
    if not shard_paths(shards):
        return None
    if os.path.exists(checkpoint):
        try:
            stale = behind(checkpoint, shards)
        except sqlite3.Error as e:
            raise unusable(checkpoint, e) from None
        if not stale:
            return None
        aside = checkpoint + ".behind"
        os.replace(checkpoint, aside)
        log(f"the checkpoint is behind the shards: kept as {aside}")
    got = import_shards(shards, checkpoint, want, expected)
    for line in got.problems:
        log(line)
    log(f"checkpoint made again from {got.shards} shards: {got.units} units")
    return got


def unusable(checkpoint: str, e: Exception) -> CampaignFileError:
    """A checkpoint SQLite cannot read, said in one line with what to do."""
    why = " ".join(str(e).split())[:120]
    return CampaignFileError(
        f"{checkpoint} cannot be read as a checkpoint ({why}): move it away, and "
        "the next run makes it again from the shards"
    )
