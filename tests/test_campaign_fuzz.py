"""Fuzzing the readers of a campaign's folder (tests/fuzz_campaign.py): no shard,
campaign.json or state.json may make them fail other than by the package's own one-line
refusal, run past a bound, take memory past a bound, or print NaN.  A short Hypothesis
run here; a coverage-guided atheris run of several minutes behind the ``slow`` marker."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import fuzz_campaign
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mastermind

SRC = Path(mastermind.__file__).resolve().parents[1]


def test_the_seeds_are_read():
    outcomes = [(s[0], fuzz_campaign.check_one(s)) for s in fuzz_campaign.seeds()]
    assert len(outcomes) >= 12
    assert all(outcome == "read" for _, outcome in outcomes), outcomes
    assert {target for target, _ in outcomes} == {0, 1, 2}  # every reader


def test_a_seed_for_another_run_or_reader_is_refused():
    shard = next(s for s in fuzz_campaign.seeds() if s[0] == 0)
    assert fuzz_campaign.check_one(bytes([0, (shard[1] + 1) % 3]) + shard[2:]) == "refused"
    assert fuzz_campaign.check_one(bytes([1, shard[1]]) + shard[2:]) == "refused"


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_mutated_files_are_read_or_refused_in_one_line(data):
    seed = data.draw(st.sampled_from(fuzz_campaign.seeds()), label="seed")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        seed = fuzz_campaign.mutate(seed, rng)
    fuzz_campaign.check_one(seed)  # raises Finding for anything else


@pytest.mark.slow
def test_a_coverage_guided_run_finds_nothing(tmp_path):
    """Five minutes of atheris (coverage-guided, structure-aware mutations) on the
    seeds; no crash, hang or runaway memory."""
    pytest.importorskip("atheris")
    done = subprocess.run(
        [
            sys.executable,
            str(Path(fuzz_campaign.__file__)),
            "--minutes",
            os.environ.get("FUZZ_MINUTES", "5"),
            "--corpus",
            str(tmp_path / "corpus"),
            "--findings",
            str(tmp_path / "findings"),
        ],
        env=dict(os.environ, PYTHONPATH=str(SRC)),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert list((tmp_path / "findings").iterdir()) == []
    runs = re.search(r"stat::number_of_executed_units: (\d+)", done.stderr)
    assert runs is not None and int(runs.group(1)) > 100, done.stderr[-3000:]
