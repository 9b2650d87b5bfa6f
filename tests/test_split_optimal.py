"""Optimal searches whose units split on demand (mastermind.optimum.units with a unit
budget, mastermind.optimum.choice): a subtree past its budget hands back its set's
guesses, the set's choice is made by the search's own rules from its parts' answers, and
the strategy is the in-process one, tree for tree, whatever the budget, the threads and
the moment a run is stopped and resumed."""

import io
import json

import numpy as np
import pytest

from mastermind import Game
from mastermind.cli import main
from mastermind.engine.checkpoint import read_units
from mastermind.optimum._optimal import RUN_ABOVE_LIMIT, RUN_OPTIMUM
from mastermind.optimum.choice import INF, Choice, Opening
from mastermind.optimum.solver import optimal
from mastermind.optimum.units import optimal_unit


def same_optimum(there, here):
    assert (there.exact, there.feasible) == (here.exact, here.feasible)
    assert there.distribution == here.distribution
    assert there.tree == here.tree  # the very strategy, not only its total


@pytest.mark.parametrize(
    "n, k, variant, options",
    [
        (4, 4, "classic", {}),
        (4, 5, "classic", {"max_guesses": 5}),
        (4, 5, "classic", {"candidates_only": True}),
        (4, 4, "classic", {"max_guesses": 4}),
        (3, 6, "classic", {}),
        (4, 6, "bulls-and-cows", {}),
        (4, 6, "classic", {"first": "1123"}),
    ],
)
@pytest.mark.parametrize("budget", [0, 0.002])
def test_a_search_split_on_demand_finds_the_in_process_strategy(
    tmp_path, n, k, variant, options, budget
):
    game = Game(n, k, variant)
    here = optimal(game, **options)
    there = optimal(
        game, checkpoint=str(tmp_path / "o.sqlite"), unit_seconds=budget, jobs=2, **options
    )
    same_optimum(there, here)
    if budget == 0:
        assert there.units_split > 0
    rows = read_units(str(tmp_path / "o.sqlite"))
    assert sum(r[4] for r in rows) == there.units_split
    keys = {r[0] for r in rows}
    assert all(parent in keys for _, parent, _, _, _ in rows if parent)
    assert there.to_json()["units_split"] == there.units_split


def test_no_strategy_within_the_guesses_is_proved_the_same_way(tmp_path):
    game = Game(4, 4)
    there = optimal(game, max_guesses=3, checkpoint=str(tmp_path / "n.sqlite"), unit_seconds=0)
    assert not there.feasible and there.exact


def test_a_stop_in_the_middle_of_a_split_resumes_with_another_budget(tmp_path):
    game = Game(4, 5)
    here = optimal(game)
    path = str(tmp_path / "s.sqlite")

    def stop_soon(done, total):
        if done >= 12:
            raise KeyboardInterrupt

    stopped = optimal(game, checkpoint=path, unit_seconds=0, jobs=2, progress=stop_soon)
    assert stopped.status == "interrupted" and not stopped.exact
    rows = read_units(path)
    assert any(split for *_, split in rows), "stopped before any unit split"
    again = optimal(game, checkpoint=path, unit_seconds=30, jobs=1)
    same_optimum(again, here)
    assert again.units_resumed >= len(rows) - 2  # at most the units in flight lost
    thrice = optimal(game, checkpoint=path, unit_seconds=0, jobs=2)
    same_optimum(thrice, here)
    assert thrice.units == thrice.units_resumed  # nothing run again


