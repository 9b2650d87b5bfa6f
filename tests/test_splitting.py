"""Units that split on demand (mastermind.engine.units): a unit past its budget hands back
its sub-units, the engine runs them and the plan merges their answers into the parent's.

The answers are the in-process ones whatever the budget (0: split at once, down to the
smallest units), on threads here and on a LocalCluster of two workers; a stop in the
middle of a split resumes from the checkpoint (with another budget) to the same answer;
a worker killed in the middle of a split changes nothing.  The list scheduler of
mastermind.engine.schedule (bench/simulate.py's scheduler) is checked against a schedule
worked out by hand."""

import os
from pathlib import Path

import pytest

from mastermind import Game, analyze, solution_exists, worst_case
from mastermind.engine.checkpoint import read_units
from mastermind.engine.executors import LocalExecutor
from mastermind.engine.loop import execute
from mastermind.engine.units import BudgetError, Unit
from mastermind.worstcase.bounds import check_strategy

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ the engine alone
class SumPlan:
    """A toy plan: the sum of range(lo, hi), a unit splitting into halves while it holds
    more than ``leaf`` numbers; and (``any_of``) an OR: whether some number in the range
    is ``target``, decided by the first half that finds it."""

    kind = "toy"

    def __init__(self, hi, leaf, target=None):
        self.units = [
            Unit(
                "sum/0",
                f"{__name__}:sum_unit",
                {"lo": 0, "hi": hi, "leaf": leaf, "target": -1 if target is None else target},
                hi,
            )
        ]
        self.answer = None
        self.merged = 0

    def next(self):
        return self.units.pop() if self.units else None

    def take(self, unit, result):
        self.answer = int(result["value"])
        return []

    def done(self):
        return self.answer is not None

    def known(self):
        return 1

    def expand(self, unit, split):
        lo, hi = unit.args["lo"], unit.args["hi"]
        mid = (lo + hi) // 2
        return [
            Unit(f"{unit.key}/{i}", unit.kind, dict(unit.args, lo=a, hi=b), b - a)
            for i, (a, b) in enumerate([(lo, mid), (mid, hi)])
        ]

    def merge(self, unit, split, answers):
        self.merged += 1
        if unit.args["target"] >= 0:  # an OR: decided by a True, or by every False
            if any(a["value"] for a in answers.values()):
                return {"value": 1}
            return {"value": 0} if len(answers) == 2 else None
        if len(answers) < 2:
            return None
        return {"value": sum(int(a["value"]) for a in answers.values())}


def sum_unit(game, *, stop, lo, hi, leaf, target, budget=None):
    if budget is not None and hi - lo > leaf:
        return {"split": 1}
    if target >= 0:
        return {"value": int(lo <= target < hi)}
    return {"value": sum(range(lo, hi))}


def run_toy(plan, budget, threads=2):
    ex = LocalExecutor(Game(2, 2), threads)
    try:
        return execute(plan, ex, unit_seconds=budget)
    finally:
        ex.close()


def test_a_unit_splits_recursively_and_its_children_answer_for_it():
    plan = SumPlan(1000, 10)
    counts = run_toy(plan, 0.0)
    assert plan.answer == sum(range(1000))
    # halves of 1000 down to at most 10 numbers: 127 units that split, 128 leaves
    assert counts.split == 127 and counts.ran == 255
    parents = {key: parent for key, parent, _, _, _ in counts.records}
    assert parents["sum/0"] == "" and parents["sum/0/1/0"] == "sum/0/1"


def test_without_a_budget_nothing_splits():
    plan = SumPlan(1000, 10)
    counts = run_toy(plan, None)
    assert plan.answer == sum(range(1000)) and counts.split == 0 and counts.ran == 1


def test_an_or_decided_early_does_not_wait_for_the_rest():
    plan = SumPlan(1 << 12, 1, target=5)
    counts = run_toy(plan, 0.0, threads=1)
    assert plan.answer == 1
    # the left spine finds 5 long before every one of the 4,096 leaves has run
    assert counts.ran < 200


