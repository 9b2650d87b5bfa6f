"""An answer of a shard (:mod:`mastermind.engine.shard_reader`) read as a stranger's
data: numbers and arrays only, each typed and sized before anything is made from it.

An answer holds at most :data:`MOST_FIELDS` fields, each a number (an integer of 64
bits, a finite float, a bool) or an array of one of :data:`DTYPES` (the integers, floats
and bools answers use; never strings, objects or structures) of one or two dimensions
and at most :data:`MOST_VALUES` values, its size known before it is made.  It comes as
JSON (:func:`answer_from_json`) or as the bytes the checkpoint keeps, in base64
(:func:`answer_bytes`): this version's form decoded and checked, or the ``.npz`` form
of earlier versions, read member by member (each member's size declared and read no
further, its dtype and shape checked against its bytes), never by NumPy's loader, which
makes the array a header claims before it reads it.

>>> answer_from_json({"ok": 1, "recs": {"dtype": "<i2", "shape": [2], "values": [3, 4]}})
{'ok': 1, 'recs': array([3, 4], dtype=int16)}
>>> answer_from_json({"recs": {"dtype": "S2000000", "shape": [1], "values": [1]}})
Traceback (most recent call last):
...
mastermind.engine.shard_answers.MalformedShard: its answer's recs: dtype 'S2000000' is not one an answer has
"""

from __future__ import annotations

import base64
import io
import math
import re
import zipfile
from typing import Any, Optional

import numpy as np

from .rows import ANSWER_MAGIC, decode, encode

__all__ = [
    "DTYPES",
    "MOST_FIELDS",
    "MOST_TEXT_BYTES",
    "MOST_VALUES",
    "MalformedShard",
    "answer_bytes",
    "answer_from_json",
    "typed_int",
    "typed_object",
    "typed_real",
]

MOST_FIELDS = 32
"""The most fields an answer holds."""

MOST_VALUES = 1 << 22
"""The most values an array of an answer holds."""

MOST_TEXT_BYTES = 16 << 20
"""The longest base64 text of an answer's bytes (a shard's longest line)."""

DTYPES = frozenset(["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"])
"""The dtypes an answer's arrays may have (as NumPy writes them, little-endian)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_INT64 = (-(1 << 63), (1 << 63) - 1)


class MalformedShard(ValueError):
    """A shard that cannot be used: one line saying why."""


def _fail(why: str) -> MalformedShard:
    return MalformedShard(why)


# ---------------------------------------------------------------------- scalars
def typed_int(value: Any, what: str, lo: int = _INT64[0], hi: int = _INT64[1]) -> int:
    """``value`` if an integer (not a bool) from ``lo`` to ``hi``."""
    if type(value) is not int or not lo <= value <= hi:
        raise _fail(f"{what} is not an integer from {lo} to {hi}")
    return value


def typed_real(value: Any, what: str, lo: float = -math.inf) -> float:
    """``value`` as a float if a finite number (not a bool) of at least ``lo``."""
    if type(value) not in (int, float) or not math.isfinite(value) or value < lo:
        raise _fail(f"{what} is not a finite number" + (f" >= {lo:g}" if lo > -math.inf else ""))
    return float(value)


def typed_object(value: Any, what: str, keys: Optional[set[str]] = None) -> dict[str, Any]:
    """``value`` if a JSON object (with no field but ``keys``, when given)."""
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
        return typed_int(value, what)
    if type(value) is float:
        return typed_real(value, what)
    raise _fail(f"{what} is not a number")


def _array_from_json(doc: Any, what: str) -> np.ndarray:
    """``{"dtype", "shape", "values"}`` as an array, checked before it is made."""
    doc = typed_object(doc, what, {"dtype", "shape", "values"})
    dtype, shape, values = doc.get("dtype"), doc.get("shape"), doc.get("values")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise _fail(f"{what}: dtype {str(dtype)[:20]!r} is not one an answer has")
    if not isinstance(shape, list) or not 1 <= len(shape) <= 2:
        raise _fail(f"{what}: its shape is not of 1 or 2 dimensions")
    dims = [typed_int(n, f"{what}: a dimension", 0, MOST_VALUES) for n in shape]
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
    doc = typed_object(doc, "its answer")
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
    if not isinstance(text, str) or len(text) > MOST_TEXT_BYTES:
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
