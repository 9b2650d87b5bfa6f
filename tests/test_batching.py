"""Units sent in batches (mastermind.engine.batching): the same answers and the same
checkpoint rows as units sent one by one, each unit with its own seconds and worker; a
batch goes out when full or when the loop waits; cancelled units are never handed back."""

from __future__ import annotations

import sqlite3

import numpy as np

from mastermind import Game, solution_exists
from mastermind.engine.batching import Batching, run_batch
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.executors import LocalExecutor
from mastermind.engine.loop import execute
from mastermind.engine.rows import decode
from mastermind.engine.run import Run
from mastermind.engine.units import Unit
from mastermind.stopping import new_flag
from mastermind.worstcase.search import Search
from mastermind.worstcase.units import ExistsPlan, UnitSearch, checkpoint_params


def plan_of(game: Game, d: int, store_run=None) -> ExistsPlan:
    local = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 24)
    search = UnitSearch(
        local,
        game,
        candidates_only=False,
        symmetry=True,
        memory=1 << 24,
        run=store_run,
        progress=None,
        unit_seconds=0.002,
    )
    return ExistsPlan(search, np.ascontiguousarray(game.secrets), [5, 11, 30], d)


def test_batches_give_the_answers_and_rows_of_units_sent_alone(tmp_path):
    game = Game(4, 5)
    answers = {}
    for size in (1, 4):
        path = str(tmp_path / f"b{size}.sqlite")
        params = checkpoint_params(candidates_only=False, symmetry=True, memory=1 << 24)
        with open_checkpoint(path, "bound", game.spec().definition(), params) as store:
            executor = Batching(LocalExecutor(game, 2), size)
            plan = plan_of(game, 5, Run(executor, store))
            try:
                execute(plan, executor, store, new_flag(), unit_seconds=0.002)
            finally:
                executor.close()
        answers[size] = (plan.answer(), plan.state(0), ok_of(path))
    assert answers[1][:2] == answers[4][:2] == (5, True)
    ok1, ok4 = answers[1][2], answers[4][2]
    assert len(ok4) > 3  # each unit with a seconds of its own
    assert all(isinstance(seconds, float) for _, seconds in ok4.values())
    # which units ran, and which split past their budget, depends on timing: a unit both
    # runs answered whole has the same answer
    whole = [k for k in set(ok1) & set(ok4) if "split" not in (ok1[k][0], ok4[k][0])]
    assert whole and all(ok1[k][0] == ok4[k][0] for k in whole)


def ok_of(path: str) -> dict:
    """key -> (its answer's ``ok``, or "split"; its seconds) of every recorded unit."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT key, result, seconds FROM units").fetchall()
    finally:
        conn.close()
    return {k: (decode(r).get("ok", "split"), s) for k, r, s in rows}


def test_run_batch_answers_each_unit_in_turn():
    game = Game(3, 3)
    cands = np.ascontiguousarray(game.secrets[:7])
    args = {"cands": cands, "d": 3, "candidates_only": False, "symmetry": True, "memory": 1 << 20}
    got = run_batch(game, stop=None, units=[("worstcase.exists", args)] * 2)
    assert [a["ok"] for a in got["answers"]] == [int(bool(solution_exists(game, 3, cands)))] * 2
    assert all(isinstance(a["seconds"], float) and ":" in a["worker"] for a in got["answers"])


class Recording:
    """An executor that answers every task at once and keeps what it was sent."""

    def __init__(self):
        self.sent, self.cancelled = [], []

    def slots(self):
        return 2

    def submit(self, unit, budget=None):
        self.sent.append(unit)
        return len(self.sent) - 1

    def wait(self, handles, timeout):
        return [
            (h, {"answers": [{"n": i} for i in range(len(self.sent[h].args["units"]))]}, None)
            for h in handles
        ]

    def cancel(self, handles):
        self.cancelled.extend(handles)


def test_a_batch_goes_out_when_full_or_waited_for_and_cancelled_units_stay_out():
    inner = Recording()
    b = Batching(inner, 3)
    assert b.slots() == 6
    units = [Unit(f"k/{i}", "worstcase.exists", {"i": i}, 1) for i in range(4)]
    handles = [b.submit(u) for u in units]
    assert len(inner.sent) == 1 and inner.sent[0].kind == "engine.batch"  # the full one
    b.cancel([handles[1]])
    got = b.wait(handles, 0.1)  # sends the fourth alone
    assert len(inner.sent) == 2
    assert [(h.unit.key, a["n"]) for h, a, e in got] == [("k/0", 0), ("k/2", 2), ("k/3", 0)]
    more = [b.submit(u) for u in units[:2]]
    b.cancel(more)  # a whole batch cancelled: its task too
    b.wait([], 0.1)
    assert b.wait(more, 0.1) == []