class WideExecutor:
    """Every unit offered is in flight at once (as in a checkpoint's replay); ``wait``
    runs the oldest one here.  Keeps what it was asked to run and to cancel."""

    def __init__(self):
        self.running, self.ended, self.cancelled = {}, set(), set()

    def slots(self):
        return 1 << 30

    def submit(self, unit, budget=None):
        handle = len(self.ended) + len(self.cancelled) + len(self.running)
        self.running[handle] = (unit, budget)
        return handle

    def wait(self, handles, timeout):
        handle = min(h for h in handles if h in self.running)
        unit, budget = self.running.pop(handle)
        self.ended.add(handle)
        return [(handle, sum_unit(None, stop=None, budget=budget, **unit.args), None)]

    def cancel(self, handles):
        for handle in handles:
            assert handle in self.running, "cancelled a unit not running"
            del self.running[handle]
            self.cancelled.add(handle)


@pytest.mark.parametrize("target", [0, 5, 777, 4095])
def test_with_every_unit_in_flight_an_or_decided_cancels_exactly_what_is_left(target):
    plan, ex = SumPlan(1 << 12, 1, target=target), WideExecutor()
    counts = execute(plan, ex, unit_seconds=0.0)
    assert plan.answer == 1
    assert counts.ran == len(ex.ended)  # every answer that came back was taken
    assert not ex.running  # nothing below the decided OR left in flight
    assert bool(ex.cancelled) == (target < (1 << 12) - 1)  # (unless the last leaf decides)


def test_a_budget_must_be_seconds():
    with pytest.raises(BudgetError):
        analyze(Game(3, 3), checkpoint="unused.sqlite", unit_seconds=-1)
    assert not os.path.exists("unused.sqlite")


# ------------------------------------------------------------------ analyses
@pytest.mark.parametrize(
    "n, k, strategy, options",
    [
        (3, 5, "entropy", {"tree": True}),
        (4, 4, "minmax", {"tree": True, "candidates_only": True}),
        (3, 6, "parts", {}),
    ],
)
def test_an_analysis_split_to_the_smallest_units_is_the_in_process_one(
    tmp_path, n, k, strategy, options
):
    game = Game(n, k)
    here = analyze(game, strategy, **options)
    there = analyze(
        game, strategy, checkpoint=str(tmp_path / "a.sqlite"), unit_seconds=0, jobs=2, **options
    )
    assert there.distribution == here.distribution and there.tree == here.tree
    assert there.units_split > 0
    assert there.to_json()["units_split"] == there.units_split
    rows = read_units(str(tmp_path / "a.sqlite"))
    assert len(rows) == there.units and sum(r[4] for r in rows) == there.units_split
    keys = {r[0] for r in rows}
    assert all(parent in keys for _, parent, _, _, _ in rows if parent)


def test_a_stop_in_the_middle_of_a_split_resumes_with_another_budget(tmp_path):
    game = Game(3, 6)
    here = analyze(game, "minmax", tree=True)
    path = str(tmp_path / "a.sqlite")
    seen = []

    def stop_soon(done, total):
        seen.append(done)
        if done >= 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        analyze(
            game, "minmax", tree=True, checkpoint=path, unit_seconds=0, jobs=2, progress=stop_soon
        )
    rows = read_units(path)
    assert any(split for *_, split in rows), "stopped before any unit split"
    again = analyze(game, "minmax", tree=True, checkpoint=path, unit_seconds=30, jobs=1)
    assert again.distribution == here.distribution and again.tree == here.tree
    assert again.units_resumed >= len(rows) - 2  # at most the units in flight lost


# ------------------------------------------------------------------ worst-case questions
@pytest.mark.parametrize(
    "n, k, d, options, exists",
    [
        (3, 4, 4, {}, True),
        (3, 5, 4, {"candidates_only": True}, False),
        (3, 5, 5, {"candidates_only": True}, True),
        (4, 4, 4, {}, True),
        (4, 4, 3, {}, False),
    ],
)
def test_a_question_split_to_single_guesses_has_the_in_process_verdict(
    tmp_path, n, k, d, options, exists
):
    game = Game(n, k)
    here = solution_exists(game, d, witness=True, **options)
    there = solution_exists(
        game, d, witness=True, checkpoint=str(tmp_path / "b.sqlite"), unit_seconds=0, **options
    )
    assert here.exists == there.exists == exists
    if exists:  # the witness may differ from the in-process one: it must hold
        assert (
            check_strategy(game, there.tree, candidates_only=options.get("candidates_only", False))
            <= d
        )


