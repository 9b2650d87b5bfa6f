"""Tests of ``mastermind compare`` (mastermind.cli.compare), and of the [4,6] table of
docs/results.md made with it."""

import csv
import io
import json
from pathlib import Path

import pytest

from mastermind.cli import main

ROOT = Path(__file__).resolve().parent.parent
TOTALS_ALL = {
    "minmax": 5801,
    "entropy": 5722,
    "parts": 5668,
    "expected-size": 5696,
    "first-candidate": 7471,
}
TOTALS_CANDIDATES = {
    "minmax": 5828,
    "entropy": 5786,
    "parts": 5701,
    "expected-size": 5722,
    "first-candidate": 7471,
}


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def markdown_rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]


def test_markdown_4_6_both_pools():
    status, text = run("compare", "-n", "4", "-k", "6", "--markdown")
    assert status == 0
    rows = markdown_rows(text)
    assert len(rows) == 10
    got_all = {r[0]: int(r[3]) for r in rows if r[1] == "all codes"}
    got_cands = {r[0]: int(r[3]) for r in rows if r[1] == "candidates only"}
    assert got_all == TOTALS_ALL and got_cands == TOTALS_CANDIDATES
    assert [r[2] for r in rows[:5]] == ["1122", "1234", "1123", "1123", "1111"]
    assert rows[0][5:8] == ["5801/1296", "5", "1/6/62/533/694"]


def test_results_table_is_the_command_output():
    """The [4,6] table of the documentation's results page is exactly what the command
    prints."""
    readme = (ROOT / "docs" / "results.md").read_text()
    status, text = run("compare", "-n", "4", "-k", "6", "--markdown", "--no-seconds", "--optimal")
    assert status == 0 and text.strip() in readme
    assert "mastermind compare -n 4 -k 6 --markdown --no-seconds --optimal" in readme
    assert "| optimal | all codes | 1123 | 5625 |" in text  # Koyama and Lai


def test_json_csv_text_and_choices():
    status, text = run(
        "compare",
        "-k",
        "4",
        "--strategies",
        "minmax",
        "entropy",
        "--pools",
        "candidates",
        "--json",
        "--no-seconds",
    )
    doc = json.loads(text)
    assert status == 0 and doc["secrets"] == 256
    assert [(r["strategy"], r["pool"]) for r in doc["rows"]] == [
        ("minmax", "candidates"),
        ("entropy", "candidates"),
    ]
    assert all("seconds" not in r for r in doc["rows"])
    status, text = run("compare", "--strategies", "parts,first-candidate", "--csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["strategy"], r["pool"], int(r["total"])) for r in rows] == [
        ("parts", "all", 5668),
        ("first-candidate", "all", 7471),
        ("parts", "candidates", 5701),
        ("first-candidate", "candidates", 7471),
    ]
    status, text = run("compare", "--pools", "all")
    lines = text.splitlines()
    assert status == 0 and lines[0] == "[4,6]: 1296 secrets" and len(lines) == 3 + 5
    assert lines[2].split()[:2] == ["strategy", "guesses"]
    assert {ln.split()[0]: int(ln.split()[4]) for ln in lines[3:]} == TOTALS_ALL


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--strategies", "knuth"], "unknown strategy 'knuth'"),
        (["--pools", "all,some"], "unknown guess pool 'some'"),
        (["--strategies", "minmax,minmax"], "named twice"),
        (["--json", "--csv"], "not allowed with"),
        (["-n", "9"], "pegs must be between 1 and 8"),
        (["--plot", "x.gif"], "use a .png, .svg or .pdf file"),
        (["--plot", "/no/such/folder/x.png"], "no folder"),
    ],
)
def test_bad_input_one_line_exit_2(argv, words, capsys):
    status, text = run("compare", *argv)
    err = capsys.readouterr().err
    assert status == 2 and text == ""
    assert err.startswith("mastermind: error:") and words in err and err.count("\n") == 1
