"""A shard read as a stranger's file (mastermind.engine.shard_reader): every field typed
and ranged before anything is made from it, nothing read past its caps; the hostile
shards of the issue (a dtype of two megabytes a value, a drop of every row, a number of
twenty digits) named and left out, each in a line, within a few megabytes; the answers
of earlier versions (.npz bytes) read member by member."""

from __future__ import annotations

import base64
import gzip
import io
import json
import zipfile
from typing import Any

import numpy as np
import pytest
from conftest import peak_in_a_fresh_process

import mastermind.engine.shard_reader as reader
from mastermind.engine.rows import encode
from mastermind.engine.shard_reader import MalformedShard, read_rows

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}
RUN = {"kind": "bound", "game": GAME, "params": {"symmetry": True}}
HEADER = {"format": 2, "package": "mastermind", "version": "0.1.0", **RUN}
RECS = {"dtype": "<i4", "shape": [2, 5], "values": list(range(10))}


def unit(key: str = "exists/1123/5/4", **change: Any) -> dict[str, Any]:
    line = {
        "key": key,
        "digest": "0123456789abcdef0123",
        "size": 12,
        "seconds": 0.25,
        "worker": "host:42",
        "finished": 1795774988.03,
        "answer": {"ok": 1, "nodes": 3, "recs": RECS},
    }
    line.update(change)
    return line


def result(blob: bytes) -> dict[str, Any]:
    """A unit line with its answer as bytes (``result``, base64), as earlier versions
    and answers that JSON would not give back wrote it."""
    line = unit(result=base64.b64encode(blob).decode())
    del line["answer"]
    return line


