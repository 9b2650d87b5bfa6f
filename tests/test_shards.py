"""A checkpoint's rows as append-only shards (mastermind.engine.shards): written with
JSON answers and read back to the same rows (bytes and checksums), each export adding
shards without touching the earlier ones, each shard within its size, and damage
(truncated, not gzip, broken JSON, another run's shard, a number missing) named and
left out with the rest imported."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mastermind.engine.shards as shards
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.shards import ShardError, export_shards, import_shards, shard_paths

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}
PARAMS = {"symmetry": True}
RUN = {"kind": "bound", "game": GAME, "params": PARAMS}  # the run the shards belong to

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
    got = import_shards(folder, str(tmp_path / "b.sqlite"), RUN)
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
    got = import_shards(tmp_path / "s", str(tmp_path / "b.sqlite"), RUN)
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
    got = import_shards(folder, str(tmp_path / "b.sqlite"), RUN, expected=3)
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
    got = import_shards(tmp_path / "s", str(tmp_path / "b.sqlite"), RUN)
    assert got.units == 2 and "belongs to another run" in got.problems[0]
    with pytest.raises(ShardError, match="no shard"):
        import_shards(tmp_path / "empty", str(tmp_path / "c.sqlite"), RUN)
    assert not (tmp_path / "c.sqlite").exists()


# ---------------------------------------------------------------------- strangers' shards
def three_shards(tmp_path: Path) -> tuple[Path, Path]:
    a, folder = tmp_path / "a.sqlite", tmp_path / "s"
    for first, part in ((0, ANSWERS[:2]), (2, ANSWERS[2:4]), (4, ANSWERS[4:])):
        record(a, first, part)
        export_shards(str(a), folder)
    return a, folder


def test_shard_numbers_come_from_the_files_present(tmp_path):
    """A stray name of twenty digits, or a million, is just a name: one line for the gap
    below it (never a line per number, never a list of them all), and the next export
    numbers its shard past it."""
    a, folder = three_shards(tmp_path)
    (folder / "99999999999999999999.jsonl.gz").write_bytes(b"junk")
    (folder / "1000000.jsonl.gz").write_bytes(lines_gz(lines(shard_paths(folder)[0])))
    got = import_shards(folder, str(tmp_path / "b.sqlite"), RUN, expected=3)
    assert got.units == 7 + 2 and got.shards == 4
    assert got.problems == [
        "shards 00004 to 999999 are missing: their units run again",
        "shards 1000001 to 99999999999999999998 are missing: their units run again",
        "99999999999999999999.jsonl.gz cannot be read (Not a gzipped file (b'ju')): "
        "its units run again",
    ]
    record(a, 7, ANSWERS[:1])
    [new] = export_shards(str(a), folder)
    assert new.name == "100000000000000000000.jsonl.gz"


def lines_gz(records: list[dict]) -> bytes:
    return gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())


@pytest.mark.parametrize("through", [1e300, "an hour ahead"])
def test_a_shard_from_a_clock_ahead_does_not_stop_later_exports(tmp_path, through):
    """Which rows an export writes is decided by the rows the shards hold, never by
    comparing clocks: a shard whose ``through`` is far ahead holds nothing back."""
    a, folder = tmp_path / "a.sqlite", tmp_path / "s"
    record(a, 0, ANSWERS[:2])
    [first] = export_shards(str(a), folder)
    recs = lines(first)
    recs[0]["through"] = time.time() + 3600 if through == "an hour ahead" else through
    first.write_bytes(lines_gz(recs))
    record(a, 2, ANSWERS[2:4])
    [second] = export_shards(str(a), folder)
    assert [r["key"] for r in lines(second) if "key" in r] == ["exists/2", "exists/3"]


def test_no_line_of_a_shard_takes_away_what_others_recorded(tmp_path):
    """A ``{"drop": "exists"}`` line (every key starts so) takes nothing away."""
    a, folder = three_shards(tmp_path)
    path = shard_paths(folder)[1]
    recs = lines(path)
    path.write_bytes(lines_gz([*recs, {"drop": "exists", "at": 1e300}]))
    got = import_shards(folder, str(tmp_path / "b.sqlite"), RUN)
    assert got == (7, 3, [])
    assert table(tmp_path / "b.sqlite", "units") == table(a, "units")


def test_rows_below_a_decided_question_are_left_out_as_the_checkpoint_dropped_them(tmp_path):
    """A question that split and was then decided keeps its whole answer; the rows below
    it, which the checkpoint dropped, are left out of the import too (no drop line
    needed), whatever shards they came in."""
    a, folder = tmp_path / "a.sqlite", tmp_path / "s"
    with open_checkpoint(str(a), "bound", GAME, PARAMS) as store:
        store.record("exists/1/2/3", "d1", ANSWERS[3], size=50, seconds=1.0, split=True)
        for i in range(3):
            store.record(
                f"exists/1/2/3/{i}/0/2",
                f"e{i}",
                ANSWERS[1],
                size=5,
                seconds=0.5,
                parent="exists/1/2/3",
            )
        store.record("exists/1/2/30", "f", ANSWERS[1], size=5, seconds=0.5)
    export_shards(str(a), folder)
    with open_checkpoint(str(a), "bound", GAME, PARAMS) as store:
        store.settle("exists/1/2/3", "d1", {"ok": 0, "nodes": 9}, size=50)
    export_shards(str(a), folder)
    assert len(shard_paths(folder)) == 2
    assert not any("drop" in r for p in shard_paths(folder) for r in lines(p))
    import_shards(folder, str(tmp_path / "b.sqlite"), RUN)
    assert table(tmp_path / "b.sqlite", "units") == table(a, "units")
    assert table(tmp_path / "b.sqlite", "splits") == table(a, "splits")
    assert {r[0] for r in table(a, "units")} == {"exists/1/2/3", "exists/1/2/30"}


def test_whether_a_checkpoint_lacks_a_shard_is_told_by_names(tmp_path):
    a, folder = tmp_path / "a.sqlite", tmp_path / "s"
    record(a, 0, ANSWERS[:2])
    export_shards(str(a), folder)
    assert not shards.behind(str(a), folder)  # (it wrote the shard)
    record(tmp_path / "older.sqlite", 0, ANSWERS[:2])  # (never exported: cannot say)
    assert shards.behind(str(tmp_path / "older.sqlite"), folder)
    record(tmp_path / "other.sqlite", 0, ANSWERS[:4])
    [elsewhere] = export_shards(str(tmp_path / "other.sqlite"), tmp_path / "o")
    (folder / "00002.jsonl.gz").write_bytes(elsewhere.read_bytes())  # (came with a pull)
    (folder / "00003.jsonl.gz").write_bytes(b"damaged")
    assert shards.behind(str(a), folder)
    b = tmp_path / "b.sqlite"
    got = import_shards(folder, str(b), RUN)
    assert got.shards == 2 and len(got.problems) == 1
    assert not shards.behind(str(b), folder)  # (the damaged one was looked at: known)
    record(b, 10, ANSWERS[:1])
    [new] = export_shards(str(b), folder)
    assert new.name == "00004.jsonl.gz" and [r["key"] for r in lines(new)[1:]] == ["exists/10"]


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_shard_that_is_no_file_is_named_and_left_out_without_blocking(tmp_path, kind):
    a, folder = three_shards(tmp_path)
    middle = shard_paths(folder)[1]
    kept = tmp_path / "kept.gz"
    middle.rename(kept)
    if kind == "link":
        middle.symlink_to(kept)
    else:
        os.mkfifo(middle)
    done: list = []  # (a guard: a FIFO opened for reading would block forever)
    work = threading.Thread(
        target=lambda: done.append(import_shards(folder, str(tmp_path / "b.sqlite"), RUN)),
        daemon=True,
    )
    work.start()
    work.join(120)
    assert done, "the import hung"
    [got] = done
    assert got.shards == 2 and len(got.problems) == 1
    assert f"{middle.name} cannot be read" in got.problems[0]
    assert ("symbolic link" if kind == "link" else "FIFO") in got.problems[0]
