"""Fuzzing the independent checker (tests/fuzz_verify.py): no input may make it fail
other than by its own refusal, run past its caps, take memory past a bound, or accept a
false bound of a small game.  A short Hypothesis run here; a coverage-guided atheris run
of several minutes behind the ``slow`` marker."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import fuzz_verify
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mastermind

SRC = Path(mastermind.__file__).resolve().parents[1]


def quick_seeds() -> list[bytes]:
    """The seeds that check in milliseconds (the short run's)."""
    return list(fuzz_verify.seeds(quick=True))


def test_the_seeds_are_checked_as_they_should_be():
    outcomes = [fuzz_verify.check_one(s) for s in quick_seeds()]
    assert outcomes.count("proved") >= 2 * 3 * len(fuzz_verify.TINY)  # made, plain and gzip
    assert set(outcomes) <= {"proved", "malformed"}  # the shipped ones cut: no end record


def test_the_bombs_in_the_corpus_end_within_the_caps():
    """The inputs that once took gigabytes or minutes (fuzz_verify.bombs; all of them
    seed the coverage-guided run): each ends in a refusal, or a true verdict, within the
    harness's bounds (1 GB, 300 s).  (The one of many heavy claims takes the harness's
    cap on a certificate's scores, minutes: the slow run has it.)"""
    import tracemalloc

    tracing = tracemalloc.is_tracing()
    try:
        outcomes = {
            name: fuzz_verify.check_one(data)
            for name, data in fuzz_verify.bombs().items()
            if name != "claims"
        }
    finally:
        if not tracing:  # (the harness leaves tracing on; its peak is not the next test's)
            tracemalloc.stop()
    assert outcomes == {
        "objects": "malformed",
        "lists": "malformed",
        "claim": "proved",
        "header": "malformed",
        "twice": "malformed",
    }


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_mutated_files_end_in_a_verdict_or_a_refusal(data):
    seed = data.draw(st.sampled_from(quick_seeds()), label="seed")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="rng"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        seed = fuzz_verify.mutate(seed, rng)
    fuzz_verify.check_one(seed)  # raises Finding for anything else


@pytest.mark.slow
def test_a_coverage_guided_run_finds_nothing(tmp_path):
    """Five minutes of atheris (coverage-guided, structure-aware mutations) on the
    seeds; no crash, hang or runaway memory."""
    pytest.importorskip("atheris")
    done = subprocess.run(
        [
            sys.executable,
            str(Path(fuzz_verify.__file__)),
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
