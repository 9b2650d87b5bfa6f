"""A shard (:mod:`mastermind.engine.shards`) read as what it is: a file from a stranger.

Whoever can commit to a campaign's folder can put any bytes in ``shards/``, so a shard
is read with a bounded, typed reader: every field of every line has the type and range
the export writes (a unit's key, digest, size, seconds, worker and time; its answer's
numbers and arrays; a split's parent and flag), each checked before anything is made
from it, and nothing is read past a cap:

- the file: a regular file (never through a link, never a FIFO or a device) of at most
  :data:`MOST_COMPRESSED` bytes, at most :data:`MOST_TEXT` bytes once decompressed, no
  line longer than :data:`MOST_LINE`;
- an answer: numbers and arrays of the dtypes answers use, each sized before it is made
  (:mod:`mastermind.engine.shard_answers`);
- the first line: the shard's number, ``through``, its count of units (the unit lines
  must number exactly that: a shard cut at a line's end is found), and the run's header,
  which must be the campaign's (kind, game and parameters).

A shard holds rows and nothing else: no record kind takes away what others recorded (the
``{"drop": KEY}`` lines of earlier versions are read, checked and ignored; what they said
follows from the rows themselves: :func:`~mastermind.engine.shards.import_shards`).  A
shard that fails any of this is a :class:`MalformedShard`, named by its caller and left
out; its units run again.  What the reader cannot tell is whether an answer is true: a
row forged with the right types reads as any other (docs/distributed.md).
"""

from __future__ import annotations

import gzip
import json
import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any, NamedTuple, Optional

from .rows import checksum, encode
from .shard_answers import (
    MalformedShard,
    answer_bytes,
    answer_from_json,
    typed_int,
    typed_object,
    typed_real,
)

__all__ = [
    "ERRORS",
    "MOST_COMPRESSED",
    "MOST_LINE",
    "MOST_TEXT",
    "MalformedShard",
    "Opening",
    "read_opening",
    "read_rows",
    "same_run",
]

MOST_COMPRESSED = 16 << 20
"""The most bytes a shard file may hold (an export writes at most 10 MB)."""

MOST_TEXT = 256 << 20
"""The most bytes a shard may hold once decompressed (JSON lines compress about 4.5:1)."""

MOST_LINE = 16 << 20
"""The longest line of a shard (a unit's answer with its witness records)."""

LOOSE_PARAMS = frozenset({"memory"})
"""Header parameters no answer depends on (the checkpoint's own list)."""

_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,63}(?:/[A-Za-z0-9_:.+-]{1,64}){0,400}")
_TEXT = re.compile(r"[\x21-\x7e]{0,512}")  # a digest, a worker's name: printable ASCII
_UNIT_FIELDS = {"key", "digest", "size", "seconds", "worker", "finished"}


class Opening(NamedTuple):
    """A shard's first line: its number, ``through`` (the latest time among its rows, as
    its writer's clock had it: not compared with anything), its units and header."""

    number: int
    through: float
    units: int
    header: dict[str, Any]


def _fail(why: str) -> MalformedShard:
    return MalformedShard(why)


