"""A checkpoint's rows as bytes: the answer of a unit (:func:`encode`,
:func:`decode`), the checksum that binds it to its unit, the :class:`Record` it is read
back as, and the read-only connection that reads a checkpoint another run may be writing.
What reads rows without opening a run (a campaign's status, its origins) needs only this,
not the checkpoint with its lock."""

from __future__ import annotations

import hashlib
import io
import sqlite3
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ANSWER_MAGIC",
    "LOCK_SECONDS",
    "Record",
    "checksum",
    "connect_read_only",
    "decode",
    "encode",
]


def checksum(key: str, digest: str, blob: bytes) -> str:
    """What binds a stored answer to its unit."""
    h = hashlib.sha256()
    for part in (key.encode(), digest.encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    h.update(bytes(blob))
    return h.hexdigest()


@dataclass(frozen=True)
class Record:
    """One finished unit read back: its input's digest, size, seconds and answer."""

    key: str
    digest: str
    size: int
    seconds: float
    worker: str
    result: dict[str, Any]


ANSWER_MAGIC = b"MMA1"
"""The first bytes of an answer as :func:`encode` writes it (checkpoints of earlier
versions hold ``.npz`` bytes, which :func:`decode` still reads)."""


def encode(result: dict[str, Any]) -> bytes:
    """A unit's answer (names to arrays or numbers) as bytes: :data:`ANSWER_MAGIC`, then
    for each field its name, dtype, shape and raw data (little-endian lengths; no
    pickle).  Some 5 microseconds for a small answer (``.npz`` took 120)."""
    parts = [ANSWER_MAGIC]
    for name, value in result.items():
        a = np.asarray(value)  # (tobytes: C order, whatever the layout)
        if a.dtype.hasobject:
            raise TypeError(f"{name}: an answer holds numbers and arrays only")
        head, dt = name.encode(), a.dtype.str.encode()
        data = a.tobytes()
        parts.append(struct.pack("<BBB", len(head), len(dt), a.ndim) + head + dt)
        parts.append(struct.pack(f"<{a.ndim}qQ", *a.shape, len(data)) + data)
    return b"".join(parts)


def decode(blob: bytes) -> dict[str, Any]:
    """The answer :func:`encode` wrote (or an earlier version's ``.npz`` bytes); 0-d
    arrays come back as Python numbers.  Damaged bytes raise (an error of some kind)."""
    if not blob.startswith(ANSWER_MAGIC):
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            return {n: (z[n].item() if z[n].ndim == 0 else z[n]) for n in z.files}
    out: dict[str, Any] = {}
    at = len(ANSWER_MAGIC)
    while at < len(blob):
        ln, ld, ndim = struct.unpack_from("<BBB", blob, at)
        at += 3
        name, dt = blob[at : at + ln].decode(), np.dtype(blob[at + ln : at + ln + ld].decode())
        at += ln + ld
        *shape, size = struct.unpack_from(f"<{ndim}qQ", blob, at)
        at += 8 * (ndim + 1)
        if dt.hasobject or at + size > len(blob):
            raise ValueError("damaged answer")
        a = np.frombuffer(blob, dt, count=size // max(dt.itemsize, 1), offset=at).reshape(shape)
        at += size
        out[name] = a.item() if ndim == 0 else a.copy()
    return out


LOCK_SECONDS = 30.0
"""How long a checkpoint's connection waits for another one's lock on the file."""


def connect_read_only(
    path: str, timeout: float = LOCK_SECONDS, **kwargs: Any
) -> sqlite3.Connection:
    """A connection that only reads the SQLite file at ``path`` (and never makes one):
    for reading a checkpoint that a run may be writing."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=timeout, **kwargs)
