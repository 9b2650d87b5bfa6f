"""One part's proved lower bound as a unit of work (kind "optimum.part_bound",
mastermind.optimum.bracket.part_bound_unit): the bound a Bounder of the same settings
gives, or the part's optimum when asked to solve it, a stop from the run obeyed, and the
answer recorded in the engine's checkpoint and taken back from it."""

import numpy as np
import pytest
from conftest import OneUnitPlan

from mastermind import Game, optimal
from mastermind.engine.kinds import worker
from mastermind.engine.options import RunOptions
from mastermind.engine.run import open_run
from mastermind.engine.units import Unit
from mastermind.optimum.bracket import HOWS, Bounder, how_of, part_bound_unit
from mastermind.stopping import Stopped, new_flag
from mastermind.strategy_tree import split_by_score

GAME = Game(4, 6)
OPENING = GAME.guess("1123")
PART = next(c for s, c in split_by_score(GAME, OPENING, GAME.secrets) if c.size == 276)
SETTINGS = {"exact_max": 0, "exact_seconds": 1.0, "exact_leaves": 0, "memory": 1 << 24}


def args(depth, solve=0.0):
    return {"codes": PART, "opening": OPENING, "depth": depth, "b": 13, "solve_seconds": solve}


def test_a_part_bound_unit_is_the_bound_a_bounder_gives():
    for depth in (1, 2):
        answer = part_bound_unit(GAME, stop=new_flag(), **args(depth), **SETTINGS)
        value, how = Bounder(GAME, 0, 1.0, 1 << 24).bound(PART, [OPENING], depth, 13)
        assert (answer["bound"], how_of(answer["how"])) == (value, how) == (value, f"depth {depth}")
        assert answer["took"] >= 0
    assert tuple(
        part_bound_unit(GAME, stop=new_flag(), **args(d), **SETTINGS)["bound"] for d in (1, 2)
    ) == (950, 974)


def test_a_part_bound_unit_solving_its_part_gives_the_optimum():
    answer = part_bound_unit(GAME, stop=new_flag(), **args(1, solve=60.0), **SETTINGS)
    best = optimal(GAME, history=[("1123", "0 1")])
    assert answer["how"] == HOWS["exact"] and answer["bound"] == best.total > 974


def test_a_stopped_part_bound_unit_raises_stopped():
    flag = new_flag()
    flag.set()
    with pytest.raises(Stopped):
        part_bound_unit(GAME, stop=flag, **args(2), **SETTINGS)


def test_part_bound_units_run_on_the_engine_and_resume_from_its_checkpoint(tmp_path):
    assert worker("optimum.part_bound") is part_bound_unit

    path = str(tmp_path / "parts.checkpoint")
    for resumed in (0, 1):
        plan = OneUnitPlan(Unit("p", "optimum.part_bound", {**args(2), **SETTINGS}, int(PART.size)))
        options = RunOptions.of(jobs=1, checkpoint=path)
        with open_run(GAME, kind="bound", params={}, options=options) as run:
            counts = run.execute(plan)
        assert plan.result["bound"] == 974 and counts.resumed == resumed
    assert np.array_equal(plan.unit.args["codes"], PART)
