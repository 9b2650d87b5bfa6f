"""Tests of ``mastermind tree`` (mastermind.cli.tree)."""

import io
import json
import shutil

import pytest
import reference as ref
from conftest import NEEDS_A_PROGRAM

from mastermind import Game, analyze
from mastermind.cli import main


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out), out.getvalue()


def test_cli_tree_formats(tmp_path):
    status, text = run(["tree", "-n", "3", "-k", "3", "-s", "entropy", "--format", "json"])
    assert status == 0
    data = json.loads(text)
    assert ref.replay_tree(data) == analyze(Game(3, 3), "entropy").distribution
    status, text = run(["tree", "-n", "3", "-k", "3", "--variant", "permutation"])
    assert status == 0 and text.startswith("# [3,3] permutation minmax")
    status, text = run(["tree", "--game", "twoD", "-s", "entropy", "-f", "dot"])
    assert status == 0 and ref.parse_dot(text)[0]["n0"] == "22\\n25 left"
    target = tmp_path / "knuth.json"
    status, text = run(["tree", "-o", str(target)])
    assert status == 0 and text.startswith(f"wrote {target}")
    assert json.loads(target.read_text())["total"] == 5801
    status, _ = run(["tree", "-n", "2", "-k", "2", "-o", str(tmp_path / "t.txt")])
    assert (tmp_path / "t.txt").read_text().startswith("# [2,2] minmax")


@pytest.mark.skipif(shutil.which("dot") is None, reason=f"{NEEDS_A_PROGRAM} Graphviz's dot")
def test_cli_tree_renders_svg(tmp_path):
    target = tmp_path / "t.svg"
    status, _ = run(["tree", "-n", "3", "-k", "3", "-o", str(target)])
    assert status == 0 and "<svg" in target.read_text()


def test_cli_tree_errors(monkeypatch, capsys, tmp_path):
    for argv, words in [
        (["tree", "--format", "text", "-o", str(tmp_path / "x.svg")], "only the dot format"),
        (["tree", "--depth", "0"], "--depth must be at least 1"),
        (["tree", "-o", str(tmp_path / "no" / "x.json")], "cannot write"),
        (["tree", "--first", "1127"], "colours are 1..6"),
        (["tree", "--game", "threeD"], "invalid choice"),
    ]:
        assert run(argv)[0] == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and err.count("\n") == 1
    monkeypatch.setattr("mastermind.views.tree.dot_program", lambda: None)
    assert run(["tree", "-o", str(tmp_path / "x.png")])[0] == 3  # a tool missing, not bad input
    assert "Graphviz is not installed" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
