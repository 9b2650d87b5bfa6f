"""Tests of ``mastermind lower-bound`` (mastermind.cli.lower_bound): the library's bound,
never above the optimum, from the start or a position, as text and JSON; bad input
refused in one line."""

import io
import json
import re

import pytest

from mastermind import Game
from mastermind.cli import main
from mastermind.optimum.bracket import lower_bound
from mastermind.optimum.solver import optimal


def run(argv):
    out = io.StringIO()
    return main(argv, out), out.getvalue()


def test_the_default_game_as_text():
    status, text = run(["lower-bound"])
    plain = lower_bound(Game(4, 6), depth=2).bound
    assert status == 0 and plain <= 5625
    assert f"in fewer than {plain:,} guesses in all" in text
    assert "bound tree of depth 2:" in text
    # one line per opening class of [4,6], the least first and complete
    rows = re.findall(r"^  (\d{4}) +([\d,]+)(\+?)$", text, re.MULTILINE)
    assert sorted(r[0] for r in rows) == ["1111", "1112", "1122", "1123", "1234"]
    assert rows[0] == ("1123", f"{plain:,}", "")  # the least, evaluated whole
    assert all(int(b.replace(",", "")) >= plain for _, b, _ in rows)


def test_exact_leaves_as_json():
    status, text = run(["lower-bound", "-n", "5", "-k", "4", "--exact-leaves", "40", "--json"])
    doc = json.loads(text)
    assert status == 0 and (doc["pegs"], doc["colours"], doc["exact_leaves"]) == (5, 4, 40)
    assert doc["bound"] == 3954 == optimal(Game(5, 4)).total  # reached at depth 2
    assert doc["how"] == "depth 2" and doc["average"] == doc["bound"] / doc["secrets"]
    least = min(g["bound"] for g in doc["guesses"])
    assert least == doc["bound"] and all(g["bound"] >= least for g in doc["guesses"])


def test_from_a_position():
    after = [("1122", (1, 1)), ("1344", (0, 2))]
    status, text = run(
        ["lower-bound", "--depth", "1", "--json"] + [f"--after={g}={b},{w}" for g, (b, w) in after]
    )
    doc = json.loads(text)
    best = optimal(Game(4, 6), history=after)
    assert status == 0 and doc["secrets"] == best.secrets and doc["bound"] <= best.total
    assert doc["history"] == [["1122", "1 1"], ["1344", "0 2"]]


def test_a_small_game_is_solved():
    status, text = run(["lower-bound", "-n", "3", "-k", "3"])
    assert status == 0 and "fewer than 73 guesses" in text and "the bound is the optimum" in text


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--depth", "9"], "--depth must be between 0 and 6"),
        (["--depth", "x"], "invalid integer"),
        (["--exact-leaves", "-1"], "--exact-leaves must be 0 or more"),
        (["--after", "1122"], "write GUESS=SCORE"),
        (["--after", "1122=4,0", "--after", "1123=1,0"], "no secret is consistent"),
        (["-n", "0"], "pegs"),
    ],
)
def test_bad_input_is_one_line(argv, words, capsys):
    status = main(["lower-bound", *argv], io.StringIO())
    err = capsys.readouterr().err
    assert status == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_one_secret_is_one_secret():
    """[1,1]: it said "the 1 secrets ... in fewer than 1 guesses"."""
    status, text = run(["lower-bound", "-n", "1", "-k", "1"])
    assert status == 0
    assert "[1,1]: no strategy finds the 1 secret in fewer than 1 guess in all" in text
    status, text = run(["analyze", "-n", "1", "-k", "1"])
    assert status == 0 and "1 secret, total 1" in text and "1 secrets" not in text
