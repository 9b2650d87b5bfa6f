"""A checkpoint's rows to and from a compressed JSON lines file (the copy kept in git).

One line per row: the header's rows (``{"header": NAME, "value": JSON}``) first, then
one per finished unit, then one per split (``{"split_of": KEY, "parent": ..., "split":
...}``).  A unit's line carries its key, input digest, size, seconds, worker and finish
time as they are in the checkpoint, and its answer as JSON (``"answer"``): numbers as
they are, arrays as ``{"dtype", "shape", "values"}``.  An answer is written so only when
it encodes back to the very bytes the checkpoint holds (checked row by row); otherwise
the line keeps those bytes (``"result"``, base64).  The checksum binding an answer to
its unit is not written (the import computes it again from the same bytes), which with
the JSON answers makes the file less than half the size of the bytes and checksums.
Files of the earlier form (every line with ``"result"`` and ``"checksum"``) still
import; their checksums are checked.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import sqlite3
from typing import Any

import numpy as np

from mastermind.engine.checkpoint import (
    checksum,
    connect_read_only,
    decode,
    encode,
    open_checkpoint,
)

_UNIT_FIELDS = ("key", "digest", "size", "seconds", "worker", "finished")


class RowsError(ValueError):
    """A rows file that cannot be imported (the message names the line)."""


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
    """The answer :func:`answer_to_json` wrote, ready for ``encode``."""
    out: dict[str, Any] = {}
    for name, value in doc.items():
        if isinstance(value, dict):
            out[name] = np.asarray(value["values"], dtype=np.dtype(value["dtype"])).reshape(
                value["shape"]
            )
        else:
            out[name] = value
    return out


def _blob_to_json(blob: bytes, seen: dict[bytes, Any]) -> Any:
    """The JSON answer of a unit's bytes, or None when it would not encode back to them.
    Answers repeat (a refutation is its flag and its count of nodes): ``seen`` keeps
    the small ones already converted."""
    if blob in seen:
        return seen[blob]
    doc: Any = answer_to_json(decode(blob))
    if encode(answer_from_json(doc)) != blob:
        doc = None
    if len(blob) <= 1024:
        seen[blob] = doc
    return doc


def export_rows(checkpoint: str, file: str) -> int:
    """Every row of ``checkpoint`` written to ``file`` (via a temporary file beside it,
    so a stopped export leaves the previous file whole); the number of units."""
    conn = connect_read_only(checkpoint)
    n = 0
    seen: dict[bytes, Any] = {}
    tmp = file + ".tmp"
    try:
        with gzip.open(tmp, "wt") as out:
            for name, value in conn.execute("SELECT name, value FROM header"):
                out.write(json.dumps({"header": name, "value": value}) + "\n")
            for row in conn.execute(
                "SELECT key, digest, size, seconds, worker, finished, result FROM units"
            ):
                rec = dict(zip(_UNIT_FIELDS, row[:6]))
                blob = bytes(row[6])
                doc = _blob_to_json(blob, seen)
                if doc is None:
                    rec["result"] = base64.b64encode(blob).decode()
                else:
                    rec["answer"] = doc
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                n += 1
            for key, parent, split in conn.execute("SELECT key, parent, split FROM splits"):
                out.write(json.dumps({"split_of": key, "parent": parent, "split": split}) + "\n")
        os.replace(tmp, file)
    finally:
        conn.close()
        if os.path.exists(tmp):
            os.unlink(tmp)
    return n


def _why(e: BaseException) -> str:
    return f"no field {e}" if isinstance(e, KeyError) else str(e) or type(e).__name__


_BAD_FILE = (KeyError, TypeError, ValueError, OSError, EOFError, sqlite3.Error)


def read_header(file: str) -> dict[str, Any]:
    """The header rows at the start of a rows file, parsed; :class:`RowsError` when the
    file is not one."""
    header: dict[str, Any] = {}
    try:
        with gzip.open(file, "rt") as src:
            for line in src:
                if not line.startswith('{"header"'):
                    break  # (the first unit's line, read whole by the import)
                rec = json.loads(line)
                header[rec["header"]] = json.loads(rec["value"])
    except _BAD_FILE as e:
        raise RowsError(f"{file}: not a file of checkpoint rows ({_why(e)})") from None
    return header


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
        blob = base64.b64decode(rec["result"])
    digest = checksum(rec["key"], rec["digest"], blob)
    if "checksum" in rec and rec["checksum"] != digest:
        raise RowsError(f"unit {rec['key']}: its answer does not match its checksum")
    return (*(rec[f] for f in _UNIT_FIELDS), blob, digest)


def import_rows(file: str, checkpoint: str) -> int:
    """A new checkpoint made from ``file`` (the engine makes the file, its tables and
    header; then the rows go in, in one transaction); the number of units.  A file that
    cannot be read whole is a :class:`RowsError` naming the line, and leaves no
    checkpoint behind (a run would take an empty one for the state)."""
    header = read_header(file)
    try:
        kind, game, params = header["kind"], header["game"], header["params"]
    except KeyError as e:
        raise RowsError(f"{file}: not a file of checkpoint rows ({_why(e)})") from None
    open_checkpoint(checkpoint, kind, game, params).close()
    conn = sqlite3.connect(checkpoint)
    n = 0
    at = 1  # the line being read
    encoded: dict[str, bytes] = {}
    try:
        with conn, gzip.open(file, "rt") as src:
            for line in src:
                rec = json.loads(line)
                if "header" in rec:
                    pass
                elif "split_of" in rec:
                    conn.execute(
                        "INSERT INTO splits VALUES (?, ?, ?)",
                        (rec["split_of"], rec["parent"], rec["split"]),
                    )
                else:
                    conn.execute(
                        "INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        _unit_row(rec, encoded),
                    )
                    n += 1
                at += 1
    except _BAD_FILE as e:
        conn.close()
        os.unlink(checkpoint)
        raise RowsError(f"{file}, line {at}: {_why(e)}") from None
    conn.close()
    return n