def shard(*lines: Any, first: dict[str, Any] | None = None) -> bytes:
    """A shard of ``lines`` (dicts as JSON, bytes as they are), counted in its first line."""
    units = sum(1 for x in lines if isinstance(x, dict) and "key" in x)
    head = first or {"shard": 1, "through": 1795774988.03, "units": units, "header": HEADER}
    text = b"".join(
        (x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in (head, *lines)
    )
    return gzip.compress(text)


def rows(data: bytes) -> list:
    return list(read_rows(io.BytesIO(data), RUN))


def test_a_shard_gives_its_rows_with_their_checksums():
    split = {"split_of": "exists/1123/5/4", "parent": "", "split": 0}
    got = rows(shard(unit(), unit("exists/1124/5/4", answer={"ok": 0, "nodes": 9}), split))
    assert [kind for kind, _ in got] == ["unit", "unit", "split"]
    key, digest, size, seconds, worker, finished, blob, checksum = got[0][1]
    assert (key, size, seconds, worker) == ("exists/1123/5/4", 12, 0.25, "host:42")
    assert blob == encode({"ok": 1, "nodes": 3, "recs": np.arange(10, dtype="<i4").reshape(2, 5)})
    assert got[2][1] == ("exists/1123/5/4", "", 0)


BAD = {
    "a dtype of 2 MB a value": (
        [unit(answer={"recs": {"dtype": "S2000000", "shape": [3], "values": [1, 2, 3]}})],
        "dtype 'S2000000' is not one an answer has",
    ),
    "an object dtype": (
        [unit(answer={"recs": {"dtype": "|O", "shape": [1], "values": [1]}})],
        "is not one an answer has",
    ),
    "a shape of 10^12 values": (
        [unit(answer={"recs": {"dtype": "<i4", "shape": [10**6, 10**6], "values": []}})],
        "more than",
    ),
    "values fewer than the shape": (
        [unit(answer={"recs": {"dtype": "<i4", "shape": [3], "values": [1]}})],
        "not as many as its shape",
    ),
    "a value past its dtype": (
        [unit(answer={"recs": {"dtype": "<i2", "shape": [1], "values": [10**30]}})],
        "not an integer of its dtype",
    ),
    "three dimensions": (
        [unit(answer={"recs": {"dtype": "<i4", "shape": [1, 1, 1], "values": [1]}})],
        "1 or 2 dimensions",
    ),
    "a string answer": ([unit(answer={"ok": "yes"})], "is not a number"),
    "a huge integer": ([unit(answer={"ok": 10**40})], "not an integer"),
    "NaN seconds": ([b'{"key": "exists/1", "seconds": NaN}'], "NaN, which is no number"),
    "negative seconds": ([unit(seconds=-1)], "its seconds is not a finite number >= 0"),
    "a key of spaces": ([unit("exists 1")], "is not a unit's key"),
    "a key that is a list": ([unit(["exists"])], "is not a unit's key"),
    "a size that is a string": ([unit(size="12")], "its size is not an integer"),
    "both answer and result": ([unit(result="AAAA")], "lacks a field"),
    "an unknown field": ([unit(extra=1)], "fields it cannot have"),
    "a line that is a list": ([[1, 2]], "is not an object"),
    "deep nesting": ([b"[" * 100000 + b"]" * 100000], "nested too deep"),
    "a unit less than said": (
        [],
        "it holds 0 units, its first line says 1",
    ),
    "a split flag of 7": ([{"split_of": "exists/1", "parent": "", "split": 7}], "flag"),
    "an answer's checksum wrong": ([unit(checksum="00")], "does not match its checksum"),
    "a result that is not base64": ([{**result(b""), "result": "!!"}], ""),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_malformed_shard_is_refused_in_one_line(case):
    lines, words = BAD[case]
    first = None
    if case == "a unit less than said":
        first = {"shard": 1, "through": 1.0, "units": 1, "header": HEADER}
    with pytest.raises(reader.ERRORS) as caught:
        rows(shard(*lines, first=first))
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "first,words",
    [
        ({"shard": 1, "through": 1.0, "units": 0}, "its header is not an object"),
        ({"shard": 1, "through": 1e400, "units": 0, "header": HEADER}, "Infinity"),
        ({"shard": "1", "through": 1.0, "units": 0, "header": HEADER}, "its number"),
        (
            {"shard": 1, "through": 1.0, "units": 0, "header": {**HEADER, "kind": "optimal"}},
            "another run",
        ),
        (
            {"shard": 1, "through": 1.0, "units": 0, "header": {**HEADER, "params": {}}},
            "its parameter symmetry differs",
        ),
    ],
)
def test_a_first_line_that_is_not_this_runs_is_refused(first, words):
    data = gzip.compress(json.dumps(first).encode() + b"\n")
    with pytest.raises(reader.ERRORS, match=words):
        rows(data)


def test_a_drop_of_every_row_is_read_and_takes_nothing_away():
    """Earlier versions' ``{"drop": KEY}`` lines are checked and ignored: no line of a
    shard takes away what others recorded."""
    got = rows(shard(unit(), {"drop": "exists", "at": 1e300}))
    assert [kind for kind, _ in got] == ["unit"]
    with pytest.raises(MalformedShard, match="drop line's key"):
        rows(shard({"drop": "", "at": 1.0}))


def peak_refusing(tmp_path, *shards: bytes) -> int:
    """The most bytes held at once while each of ``shards`` is read and refused, in a
    fresh interpreter (tmp_path holds the shards for it)."""
    paths = []
    for i, data in enumerate(shards):
        path = tmp_path / f"{i:05d}.jsonl.gz"
        path.write_bytes(data)
        paths.append(str(path))
    setup = (
        "import io\nfrom mastermind.engine.shard_reader import MalformedShard, read_rows\n"
        f"RUN = {RUN!r}\nblobs = [open(p, 'rb').read() for p in {paths!r}]"
    )
    code = (
        "for blob in blobs:\n    try:\n        list(read_rows(io.BytesIO(blob), RUN))\n"
        "    except MalformedShard:\n        pass\n    else:\n        raise SystemExit('read')"
    )
    return peak_in_a_fresh_process(setup, code)


def test_the_caps_hold_whatever_the_shard_claims(monkeypatch, tmp_path):
    """A line past its cap, and text past the shard's, are refused as they are read;
    a claimed array is sized before it is made: a few megabytes at most."""
    monkeypatch.setattr(reader, "MOST_LINE", 1000)
    with pytest.raises(MalformedShard, match="longer than 1,000 bytes"):
        rows(shard(unit(worker="w" * 400, digest="d" * 500)))
    monkeypatch.setattr(reader, "MOST_LINE", 1 << 20)
    monkeypatch.setattr(reader, "MOST_TEXT", 5000)
    with pytest.raises(MalformedShard, match="more than 5,000 bytes once decompressed"):
        rows(shard(*[unit(f"exists/{i}") for i in range(40)]))
    hostile = [
        shard(unit(answer=answer))
        for answer in (
            {"recs": {"dtype": "S2000000", "shape": [64], "values": [1] * 64}},
            {"recs": {"dtype": "<i8", "shape": [1 << 22, 1 << 22], "values": [0]}},
        )
    ]
    for data in hostile:
        with pytest.raises(MalformedShard):
            rows(data)
    assert peak_refusing(tmp_path, *hostile) < 8 << 20


def npz(**arrays: Any) -> bytes:
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


def test_an_earlier_versions_npz_answer_is_read_member_by_member():
    blob = npz(ok=np.array(1), nodes=np.array(7), recs=np.arange(10, dtype="<i4").reshape(2, 5))
    [(kind, row)] = rows(shard(result(blob)))
    assert row[6] == encode({"ok": 1, "nodes": 7, "recs": np.arange(10, dtype="<i4").reshape(2, 5)})
    for bad in (
        npz(s=np.array([b"x" * 100])),  # a dtype no answer has
        npz(o=np.zeros((2, 2, 2), dtype="<i4")),  # three dimensions
        b"PK\x03\x04" + b"\0" * 40,  # no zip at all
    ):
        with pytest.raises(reader.ERRORS):
            rows(shard(result(bad)))


def test_an_npz_member_claiming_a_huge_array_is_refused_before_it_is_made(tmp_path):
    """NumPy's own loader makes the array a member's header claims before it reads its
    bytes: the reader checks the claim against the bytes first."""
    npy = io.BytesIO()
    claim = {"descr": "<i8", "fortran_order": False, "shape": (10**12,)}
    np.lib.format.write_array_header_1_0(npy, claim)
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as z:
        z.writestr("recs.npy", npy.getvalue() + b"\0" * 64)
    data = shard(result(raw.getvalue()))
    with pytest.raises(MalformedShard, match="not as many as its shape"):
        rows(data)
    assert peak_refusing(tmp_path, data) < 8 << 20
