"""scripts/p58.py (the resumable decision of p(5,8)) on [4,6], a game with the same
structure and a known answer: stopped, resumed, finished; the value equals worst_case's,
the witness holds, a resumed run redoes no recorded unit, status and projection parse,
and an export makes a checkpoint that says the same."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import mastermind
from mastermind import Game
from mastermind.verify import verify_file
from mastermind.worstcase.bounds import worst_case

ROOT = Path(__file__).resolve().parents[1]
SRC = str(Path(mastermind.__file__).resolve().parents[1])


def p58(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "p58.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )


def game_args(tmp_path: Path, guesses: int = 5) -> list[str]:
    return [
        "-n",
        "4",
        "-k",
        "6",
        "--guesses",
        str(guesses),
        "--checkpoint",
        str(tmp_path / "c.sqlite"),
    ]


def finished_times(path: Path) -> dict[str, float]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT key, finished FROM units"))
    finally:
        conn.close()


def counts(out: str) -> tuple[int, int, int]:
    """(units run, recorded after, recorded before) from the run's log line."""
    m = re.search(r"(\d+) units run, (\d+) recorded \((\d+) before\)", out)
    assert m, out
    return int(m[1]), int(m[2]), int(m[3])


def test_stopped_resumed_finished(tmp_path):
    args = game_args(tmp_path) + ["--unit-seconds", "0.002"]
    first = p58(tmp_path, "run", *args, "--stop-after-units", "3")
    assert first.returncode == 1, first.stderr
    assert "interrupted" in first.stdout
    ran, after, before = counts(first.stdout)
    assert before == 0 and ran >= 3 and after >= ran
    times = finished_times(tmp_path / "c.sqlite")
    assert len(times) == after

    second = p58(tmp_path, "run", *args, "--stop-after-units", "2")
    ran2, after2, before2 = counts(second.stdout)
    assert before2 == after
    # every unit run is a new one: nothing recorded was run again
    assert after2 - before2 == ran2
    later = finished_times(tmp_path / "c.sqlite")
    assert all(later[k] == t for k, t in times.items())

    third = p58(tmp_path, "run", *args)
    assert third.returncode == 0, third.stderr + third.stdout
    ran3, after3, before3 = counts(third.stdout)
    assert after3 - before3 == ran3
    final = finished_times(tmp_path / "c.sqlite")
    assert all(final[k] == t for k, t in later.items())

    value = worst_case(Game(4, 6)).upper
    assert f"p(4,6) = {value}" in third.stdout
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["summary"]["decided"] and state["summary"]["value"] == value == 5
    assert state["summary"]["units"] == after3
    # one opening with every part solvable, with a witness each
    solved = [o for o in state["openings"] if o["state"] == "solvable"]
    assert solved and all(p["state"] == "solvable" for p in solved[0]["parts"])
    # the witness, checked by the package's independent checker
    verdict = verify_file(str(tmp_path / "witness.json"))
    assert verdict.upper == 5 and sum(verdict.distribution.values()) == 1296

    # status replays the same state from the file; --json parses
    st = p58(tmp_path, "status", *game_args(tmp_path), "--json")
    assert st.returncode == 0, st.stderr
    again = json.loads(st.stdout)
    assert again["summary"] == state["summary"]
    assert [o["state"] for o in again["openings"]] == [o["state"] for o in state["openings"]]
    text = p58(tmp_path, "status", *game_args(tmp_path))
    assert "p(4,6) = 5" in text.stdout

    proj = p58(tmp_path, "projection", *game_args(tmp_path), "--json", "--workers", "1,4")
    assert proj.returncode == 0, proj.stderr
    pj = json.loads(proj.stdout)
    assert pj["open_questions"] == 0
    assert sum(m["units"] for m in pj["levels"].values()) == after3
    assert pj["measured_units_on_workers"]["1"]["speedup"] == 1.0

    # the command line reads the script's checkpoint (the same units) and agrees
    env = dict(os.environ, PYTHONPATH=SRC)
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "mastermind",
            "bound",
            "-n",
            "4",
            "-k",
            "6",
            "--json",
            "--checkpoint",
            str(tmp_path / "c.sqlite"),
            "--no-progress",
            "--jobs",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["upper"] == 5

    # an export makes a checkpoint that says the same
    ex = p58(tmp_path, "export", *game_args(tmp_path), str(tmp_path / "rows.jsonl.gz"))
    assert ex.returncode == 0, ex.stderr
    imported = game_args(tmp_path)
    imported[-1] = str(tmp_path / "imported.sqlite")
    sd = p58(tmp_path, "import", *imported, str(tmp_path / "rows.jsonl.gz"))
    assert sd.returncode == 0, sd.stderr
    assert finished_times(tmp_path / "imported.sqlite") == final
    st2 = json.loads(p58(tmp_path, "status", *imported, "--json").stdout)
    assert st2["summary"] == state["summary"]

    # a run writes its rows beside the checkpoint; without the checkpoint they restore it
    assert (tmp_path / "c.jsonl.gz").exists()
    (tmp_path / "c.sqlite").unlink()
    st3 = json.loads(p58(tmp_path, "status", *game_args(tmp_path), "--json").stdout)
    assert st3["summary"] == state["summary"]
    assert finished_times(tmp_path / "c.sqlite") == final


def test_refuted_question_gives_the_next_value(tmp_path):
    """Within 5 guesses [4,7] is refuted (its root parts split and are refuted below):
    every opening has a refuted part, so p(4,7) = 6, worst_case's value."""
    args = ["-n", "4", "-k", "7", "--guesses", "5", "--checkpoint", str(tmp_path / "c.sqlite")]
    done = p58(tmp_path, "run", *args, "--unit-seconds", "0.005")
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["summary"]["value"] == 6 == worst_case(Game(4, 7)).upper
    assert all(o["state"] == "refuted" for o in state["openings"])
    assert not (tmp_path / "witness.json").exists()


def test_another_games_checkpoint_is_refused(tmp_path):
    p58(tmp_path, "run", *game_args(tmp_path), "--unit-seconds", "0.05", "--stop-after-units", "1")
    args = game_args(tmp_path)
    args[args.index("-k") + 1] = "7"
    st = p58(tmp_path, "status", *args)
    assert st.returncode == 2
    assert "another run" in st.stderr and "Traceback" not in st.stderr
