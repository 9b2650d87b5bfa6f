"""The command line, in-process (main(argv, out)) and as a real process."""

import io
import json
import subprocess
import sys

import pytest

from mastermind.cli import main


def run(*argv):
    out = io.StringIO()
    status = main(list(argv), out)
    return status, out.getvalue()


def test_analyze_entropy_json():
    status, text = run("analyze", "-n", "4", "-k", "6", "--strategy", "entropy", "--json")
    assert status == 0
    j = json.loads(text)
    assert j["total"] == 5722 and j["first_guess"] == "1234" and j["strategy"] == "entropy"
    for key in (
        "pegs",
        "colours",
        "strategy",
        "candidates_only",
        "first_guess",
        "secrets",
        "total",
        "average",
        "average_fraction",
        "max",
        "distribution",
    ):
        assert key in j
    assert j["secrets"] == 1296 and j["average_fraction"] == "2861/648"


def test_analyze_text_default_game():
    status, text = run("analyze")
    assert status == 0
    assert "first guess 1122" in text and "total 5801" in text and "5801/1296" in text


def test_analyze_options():
    status, text = run(
        "analyze",
        "--colors",
        "5",
        "--strategy",
        "parts",
        "--candidates-only",
        "--first",
        "1123",
        "--json",
        "--jobs",
        "1",
    )
    j = json.loads(text)
    assert status == 0 and j["colours"] == 5 and j["candidates_only"] and j["first_guess"] == "1123"


def test_analyze_tree_json():
    status, text = run("analyze", "-n", "3", "-k", "3", "--tree", "--json")
    tree = json.loads(text)["tree"]
    assert tree["candidates"] == 27 and tree["children"]


def test_solve_json_and_text():
    status, text = run("solve", "6543", "--json")
    j = json.loads(text)
    assert status == 0 and j["steps"][0]["guess"] == "1122" and j["steps"][-1]["black"] == 4
    assert j["guesses"] == len(j["steps"]) <= 5
    status, text = run("solve", "6543")
    assert "solved in" in text


def test_first_guesses():
    status, text = run("first-guesses", "--json")
    j = json.loads(text)
    assert [c["guess"] for c in j["classes"]] == ["1111", "1112", "1122", "1123", "1234"]
    assert j["openings"] == {
        "minmax": "1122",
        "entropy": "1234",
        "parts": "1123",
        "expected-size": "1123",
    }
    status, text = run("first-guesses")
    assert "1122" in text and "minmax" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "-n", "9"],
        ["analyze", "-k", "0"],
        ["analyze", "--strategy", "knuth"],
        ["solve", "7777"],
        ["solve", "12"],
        ["analyze", "--first", "11x2"],
        ["analyze", "-n", "x"],
        ["analyze", "--jobs", "0"],
        ["bogus"],
        ["analyze", "-n", "8", "-k", "16"],
        ["analyze", "--variant", "permutation"],
    ],
)
def test_bad_input_one_line_exit_2(argv, capsys):
    status, _ = run(*argv)
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("mastermind: error:") and err.count("\n") == 1
    assert "Traceback" not in err


def test_no_command_prints_help():
    status, text = run()
    assert status == 2 and "analyze" in text


def test_console_script_process():
    p = subprocess.run(
        [sys.executable, "-m", "mastermind", "analyze", "--json", "-k", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and json.loads(p.stdout)["secrets"] == 256
    p = subprocess.run(
        [sys.executable, "-m", "mastermind", "solve", "9999"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_help_explains():
    p = subprocess.run(
        [sys.executable, "-m", "mastermind", "analyze", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and "--candidates-only" in p.stdout and "--first" in p.stdout
