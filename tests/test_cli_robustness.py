"""The command line under stress: Ctrl-C on big games, huge --jobs, typos, output that
cannot be written, output files checked before the work, big games announced first.

These run the real program in a subprocess (signals, closed or full standard output)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mastermind

SRC = Path(mastermind.__file__).resolve().parents[1]


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")


def run(*argv: str, stdin: str = "", **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mastermind", *argv], input=stdin,
                          capture_output=True, text=True, env=env(), timeout=300, **kw)


def one_line_error(err: str) -> bool:
    return err.startswith("mastermind: error:") and err.count("\n") == 1 and \
        "Traceback" not in err


def interrupted_after(seconds: float, *argv: str) -> tuple[int, float, str]:
    """Start the command, send SIGINT after ``seconds``: (status, seconds it took to end
    after the signal, what it printed: stderr, then stdout)."""
    p = subprocess.Popen([sys.executable, "-m", "mastermind", *argv], env=env(),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    assert p.poll() is None, "the command ended before it could be interrupted"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:  # pragma: no cover - the failure this test is about
            p.kill()
    return p.returncode, time.monotonic() - sent, err + out


# ---------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("argv", [
    ["solve", "-n", "8", "-k", "7", "12345671"],
    ["play", "-n", "8", "-k", "7", "--secret", "12345671", "--think", "0"],
    ["analyze", "-n", "6", "-k", "9", "--no-progress"],
], ids=["solve", "play", "analyze"])
def test_ctrl_c_stops_a_big_game_at_once(argv):
    status, took, err = interrupted_after(4.0, *argv)
    assert status == 1
    assert took < 2.0  # within about a second, not when the scan would have ended
    assert "nterrupted" in err and "Traceback" not in err


# ---------------------------------------------------------------------- human time
def test_play_thinks_within_its_budget_and_says_so():
    start = time.monotonic()
    done = run("play", "-n", "8", "-k", "7", "--secret", "12345671", "--think", "0.5")
    assert done.returncode == 0, done.stderr
    assert "the best guess found in 0.5 s" in done.stdout
    assert "Solved in" in done.stdout.splitlines()[-1]
    assert time.monotonic() - start < 60  # [8,7] without a budget: minutes


# ---------------------------------------------------------------------- --jobs
@pytest.mark.parametrize("jobs", ["0", "257", "32000", "65535", "2147483648",
                                  "99999999999999999999", "-3"])
def test_jobs_out_of_range(jobs):
    for command in (["analyze", "-n", "5", "-k", "8"], ["solve", "6543"], ["first-guesses"],
                    ["bound", "-n", "3", "-k", "3"]):
        done = run(*command, "--jobs", jobs)
        assert done.returncode == 2 and one_line_error(done.stderr)
        assert "--jobs must be between 1 and 256" in done.stderr


def test_jobs_not_a_number():
    done = run("analyze", "--jobs", "two")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "invalid int value: 'two'" in done.stderr


# ---------------------------------------------------------------------- typos
def test_a_typed_guess_with_a_superscript_is_asked_again():
    done = run("play", "--codemaker", "--seed", "7", stdin="1122\n3456\n1²34\n")
    assert done.returncode == 1  # end of input: unfinished, not a crash
    assert "'1²34' is not a code: '²' is not a digit 0-9 (e.g. '1234'). Try again." \
        in done.stdout
    assert done.stdout.count("guess 3>") == 2 and done.stderr == ""


@pytest.mark.parametrize("argv,words", [
    (["solve", "²²²²"], "'²²²²' is not a code: '²' is not a digit 0-9"),
    (["analyze", "--first", "①②③④"], "'①②③④' is not a code: '①' is not a digit 0-9"),
    (["solve", "١٢٣٤"], "'١٢٣٤' is not a code: '١' is not a digit 0-9"),
    (["solve", "１２３４"], "'１２３４' is not a code"),
    (["solve", "--", "-1234"], "'-1234' has an empty field"),
    (["solve", "-k", "10", "6,,5,4,3"], "'6,,5,4,3' has an empty field"),
    (["solve", "6543", "1234"], "unrecognized arguments: 1234 (see 'mastermind solve --help')"),
    (["solve", "1" * 100_000], "'11111111111111111111111111111111111..."),
])
def test_parse_errors_in_the_package_words(argv, words):
    done = run(*argv)
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert words in done.stderr
    assert len(done.stderr) < 300  # a 100 kB input is not echoed whole


# ---------------------------------------------------------------------- output
@pytest.mark.parametrize("argv", [["analyze"], ["solve", "6543"], ["first-guesses"],
                                  ["--help"], ["--version"], ["analyze", "--help"],
                                  ["tree", "-n", "2", "-k", "2"]])
def test_standard_output_full(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "mastermind", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env(), timeout=60)
    assert done.returncode == 1
    assert done.stderr == "mastermind: error: cannot write the output: No space left on device\n"


def test_standard_output_closed():
    done = subprocess.run([sys.executable, "-m", "mastermind", "analyze"],
                          stderr=subprocess.PIPE, text=True, env=env(), timeout=60,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 1
    assert done.stderr == "mastermind: error: standard output is closed\n"


def test_output_file_checked_before_the_work():
    start = time.monotonic()
    done = run("tree", "-n", "6", "-k", "9", "-o", "/nonexistent/x.txt")
    assert time.monotonic() - start < 10  # the [6,9] tree takes a minute
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "cannot write /nonexistent/x.txt: No such file or directory" in done.stderr
    done = run("bound", "-n", "6", "-k", "9", "--witness", "/nonexistent/w.json")
    assert done.returncode == 2 and "cannot write /nonexistent/w.json" in done.stderr


@pytest.mark.parametrize("option", ["--witness", "-o"])
def test_empty_file_name(option):
    command = ["bound", "-n", "2", "-k", "2"] if option == "--witness" else ["tree"]
    done = run(*command, option, "")
    assert done.returncode == 2 and one_line_error(done.stderr)
    assert "an empty file name" in done.stderr


def test_a_stopped_run_leaves_no_file(tmp_path):
    target = tmp_path / "tree.json"
    status, _, err = interrupted_after(3.0, "tree", "-n", "6", "-k", "9", "-o", str(target))
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
    assert done.stderr.startswith("mastermind: [8,7] classic: 5,764,801 codes; their "
                                  "tables take about 0.")


def test_a_long_analysis_is_announced():
    status, _, err = interrupted_after(3.0, "analyze", "-n", "7", "-k", "7", "--no-progress")
    assert status == 1
    assert err.startswith("mastermind: [7,7] minmax: 823,543 secrets, a long run: roughly ")


def test_a_variant_of_a_big_game_is_small():
    start = time.monotonic()
    done = run("solve", "-n", "8", "-k", "8", "--variant", "permutation", "87654321")
    assert done.returncode == 0 and done.stderr == ""  # no big-build warning
    assert done.stdout.rstrip().endswith("guesses")
    assert time.monotonic() - start < 60
