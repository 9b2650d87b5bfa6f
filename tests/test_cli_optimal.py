"""Tests of ``mastermind optimal`` (mastermind.cli.optimal)."""

import io
import json

import pytest
import reference as ref

from mastermind import Game
from mastermind.cli import main
from mastermind.worstcase.bounds import strategy_distribution


def run(argv):
    out = io.StringIO()
    return main(argv, out), out.getvalue()


def test_default_game_json():
    status, text = run(["optimal", "--json"])
    doc = json.loads(text)
    assert status == 0 and doc["total"] == 5625 and doc["exact"] and doc["lower"] == 5625
    assert doc["first_guess"] == "1123" and doc["max"] == 6
    assert doc["average_fraction"] == "625/144" and sum(doc["distribution"].values()) == 1296


def test_text_and_options():
    status, text = run(["optimal", "--max-guesses", "5"])
    assert status == 0 and "total 5626" in text and "at most 5 guesses" in text
    status, text = run(["optimal", "-n", "3", "-k", "3", "--max-guesses", "3"])
    assert status == 0 and "no strategy finds every secret within 3 guesses (proved)" in text
    status, text = run(
        ["optimal", "-n", "3", "-k", "4", "--variant", "distinct", "--candidates-only", "--json"]
    )
    assert status == 0 and json.loads(text)["candidates_only"] is True


def test_tree_file_replays(tmp_path):
    path = tmp_path / "opt.json"
    status, text = run(["optimal", "-n", "3", "-k", "4", "--tree", str(path)])
    assert status == 0
    data = json.loads(path.read_text())
    assert data["strategy"] == "optimal" and data["total"] == 206
    assert ref.replay_tree(data) == {int(d): c for d, c in data["distribution"].items()}


def test_time_limit_exit_status():
    """[4,8] (optimum 20,471, several seconds of search) stopped at half a second: the
    proved bound, and the best strategy found if one was (on a loaded machine, none may
    have been: no total then)."""
    status, text = run(["optimal", "-n", "4", "-k", "8", "--time-limit", "0.5", "--json"])
    doc = json.loads(text)
    assert status == 1 and not doc["exact"] and doc["status"] == "time-limit"
    assert 2 * 4096 - 1 <= doc["lower"] <= 20471
    assert doc["total"] is None or doc["total"] >= 20471


@pytest.mark.parametrize(
    "argv,words",
    [
        (["optimal", "--max-guesses", "0"], "--max-guesses must be between 1 and 64"),
        (["optimal", "--time-limit", "0"], "--time-limit must be a positive number"),
        (["optimal", "--memory", "0"], "--memory must be at least 1 MB"),
        (["optimal", "--first", "1127"], "colours are 1..6"),
        (["optimal", "--tree", ""], "an empty file name"),
        (["optimal", "--jobs", "300"], "--jobs must be between 1 and 256"),
    ],
)
def test_bad_input(argv, words, capsys):
    status, _ = run(argv)
    err = capsys.readouterr().err
    assert status == 2 and words in err and err.count("\n") == 1


def test_strategy_distribution_of_the_default_game():
    from mastermind.optimum.solver import optimal

    best = optimal(Game(4, 6))
    assert strategy_distribution(best.game, best.tree) == best.distribution


def test_from_a_position(tmp_path):
    """--after: the optimum over the secrets a history leaves; its tree file records the
    history, and replaying it over those secrets gives the distribution."""
    from mastermind.views.tree import replay_distribution

    path = tmp_path / "after.json"
    status, text = run(
        ["optimal", "--after", "1122=BW", "--after", "1344=-", "--json", "--tree", str(path)]
    )
    doc = json.loads(text)
    game = Game(4, 6)
    left = game.candidates([("1122", "1 1"), ("1344", "0 0")])
    assert status == 0 and doc["secrets"] == left.size and doc["exact"]
    assert doc["history"] == [["1122", "1 1"], ["1344", "0 0"]]
    data = json.loads(path.read_text())
    assert data["history"] == doc["history"]
    assert {str(d): c for d, c in replay_distribution(data, game).items()} == doc["distribution"]
    status, text = run(["optimal", "--after", "1122=1,1"])
    assert status == 0 and "after 1122 scored 1 1 (208 secrets left)" in text


@pytest.mark.parametrize(
    "after,message",
    [
        ("1122", "write GUESS=SCORE"),
        ("1122=BBBBW", "not a possible score"),
        ("1129=B", "colours are 1..6"),
    ],
)
def test_bad_positions(after, message, capsys):
    status, _ = run(["optimal", "--after", after])
    assert status == 2 and message in capsys.readouterr().err
    status, _ = run(["optimal", "--after", "1122=BBBB", "--after", "1123=BBBB"])
    assert status == 2 and "no secret is consistent" in capsys.readouterr().err