# ---------------------------------------------------------------------- scalars
def _key(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > 4096 or not _KEY.fullmatch(value):
        raise _fail(f"{what} is not a unit's key")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _TEXT.fullmatch(value):
        raise _fail(f"{what} is not a short text")
    return value


def _no_constant(name: str) -> Any:
    raise _fail(f"it holds {name}, which is no number")


class _Lines:
    """The decompressed lines of a shard, each at most :data:`MOST_LINE` bytes, all of
    them at most :data:`MOST_TEXT`, parsed as JSON (no NaN, no Infinity)."""

    def __init__(self, raw: IO[bytes]):
        self.src = gzip.GzipFile(fileobj=raw, mode="rb")
        self.total = 0
        self.number = 0

    def next(self) -> Optional[Any]:
        line = self.src.readline(MOST_LINE + 1)
        if not line:
            return None
        self.number += 1
        self.total += len(line)
        if len(line) > MOST_LINE:
            raise _fail(f"line {self.number} is longer than {MOST_LINE:,} bytes")
        if self.total > MOST_TEXT:
            raise _fail(f"it holds more than {MOST_TEXT:,} bytes once decompressed")
        try:
            return json.loads(line, parse_constant=_no_constant)
        except RecursionError:
            raise _fail(f"line {self.number} is nested too deep") from None
        except ValueError as e:
            if isinstance(e, MalformedShard):
                raise
            raise _fail(f"line {self.number} is not JSON") from None


def read_opening(raw: IO[bytes]) -> tuple[Opening, "_Lines"]:
    """The shard's first line, checked, and the reader of its other lines."""
    lines = _Lines(raw)
    first = typed_object(lines.next(), "its first line", {"shard", "through", "units", "header"})
    header = typed_object(first.get("header"), "its header")
    for name in ("package", "kind"):
        _text(header.get(name), f"its header's {name}")
    typed_object(header.get("game"), "its header's game")
    typed_object(header.get("params"), "its header's parameters")
    opening = Opening(
        typed_int(first.get("shard"), "its number", 0),
        typed_real(first.get("through"), "its through"),
        typed_int(first.get("units"), "its count of units", 0, 1 << 40),
        header,
    )
    return opening, lines


def same_run(have: dict[str, Any], want: dict[str, Any]) -> Optional[str]:
    """None when the header ``have`` is of the run ``want`` (its kind, game and
    parameters, those no answer depends on aside); else the first difference."""
    if have.get("package") != "mastermind":
        return "it is not a shard of this package"
    for name in ("kind", "game"):
        if have.get(name) != want[name]:
            return f"it belongs to another run (its {name} differs)"
    there, here = have.get("params"), want["params"]
    if not isinstance(there, dict):
        return "its header has no parameters"
    for name in set(there) | set(here):
        if name not in LOOSE_PARAMS and there.get(name) != here.get(name):
            return f"it belongs to another run (its parameter {name} differs)"
    return None


Row = tuple[str, tuple[Any, ...]]


def read_rows(raw: IO[bytes], want: Optional[dict[str, Any]] = None) -> Iterator[Row]:
    """A shard's rows, each checked as it is read: ``("unit", row)`` (the eight fields of
    the checkpoint's table of units, its checksum computed) and ``("split", row)``; the
    first line's header compared with ``want`` (kind, game, params); at the end, the
    units counted against the first line's.  :class:`MalformedShard` at the first
    fault (the caller drops what was read)."""
    opening, lines = read_opening(raw)
    if want is not None:
        differ = same_run(opening.header, want)
        if differ is not None:
            raise _fail(differ)
    units = 0
    encoded: dict[str, bytes] = {}
    while (rec := lines.next()) is not None:
        rec = typed_object(rec, f"line {lines.number}")
        if "split_of" in rec:
            yield "split", _split_row(rec)
        elif "drop" in rec:  # (earlier versions: what it said follows from the rows)
            typed_object(rec, "a drop line", {"drop", "at"})
            _key(rec.get("drop"), "a drop line's key")
            typed_real(rec.get("at"), "a drop line's time")
        else:
            units += 1
            yield "unit", _unit_row(rec, encoded)
    if units != opening.units:
        raise _fail(f"it holds {units} units, its first line says {opening.units}")


def _split_row(rec: dict[str, Any]) -> tuple[str, str, int]:
    typed_object(rec, "a split line", {"split_of", "parent", "split"})
    key = _key(rec.get("split_of"), "a split line's key")
    parent = rec.get("parent")
    parent = "" if parent == "" else _key(parent, "a split line's parent")
    return key, parent, typed_int(rec.get("split"), "a split line's flag", 0, 1)


def _unit_row(rec: dict[str, Any], encoded: dict[str, bytes]) -> tuple[Any, ...]:
    """A unit's line as the row the checkpoint's table of units holds."""
    typed_object(rec, "a unit line", _UNIT_FIELDS | {"answer", "result", "checksum"})
    key = _key(rec.get("key"), "a unit's key")
    what = f"unit {key}"
    if not set(rec) >= _UNIT_FIELDS or ("answer" in rec) == ("result" in rec):
        raise _fail(f"{what}: its line lacks a field")
    digest = _text(rec["digest"], f"{what}: its digest")
    fields = (
        typed_int(rec["size"], f"{what}: its size", 0),
        typed_real(rec["seconds"], f"{what}: its seconds", 0.0),
        _text(rec["worker"], f"{what}: its worker"),
        typed_real(rec["finished"], f"{what}: its time"),
    )
    if "answer" in rec:
        text = json.dumps(rec["answer"], sort_keys=True)
        blob = encoded.get(text)
        if blob is None:
            blob = encode(answer_from_json(rec["answer"]))
            if len(blob) <= 1024:
                encoded[text] = blob
    else:
        blob = answer_bytes(rec["result"])
    digest_of = checksum(key, digest, blob)
    if rec.get("checksum", digest_of) != digest_of:
        raise _fail(f"{what}: its answer does not match its checksum")
    return (key, digest, *fields, blob, digest_of)


ERRORS = (
    MalformedShard,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    OverflowError,
    EOFError,
    OSError,
    zlib.error,
    zipfile.BadZipFile,
    RecursionError,
    UnicodeError,
)
"""What reading a shard may raise for one that cannot be used."""