def test_worst_case_with_split_questions_proves_the_same_bounds(tmp_path):
    game = Game(3, 5)
    here = worst_case(game)
    there = worst_case(game, checkpoint=str(tmp_path / "w.sqlite"), unit_seconds=0)
    assert (there.lower, there.upper, there.exact) == (here.lower, here.upper, here.exact)
    assert there.units_split > 0 and check_strategy(game, there.witness) == there.upper


# ------------------------------------------------------------------ the command line
def test_the_commands_count_units_split(tmp_path):
    import io
    import json

    from mastermind.cli import main

    out = io.StringIO()
    status = main(
        [
            "analyze",
            "-n",
            "3",
            "-k",
            "5",
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
    assert status == 0 and data["units_split"] > 0
    assert data["total"] == analyze(Game(3, 5)).total
    out = io.StringIO()
    status = main(
        [
            "analyze",
            "-n",
            "3",
            "-k",
            "5",
            "--checkpoint",
            str(tmp_path / "d.sqlite"),
            "--unit-seconds",
            "-1",
        ],
        out=out,
    )
    assert status == 2


# ------------------------------------------------------------------ the simulator
def load_simulate():
    from mastermind.engine import schedule

    return schedule


def test_the_list_schedule_is_the_one_worked_out_by_hand():
    sim = load_simulate()
    # a (split after 1 s) -> a/0 (4 s), a/1 (2 s, split after 1 s -> a/1/0 1 s, a/1/1 1 s);
    # b 3 s.  Two workers, no overhead, units offered in order, sub-units first:
    #   t=0: w1 a, w2 b          t=1: a splits -> a/0 on w1, a/1 waits
    #   t=3: b ends -> a/1 on w2  t=4: a/1 splits -> a/1/0 on w2, a/1/1 waits
    #   t=5: a/0 ends -> a/1/1 on w1; a/1/0 ends on w2   t=6: a/1/1 ends: wall 6 s
    units = [
        ("a", "", 1.0, True),
        ("a/0", "a", 4.0, False),
        ("a/1", "a", 1.0, True),
        ("a/1/0", "a/1", 1.0, False),
        ("a/1/1", "a/1", 1.0, False),
        ("b", "", 3.0, False),
    ]
    assert sim.simulate(units, 2) == pytest.approx(6.0)
    assert sim.simulate(units, 1) == pytest.approx(11.0)  # every second in turn
    assert sim.simulate(units, 100) == pytest.approx(4.0 + 1.0)  # the chain a, a/0
    # with 0.5 s of overhead per unit: a 0-1.5, b 0-3.5, a/0 1.5-6, a/1 3.5-5, a/1/0 5-6.5,
    # a/1/1 6-7.5
    assert sim.simulate(units, 2, overhead=0.5) == pytest.approx(7.5)


# ------------------------------------------------------------------ a cluster by hand
def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_cluster_started_by_hand_gives_the_in_process_answers(tmp_path):
    """The recipe of docs/distributed.md on 127.0.0.1: ``dask scheduler`` and two
    ``dask worker`` processes, then the command with ``--scheduler tcp://...``: the
    answers split to the smallest units are the in-process ones."""
    pytest.importorskip("distributed")
    import io
    import json
    import shutil
    import subprocess
    import sys
    import time

    import mastermind
    from mastermind.cli import main

    beside = Path(sys.executable).with_name("dask")  # (this Python's, in a virtual environment)
    dask = str(beside) if beside.exists() else shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    src = str(Path(mastermind.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = open(tmp_path / "cluster.log", "w")  # noqa: SIM115 (the servers' output, closed below)
    procs = []
    try:
        procs.append(
            subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                env=env,
                cwd=tmp_path,
                stdout=logs,
                stderr=subprocess.STDOUT,
            )
        )
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        dask,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--local-directory",
                        str(tmp_path),
                    ],
                    env=env,
                    cwd=tmp_path,
                    stdout=logs,
                    stderr=subprocess.STDOUT,
                )
            )
        import distributed

        deadline = time.monotonic() + 60
        while True:
            try:
                with distributed.Client(address, timeout=5) as c:
                    c.wait_for_workers(2, timeout=300)
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        out = io.StringIO()
        status = main(
            [
                "analyze",
                "-n",
                "3",
                "-k",
                "5",
                "--scheduler",
                address,
                "--unit-seconds",
                "0",
                "--json",
                "--no-progress",
                "--tree",
            ],
            out=out,
        )
        data = json.loads(out.getvalue())
        here = analyze(Game(3, 5), "minmax", tree=True)
        assert status == 0 and data["units_split"] > 0
        assert data["distribution"] == {str(d): c for d, c in here.distribution.items()}
        assert data["tree"] == here.tree.to_json(Game(3, 5))
        there = solution_exists(
            Game(3, 5), 4, scheduler=address, unit_seconds=0, candidates_only=True
        )
        assert there is False
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        logs.close()


