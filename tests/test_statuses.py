"""Exit statuses and messages that say what happened: an exact bound with its
certificate however small the game, a full disk under an output or a checkpoint (the
file named, the proved bound kept, status 1), Ctrl-C twice (status 1, as the README
says), a missing Graphviz (status 3, not bad input), a checkpoint that serves a run with
another memory budget, a refusal that names the difference, a note said once, one row
per number of guesses, ``--first`` with ``--codemaker`` said, not silently kept."""

from __future__ import annotations

import io
import os
import re
import resource
import signal
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from conftest import RUN_THE_PROGRAM

import mastermind
from mastermind import Game, optimal, solution_exists
from mastermind.cli import main
from mastermind.engine.checkpoint import CheckpointError, open_checkpoint, read_units
from mastermind.verify import verify_file
from mastermind.worstcase import bounds
from mastermind.worstcase.bounds import Step, WorstCase

SRC = Path(mastermind.__file__).resolve().parents[1]
GAME = {"type": "game", "n": 4, "k": 6, "variant": "classic"}


def env(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1", **extra)


def program(*argv: str, file_size: int | None = None, **kw) -> subprocess.CompletedProcess:
    """The command in a subprocess; ``file_size``: the most bytes it may write to any
    file (RLIMIT_FSIZE: a write past it fails as on a full disk, with EFBIG)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return subprocess.run(
        [sys.executable, "-m", "mastermind", *argv],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        preexec_fn=None if file_size is None else limit,
        **kw,
    )


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


# ---------------------------------------------------------------------- exact bounds
@pytest.mark.parametrize("n,k,p", [(1, 16, 16), (1, 1, 1), (1, 2, 2), (2, 1, 1)])
def test_an_exact_bound_at_the_trivial_upper_bound_has_its_certificate(tmp_path, capsys, n, k, p):
    """The counting bound meets one guess per secret: exact, and certified (it said
    "stopped before the certificate was complete", status 1)."""
    path = tmp_path / "c.gz"
    status = main(["bound", "-n", str(n), "-k", str(k), "--certificate", str(path)], io.StringIO())
    assert status == 0, capsys.readouterr().err
    verdict = verify_file(str(path))
    assert (verdict.lower, verdict.upper) == (p, p)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------- full disks
@pytest.mark.parametrize("option, name", [("--certificate", "c.gz"), ("--witness", "w.json")])
def test_a_full_disk_names_the_file_and_keeps_the_bound(tmp_path, option, name):
    path = tmp_path / name
    done = program("bound", "-n", "4", "-k", "4", option, str(path), file_size=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4: a strategy needing at most 4 guesses exists; none with 3" in done.stdout
    assert one_line(done.stderr) and f"cannot write {path}: File too large" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_full_device_under_certificate_keeps_the_bound_in_json(tmp_path):
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except OSError as e:
        pytest.skip(f"cannot make a device node here: {e}")
    done = program("bound", "-n", "3", "-k", "3", "--certificate", str(node), "--json")
    assert done.returncode == 1, done.stderr
    assert '"lower": 4, "upper": 4, "exact": true' in done.stdout
    assert f'"certificate_error": "cannot write {node}: No space left on device"' in done.stdout
    assert one_line(done.stderr) and f"cannot write {node}" in done.stderr
    assert stat.S_ISCHR(node.stat().st_mode)


def test_a_full_disk_under_a_checkpoint_mid_run_is_unfinished_not_bad_input(tmp_path):
    path = tmp_path / "c.sqlite"
    done = program(
        "analyze",
        "-n",
        "4",
        "-k",
        "7",
        "-j",
        "1",
        "--unit-seconds",
        "0",
        "--checkpoint",
        str(path),
        file_size=40_000,
    )
    assert done.returncode == 1, done.stderr
    assert one_line(done.stderr) and f"checkpoint {path}: cannot be written any more" in done.stderr


# ---------------------------------------------------------------------- Ctrl-C twice
AGAIN_WHILE_HANDLED = """
import mastermind.cli as _cli
_first = _cli._main
def _twice(*args, **kwargs):
    try:
        return _first(*args, **kwargs)
    finally:  # (the first Ctrl-C handled: a second one comes now)
        _os.kill(_os.getpid(), _signal.SIGINT)
        _time.sleep(0.5)
_cli._main = _twice
"""

AGAIN_AFTER_MAIN = """
import mastermind.cli as _cli
_real = _cli.main
def _twice(*args, **kwargs):
    status = _real(*args, **kwargs)
    _os.kill(_os.getpid(), _signal.SIGINT)  # (as the process ends)
    _time.sleep(0.5)
    return status
_cli.main = _twice
"""


@pytest.mark.parametrize("when", [AGAIN_WHILE_HANDLED, AGAIN_AFTER_MAIN], ids=["handled", "after"])
def test_ctrl_c_twice_is_status_1_as_the_readme_says(ctrl_c_at_work, when):
    done = subprocess.run(
        [sys.executable, "-c", ctrl_c_at_work + when + RUN_THE_PROGRAM, "analyze", "-n", "6"],
        env=env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "1 unfinished (Ctrl-C" in readme


# ---------------------------------------------------------------------- memory budgets
def test_a_proof_checkpoint_serves_a_run_with_another_memory(tmp_path, no_unit_runs, unpacked):
    """The [4,4] checkpoint of format 2 records its memory (1 GB) in its header and in
    its units' digests, as the p(5,8) campaign's does: a run with 64 MB reads it all (no
    unit runs; the run only settles what it decides, keeping a subset of the rows)."""
    path = unpacked("exists-4x4.sqlite")
    before = {row[0] for row in read_units(path)}
    found = solution_exists(Game(4, 4), 4, checkpoint=path, unit_seconds=0, memory=64 << 20)
    after = {row[0] for row in read_units(path)}
    assert bool(found) and after and after <= before


def test_an_optimal_checkpoint_serves_a_run_with_another_memory(tmp_path, no_unit_runs, unpacked):
    path = unpacked("optimal-3x4.sqlite")
    result = optimal(Game(3, 4), checkpoint=path, jobs=1, unit_seconds=0, memory=64 << 20)
    assert result.total == 206


@pytest.mark.parametrize("command", ["bound", "optimal"])
def test_changing_memory_keeps_a_new_checkpoint(tmp_path, command):
    path = str(tmp_path / "c.sqlite")
    argv = [command, "-n", "3", "-k", "4", "-j", "1", "--unit-seconds", "0", "--checkpoint", path]
    first = program(*argv, "--memory", "100")
    again = program(*argv, "--memory", "200")
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    # every unit of the second run is read back (a proof's checkpoint settles what it
    # decided, so it may hold fewer rows than the first run ran)
    taken = re.search(r"(\d+) units of work \((\d+) taken from the checkpoint\)", again.stdout)
    assert taken and taken[1] == taken[2] and int(taken[1]) > 0, again.stdout


# ---------------------------------------------------------------------- checkpoint words
def test_a_refused_checkpoint_names_the_actual_difference(tmp_path):
    path = str(tmp_path / "c.sqlite")
    with open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"}):
        pass
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "UPDATE header SET value = ? WHERE name = 'game'",
            ('{"k":6,"n":"4","type":"game","variant":"classic"}',),
        )
    with pytest.raises(CheckpointError, match=r'\(game\.n: "4" there, 4 here\)'):
        open_checkpoint(path, "analyze", GAME, {"strategy": "minmax"})


# ---------------------------------------------------------------------- the bound's report
def fake_result(status: str = "time-limit") -> WorstCase:
    steps = [Step(5, None, 1000, 0.5), Step(6, True, 10, 0.1), Step(5, False, 3000, 1.5)]
    return WorstCase(Game(4, 6), False, 5, 5, "search", "search", status, 5, 4010, 2.1, None, steps)


def test_a_search_taken_up_again_is_one_row(monkeypatch):
    monkeypatch.setattr(bounds, "worst_case", lambda *a, **k: fake_result("exact"))
    out = io.StringIO()
    assert main(["bound"], out) == 0
    rows = [line for line in out.getvalue().splitlines() if line.startswith("  at most 5")]
    assert len(rows) == 1 and "none" in rows[0] and "4,000 nodes" in rows[0]
    assert "unfinished" not in out.getvalue()


def test_the_checkpoint_note_is_said_once_under_json(monkeypatch, tmp_path, capfd):
    result = fake_result()
    result.lower = 4
    monkeypatch.setattr(bounds, "worst_case", lambda *a, **k: result)
    out = io.StringIO()
    path = str(tmp_path / "c.sqlite")
    assert main(["bound", "--checkpoint", path, "--json"], out) == 1
    err = capfd.readouterr().err
    assert err.count("run the same command again") == 1, err
    assert out.getvalue().startswith('{"pegs": 4')


# ---------------------------------------------------------------------- play
def test_first_with_codemaker_is_said_not_silently_kept():
    out = io.StringIO()
    from mastermind.cli import play

    args = mastermind.cli.build_parser(["play"]).parse_args(
        ["play", "--codemaker", "--first", "1234", "--seed", "1"]
    )
    assert play.run(args, out, io.StringIO("hint suggest\nquit\n")) == 1
    text = out.getvalue()
    assert "'hint suggest' proposes 1234 as your first guess (--first)" in text
    assert "would play 1234" in text
