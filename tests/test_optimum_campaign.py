"""``mastermind optimum-campaign`` (mastermind.optimum.campaign) on small games: its
totals and trees are optimal()'s (whole games, and parts of [4,5] after a history);
a run stopped (by a unit count, a time limit, or SIGKILL) and resumed gives the same
total without solving a recorded unit again, and what a stopped run reports is proved
(every part's bound at most the part's optimum); a damaged shard is named and its units
run again; a damaged question or state is one line, never a traceback."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import mastermind
from mastermind import Game, MastermindError
from mastermind.optimum.campaign.projection import hours, pace, split_paces
from mastermind.optimum.campaign.question import OptimumCampaign
from mastermind.optimum.campaign.run import run
from mastermind.optimum.solver import optimal
from mastermind.views.tree import to_json

SRC = str(Path(mastermind.__file__).resolve().parents[1])
AFTER = [["1123", "1 1"]]  # [4,5] after 1123 = (1 1): 376, split into ~200 units
Q45 = ["-n", "4", "-k", "5", "--after", "1123=1 1", "--unit-seconds", "0"]


def quiet(line: str) -> None:
    pass


def new(folder: Path, **question) -> OptimumCampaign:
    c = OptimumCampaign.new(str(folder), **question)
    c.save()
    return c


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``mastermind optimum-campaign ARGS`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "mastermind", "optimum-campaign", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=SRC),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def finished(folder: Path) -> dict[str, float]:
    conn = sqlite3.connect(f"file:{folder / 'checkpoint.sqlite'}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT key, finished FROM units"))
    finally:
        conn.close()


def summary(folder: Path) -> dict:
    return json.loads((folder / "state.json").read_text())["summary"]


@pytest.mark.parametrize(
    "question",
    [
        {"pegs": 3, "colours": 3},
        {"pegs": 3, "colours": 4, "unit_seconds": 0},
        {"pegs": 4, "colours": 4, "unit_seconds": 0},
        {"pegs": 4, "colours": 4, "candidates_only": True},
        {"pegs": 3, "colours": 4, "max_guesses": 4},
        {"pegs": 4, "colours": 4, "first": "1122"},
        {"pegs": 4, "colours": 5, "unit_seconds": 0},
        {"pegs": 4, "colours": 5, "after": AFTER, "unit_seconds": 0},
        {"pegs": 4, "colours": 5, "after": [["1234", "1 0"]]},
    ],
    ids=lambda q: "-".join(f"{k}={v}" for k, v in q.items() if k not in ("pegs", "colours")),
)
def test_totals_and_trees_are_optimals(tmp_path, question):
    c = new(tmp_path / "c", **question)
    outcome = run(c, log=quiet)
    game = Game(question["pegs"], question["colours"])
    want = optimal(
        game,
        history=[tuple(p) for p in question.get("after", ())],
        first=question.get("first"),
        max_guesses=question.get("max_guesses"),
        candidates_only=question.get("candidates_only", False),
    )
    assert outcome.status == "exact" and outcome.total == want.total
    assert summary(tmp_path / "c")["total"] == want.total
    assert json.loads((tmp_path / "c" / "optimum.json").read_text()) == to_json(want)


def test_a_stopped_run_reports_proved_bounds_and_resumes_without_solving_again(tmp_path):
    folder = tmp_path / "c"
    c = new(folder, pegs=4, colours=5, after=AFTER, unit_seconds=0)
    first = run(c, stop_after=40, log=quiet)
    assert first.status == "stopped" and first.total is None
    assert first.lower is not None and first.lower <= 376
    _bounds_are_proved(folder)
    seen = finished(folder)
    second = run(c, log=quiet)
    assert second.status == "exact" and second.total == 376
    assert second.before == len(seen) and second.after == second.before + second.ran
    again = finished(folder)
    assert all(again[k] == t for k, t in seen.items())  # (none solved again)
    rerun = run(c, log=quiet)
    assert rerun.ran == 0 and rerun.total == 376


def _bounds_are_proved(folder: Path) -> None:
    """Every part's bound in the state at most the part's optimum, every exact total
    the optimum (each part checked by optimal() after its opening)."""
    game = Game(4, 5)
    doc = json.loads((folder / "state.json").read_text())
    checked = 0
    for o in doc["openings"]:
        for p in o["parts"][:4]:
            history = [("1123", "1 1"), (o["opening"], p["score"])]
            total = optimal(game, history=history).total
            if p["state"] == "exact":
                assert p["value"] == total
            else:
                assert p["value"] <= total, (o["opening"], p)
            checked += 1
        assert o["bound"] <= 376 or o["state"] == "ruled out"
    assert checked > 0


def test_a_time_limit_stops_a_run_and_the_next_one_finishes(tmp_path):
    folder = tmp_path / "c"
    c = new(folder, pegs=4, colours=5, after=AFTER, unit_seconds=0)
    first = run(c, time_limit=0.05, log=quiet)
    assert first.status == "time-limit" and first.total is None
    seen = finished(folder) if (folder / "checkpoint.sqlite").exists() else {}
    second = run(c, time_limit=60, log=quiet)
    assert second.status == "exact" and second.total == 376
    assert second.before == len(seen) and all(finished(folder)[k] == t for k, t in seen.items())


def test_a_killed_run_resumes_to_the_same_total(tmp_path):
    folder = tmp_path / "c"
    args = [sys.executable, "-m", "mastermind", "optimum-campaign", "run", str(folder), *Q45]
    env = dict(os.environ, PYTHONPATH=SRC)
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not _rows(folder):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    done = cli("run", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["total"] == 376 and outcome["before"] == len(finished(folder)) - outcome["ran"]


def _rows(folder: Path) -> bool:
    try:
        return len(finished(folder)) > 0
    except sqlite3.Error:
        return False


def test_a_damaged_shard_is_named_and_its_units_run_again(tmp_path):
    folder = tmp_path / "c"
    for stop in ("30", "30"):
        assert cli("run", str(folder), *Q45, "--stop-after-units", stop).returncode == 1
    shards = sorted((folder / "shards").glob("*.jsonl.gz"))
    assert len(shards) == 2
    (folder / "checkpoint.sqlite").unlink()
    shards[1].write_bytes(gzip.compress(b'{"shard": 2, "through": 1}\n{"key": broken'))
    done = cli("run", str(folder))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "00002.jsonl.gz cannot be read" in done.stderr
    assert "optimum 376" in done.stdout and summary(folder)["total"] == 376


def test_status_projection_and_export(tmp_path):
    folder = tmp_path / "c"
    assert cli("run", str(folder), *Q45, "--stop-after-units", "60").returncode == 1
    status = cli("status", str(folder))
    assert status.returncode == 0 and "optimum at least" in status.stdout, status.stderr
    as_json = json.loads(cli("status", str(folder), "--json", "--replay").stdout)
    assert as_json["summary"]["units"] == summary(folder)["units"] >= 60
    proj = cli("projection", str(folder), "--json", "--workers", "1,4")
    assert proj.returncode == 0, proj.stderr
    doc = json.loads(proj.stdout)
    assert doc["units"] == as_json["summary"]["units"] and set(doc["left_core_hours"]) == {
        "least",
        "all_openings",
    }
    on4, eff = doc["left_wall_hours_on_workers"]["4"], doc["measured_units_on_workers"]["4"]
    assert set(doc["split_paces"]) <= {k for k in doc["split_paces"] if k.count("/") == 2}
    assert doc["pace"]["openings_worked"] >= 1 and set(on4) == {"least", "all_openings", "pace"}
    paced = doc["pace"]["seconds_per_opening"] * doc["pace"]["openings_left"] / 3600
    # (seconds_per_opening is printed to 0.1 s: on a fast machine it can read 0.0)
    slack = 0.05 * doc["pace"]["openings_left"] / 3600 / (4 * eff["efficiency"])
    assert on4["pace"] == pytest.approx(paced / (4 * eff["efficiency"]), rel=0.01, abs=slack + 1e-5)
    assert "at the pace" in cli("projection", str(folder), "--workers", "1,4").stdout
    assert cli("export", str(folder)).returncode == 0


def test_the_pace_counts_only_the_openings_decided():
    class Opening:
        def __init__(self, guess, complete):
            self.guess, self._complete = guess, complete

        def complete(self):
            return self._complete

    openings = [Opening(7, True), Opening(8, False), Opening(9, False), Opening(10, False)]
    root = SimpleNamespace(openings=openings, alive=lambda i: i != 1)
    plan = SimpleNamespace(root=root)
    rows = {"part/7/0": {"seconds": 30.0}, "part/8/1": {"seconds": 10.0}}
    rows["part/9/2"] = {"seconds": 500.0}  # open: neither its seconds nor it in the pace
    doc = pace(plan, rows)
    assert doc == {
        "openings_worked": 2,
        "seconds_per_opening": 20.0,
        "openings_left": 2,
        "left_core_hours": hours(40.0),
    }
    plan.splits = {"part/9/2": SimpleNamespace(choice=SimpleNamespace(openings=openings[:2]))}
    plan.splits["part/9/2"].choice.alive = lambda i: True
    rows.update({"part/9/2/7/0": {"seconds": 4.0}, "part/9/2/7/1": {"seconds": 2.0}})
    assert split_paces(plan, rows)["part/9/2"] == {
        "openings_worked": 1,
        "seconds_per_opening": 6.0,
        "openings_left": 1,
        "left_core_hours": hours(6.0),
    }
    openings[0]._complete = False
    root.alive = lambda i: True
    assert pace(plan, rows)["seconds_per_opening"] is None


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "not JSON"),
        ('{"format": 1, "question": "optimum", "pegs": 4}', "no colours"),
        ('{"format": 1, "pegs": 4, "colours": 5}', "not an optimum campaign's"),
        ('{"format": 1, "question": "optimum", "pegs": 4, "colours": 5, "bogus": 1}', "no bogus"),
        ('{"format": 1, "question": "optimum", "pegs": 4, "colours": 5, "after": 3}', "history"),
    ],
)
def test_a_damaged_question_is_one_line(tmp_path, text, words):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.json").write_text(text)
    for action in ("run", "status", "projection", "export"):
        got = cli(action, str(folder))
        assert got.returncode == 2 and one_line(got.stderr), (action, got.stderr)
        assert words in got.stderr, got.stderr


def test_a_damaged_state_is_one_line_and_the_next_run_writes_it_again(tmp_path):
    folder = tmp_path / "c"
    assert cli("run", str(folder), "-n", "3", "-k", "3").returncode == 0
    (folder / "state.json").write_text('{"summary": 3}')
    got = cli("status", str(folder))
    assert got.returncode == 2 and one_line(got.stderr) and "--replay" in got.stderr
    assert cli("run", str(folder)).returncode == 0 and summary(folder)["total"] == 73


def test_a_campaigns_question_is_its_own_and_bad_input_is_refused(tmp_path):
    folder = tmp_path / "c"
    assert cli("run", str(folder), "-n", "3", "-k", "3").returncode == 0
    other = cli("run", str(folder), "-k", "4")
    assert other.returncode == 2 and "colours (the campaign's: 3)" in other.stderr
    bad = cli("run", str(tmp_path / "d"), "-n", "3", "-k", "3", "--after", "123")
    assert bad.returncode == 2 and "GUESS=SCORE" in bad.stderr
    assert not (tmp_path / "d").exists()
    won = cli("run", str(tmp_path / "e"), "-n", "3", "-k", "3", "--after", "123=3 0")
    assert won.returncode == 2 and one_line(won.stderr) and not (tmp_path / "e").exists()
    for question in ({"first": "999"}, {"memory_mb": 0}, {"unit_seconds": -1}):
        with pytest.raises(MastermindError):
            OptimumCampaign.new(str(tmp_path / "f"), pegs=3, colours=3, **question)
    assert not (tmp_path / "f").exists()


def test_no_strategy_within_the_guesses_is_an_answer(tmp_path):
    c = new(tmp_path / "c", pegs=3, colours=3, max_guesses=2)
    outcome = run(c, log=quiet)
    assert outcome.status == "no-strategy" and outcome.total is None and outcome.lower is None
    s = summary(tmp_path / "c")
    assert s["feasible"] is False and s["exact"] and not (tmp_path / "c" / "optimum.json").exists()
    assert optimal(Game(3, 3), max_guesses=2).total is None


def test_optimal_after_a_history_as_units_is_the_search_here(tmp_path):
    game, history = Game(4, 5), [("1123", "1 1")]
    here = optimal(game, history=history)
    units = optimal(game, history=history, checkpoint=str(tmp_path / "c.sqlite"), unit_seconds=0)
    assert units.exact and units.total == here.total == 376
    assert to_json(units) == to_json(here)


def test_the_bracket_script_reads_the_parts_campaigns_worked_out(tmp_path):
    """scripts/optimum/bracket_5_8.py takes a campaign's exact total, or its proved
    bound, for the part after one opening and score; other questions are left out."""
    import runpy

    script = Path(__file__).resolve().parents[1] / "scripts" / "optimum" / "bracket_5_8.py"
    rows_of = runpy.run_path(str(script), run_name="bracket")["campaign_rows"]
    run(new(tmp_path / "a", pegs=4, colours=5, after=AFTER, unit_seconds=0), log=quiet)
    stopped = new(tmp_path / "b", pegs=4, colours=5, after=[["1234", "0 2"]], unit_seconds=0)
    run(stopped, stop_after=5, log=quiet)
    run(new(tmp_path / "c", pegs=4, colours=5), stop_after=1, log=quiet)  # (the whole game)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "campaign.json").write_text("{")  # (damaged: named, left out)
    rows = {(r["opening"], r["score"]): r for r in rows_of(tmp_path, Game(4, 5))}
    assert set(rows) == {("1123", "1 1"), ("1234", "0 2")}
    assert rows["1123", "1 1"]["how"] == "exact" and rows["1123", "1 1"]["bound"] == 376
    b = rows["1234", "0 2"]
    assert b["how"] == "campaign" and b["size"] == stopped.secrets()
    assert 0 < b["bound"] <= optimal(Game(4, 5), history=[("1234", "0 2")]).total
    assert rows_of(tmp_path, Game(4, 6)) == []


@pytest.mark.parametrize("name", ["campaign.json", "state.json", "run.log", "shards"])
def test_a_link_among_the_files_is_refused_never_followed(tmp_path, name):
    folder = tmp_path / "c"
    assert cli("run", str(folder), "-n", "3", "-k", "3").returncode == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    target = folder / name
    if target.is_dir():
        for p in target.iterdir():
            p.unlink()
        target.rmdir()
    else:
        target.unlink()
    target.symlink_to(victim)
    for action in ("run", "status", "export"):
        got = cli(action, str(folder))
        assert got.returncode == 2 and one_line(got.stderr), (action, got.stderr)
    assert victim.read_text() == "precious\n"


def test_sigterm_stops_a_run_with_what_it_finished_kept(tmp_path):
    """SIGTERM is Ctrl-C: one line, status 1, every unit finished kept (the export is the
    next run's when the signal comes during it)."""
    folder = tmp_path / "c"
    args = [sys.executable, "-m", "mastermind", "optimum-campaign", "run", str(folder), *Q45]
    env = dict(os.environ, PYTHONPATH=SRC)
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not _rows(folder):
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:  # (it finished before the signal came)
        assert summary(folder)["total"] == 376
        return
    assert proc.returncode == 1 and b"Traceback" not in err and b"interrupted" in err, err
    seen = finished(folder)  # (what it finished: kept, whether or not it exported)
    done = cli("run", str(folder), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["before"] == len(seen)
    assert summary(folder)["total"] == 376
    assert all(finished(folder)[k] == t for k, t in seen.items())
