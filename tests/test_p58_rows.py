"""The rows file of scripts/p58_rows.py: a checkpoint's rows written with JSON answers and
read back to the same rows (bytes and checksums), files of the earlier form still read,
and a damaged file refused with its line, leaving no checkpoint behind."""

from __future__ import annotations

import base64
import gzip
import importlib.util
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from mastermind.engine.checkpoint import checksum, encode, open_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location("p58_rows", ROOT / "scripts" / "p58_rows.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rows = _load()

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}
PARAMS = {"symmetry": True}

ANSWERS = [
    {"ok": 1, "nodes": 12, "recs": np.arange(35, dtype=np.int32).reshape(7, 5)},
    {"ok": 0, "nodes": 897},
    {"ok": 0, "nodes": 897},  # the same answer again (converted once)
    {"split": 1, "nodes": 304592, "openings": np.array([5, 9, 1200], dtype=np.int32)},
    {"ok": 1, "nodes": 3, "recs": np.zeros((0, 5), dtype=np.int32)},
    {"bound": 5.25, "exact": True},
    # a 0-d int32 is read back as a Python int, which encodes as int64: the bytes kept
    {"ok": np.int32(1), "nodes": 2},
]


def make_checkpoint(path: Path) -> None:
    with open_checkpoint(str(path), "bound", GAME, PARAMS) as store:
        for i, answer in enumerate(ANSWERS):
            split = "split" in answer
            store.record(
                f"exists/{i}",
                f"{i:020x}",
                answer,
                size=10 + i,
                seconds=0.001 * (i + 1) / 3,
                parent="exists/3" if i == 4 else "",
                split=split,
            )


def table(path: Path, name: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(f"SELECT * FROM {name}"))  # noqa: S608 (a test's table)
    finally:
        conn.close()


def lines(file: Path) -> list[dict]:
    with gzip.open(file, "rt") as f:
        return [json.loads(line) for line in f]


def test_round_trip_gives_the_same_rows(tmp_path):
    make_checkpoint(tmp_path / "a.sqlite")
    assert rows.export_rows(str(tmp_path / "a.sqlite"), str(tmp_path / "a.jsonl.gz")) == 7
    recs = [r for r in lines(tmp_path / "a.jsonl.gz") if "key" in r]
    assert all("checksum" not in r for r in recs)
    # JSON answers except the one that would not encode back to its bytes
    assert [("answer" in r, "result" in r) for r in recs] == [(True, False)] * 6 + [(False, True)]
    assert recs[0]["answer"]["recs"] == {
        "dtype": "<i4",
        "shape": [7, 5],
        "values": list(range(35)),
    }
    assert recs[1]["answer"] == {"ok": 0, "nodes": 897}
    assert rows.import_rows(str(tmp_path / "a.jsonl.gz"), str(tmp_path / "b.sqlite")) == 7
    for name in ("units", "splits", "header"):
        assert table(tmp_path / "b.sqlite", name) == table(tmp_path / "a.sqlite", name)
    assert len(table(tmp_path / "b.sqlite", "splits")) == 2


def test_rows_of_the_earlier_form_still_import(tmp_path):
    make_checkpoint(tmp_path / "a.sqlite")
    rows.export_rows(str(tmp_path / "a.sqlite"), str(tmp_path / "a.jsonl.gz"))
    old = []
    for rec in lines(tmp_path / "a.jsonl.gz"):
        if "answer" in rec:
            blob = encode(rows.answer_from_json(rec.pop("answer")))
            rec["result"] = base64.b64encode(blob).decode()
            rec["checksum"] = checksum(rec["key"], rec["digest"], blob)
        old.append(rec)
    with gzip.open(tmp_path / "old.jsonl.gz", "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in old)
    rows.import_rows(str(tmp_path / "old.jsonl.gz"), str(tmp_path / "b.sqlite"))
    assert table(tmp_path / "b.sqlite", "units") == table(tmp_path / "a.sqlite", "units")

    # a checksum that does not match its answer: refused, naming the unit and the line
    old[9]["checksum"] = "0" * 64
    with gzip.open(tmp_path / "bad.jsonl.gz", "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in old)
    with pytest.raises(rows.RowsError, match=r"line 10: unit exists/3: .*checksum"):
        rows.import_rows(str(tmp_path / "bad.jsonl.gz"), str(tmp_path / "c.sqlite"))
    assert not (tmp_path / "c.sqlite").exists()


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda data: data[: len(data) // 2], r"line \d+: .*(end|EOF|ended)"),
        (
            lambda data: gzip.compress(gzip.decompress(data).replace(b'"answer":{', b'"answer":[')),
            r"line 7:",
        ),
        (lambda data: gzip.compress(b"{}\n"), r"not a file of checkpoint rows"),
        (lambda data: b"not gzip at all", r"not a file of checkpoint rows"),
        (lambda data: gzip.compress(b'{"header": "version"}\n'), r"rows \(no field 'value'\)"),
    ],
    ids=["truncated", "broken-json", "no-header", "not-gzip", "header-without-value"],
)
def test_a_damaged_file_is_refused_and_leaves_no_checkpoint(tmp_path, damage, message):
    make_checkpoint(tmp_path / "a.sqlite")
    rows.export_rows(str(tmp_path / "a.sqlite"), str(tmp_path / "a.jsonl.gz"))
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(damage((tmp_path / "a.jsonl.gz").read_bytes()))
    with pytest.raises(rows.RowsError, match=message):
        rows.import_rows(str(bad), str(tmp_path / "b.sqlite"))
    assert not (tmp_path / "b.sqlite").exists()
    assert not (tmp_path / "b.sqlite.lock").exists()
