"""A checkpoint's rows as append-only shards (mastermind.engine.shards): written with
JSON answers and read back to the same rows (bytes and checksums), each export adding
shards without touching the earlier ones, each shard within its size, and damage
(truncated, not gzip, broken JSON, another run's shard, a number missing) named and
left out with the rest imported."""

from __future__ import annotations

import gzip
import json
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

import mastermind.engine.shards as shards
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.shards import ShardError, export_shards, import_shards, shard_paths

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


def record(path: Path, first: int, answers: list[dict], params: dict = PARAMS) -> None:
    with open_checkpoint(str(path), "bound", GAME, params) as store:
        for i, answer in enumerate(answers, first):
            store.record(
                f"exists/{i}",
                f"{i:020x}",
                answer,
                size=10 + i,
                seconds=0.001 * (i + 1) / 3,
                parent="exists/3" if i == 4 else "",
                split="split" in answer,
            )
            time.sleep(0.002)  # (distinct finishing times)


def table(path: Path, name: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(f"SELECT * FROM {name}"))  # noqa: S608 (a test's table)
    finally:
        conn.close()


def lines(file: Path) -> list[dict]:
    with gzip.open(file, "rt") as f:
        return [json.loads(line) for line in f]


def test_shards_give_back_the_same_rows_and_grow_by_appending(tmp_path):
    a, folder = tmp_path / "a.sqlite", tmp_path / "shards"
    record(a, 0, ANSWERS[:4])
    [first] = export_shards(str(a), folder)
    before = first.read_bytes()
    assert export_shards(str(a), folder) == []  # nothing new: no shard
    record(a, 4, ANSWERS[4:])
    [second] = export_shards(str(a), folder)
    assert first.read_bytes() == before and second.name == "00002.jsonl.gz"
    recs = [r for f in (first, second) for r in lines(f) if "key" in r]
    assert len(recs) == 7 and all("checksum" not in r for r in recs)
    # JSON answers except the one that would not encode back to its bytes
    assert [("answer" in r, "result" in r) for r in recs] == [(True, False)] * 6 + [(False, True)]
    assert recs[0]["answer"]["recs"] == {"dtype": "<i4", "shape": [7, 5], "values": list(range(35))}
    got = import_shards(folder, str(tmp_path / "b.sqlite"))
    assert got == (7, 2, [])
    for name in ("units", "splits", "header"):
        assert table(tmp_path / "b.sqlite", name) == table(a, name)
    assert len(table(tmp_path / "b.sqlite", "splits")) == 2


def test_a_big_export_is_cut_into_shards_of_at_most_the_size(tmp_path, monkeypatch):
    monkeypatch.setattr(shards, "MOST_BYTES", 3000)
    monkeypatch.setattr(shards, "SLACK", 2900)  # (a few rows a shard)
    a = tmp_path / "a.sqlite"
    record(a, 0, ANSWERS * 3)
    written = export_shards(str(a), tmp_path / "s")
    assert len(written) > 3
    assert sum(lines(p)[0]["units"] for p in written) == 21
    got = import_shards(tmp_path / "s", str(tmp_path / "b.sqlite"))
    assert got.units == 21 and not got.problems
    assert table(tmp_path / "b.sqlite", "units") == table(a, "units")


@pytest.mark.parametrize(
    "damage,words",
    [
        (lambda p: p.write_bytes(p.read_bytes()[:40]), "cannot be read"),
        (lambda p: p.write_bytes(b"not gzip at all"), "cannot be read"),
        (lambda p: p.write_bytes(gzip.compress(b'{"shard": 2, "through": 5}\n{"key"')), "cannot"),
        (lambda p: p.unlink(), "shard 00002 is missing"),
    ],
)
def test_a_damaged_shard_is_named_and_the_others_imported(tmp_path, damage, words):
    a, folder = tmp_path / "a.sqlite", tmp_path / "s"
    for first, part in ((0, ANSWERS[:2]), (2, ANSWERS[2:4]), (4, ANSWERS[4:])):
        record(a, first, part)
        export_shards(str(a), folder)
    damage(shard_paths(folder)[1] if "missing" not in words else folder / "00002.jsonl.gz")
    got = import_shards(folder, str(tmp_path / "b.sqlite"), expected=3)
    assert got.units == 5 and got.shards == 2
    assert len(got.problems) == 1 and words in got.problems[0]
    keys = {row[0] for row in table(tmp_path / "b.sqlite", "units")}
    assert keys == {f"exists/{i}" for i in (0, 1, 4, 5, 6)}


def test_another_runs_shard_and_no_shard_at_all(tmp_path):
    record(tmp_path / "a.sqlite", 0, ANSWERS[:2])
    export_shards(str(tmp_path / "a.sqlite"), tmp_path / "s")
    record(tmp_path / "other.sqlite", 2, ANSWERS[2:4], params={"symmetry": False})
    [other] = export_shards(str(tmp_path / "other.sqlite"), tmp_path / "o")
    other.rename(tmp_path / "s" / "00002.jsonl.gz")
    got = import_shards(tmp_path / "s", str(tmp_path / "b.sqlite"))
    assert got.units == 2 and "belongs to another run" in got.problems[0]
    with pytest.raises(ShardError, match="no readable shard"):
        import_shards(tmp_path / "empty", str(tmp_path / "c.sqlite"))
    assert not (tmp_path / "c.sqlite").exists()
