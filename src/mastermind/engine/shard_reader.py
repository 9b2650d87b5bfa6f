"""A shard (:mod:`mastermind.engine.shards`) read as what it is: a file from a stranger.

Whoever can commit to a campaign's folder can put any bytes in ``shards/``, so a shard
is read with a bounded, typed reader: every field of every line has the type and range
the export writes (a unit's key, digest, size, seconds, worker and time; its answer's
numbers and arrays; a split's parent and flag), each checked before anything is made
from it, and nothing is read past a cap:

- the file: a regular file (never through a link, never a FIFO or a device) of at most
  :data:`MOST_COMPRESSED` bytes, at most :data:`MOST_TEXT` bytes once decompressed, no
  line longer than :data:`MOST_LINE`;
- an answer: at most :data:`MOST_FIELDS` fields, each a number (an integer of 64 bits, a
  finite float, a bool) or an array of one of :data:`DTYPES` (the integers, floats and
  bools answers use; never strings, objects or structures), of at most two dimensions
  and :data:`MOST_VALUES` values, its size known before it is made (the ``.npz`` answers
  of earlier versions are read the same way, member by member, never by NumPy's loader);
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

import base64
import gzip
import io
import json
import math
import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any, NamedTuple, Optional

import numpy as np

from .checkpoint import ANSWER_MAGIC, checksum, decode, encode

__all__ = [
    "DTYPES",
    "MOST_COMPRESSED",
    "MOST_FIELDS",
    "MOST_LINE",
    "MOST_TEXT",
    "MOST_VALUES",
    "ERRORS",
    "MalformedShard",
    "Opening",
    "answer_bytes",
    "answer_from_json",
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

MOST_FIELDS = 32
"""The most fields an answer holds."""

MOST_VALUES = 1 << 22
"""The most values an array of an answer holds."""

DTYPES = frozenset(["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"])
"""The dtypes an answer's arrays may have (as NumPy writes them, little-endian)."""

LOOSE_PARAMS = frozenset({"memory"})
"""Header parameters no answer depends on (the checkpoint's own list)."""

_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,63}(?:/[A-Za-z0-9_:.+-]{1,64}){0,400}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_TEXT = re.compile(r"[\x21-\x7e]{0,512}")  # a digest, a worker's name: printable ASCII
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UNIT_FIELDS = {"key", "digest", "size", "seconds", "worker", "finished"}


class MalformedShard(ValueError):
    """A shard that cannot be used: one line saying why."""


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
def _int(value: Any, what: str, lo: int = _INT64[0], hi: int = _INT64[1]) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise _fail(f"{what} is not an integer from {lo} to {hi}")
    return value


def _real(value: Any, what: str, lo: float = -math.inf) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < lo:
        raise _fail(f"{what} is not a finite number" + (f" >= {lo:g}" if lo > -math.inf else ""))
    return float(value)


