"""The command line under stress: Ctrl-C on big games, huge --jobs, typos, output that
cannot be written, output files checked before the work, big games announced first.

These run the real program in a subprocess (signals, closed or full standard output)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RUN_THE_PROGRAM

import mastermind

SRC = Path(mastermind.__file__).resolve().parents[1]


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")


def run(*argv: str, stdin: str = "", **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mastermind", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        **kw,
    )


def one_line_error(err: str) -> bool:
    return err.startswith("mastermind: error:") and err.count("\n") == 1 and "Traceback" not in err


def interrupted(ctrl_c_at_work: str, *argv: str) -> tuple[int, str]:
    """Run the command, interrupted by Ctrl-C once its kernel is at work: (status, what it
    printed: stderr, then stdout).  The timeout only guards against a command that does
    not stop."""
    done = subprocess.run(
        [sys.executable, "-c", ctrl_c_at_work + RUN_THE_PROGRAM, *argv],
        env=env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stderr + done.stdout


# ---------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "-n", "8", "-k", "7", "12345671"],
        ["play", "-n", "8", "-k", "7", "--secret", "12345671", "--think", "0"],
        ["analyze", "-n", "6", "-k", "9", "--no-progress"],
    ],
    ids=["solve", "play", "analyze"],
)
def test_ctrl_c_stops_a_big_game(argv, ctrl_c_at_work):
    """Ctrl-C during the kernel's work (minutes of it): the command says it was
    interrupted and ends unfinished, without a traceback."""
    status, err = interrupted(ctrl_c_at_work, *argv)
    assert status == 1, err
    assert "nterrupted" in err and "Traceback" not in err


# ---------------------------------------------------------------------- human time
def test_play_thinks_within_its_budget_and_says_so():
    """[8,7] without a budget: minutes of thinking; with one, it says which guesses were
    the best found in it, and the game ends."""
    done = run("play", "-n", "8", "-k", "7", "--secret", "12345671", "--think", "0.5")
    assert done.returncode == 0, done.stderr
    assert "the best guess found in 0.5 s" in done.stdout
    assert "Solved in" in done.stdout.splitlines()[-1]


# ---------------------------------------------------------------------- --jobs
@pytest.mark.parametrize(
    "jobs", ["0", "257", "32000", "65535", "2147483648", "99999999999999999999", "-3"]
)
def test_jobs_out_of_range(jobs):
    for command in (
        ["analyze", "-n", "5", "-k", "8"],
        ["solve", "6543"],
        ["first-guesses"],
        ["bound", "-n", "3", "-k", "3"],
    ):
        done = run(*command, "--jobs", jobs)
        assert done.returncode == 2 and one_line_error(done.stderr)
        assert "--jobs must be between 1 and 256" in done.stderr


def test_jobs_not_a_number():
    done = run("analyze", "--jobs", "two")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "invalid integer value: 'two'" in done.stderr


# ---------------------------------------------------------------------- typos
def test_a_typed_guess_with_a_superscript_is_asked_again():
    done = run("play", "--codemaker", "--seed", "7", stdin="1122\n3456\n1²34\n")
    assert done.returncode == 1  # end of input: unfinished, not a crash
    assert "'1²34' is not a code: '²' is not a digit 0-9 (e.g. '1234'). Try again." in done.stdout
    assert done.stdout.count("guess 3>") == 2 and done.stderr == ""


@pytest.mark.parametrize(
    "argv,words",
    [
        (["solve", "²²²²"], "'²²²²' is not a code: '²' is not a digit 0-9"),
        (["analyze", "--first", "①②③④"], "'①②③④' is not a code: '①' is not a digit 0-9"),
        (["solve", "١٢٣٤"], "'١٢٣٤' is not a code: '١' is not a digit 0-9"),
        (["solve", "１２３４"], "'１２３４' is not a code"),
        (["solve", "--", "-1234"], "'-1234' has an empty field"),
        (["solve", "-k", "10", "6,,5,4,3"], "'6,,5,4,3' has an empty field"),
        (["solve", "6543", "1234"], "unrecognized arguments: 1234 (see 'mastermind solve --help')"),
        (["solve", "1" * 100_000], "'11111111111111111111111111111111111..."),
    ],
)
def test_parse_errors_in_the_package_words(argv, words):
    done = run(*argv)
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert words in done.stderr
    assert len(done.stderr) < 300  # a 100 kB input is not echoed whole


# ---------------------------------------------------------------------- output
@pytest.mark.parametrize(
    "argv",
    [
        ["analyze"],
        ["solve", "6543"],
        ["first-guesses"],
        ["--help"],
        ["--version"],
        ["analyze", "--help"],
        ["tree", "-n", "2", "-k", "2"],
    ],
)
def test_standard_output_full(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "mastermind", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr == "mastermind: error: cannot write the output: No space left on device\n"


def test_standard_output_closed():
    done = subprocess.run(
        [sys.executable, "-m", "mastermind", "analyze"],
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 1
    assert done.stderr == "mastermind: error: standard output is closed\n"


def test_output_file_checked_before_the_work():
    """[8,7]: building the game alone is announced on stderr before it starts (see
    test_a_big_game_is_announced_before_it_is_built), and the work would take hours; the
    file is refused first: the one line on stderr is the refusal."""
    done = run("tree", "-n", "8", "-k", "7", "-o", "/nonexistent/x.txt")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "cannot write /nonexistent/x.txt: No such file or directory" in done.stderr
    done = run("bound", "-n", "8", "-k", "7", "--witness", "/nonexistent/w.json")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "cannot write /nonexistent/w.json" in done.stderr


@pytest.mark.parametrize("option", ["--witness", "-o"])
def test_empty_file_name(option):
    command = ["bound", "-n", "2", "-k", "2"] if option == "--witness" else ["tree"]
    done = run(*command, option, "")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "an empty file name" in done.stderr


def test_a_stopped_run_leaves_no_file(tmp_path, ctrl_c_at_work):
    target = tmp_path / "tree.json"
    status, err = interrupted(ctrl_c_at_work, "tree", "-n", "6", "-k", "9", "-o", str(target))
    assert status == 1 and "nterrupted" in err
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary


def test_output_file_written_whole(tmp_path):
    target = tmp_path / "w.json"
    done = run("bound", "-n", "3", "-k", "3", "--witness", str(target))
    assert done.returncode == 0 and target.read_text().startswith('{"pegs": 3')
    assert [p.name for p in tmp_path.iterdir()] == ["w.json"]


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout == f"mastermind {mastermind.__version__}\n"


# ---------------------------------------------------------------------- big games
def test_a_big_game_is_announced_before_it_is_built():
    done = run("first-guesses", "-n", "8", "-k", "7", "--json")
    assert done.returncode == 0
    assert done.stderr.startswith(
        "mastermind: [8,7] classic: 5,764,801 codes; their tables take about 0."
    )


def test_a_long_analysis_is_announced(ctrl_c_at_work):
    """Announced before it starts (on one thread: the estimate counts the threads)."""
    status, err = interrupted(
        ctrl_c_at_work, "analyze", "-n", "7", "-k", "7", "--jobs", "1", "--no-progress"
    )
    assert status == 1
    assert err.startswith("mastermind: [7,7] minmax: 823,543 secrets, a long run: roughly ")


def test_a_variant_of_a_big_game_is_small():
    """[8,8] permutations: 40,320 codes, not 16,777,216 (no big-build warning)."""
    done = run("solve", "-n", "8", "-k", "8", "--variant", "permutation", "87654321")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.rstrip().endswith("guesses")
