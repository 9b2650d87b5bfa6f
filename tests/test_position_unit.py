"""The optimum of one position within a time limit as a unit of work (kind
"optimum.position", mastermind.optimum.solver.position_unit): the answer optimal() gives
for that position, its tree as records that build back to it, a search cut short by its
deadline, and a stop from the run."""

import numpy as np
import pytest
from conftest import OneUnitPlan

from mastermind import Game, optimal
from mastermind.engine.kinds import worker
from mastermind.engine.options import RunOptions
from mastermind.engine.run import open_run
from mastermind.engine.units import Unit
from mastermind.optimum.solver import position_unit
from mastermind.stopping import Stopped, new_flag
from mastermind.strategy_tree import build_tree, in_score_order, replay_records

GAME = Game(4, 6)
HISTORY = np.array([[8, 1], [346, 9]], dtype=np.int32)  # 1123 scored 0 1, then 2445


def played(game, history):
    return [(int(g), game.slots[int(s)]) for g, s in history]


def test_a_position_unit_answers_what_optimal_answers():
    answer = position_unit(GAME, stop=new_flag(), history=HISTORY, time_limit=60.0, memory=64 << 20)
    best = optimal(GAME, history=played(GAME, HISTORY), time_limit=60.0, jobs=1)
    assert (answer["total"], answer["exact"], answer["lower"]) == (best.total, 1, best.lower)
    assert answer["secrets"] == best.secrets == 28
    assert in_score_order(build_tree(GAME, answer["recs"])) == best.tree
    cands = GAME.candidates(played(GAME, HISTORY))
    assert replay_records(GAME, answer["recs"], cands)[0] == answer["total"] == 72


def test_a_position_unit_past_its_deadline_has_a_proved_bound_and_no_strategy():
    answer = position_unit(GAME, stop=new_flag(), history=HISTORY, time_limit=1e-7, memory=1 << 20)
    assert answer["total"] == -1 and answer["exact"] == 0 and "recs" not in answer
    assert 28 * 2 <= answer["lower"] <= 72  # (each secret but one needs two guesses at least)


def test_a_stopped_position_unit_raises_stopped():
    flag = new_flag()
    flag.set()
    with pytest.raises(Stopped):
        position_unit(GAME, stop=flag, history=HISTORY, time_limit=60.0, memory=1 << 20)


def test_position_units_run_on_the_engine_and_resume_from_its_checkpoint(tmp_path):
    assert worker("optimum.position") is position_unit

    path = str(tmp_path / "positions.checkpoint")
    for resumed in (0, 1):
        plan = OneUnitPlan(
            Unit(
                "p",
                "optimum.position",
                {"history": HISTORY, "time_limit": 60.0, "memory": 1 << 20},
                28,
            )
        )
        options = RunOptions.of(jobs=1, checkpoint=path)
        with open_run(GAME, kind="optimal", params={}, options=options) as run:
            counts = run.execute(plan)
        assert plan.result["total"] == 72 and counts.resumed == resumed
