"""A checkpoint tampered with or damaged never changes an answer: a stored answer is bound
to its unit by a checksum and checked against what its unit must satisfy (a
distribution summing to its secrets, a witness that replays, an optimum's tree that
replays to its total); a row that fails is dropped, said in one warning, and its unit
run again.  A damaged header is refused in one line naming the file."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import numpy as np
import pytest

from mastermind import Game, analyze, optimal, worst_case
from mastermind.engine.checkpoint import CheckpointError, open_checkpoint, read_costs
from mastermind.engine.loop import CheckpointWarning
from mastermind.engine.rows import checksum, decode, encode
from mastermind.strategy_tree import replay_records
from mastermind.worstcase.search import Search

GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}


def rows(path: str) -> dict[str, tuple[str, int, bytes]]:
    with closing(sqlite3.connect(path)) as conn, conn:
        return {
            k: (d, s, r)
            for k, d, s, r in conn.execute("SELECT key, digest, size, result FROM units")
        }


def put(path: str, key: str, blob: bytes, *, seal: bool) -> None:
    """Write ``blob`` as the answer of ``key``; ``seal``: with a matching checksum (as
    someone who knows the format would)."""
    with closing(sqlite3.connect(path)) as conn, conn:
        (digest,) = conn.execute("SELECT digest FROM units WHERE key = ?", (key,)).fetchone()
        conn.execute("UPDATE units SET result = ? WHERE key = ?", (blob, key))
        if seal:
            conn.execute(
                "UPDATE units SET checksum = ? WHERE key = ?", (checksum(key, digest, blob), key)
            )


def two_keys(path: str, prefix: str, keep=lambda result: True) -> tuple[str, str]:
    """Two recorded units of different sizes whose answers pass ``keep``."""
    found: dict[int, str] = {}
    for key, (_, size, blob) in sorted(rows(path).items()):
        if key.startswith(prefix) and keep(decode(blob)):
            found.setdefault(size, key)
    assert len(found) >= 2, found
    a, b = list(found.values())[:2]
    return a, b


# ---------------------------------------------------------------------- analyses
@pytest.mark.parametrize("seal", [False, True], ids=["copied", "copied and resealed"])
def test_an_analysis_answer_moved_to_another_unit_is_run_again(tmp_path, seal):
    path = str(tmp_path / "a.sqlite")
    game = Game(4, 6)
    first = analyze(game, checkpoint=path)
    assert (first.secrets, first.total) == (1296, 5801)
    a, b = two_keys(path, "walk/")
    put(path, b, rows(path)[a][2], seal=seal)
    with pytest.warns(CheckpointWarning, match=f"unit {b}"):
        again = analyze(game, checkpoint=path)
    assert (again.secrets, again.total, again.distribution) == (1296, 5801, first.distribution)
    assert again.units_resumed == again.units - 1
    assert (
        decode(rows(path)[b][2])["dists"].tolist() != decode(rows(path)[a][2])["dists"].tolist()
    )  # the unit ran again and its own answer is back


@pytest.mark.parametrize(
    "blob",
    [b"", b"\x00garbage", encode({"dists": np.array(["x"])}), encode({"nothing": 1})],
    ids=["empty", "not npz", "strings", "no field"],
)
def test_a_damaged_analysis_answer_is_run_again(tmp_path, blob):
    path = str(tmp_path / "a.sqlite")
    game = Game(4, 6)
    analyze(game, checkpoint=path)
    key = sorted(rows(path))[0]
    put(path, key, blob, seal=True)
    with pytest.warns(CheckpointWarning, match=f"unit {key}"):
        again = analyze(game, checkpoint=path)
    assert (again.secrets, again.total) == (1296, 5801)


def test_a_size_that_is_not_a_number_is_a_damaged_row(tmp_path):
    path = str(tmp_path / "a.sqlite")
    game = Game(4, 6)
    analyze(game, checkpoint=path)
    key = sorted(rows(path))[0]
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE units SET size = 'many' WHERE key = ?", (key,))
    with pytest.raises(CheckpointError, match="a.sqlite: is damaged") as e:
        read_costs(path)
    assert "invalid literal" not in str(e.value)
    with pytest.warns(CheckpointWarning, match=f"unit {key}"):
        assert analyze(game, checkpoint=path).total == 5801


# ---------------------------------------------------------------------- proofs, optima
def test_a_worst_case_witness_moved_to_another_unit_is_run_again(tmp_path):
    path = str(tmp_path / "b.sqlite")
    game = Game(4, 6)
    plain = worst_case(game, checkpoint=path)
    a, b = two_keys(path, "exists/", keep=lambda r: r["ok"] == 1)
    put(path, b, rows(path)[a][2], seal=True)
    with pytest.warns(CheckpointWarning, match=f"unit {b} does not hold"):
        again = worst_case(game, checkpoint=path)
    assert (again.lower, again.upper, again.exact) == (plain.lower, plain.upper, True)
    assert again.witness == plain.witness


def test_an_optimum_claiming_a_smaller_total_is_run_again(tmp_path):
    path = str(tmp_path / "o.sqlite")
    game = Game(4, 6)
    assert optimal(game, checkpoint=path).total == 5625
    key = next(k for k, (_, _, blob) in sorted(rows(path).items()) if decode(blob)["status"] == 0)
    answer = decode(rows(path)[key][2])
    answer["value"] -= 18
    put(path, key, encode(answer), seal=True)
    with pytest.warns(CheckpointWarning, match=f"unit {key} does not hold"):
        again = optimal(game, checkpoint=path)
    assert again.total == 5625 and again.exact


def test_records_replay_to_their_total_and_depth():
    game = Game(3, 3)
    cands = np.ascontiguousarray(game.secrets, dtype=np.int32)
    recs = Search(
        game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 24
    ).witness_records(cands, 4)
    total, deepest = replay_records(game, recs, cands)
    assert deepest <= 4 and total >= cands.size
    assert replay_records(game, recs, cands[1:]) is None  # another set
    bad = recs.copy()
    bad[-1, 2] = (bad[-1, 2] + 1) % game.size  # a leaf guessing the wrong code
    assert replay_records(game, bad, cands) is None


# ---------------------------------------------------------------------- headers
@pytest.mark.parametrize(
    "value",
    ["[" * 100000 + "]" * 100000, "{not json", "7"],
    ids=["deeply nested", "not json", "not a dict"],
)
def test_a_damaged_header_is_refused_in_one_line(tmp_path, value):
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}):
        pass
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE header SET value = ? WHERE name = 'params'", (value,))
    with pytest.raises(CheckpointError) as e:
        open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"})
    text = str(e.value)
    assert text.startswith(f"checkpoint {path}: ") and "\n" not in text
    assert "another file" in text
    assert "Expecting" not in text and "recursion" not in text


def test_a_checkpoint_of_the_previous_format_is_refused(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}):
        pass
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE header SET value = '1' WHERE name = 'format'")
    with pytest.raises(CheckpointError, match="has format 1, this version reads format 2"):
        open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"})