def test_budgets_that_run_out_inside_the_kernel_keep_the_answers(tmp_path):
    """Budgets of milliseconds: units stop inside a kernel call (a walk, a search) and
    split there; the answers are the in-process ones (whether a unit splits depends on
    the machine's speed, the answers never do)."""
    game = Game(5, 5)
    here = analyze(game, "minmax", tree=True)
    there = analyze(
        game, "minmax", tree=True, checkpoint=str(tmp_path / "a.sqlite"), unit_seconds=0.005, jobs=2
    )
    assert there.distribution == here.distribution and there.tree == here.tree
    game = Game(4, 6)
    there = solution_exists(
        game, 5, witness=True, checkpoint=str(tmp_path / "b.sqlite"), unit_seconds=0.01
    )
    assert there.exists and check_strategy(game, there.tree) == 5


def test_a_split_question_makes_its_sub_questions_only_as_they_are_needed(tmp_path, monkeypatch):
    """A question that splits asks its guesses (in ranges, the last one's parts one at a
    time), stopping at the first guess that proves it: far fewer sub-questions than all
    its guesses' parts.  (The
    splits are kept here to be counted: a decided question settles otherwise.)"""
    import sqlite3

    from mastermind.engine.checkpoint import Checkpoint
    from mastermind.strategy_tree import split_by_score
    from mastermind.worstcase.units import ExistsPlan

    monkeypatch.setattr(ExistsPlan, "settles", False)
    game = Game(4, 4)
    path = str(tmp_path / "lazy.sqlite")
    there = solution_exists(game, 4, witness=True, checkpoint=path, unit_seconds=0)
    assert there.exists
    rows = read_units(path)
    conn = sqlite3.connect(path)
    try:
        store = Checkpoint(path, conn)
        splits = {key: store.get(key).result for key, _, _, _, split in rows if split}
    finally:
        conn.close()
    assert splits, "no question split"
    made = eager = 0
    for key, result in splits.items():
        # exists/G/S/E[/G/S]..., a range of guesses (rA-B) the same question as above it
        steps = [step for step in key.split("/") if not step.startswith("r")]
        played = [(int(steps[1]), int(steps[2]))] + [
            (int(steps[i]), int(steps[i + 1])) for i in range(4, len(steps), 2)
        ]
        cands = game.candidates((g, game.slots[s]) for g, s in played)
        eager += sum(
            1
            for g in result["openings"].tolist()
            for s, part in split_by_score(game, g, cands)
            if s != game.win_slot and part.size >= 3
        )
        made += sum(1 for _, parent, _, _, _ in rows if parent == key)
    assert 0 < made < eager, (made, eager)


