"""Unit kinds (mastermind.engine.kinds): a unit names its worker by a registered kind,
and a checkpoint binds each answer to its unit by the kind's frozen recorded name, so
checkpoints written before the worker functions moved still load.

The checkpoints in tests/data/checkpoints were written by the package as it was before
the registry (format 2, each unit named by its worker's module path), one of each kind
of unit: an analysis of [3,4] by entropy (walk units and a scan unit: scans of more
than 200 pairs were units of at most 3,000 pairs, parts of more than 8 codes nodes of
the plan), [4,4] solvable within 4 (exists units), the optimum of [3,4] (part units);
every unit split at once (``unit_seconds=0``).  Each one, resumed now, answers the same
without running a single unit."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import mastermind.analysis.units as ua
from mastermind import Game, analyze, optimal, solution_exists
from mastermind.engine.checkpoint import read_units
from mastermind.engine.kinds import KINDS, UnknownKind, recorded_name, worker
from mastermind.engine.units import Unit, digest


def rows(path: str) -> list:
    return sorted(read_units(path))


def test_an_analysis_checkpoint_of_format_2_resumes_without_running(
    tmp_path, monkeypatch, no_unit_runs, unpacked
):
    monkeypatch.setattr(ua, "EXPAND_MIN", 8)
    monkeypatch.setattr(ua, "CLIENT_PAIRS", 200)
    monkeypatch.setattr(ua, "SCAN_BLOCK", 3000)
    path = unpacked("analyze-3x4.sqlite")
    before = rows(path)
    kinds = {key.split("/")[0] for key, *_ in before}
    assert kinds == {"scan", "walk"}
    result = analyze(Game(3, 4), "entropy", checkpoint=path, jobs=1, unit_seconds=0, tree=True)
    assert result.total == 208 and dict(result.distribution) == {1: 1, 2: 5, 3: 35, 4: 23}
    assert result.units_resumed > 0 and result.units == result.units_resumed
    assert rows(path) == before
    assert dict(result.distribution) == dict(analyze(Game(3, 4), "entropy").distribution)


def test_a_worst_case_checkpoint_of_format_2_resumes_without_running(
    tmp_path, no_unit_runs, unpacked
):
    path = unpacked("exists-4x4.sqlite")
    before = rows(path)
    assert len(before) == 51
    found = solution_exists(Game(4, 4), 4, checkpoint=path, unit_seconds=0, witness=True)
    assert bool(found) and bool(solution_exists(Game(4, 4), 4))
    # (a question decided from its sub-questions' rows keeps its answer, not them)
    after = {row[0]: row for row in rows(path)}
    settled = {k for k, *_ in before if k in after and after[k] != (k, *_)}
    for key, *rest in before:
        assert (key in after and (key in settled or after[key] == (key, *rest))) or any(
            key.startswith(s + "/") for s in settled
        ), key


def test_an_optimal_checkpoint_of_format_2_resumes_without_running(
    tmp_path, no_unit_runs, unpacked
):
    path = unpacked("optimal-3x4.sqlite")
    before = rows(path)
    result = optimal(Game(3, 4), checkpoint=path, jobs=1, unit_seconds=0)
    assert result.total == 206 == optimal(Game(3, 4)).total
    assert rows(path) == before


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kinds_digest_is_the_one_of_its_recorded_name(kind):
    """A unit's digest hashes the kind's frozen recorded name, not where its worker
    lives: a registered kind and its recorded path give the same digest."""
    args = {"cands": np.arange(5, dtype=np.int32), "left": 3}
    assert digest(kind, args) == digest(recorded_name(kind), args)
    expected = hashlib.sha1(KINDS[kind].recorded_as.encode())
    for name in sorted(args):
        expected.update(name.encode())
        value = args[name]
        if isinstance(value, np.ndarray):
            expected.update(f"{value.dtype.str}{value.shape}".encode())
            expected.update(value.tobytes())
        else:
            expected.update(repr(value).encode())
    assert Unit("k", kind, args, 5).digest == expected.hexdigest()[:20]
    assert callable(worker(kind))


def test_a_path_is_a_kind_of_its_own_and_anything_else_is_refused():
    assert worker("mastermind.engine.kinds:worker") is worker
    assert recorded_name("a.b:c") == "a.b:c"
    for bad in ("nothing", "a:b:c", ":f", "m:"):
        with pytest.raises(UnknownKind, match="unknown kind of unit"):
            worker(bad)
