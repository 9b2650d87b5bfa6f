"""Tests of ``mastermind bound`` (mastermind.cli.bound)."""

import io
import json

import pytest

from mastermind import cli


def _run(argv):
    out = io.StringIO()
    return cli.main(argv, out), out.getvalue()


def test_cli_text():
    code, text = _run(["bound", "-n", "4", "-k", "6"])
    assert code == 0
    assert "5: a strategy needing at most 5 guesses exists; none with 4" in text
    assert "nodes searched in" in text


def test_cli_json_and_witness(tmp_path):
    path = tmp_path / "w.json"
    code, text = _run(["bound", "-n", "3", "-k", "5", "--json", "--witness", str(path)])
    assert code == 0
    doc = json.loads(text)
    assert {k: doc[k] for k in ("pegs", "colours", "lower", "upper", "exact")} == {
        "pegs": 3,
        "colours": 5,
        "lower": 5,
        "upper": 5,
        "exact": True,
    }
    assert isinstance(doc["nodes"], int) and isinstance(doc["seconds"], float)
    tree = json.loads(path.read_text())
    assert tree["max_guesses"] == 5 and tree["tree"]["candidates"] == 125


def test_cli_candidates_only():
    code, text = _run(["bound", "-n", "4", "-k", "6", "--candidates-only", "--json"])
    assert code == 0 and json.loads(text)["upper"] == 6


def test_cli_time_limit_exit_status():
    code, text = _run(["bound", "-n", "4", "-k", "9", "--time-limit", "2", "--json"])
    assert code == 1
    doc = json.loads(text)
    assert (doc["lower"], doc["upper"], doc["exact"], doc["status"]) == (6, 7, False, "time-limit")


def test_cli_time_limit_bounds_the_whole_command():
    """[5,8]: 5 guesses are refuted and minmax gives 7 within the limit; the undecided 6
    (an open question) is cut by it, and the command ends unfinished."""
    code, text = _run(["bound", "-n", "5", "-k", "8", "--time-limit", "4", "--json"])
    doc = json.loads(text)
    assert code == 1 and (doc["lower"], doc["upper"], doc["status"]) == (6, 7, "time-limit")
    assert doc["lower_proof"] == "search" and doc["upper_source"] == "minmax strategy"


@pytest.mark.parametrize(
    "argv",
    [
        ["bound", "--time-limit", "0"],
        ["bound", "-n", "9"],
        ["bound", "--memory", "0"],
        ["bound", "-n", "3", "-k", "3", "--witness", "/nonexistent/x"],
    ],
)
def test_cli_bad_input(argv, capsys):
    code, _ = _run(argv)
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("mastermind: error:") and "Traceback" not in err
