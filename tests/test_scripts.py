"""The research scripts run end to end on a small game: scripts/optimum/record_5_8.py builds a tree
no worse than its rule's, exactly as good as it claims (replayed here once more), and
resumes from its cache; scripts/optimum/improve_record.py lowers such a record where its
positions were cut short."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mastermind
from mastermind import Game
from mastermind.analysis.exhaustive import analyze
from mastermind.views.tree import replay_distribution

ROOT = Path(__file__).resolve().parents[1]


# a time limit that has passed before any position's search begins: every search stops at
# once (a few hundred microseconds stopped only a cold process's searches, and the
# positions run on warm threads of the script's own process)
CUT_SHORT = "1e-7"


def record(tmp_path: Path, limit: str) -> dict:
    # the package under test (the checkout's src/ when built in place, else installed)
    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "optimum" / "record_5_8.py"),
            "-n",
            "4",
            "-k",
            "6",
            "--first",
            "1123",
            "--workers",
            "1",
            "--part-limit",
            limit,
            "--cache",
            str(tmp_path / "cache.jsonl"),
            "--out",
            str(tmp_path / "out.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / "out.json").read_text())


def subtree_total(node: dict) -> int:
    """The guesses a tree node's subtree spends: one a secret reaching it, and below."""
    return node["candidates"] + sum(subtree_total(c) for c in node.get("children", {}).values())


def replayed_total(doc: dict) -> int:
    dist = replay_distribution(doc, Game(4, 6))  # the file's tree, every secret
    assert sum(dist.values()) == 1296
    return sum(d * c for d, c in dist.items())


def test_record_script_beats_its_rule_and_resumes(tmp_path):
    rule = analyze(Game(4, 6), "entropy", first="1123").total
    doc = record(tmp_path, "20")
    assert doc["total"] == replayed_total(doc) < rule
    assert doc["method"]["positions"] == doc["method"]["positions_exact"]
    assert "published_best" not in doc  # [5,8]'s, not this game's
    again = record(tmp_path, "20")  # every position from the cache
    assert again["total"] == doc["total"]


def test_record_script_keeps_the_rule_where_the_search_is_stopped(tmp_path):
    rule = analyze(Game(4, 6), "entropy", first="1123").total
    doc = record(tmp_path, CUT_SHORT)
    assert doc["method"]["positions_from_the_rule"] > 0
    assert doc["total"] == replayed_total(doc) <= rule


def improve(tmp_path: Path, *argv: str) -> dict:
    """scripts/optimum/improve_record.py on the record in tmp_path/out.json."""
    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    out = tmp_path / "better.json"
    argv = ("--record", str(tmp_path / "out.json"), "--out", str(out), *argv)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "optimum" / "improve_record.py"), *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def test_improving_a_record_lowers_it_where_its_positions_were_cut_short(tmp_path):
    """On a [4,6] record whose positions were all cut short (the rule's subtrees kept):
    third guesses with their parts solved lower the total, never below the optimum
    5,625, and the file replays to what it states."""
    before = replayed_total(record(tmp_path, CUT_SHORT))
    better = improve(tmp_path, "--part-limit", "20")
    assert 5625 <= better["total"] == replayed_total(better) < before
    changes = better["method"]["improved"]
    assert changes and all(c["total"] < c["total_before"] for c in changes)
    assert before - better["total"] == sum(c["total_before"] - c["total"] for c in changes)


def test_improving_a_record_by_whole_parts_reaches_the_optimum_of_its_opening(tmp_path):
    """Every part of the opening 1123 solved whole: the record becomes [4,6]'s optimum
    (5,625, which opens with 1123); the records of the positions below a part replaced
    leave the file with it."""
    record(tmp_path, CUT_SHORT)
    better = improve(tmp_path, "--whole-parts", "1296", "--whole-limit", "20", "--whole-only")
    assert better["total"] == replayed_total(better) == 5625
    # each part's search is noted, its optimum the subtree the tree now has there
    notes = {e["after"][1]: e for e in better["method"]["whole_parts"]}
    parts = better["tree"]["children"]
    assert set(notes) == {s for s, c in parts.items() if c["candidates"] > 1}
    for score, e in notes.items():
        assert e["exact"] and e["after"][0] == "1123" and e["secrets"] == parts[score]["candidates"]
        assert e["lower"] == e["total"] == subtree_total(parts[score])


