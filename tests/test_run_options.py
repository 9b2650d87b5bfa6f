"""How a run runs is one value (RunOptions), checked when it is made: every entry point
refuses a bad run keyword with the same words, before any work (no checkpoint made), and
the typed overloads of a public function take every keyword its implementation takes."""

import dataclasses
import inspect
import os
import typing

import numpy as np
import pytest

import mastermind
from mastermind import Game, analyze, optimal, solution_exists, worst_case
from mastermind.checks import ArgumentError
from mastermind.engine.executors import SchedulerError
from mastermind.engine.options import RunOptions
from mastermind.limits import DEFAULT_MEMORY, UNIT_SECONDS


@pytest.mark.parametrize(
    "field, bad, words",
    [
        ("threads", 0, "jobs must be between 1 and 256, not 0"),
        ("threads", "2", "jobs must be an integer, not '2'"),
        ("time_limit", 0, "time_limit must be a positive number of seconds"),
        ("time_limit", float("nan"), "time_limit must be a positive number of seconds"),
        ("progress", 5, "progress must be a function of \\(done, total\\)"),
        ("memory", 0, "memory must be a positive number of bytes"),
        ("memory", 1 << 51, "memory must be at most"),
        ("unit_seconds", -1, "unit_seconds must be a number of seconds >= 0"),
        ("recheck", 1.5, "recheck must be a fraction of the units from 0 to 1"),
        ("recheck", True, "recheck must be a fraction"),
        ("batch", 0, "batch must be an integer 1..4096"),
    ],
)
def test_run_options_refuse_a_bad_value(field, bad, words):
    with pytest.raises(ArgumentError, match=words):
        RunOptions(**{"threads": 1, field: bad})


@pytest.mark.parametrize("bad", ["local:0", "local:x", "", "not an address"])
def test_run_options_refuse_a_malformed_scheduler(bad):
    with pytest.raises(SchedulerError, match="scheduler"):
        RunOptions(1, scheduler=bad)


def test_run_options_are_checked_plain_values_and_frozen():
    o = RunOptions(np.int64(3), time_limit=2, memory=np.int64(1 << 20), recheck=1, batch=4)
    assert (o.threads, o.time_limit, o.memory, o.recheck, o.batch) == (3, 2.0, 1 << 20, 1.0, 4)
    assert [type(v) for v in (o.threads, o.time_limit, o.memory, o.recheck)] == [
        int,
        float,
        int,
        float,
    ]
    assert (o.unit_seconds, o.scheduler, o.client, o.checkpoint) == (UNIT_SECONDS, None, None, None)
    assert o.memory != DEFAULT_MEMORY and RunOptions(1).memory == DEFAULT_MEMORY
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.threads = 2  # type: ignore[misc]
    assert RunOptions.of().threads >= 1 and RunOptions.of(jobs=2).threads == 2
    assert RunOptions(1, unit_seconds=None).unit_seconds is None


def test_the_work_runs_as_units_with_a_scheduler_a_client_or_a_checkpoint():
    assert not RunOptions(1).as_units
    assert RunOptions(1, scheduler="local:2").as_units
    assert RunOptions(1, client=object()).as_units
    assert RunOptions(1, checkpoint="run.sqlite").as_units


def _entry_points():
    g = Game(2, 2)
    return {
        "analyze": lambda **kw: analyze(g, **kw),
        "solution_exists": lambda **kw: solution_exists(g, 3, **kw),
        "worst_case": lambda **kw: worst_case(g, **kw),
        "optimal": lambda **kw: optimal(g, **kw),
    }


_BAD_RUN_KEYWORDS = [
    ("scheduler", "local:0", SchedulerError, "number of worker processes must be between"),
    ("scheduler", "local:x", SchedulerError, "write local:N"),
    ("unit_seconds", -1, ArgumentError, "unit_seconds must be a number of seconds >= 0"),
    ("recheck", 2, ArgumentError, "recheck must be a fraction of the units from 0 to 1"),
    ("time_limit", -1, ArgumentError, "time_limit must be a positive number of seconds"),
    ("memory", 0, ArgumentError, "memory must be a positive number of bytes"),
    ("jobs", 300, ArgumentError, "jobs must be between 1 and 256, not 300"),
    ("progress", 5, ArgumentError, "progress must be a function"),
]
_ENTRY_POINTS = {
    "analyze": lambda g, **kw: analyze(g, **kw),
    "solution_exists": lambda g, **kw: solution_exists(g, 3, **kw),
    "worst_case": lambda g, **kw: worst_case(g, **kw),
    "optimal": lambda g, **kw: optimal(g, **kw),
}


@pytest.mark.parametrize(
    "entry, keyword, bad, kind, words",
    [
        (entry, *case)
        for entry in _ENTRY_POINTS
        for case in _BAD_RUN_KEYWORDS
        if case[0] in inspect.signature(getattr(mastermind, entry)).parameters
    ],
)
def test_every_entry_point_refuses_a_bad_run_keyword_before_any_work(
    tmp_path, entry, keyword, bad, kind, words
):
    path = tmp_path / "run.sqlite"
    with pytest.raises(kind, match=words):
        _ENTRY_POINTS[entry](Game(2, 2), checkpoint=str(path), **{keyword: bad})
    assert not os.path.exists(path)


def test_the_overloads_of_a_public_function_take_every_keyword_it_takes():
    """A type-checked call passing ``scheduler=`` to solution_exists was refused: its
    overloads left out the run keywords."""
    seen = 0
    for name in mastermind.__all__:
        f = getattr(mastermind, name)
        if not inspect.isfunction(f):
            continue
        overloads = typing.get_overloads(f)
        whole = [(p.name, p.kind) for p in inspect.signature(f).parameters.values()]
        for o in overloads:
            seen += 1
            assert [(p.name, p.kind) for p in inspect.signature(o).parameters.values()] == whole
    assert seen >= 2  # solution_exists's two
    assert {"scheduler", "client", "checkpoint", "unit_seconds", "recheck"} <= {
        p for o in typing.get_overloads(solution_exists) for p in inspect.signature(o).parameters
    }
