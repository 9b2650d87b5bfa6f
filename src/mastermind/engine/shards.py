"""A checkpoint's rows kept as append-only shards: compressed JSON-lines files in a
folder (``00001.jsonl.gz``, ``00002.jsonl.gz``, ...), each holding the rows finished
since the shard before it.  This is how a long campaign travels between machines and
lives in git: an export adds a shard of at most :data:`MOST_BYTES` and never rewrites
an earlier one; an import replays every shard, in order, into a new checkpoint.

A shard's first line says what it is: ``{"shard": N, "through": T, "units": U,
"header": {...}}`` (T: the latest finishing time of its rows, which the next export
starts after; the header: the checkpoint's, naming its run).  Then one line per unit
row: its key, input digest, size, seconds, worker and finishing time, and its answer as
JSON (``"answer"``: numbers as they are, arrays as ``{"dtype", "shape", "values"}``),
written so only when it encodes back to the very bytes the checkpoint holds (else the
bytes, ``"result"``, base64); the checksum binding an answer to its unit is not written
(the import computes it again from the same bytes).  Then one line per ``splits`` row
of those units (``{"split_of": KEY, "parent": ..., "split": ...}``), and, in the last
shard of an export, one line per question settled since the export before
(``{"drop": KEY}``: its answer replaced its split, and the rows below it were dropped;
the import drops them too).

A shard that cannot be read (damaged, truncated, of another run) or is missing (a gap
in the numbers) is named and left out: its units are run again.

>>> answer_from_json(answer_to_json({"ok": 1, "recs": np.arange(3, dtype=np.int16)}))
{'ok': 1, 'recs': array([0, 1, 2], dtype=int16)}
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import MastermindError
from .checkpoint import checksum, connect_read_only, decode, encode, open_checkpoint

__all__ = [
    "MOST_BYTES",
    "Imported",
    "ShardError",
    "answer_from_json",
    "answer_to_json",
    "behind",
    "export_shards",
    "import_shards",
    "read_header",
    "shard_paths",
]

MOST_BYTES = 10 << 20
"""The most compressed bytes a shard holds (an export of more rows writes several)."""

SLACK = 1 << 20
"""Room a shard keeps below :data:`MOST_BYTES`: what the compressor still holds when the
shard is cut, its first line and its splits."""
_UNIT_FIELDS = ("key", "digest", "size", "seconds", "worker", "finished")
_BAD = (KeyError, TypeError, ValueError, OSError, EOFError, zlib.error, sqlite3.Error)


class ShardError(MastermindError):
    """Shards that cannot be used at all (none readable, or of another run)."""


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


def answer_from_json(doc: dict[str, Any]) -> dict[str, Any]:
    """The answer :func:`answer_to_json` wrote, ready to be encoded."""
    out: dict[str, Any] = {}
    for name, value in doc.items():
        if isinstance(value, dict):
            out[name] = np.asarray(value["values"], dtype=np.dtype(value["dtype"])).reshape(
                value["shape"]
            )
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
        if encode(answer_from_json(doc)) != blob:
            doc = None
        if len(blob) <= 1024:
            seen[blob] = doc
    if doc is None:
        rec["result"] = base64.b64encode(blob).decode()
    else:
        rec["answer"] = doc
    return json.dumps(rec, separators=(",", ":")) + "\n"


# ---------------------------------------------------------------------- export
def shard_paths(folder: str | os.PathLike) -> list[Path]:
    """The shards of ``folder``, in order."""
    return sorted(Path(folder).glob("[0-9]*.jsonl.gz"), key=lambda p: int(p.name.split(".")[0]))


def _opening(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt") as src:
        first = json.loads(src.readline())
    if not isinstance(first, dict) or not isinstance(first.get("through"), (int, float)):
        raise ValueError("no shard line")
    return first


def _last(folder: Path) -> tuple[int, float]:
    """(number, through) of the last shard that can be read; (0, 0) for none."""
    for path in reversed(shard_paths(folder)):
        try:
            return int(path.name.split(".")[0]), float(_opening(path)["through"])
        except _BAD:
            continue
    return 0, 0.0


def behind(checkpoint: str, folder: str | os.PathLike) -> bool:
    """Whether ``checkpoint`` lacks the rows of the last shard of ``folder`` (a shard that
    came with the files after the checkpoint was made, from another machine): the last
    row it finished or dropped is older than the shard's ``through``.  (A checkpoint that
    also holds rows of its own past that shard is not told apart: it goes on as it is.)"""
    _, through = _last(Path(folder))
    if through <= 0:
        return False
    conn = connect_read_only(checkpoint)
    try:
        latest = conn.execute("SELECT MAX(finished) FROM units").fetchone()[0] or 0.0
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "dropped" in tables:
            dropped = conn.execute("SELECT MAX(at) FROM dropped").fetchone()[0] or 0.0
            latest = max(latest, dropped)
    finally:
        conn.close()
    return float(latest) < through


def export_shards(checkpoint: str, folder: str | os.PathLike) -> list[Path]:
    """The rows of ``checkpoint`` finished after the last shard of ``folder``, written as
    new shards (each written to a temporary file first, so a stopped export leaves no
    part of one); the shards written (none when nothing is new)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    number, through = _last(folder)
    conn = connect_read_only(checkpoint)
    try:
        header = {name: json.loads(value) for name, value in conn.execute("SELECT * FROM header")}
        rows = conn.execute(
            "SELECT key, digest, size, seconds, worker, finished, result FROM units "
            "WHERE finished > ? ORDER BY finished",
            (through,),
        ).fetchall()
        splits = dict(
            ((k, (p, s)) for k, p, s in conn.execute("SELECT key, parent, split FROM splits"))
        )
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        drops = []  # (a checkpoint of a version that never dropped rows has no table)
        if "dropped" in tables:
            query = "SELECT key, at FROM dropped WHERE at > ? ORDER BY at"
            drops = conn.execute(query, (through,)).fetchall()
    finally:
        conn.close()
    written: list[Path] = []
    seen: dict[bytes, Any] = {}
    start = 0
    while start < len(rows) or (drops and not written):
        number += 1
        path, start = _write_shard(folder, number, header, (rows, start), splits, seen, drops)
        written.append(path)
    return written