def _key(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > 4096 or not _KEY.fullmatch(value):
        raise _fail(f"{what} is not a unit's key")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _TEXT.fullmatch(value):
        raise _fail(f"{what} is not a short text")
    return value


def _dict(value: Any, what: str, keys: Optional[set[str]] = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(f"{what} is not an object")
    if keys is not None and not set(value) <= keys:
        raise _fail(f"{what} has fields it cannot have ({', '.join(sorted(set(value) - keys))})")
    return value


# ---------------------------------------------------------------------- answers
def _number(value: Any, what: str) -> Any:
    """A number of an answer: a bool, an integer of 64 bits, a finite float."""
    if type(value) is bool:
        return value
    if type(value) is int:
        return _int(value, what)
    if type(value) is float:
        return _real(value, what)
    raise _fail(f"{what} is not a number")


def _array_from_json(doc: Any, what: str) -> np.ndarray:
    """``{"dtype", "shape", "values"}`` as an array, checked before it is made."""
    doc = _dict(doc, what, {"dtype", "shape", "values"})
    dtype, shape, values = doc.get("dtype"), doc.get("shape"), doc.get("values")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise _fail(f"{what}: dtype {str(dtype)[:20]!r} is not one an answer has")
    if not isinstance(shape, list) or not 1 <= len(shape) <= 2:
        raise _fail(f"{what}: its shape is not of 1 or 2 dimensions")
    dims = [_int(n, f"{what}: a dimension", 0, MOST_VALUES) for n in shape]
    if math.prod(dims) > MOST_VALUES:
        raise _fail(f"{what}: more than {MOST_VALUES:,} values")
    if not isinstance(values, list) or len(values) != math.prod(dims):
        raise _fail(f"{what}: its values are not as many as its shape says")
    dt = np.dtype(dtype)
    if dt.kind == "b":
        if not all(type(v) is bool for v in values):
            raise _fail(f"{what}: a value is not a bool")
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        if not all(type(v) is int for v in values) or (
            values and not (info.min <= min(values) and max(values) <= info.max)
        ):
            raise _fail(f"{what}: a value is not an integer of its dtype")
    elif not all(type(v) in (int, float) and math.isfinite(v) for v in values):
        raise _fail(f"{what}: a value is not a finite number")
    return np.array(values, dtype=dt).reshape(dims)


def _checked(value: Any, what: str) -> Any:
    """A decoded answer's value, as :func:`_array_from_json` would accept it."""
    if isinstance(value, np.ndarray):
        if value.dtype.str not in DTYPES or not 1 <= value.ndim <= 2:
            raise _fail(f"{what}: an array of {value.dtype.str} in {value.ndim} dimensions")
        if value.size > MOST_VALUES:
            raise _fail(f"{what}: more than {MOST_VALUES:,} values")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise _fail(f"{what}: a value is not a finite number")
        return value
    return _number(value, what)


def answer_from_json(doc: Any) -> dict[str, Any]:
    """A unit line's ``answer`` (names to numbers and arrays), checked."""
    doc = _dict(doc, "its answer")
    if len(doc) > MOST_FIELDS:
        raise _fail(f"its answer has more than {MOST_FIELDS} fields")
    out: dict[str, Any] = {}
    for name, value in doc.items():
        if not _NAME.fullmatch(name):
            raise _fail("its answer has a field that is not a name")
        what = f"its answer's {name}"
        out[name] = (
            _array_from_json(value, what) if isinstance(value, dict) else _number(value, what)
        )
    return out


def _npz(blob: bytes) -> dict[str, Any]:
    """An earlier version's ``.npz`` answer, member by member: each one's size declared
    and read no further, its dtype and shape checked before its bytes are used."""
    most = MOST_VALUES * 8 + 4096
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        members = z.infolist()
        if len(members) > MOST_FIELDS:
            raise _fail(f"its answer has more than {MOST_FIELDS} fields")
        out: dict[str, Any] = {}
        for info in members:
            name = info.filename.removesuffix(".npy")
            if not _NAME.fullmatch(name) or info.file_size > most:
                raise _fail("its answer holds a member that is not an array of an answer")
            with z.open(info) as f:
                data = f.read(most + 1)
            out[name] = _npy(data, f"its answer's {name}")
    return out


def _npy(data: bytes, what: str) -> Any:
    f = io.BytesIO(data)
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise _fail(f"{what}: an array file of version {version}")
    if dtype.str not in DTYPES or len(shape) > 2:
        raise _fail(f"{what}: an array of {dtype.str} in {len(shape)} dimensions")
    rest = data[f.tell() :]
    if math.prod(shape) > MOST_VALUES or len(rest) != math.prod(shape) * dtype.itemsize:
        raise _fail(f"{what}: its bytes are not as many as its shape says")
    a = np.frombuffer(rest, dtype).reshape(shape, order="F" if fortran else "C").copy()
    return _checked(a.item() if a.ndim == 0 else a, what)


def answer_bytes(text: Any) -> bytes:
    """A unit line's ``result`` (an answer's bytes in base64) as the bytes the checkpoint
    keeps: its own when they are of this version's form (decoded and checked), an earlier
    version's ``.npz`` answer read member by member and encoded again."""
    if not isinstance(text, str) or len(text) > MOST_LINE:
        raise _fail("its result is not base64 text")
    blob = base64.b64decode(text, validate=True)
    if not blob.startswith(ANSWER_MAGIC):
        return encode(_npz(blob))
    answer = decode(blob)  # (its arrays are copies of the bytes given: bounded by them)
    if len(answer) > MOST_FIELDS or not all(_NAME.fullmatch(n) for n in answer):
        raise _fail("its answer's fields are not an answer's")
    for name, value in answer.items():
        _checked(value, f"its answer's {name}")
    return blob


# ---------------------------------------------------------------------- lines
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
    first = _dict(lines.next(), "its first line", {"shard", "through", "units", "header"})
    header = _dict(first.get("header"), "its header")
    for name in ("package", "kind"):
        _text(header.get(name), f"its header's {name}")
    _dict(header.get("game"), "its header's game")
    _dict(header.get("params"), "its header's parameters")
    opening = Opening(
        _int(first.get("shard"), "its number", 0),
        _real(first.get("through"), "its through"),
        _int(first.get("units"), "its count of units", 0, 1 << 40),
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
        rec = _dict(rec, f"line {lines.number}")
        if "split_of" in rec:
            yield "split", _split_row(rec)
        elif "drop" in rec:  # (earlier versions: what it said follows from the rows)
            _dict(rec, "a drop line", {"drop", "at"})
            _key(rec.get("drop"), "a drop line's key")
            _real(rec.get("at"), "a drop line's time")
        else:
            units += 1
            yield "unit", _unit_row(rec, encoded)
    if units != opening.units:
        raise _fail(f"it holds {units} units, its first line says {opening.units}")


def _split_row(rec: dict[str, Any]) -> tuple[str, str, int]:
    _dict(rec, "a split line", {"split_of", "parent", "split"})
    key = _key(rec.get("split_of"), "a split line's key")
    parent = rec.get("parent")
    parent = "" if parent == "" else _key(parent, "a split line's parent")
    return key, parent, _int(rec.get("split"), "a split line's flag", 0, 1)


def _unit_row(rec: dict[str, Any], encoded: dict[str, bytes]) -> tuple[Any, ...]:
    """A unit's line as the row the checkpoint's table of units holds."""
    _dict(rec, "a unit line", _UNIT_FIELDS | {"answer", "result", "checksum"})
    key = _key(rec.get("key"), "a unit's key")
    what = f"unit {key}"
    if not set(rec) >= _UNIT_FIELDS or ("answer" in rec) == ("result" in rec):
        raise _fail(f"{what}: its line lacks a field")
    digest = _text(rec["digest"], f"{what}: its digest")
    fields = (
        _int(rec["size"], f"{what}: its size", 0),
        _real(rec["seconds"], f"{what}: its seconds", 0.0),
        _text(rec["worker"], f"{what}: its worker"),
        _real(rec["finished"], f"{what}: its time"),
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