@pytest.mark.parametrize("limit", [10, 30, 50])
def test_a_question_stopped_at_its_root_hands_on_the_guesses_it_refuted(limit):
    """A unit's search stopped part way (here by a node budget) has refuted the first of
    the guesses its root ranked: its split names them (``refuted``), each truly refuted
    (a part of it unsolvable within one guess fewer, asked again here), and its
    sub-questions start at the next guess."""
    import numpy as np

    from mastermind.engine.run import Run
    from mastermind.strategy_tree import split_by_score
    from mastermind.worstcase.search import Search, SearchUnfinished
    from mastermind.worstcase.units import ExistsPlan, UnitSearch, _split_question

    game = Game(4, 7)
    history = np.array([game.code("1234")], dtype=np.int32)
    part = np.asarray(game.filter(game.secrets, "1234", "1 1"), dtype=np.int32)
    search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    with pytest.raises(SearchUnfinished):
        search.run(part, 4, node_limit=limit, pool=search.root_pool(history))
    ranked, refuted = search.core.root_progress
    assert 0 < refuted < ranked.size
    for g in ranked[:refuted].tolist():
        parts = [p for s, p in split_by_score(game, g, part) if s != game.win_slot]
        fresh = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
        assert not all(fresh.run(p, 3)[0] for p in parts if p.size >= 3), g
    split = _split_question(
        game, search, part, 4, candidates_only=False, symmetry=True, history=history
    )
    assert split["refuted"] == refuted and split["openings"].tolist() == ranked.tolist()
    local = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    plan = ExistsPlan(
        UnitSearch(
            local, game, candidates_only=False, symmetry=True, memory=1 << 26, run=Run(None, None)
        ),
        np.ascontiguousarray(game.secrets),
        [int(history[0])],
        5,
    )
    unit = plan.question(0, int(game.kernel.slots(int(history[0]), part[:1])[0]), part)
    assert plan.valid_split(unit, split) and plan.expand(unit, split) == []
    first = plan.more(unit, split, {})  # a range of the guesses left, from the next one
    assert first.key.split("/")[4].startswith(f"r{refuted}-")
    assert first.args["tries"][0] == ranked[refuted]
    assert plan.guess_counts(unit.key) == (refuted, 0, ranked.size - refuted)
    # a split recorded before ranges (no such field) goes on guess by guess, so that the
    # sub-answers its checkpoint holds are asked for by their keys
    older = {k: v for k, v in split.items() if k != "ranges"}
    again = Unit(unit.key + "x", unit.kind, unit.args, unit.size)  # (a plan of its own)
    assert plan.valid_split(again, older)
    step = plan.more(again, older, {})
    assert step.key.startswith(f"{again.key}/{ranked[refuted]}/") and "tries" not in step.args
    assert not plan.valid_split(unit, {**split, "ranges": 2})


def test_a_decided_question_keeps_its_answer_and_drops_what_decided_it(tmp_path):
    """A question that split and is decided is recorded with its whole answer (its split
    gone), every row below it dropped; a resume runs nothing and answers the same."""
    path = str(tmp_path / "settled.sqlite")
    game = Game(4, 4)
    there = solution_exists(game, 4, witness=True, checkpoint=path, unit_seconds=0)
    with pytest.MonkeyPatch.context() as mp:  # the same run, every split kept
        from mastermind.worstcase.units import ExistsPlan

        mp.setattr(ExistsPlan, "settles", False)
        solution_exists(game, 4, checkpoint=str(tmp_path / "kept.sqlite"), unit_seconds=0)
    rows = read_units(path)
    settled = [key for key, _, _, _, split in rows if not split]
    keys = [key for key, *_ in rows]
    assert there.exists and settled
    assert not any(k.startswith(s + "/") for k in keys for s in settled)  # nothing below
    kept = [row[0] for row in read_units(str(tmp_path / "kept.sqlite"))]
    assert len(kept) > len(keys) and any(k.count("/") > 3 for k in kept)  # (rows below)
    again = solution_exists(game, 4, witness=True, checkpoint=path, unit_seconds=0)
    assert again.exists and read_units(path) == rows
    assert check_strategy(game, again.tree) <= 4