def test_whole_parts_from_a_size_on_leave_the_smaller_parts_alone(tmp_path):
    """--whole-from M: only the parts of at least M codes are solved (and noted)."""
    record(tmp_path, CUT_SHORT)
    argv = ("--whole-parts", "1296", "--whole-from", "200", "--whole-limit", "20")
    better = improve(tmp_path, *argv, "--whole-only")
    sizes = [e["secrets"] for e in better["method"]["whole_parts"]]
    big = [c["candidates"] for c in better["tree"]["children"].values() if c["candidates"] >= 200]
    assert sorted(sizes) == sorted(big) and sizes
    changes = better["method"]["improved"]
    assert changes and all(c["exact"] and c["total"] < c["total_before"] for c in changes)
    kept = {p["after"][1] for p in better["positions"]}
    assert kept.isdisjoint(c["after"][1] for c in changes)
    assert better["method"]["positions"] == len(better["positions"])


def test_the_shipped_5_8_record_replays_to_its_total():
    """results/record_5_8.json: every one of the 32,768 secrets followed down the file's
    tree with the package's scorer; the total is below the best published 179,274."""
    doc = json.loads((ROOT / "results" / "record_5_8.json").read_text())
    game = Game(5, 8)
    dist = replay_distribution(doc, game)
    assert sum(dist.values()) == 32768
    total = sum(d * c for d, c in dist.items())
    assert total == doc["total"] == 178572 < 179274
    assert {int(k): v for k, v in doc["distribution"].items()} == dist


def table(tmp_path: Path, budget: str) -> dict:
    """scripts/optimum/optimal_table.py on [4,6] alone, its search checkpointed."""
    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    argv = ["--only", "4x6", "--budget", budget, "--p-budget", "5", "--jobs", "1"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "optimum" / "optimal_table.py"), *argv]
        + ["--out", str(tmp_path / "out"), "--checkpoints", str(tmp_path / "ckpt")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / "out" / "table.json").read_text())["4x6"]


def test_table_script_resumes_an_unfinished_game_from_its_checkpoint(tmp_path):
    """A millisecond's budget leaves [4,6] unfinished with a proved bracket; the next run,
    whatever its budget, goes on from the game's checkpoint to the optimum, 5625."""
    first = table(tmp_path, "0.001")
    assert not first["exact"] and first["lower"] <= 5625
    assert first["best_found"] is None or first["best_found"] >= 5625
    assert (tmp_path / "ckpt" / "4x6.sqlite").exists()
    second = table(tmp_path, "120")
    assert second["exact"] and second["total"] == 5625 and second["distribution"]


def test_table_script_gives_an_unfinished_game_the_bound_tree_lower_side(tmp_path):
    """An unfinished row takes the bound tree's lower bound when it is higher than the
    search's ([4,5] at depth 2 with exact leaves: its optimum, 2463), kept on a rerun
    that gives no more, and the Markdown table shows it as the bracket's lower side."""
    out = tmp_path / "out"
    out.mkdir()
    row = {"game": "[4,5]", "pegs": 4, "colours": 5, "variant": "classic", "secrets": 625}
    row.update(exact=False, lower=2000, best_found=2500, seconds=1.0, nodes=7, budget=1.0)
    (out / "table.json").write_text(json.dumps({"4x5": row}))
    env = dict(os.environ, PYTHONPATH=str(Path(mastermind.__file__).resolve().parents[1]))
    script = [sys.executable, str(ROOT / "scripts" / "optimum" / "optimal_table.py")]
    argv = ["--out", str(out), "--tree-bounds", "--tree-depth", "2", "--tree-leaves", "40"]
    for _ in range(2):
        done = subprocess.run(script + argv, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
    assert "no more than 2463" in done.stdout
    got = json.loads((out / "table.json").read_text())["4x5"]
    assert got["lower"] == 2000 and got["tree_lower"]["bound"] == 2463
    assert (got["tree_lower"]["depth"], got["tree_lower"]["exact_leaves"]) == (2, 40)
    done = subprocess.run(
        script + ["--out", str(out), "--markdown"], capture_output=True, text=True, env=env
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("| [4,5]"))
    assert "| 2463..2500 |" in line and "bound tree, search 2000" in line