def test_a_unit_past_its_budget_hands_back_its_sets_guesses():
    game = Game(4, 5)
    cands = np.ascontiguousarray(game.secrets)
    part = cands[game.kernel.slots(game.guess("1122"), cands) == game.slot((0, 1))]
    args = dict(
        cands=part,
        history=np.array([game.guess("1122")], dtype=np.int32),
        max_guesses=0,
        candidates_only=False,
        memory=1 << 22,
    )
    whole = optimal_unit(game, stop=None, limit=0, **args)
    split = optimal_unit(game, stop=None, limit=0, budget=0, **args)
    assert whole["status"] == RUN_OPTIMUM and split["split"] == 1
    assert len(split["openings"]) == len(split["bounds"]) > 1
    # every bound is a lower bound: the best opening's is at most the optimum
    assert int(min(split["bounds"])) <= whole["value"]
    # below a limit no strategy reaches, the stopped search may answer at once
    low = optimal_unit(game, stop=None, limit=whole["value"], budget=0, **args)
    assert low.get("split") or (low["status"] == RUN_ABOVE_LIMIT and low["value"] >= whole["value"])
    # a set too small to split is solved whatever the budget
    tiny = optimal_unit(game, stop=None, limit=0, budget=0, **dict(args, cands=part[:5]))
    assert tiny["status"] == RUN_OPTIMUM


# ------------------------------------------------------------------ the choice's rules
def _choice(totals, limit=INF, upper=INF):
    """A choice over openings of one part each (exact totals given in order)."""
    openings = []
    for i, _ in enumerate(totals):
        o = Opening(100 + i, 10, 0, notcand=False, m=5)
        o.parts = [(0, np.arange(4, dtype=np.int32), 5)]
        openings.append(o)
    return Choice(None, np.arange(5, dtype=np.int32), openings, [], limit, upper)


def test_the_first_opening_with_the_least_total_is_chosen():
    c = _choice([9, 7, 7])
    for i, t in [(2, 7), (0, 9), (1, 7)]:  # answers in any order
        c.take(i, 0, {"status": RUN_OPTIMUM, "value": t, "recs": np.zeros((1, 5), np.int32)})
    assert c.done() and c.chosen() is c.openings[1] and c.answer()["value"] == 12


def test_an_opening_ruled_out_stays_out_and_limits_tighten():
    c = _choice([7, 7, 7], limit=13)
    assert c.limit_of(0, 0) == 8  # 13 - 5: its part must stay below 8
    c.take(1, 0, {"status": RUN_OPTIMUM, "value": 6, "recs": np.zeros((1, 5), np.int32)})
    assert c.alive(0) and c.threshold(0) == 12 and c.threshold(2) == 11
    assert c.limit_of(0, 0) == 7 and c.limit_of(2, 0) == 6
    c.take(2, 0, {"status": RUN_ABOVE_LIMIT, "value": 6})
    assert not c.alive(2)
    c.take(0, 0, {"status": RUN_ABOVE_LIMIT, "value": 7})
    assert c.done() and c.answer()["value"] == 11


def test_above_the_limit_the_answer_is_a_lower_bound():
    c = _choice([7, 8], limit=12)
    c.take(0, 0, {"status": RUN_ABOVE_LIMIT, "value": 7})
    c.take(1, 0, {"status": RUN_OPTIMUM, "value": 8, "recs": np.zeros((1, 5), np.int32)})
    assert c.done() and c.chosen() is None
    assert c.answer() == {"status": RUN_ABOVE_LIMIT, "value": 12}


def test_a_known_total_rules_out_the_openings_bounded_above_it():
    c = _choice([7, 7], upper=11)
    c.openings[1].lb = 12  # its bound before its parts are known
    c.openings[1].parts = None
    assert c.alive(0) and not c.alive(1)


# ------------------------------------------------------------------ the command line
def test_the_optimal_command_counts_units_split(tmp_path):
    out = io.StringIO()
    status = main(
        [
            "optimal",
            "-n",
            "4",
            "-k",
            "4",
            "--checkpoint",
            str(tmp_path / "c.sqlite"),
            "--unit-seconds",
            "0",
            "--json",
            "--no-progress",
        ],
        out=out,
    )
    data = json.loads(out.getvalue())
    assert status == 0 and data["total"] == 905 and data["units_split"] > 0
    err = io.StringIO()
    bad = main(
        ["optimal", "--checkpoint", str(tmp_path / "d.sqlite"), "--unit-seconds", "x"], out=err
    )
    assert bad == 2
