"""Spot-checks (``recheck=``, ``--recheck``): a cluster that lies is caught.

A LocalCluster whose one worker lies (tests/lying_worker.py, a preload: it alters the
whole answers of 1 unit in 100, picked by their digests, the same units whatever the
schedule). At the advised fraction (``RECHECK``) the spot-checks catch it: exactly the
lies among the units re-checked, each said in one line naming the unit and the worker,
the client's answer used. On the command line every lie of a real analysis is caught
at ``--recheck 1`` and the status is 4; a tampered checkpoint row is caught the same
way; a worker failure Dask cannot carry fails its unit in one line.

Skipped where Dask's distributed package is not installed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import lying_worker
import numpy as np
import pytest

import mastermind
import mastermind.engine.spotcheck as spotcheck
from mastermind import Game, analyze
from mastermind.engine.executors import DaskExecutor, LocalExecutor
from mastermind.engine.loop import execute
from mastermind.engine.rows import checksum, decode, encode
from mastermind.engine.spotcheck import RECHECK, RecheckError, SpotCheckWarning
from mastermind.engine.units import Unit, UnitError

distributed = pytest.importorskip("distributed")

SRC = Path(mastermind.__file__).resolve().parents[1]
LIAR = Path(lying_worker.__file__).resolve()
# The sampling key: a run draws its own at random; the test fixes one, so that its
# outcome does not depend on luck (over random keys, 13 lies at 1 in 10 are all missed
# with probability 0.9^13 = 25%; this key re-checks 3 of them).
KEY = bytes(16)


@pytest.fixture(scope="module")
def liar():
    """A cluster of one worker (two threads) that lies."""
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=True,
        dashboard_address=":0",
        silence_logs=50,
        preload=[str(LIAR)],
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture
def fixed_key(monkeypatch):
    monkeypatch.setattr(spotcheck, "_sample_key", lambda: KEY)


class Squares:
    """A toy plan: ``n`` units of next to no work, x -> x squared."""

    kind = "squares"

    def __init__(self, n: int):
        self.units = [Unit(f"sq/{x}", "lying_worker:square", {"x": x}, 1) for x in range(n)]
        self.offered = 0
        self.answers: dict[str, int] = {}

    def next(self):
        if self.offered == len(self.units):
            return None
        self.offered += 1
        return self.units[self.offered - 1]

    def take(self, unit, result):
        self.answers[unit.key] = int(np.asarray(result["y"])[0])
        return []

    def done(self):
        return len(self.answers) == len(self.units)

    def known(self):
        return len(self.units)


def test_a_lying_worker_is_caught_at_the_advised_fraction(liar, fixed_key):
    plan = Squares(1000)
    game = Game(2, 2)
    rechecker = LocalExecutor(game, 1)
    try:
        with pytest.warns(SpotCheckWarning) as said:
            counts = execute(
                plan, DaskExecutor(liar, game.spec()), recheck=RECHECK, rechecker=rechecker
            )
    finally:
        rechecker.close()
    lies = {u.key for u in plan.units if lying_worker.lies_about(u.kind, u.args)}
    sampled = {u.key for u in plan.units if spotcheck.Sampler(RECHECK)(u)}
    assert 5 <= len(lies) <= 20 and 80 <= len(sampled) <= 120  # 1 in 100; 1 in 10
    caught = {m.key for m in counts.mismatches}
    assert caught == lies & sampled and len(caught) == 3
    assert counts.rechecked == len(sampled)
    for key in caught:  # the client's answer is the one used
        assert plan.answers[key] == int(key.split("/")[1]) ** 2
    for key in lies - sampled:  # a lie not re-checked stays: the result is in doubt
        assert plan.answers[key] == int(key.split("/")[1]) ** 2 + 1
    lines = [str(w.message) for w in said if issubclass(w.category, SpotCheckWarning)]
    assert len(lines) == len(caught)
    address = next(iter(liar.scheduler_info()["workers"]))
    for line in lines:
        assert line.startswith("spot-check: unit sq/") and "\n" not in line
        assert f"({address})" in line and "differs from its re-run on the client (y)" in line


def test_an_honest_cluster_passes_every_spot_check(liar):
    """The same run, every unit re-checked: only the liar's units differ (an honest
    answer is never taken for a lie)."""
    plan = Squares(300)
    game = Game(2, 2)
    lies = {u.key for u in plan.units if lying_worker.lies_about(u.kind, u.args)}
    rechecker = LocalExecutor(game, 1)
    try:
        with pytest.warns(SpotCheckWarning):
            counts = execute(plan, DaskExecutor(liar, game.spec()), recheck=1, rechecker=rechecker)
    finally:
        rechecker.close()
    assert {m.key for m in counts.mismatches} == lies and counts.rechecked == 300
    assert all(plan.answers[u.key] == u.args["x"] ** 2 for u in plan.units)


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")


def test_every_lie_of_a_real_analysis_is_caught_on_the_command_line(liar):
    from mastermind.analysis.exhaustive import analyze

    address = liar.scheduler.address
    truth = analyze(Game(4, 5), "minmax").total  # (in this process: no liar)
    argv = ["analyze", "-n", "4", "-k", "5", "--unit-seconds", "0", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "mastermind", *argv, "--scheduler", address, "--recheck", "1"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=600,
    )
    assert done.returncode == 4, done.stderr
    assert json.loads(done.stdout)["total"] == truth  # every lie caught and corrected
    lines = done.stderr.splitlines()
    warned = [line for line in lines if line.startswith("mastermind: warning: spot-check: unit ")]
    assert warned and all("differs from its re-run on the client" in line for line in warned)
    assert lines[-1].startswith(f"mastermind: {len(warned)} spot-check")
    assert "Traceback" not in done.stderr and len(lines) == len(warned) + 1


@pytest.mark.filterwarnings("default::mastermind.engine.spotcheck.SpotCheckWarning")
def test_a_checkpoint_row_rewritten_with_its_checksum_is_caught(tmp_path, capfd):
    """One secret moved one guess deeper in a row, its checksum recomputed: the
    checkpoint gives total 5802, and --recheck 1 finds the row and says so."""
    from mastermind.cli import main

    path = str(tmp_path / "c.sqlite")
    base = ["analyze", "--unit-seconds", "0", "-j", "1", "--checkpoint", path, "--json"]
    assert _run(main, base)[0] == 0
    with closing(sqlite3.connect(path)) as conn, conn:
        rows = conn.execute("SELECT key, digest, result FROM units ORDER BY key").fetchall()
        key, digest, result = next(
            (k, d, decode(b))
            for k, d, b in rows
            if "dists" in decode(b) and "split" not in decode(b)
        )
        lying_worker.alter(result)
        blob = encode(result)
        conn.execute(
            "UPDATE units SET result = ?, checksum = ? WHERE key = ?",
            (blob, checksum(key, digest, blob), key),
        )
    status, text = _run(main, base)
    assert status == 0 and json.loads(text)["total"] == 5802  # taken as it is
    capfd.readouterr()
    status, text = _run(main, [*base, "--recheck", "1"])
    assert status == 4 and json.loads(text)["total"] == 5801
    err = capfd.readouterr().err
    assert f"spot-check: unit {key}: the answer from the checkpoint differs" in err
    assert "1 spot-check found an answer wrong" in err


def _run(main, argv):
    import io

    out = io.StringIO()
    return main(argv, out), out.getvalue()


@pytest.mark.parametrize("how", ["unpicklable", "unrebuildable", "answer"])
def test_a_failure_dask_cannot_carry_fails_its_unit_in_one_line(liar, capfd, how):
    class One:
        kind = "one"

        def __init__(self):
            self.unit = Unit("u/0", "lying_worker:fails", {"how": how}, 1)
            self.given = False

        def next(self):
            if self.given:
                return None
            self.given = True
            return self.unit

        def take(self, unit, result):
            return []

        def done(self):
            return False

        def known(self):
            return 1

    with pytest.raises(UnitError, match="unit u/0 failed: ") as e:
        execute(One(), DaskExecutor(liar, Game(2, 2).spec()))
    assert "\n" not in str(e.value)
    words = {"unpicklable": "Unpicklable: the worker's own words", "unrebuildable": "1 and 2"}
    assert words.get(how, "its answer cannot be sent back (lock: a lock)") in str(e.value)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "0.1", float("nan")])
def test_a_fraction_that_is_none_is_refused(bad):
    with pytest.raises(RecheckError, match="recheck must be a fraction"):
        analyze(Game(2, 2), checkpoint=None, recheck=bad)