def _write_shard(
    folder: Path,
    number: int,
    header: dict[str, Any],
    rows_from: tuple[list[tuple], int],
    splits: dict[str, tuple[str, int]],
    seen: dict[bytes, Any],
    drops: list[tuple[str, float]],
) -> tuple[Path, int]:
    """Shard ``number``: the rows from ``start`` until it holds :data:`MOST_BYTES`; its
    path and where the next one starts.  The drops since the last export go into the
    export's last shard (an export stopped before it leaves them to the next one)."""
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
    last = end == len(rows)
    drops = drops if last else []
    through = max([row[5] for row in rows[start:end]] + [at for _, at in drops])
    first = {"shard": number, "through": through, "units": end - start, "header": header}
    path = folder / f"{number:05d}.jsonl.gz"
    tmp = folder / f".{number:05d}.jsonl.gz.part"
    with gzip.open(tmp, "wt") as out:
        out.write(json.dumps(first) + "\n")
        out.writelines(lines)
        for key in keys:
            if key in splits:
                parent, split = splits[key]
                out.write(json.dumps({"split_of": key, "parent": parent, "split": split}) + "\n")
        out.writelines(json.dumps({"drop": key, "at": at}) + "\n" for key, at in drops)
    os.replace(tmp, path)
    return path, end


# ---------------------------------------------------------------------- import
def read_header(folder: str | os.PathLike) -> dict[str, Any]:
    """The run the shards of ``folder`` belong to (the first readable shard's header)."""
    for path in shard_paths(folder):
        try:
            return dict(_opening(path)["header"])
        except _BAD:
            continue
    raise ShardError(f"{folder}: no readable shard")


def _rows(path: Path, header: dict[str, Any]) -> Iterator[tuple[str, tuple]]:
    """A shard's rows, checked: ("unit", row) and ("split", row)."""
    encoded: dict[str, bytes] = {}
    with gzip.open(path, "rt") as src:
        first = json.loads(src.readline())
        if first.get("header", header) != header:
            raise ValueError("it belongs to another run")
        for line in src:
            rec = json.loads(line)
            if "split_of" in rec:
                yield "split", (rec["split_of"], str(rec["parent"]), int(rec["split"]))
            elif "drop" in rec:
                yield "drop", (rec["drop"] + "/", rec["drop"] + "0")  # (the keys below it)
            elif "header" not in rec:
                yield "unit", _unit_row(rec, encoded)


def _unit_row(rec: dict[str, Any], encoded: dict[str, bytes]) -> tuple:
    """A unit's line as the row the checkpoint's table of units holds."""
    if "answer" in rec:
        text = json.dumps(rec["answer"], sort_keys=True)
        blob = encoded.get(text)
        if blob is None:
            blob = encode(answer_from_json(rec["answer"]))
            if len(blob) <= 1024:
                encoded[text] = blob
    else:
        blob = base64.b64decode(rec["result"], validate=True)
    digest = checksum(rec["key"], rec["digest"], blob)
    if "checksum" in rec and rec["checksum"] != digest:
        raise ValueError(f"unit {rec['key']}: its answer does not match its checksum")
    return (*(rec[f] for f in _UNIT_FIELDS), blob, digest)


_STATEMENTS = {
    "unit": "INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "split": "INSERT OR REPLACE INTO splits VALUES (?, ?, ?)",
    "drop": "DELETE FROM units WHERE key > ? AND key < ?",
}


def import_shards(folder: str | os.PathLike, checkpoint: str, expected: int = 0) -> Imported:
    """A new checkpoint made from the shards of ``folder``, in order (a later row of a
    key replaces an earlier one).  A shard that cannot be read whole, or a number
    missing among them (or after them, up to the ``expected`` count), is named in
    ``problems`` and left out; :class:`ShardError` when no shard can be read (no
    checkpoint is left behind then)."""
    paths = shard_paths(folder)
    header = read_header(folder)
    open_checkpoint(checkpoint, header["kind"], header["game"], header["params"]).close()
    problems, units, taken = [], 0, 0
    numbers = [int(p.name.split(".")[0]) for p in paths]
    for missing in sorted(set(range(1, max([expected, *numbers]) + 1)) - set(numbers)):
        problems.append(f"shard {missing:05d} is missing: its units run again")
    with sqlite3.connect(checkpoint) as conn:
        for path in paths:
            try:
                rows = list(_rows(path, header))
            except _BAD as e:
                problems.append(f"{path.name} cannot be read ({_why(e)}): its units run again")
                continue
            for kind, row in rows:
                conn.execute(_STATEMENTS[kind], row)
                if kind == "drop":
                    conn.execute("DELETE FROM splits WHERE key > ? AND key < ?", row)
                units += kind == "unit"
            taken += 1
    conn.close()
    return Imported(units, taken, problems)


def _why(e: BaseException) -> str:
    return f"no field {e}" if isinstance(e, KeyError) else str(e) or type(e).__name__
