"""Which errors the command line calls bad input (exit status 2) and which a bug (an
internal error, status 1): exactly the package's own errors are bad input."""

import io
import subprocess
import sys

import pytest

import mastermind
from mastermind import MastermindError
from mastermind.analysis import exhaustive as analysis
from mastermind.apps.comparison import ComparisonError
from mastermind.apps.play import InconsistentAnswers, PlayError
from mastermind.cli import main
from mastermind.game import CodeError, GameError, ScoreError
from mastermind.rules import StrategyError
from mastermind.stopping import TimeLimitReached
from mastermind.views.explorer import ExplorerError
from mastermind.views.plot import PlotError
from mastermind.views.tree import TreeError


def run(argv, capsys):
    status = main(list(argv), io.StringIO())
    return status, capsys.readouterr().err


def failing_solve(error):
    def solve(*args, **kwargs):
        raise error

    return solve


@pytest.fixture
def no_debug(monkeypatch):
    monkeypatch.delenv("MASTERMIND_DEBUG", raising=False)


def test_the_base_class_is_public_and_a_value_error():
    assert mastermind.MastermindError is MastermindError
    assert "MastermindError" in mastermind.__all__
    assert issubclass(MastermindError, ValueError)


@pytest.mark.parametrize(
    "kind",
    [
        GameError,
        CodeError,
        ScoreError,
        StrategyError,
        PlayError,
        InconsistentAnswers,
        TreeError,
        ExplorerError,
        PlotError,
        ComparisonError,
    ],
)
def test_the_package_errors_derive_from_it(kind):
    assert issubclass(kind, MastermindError)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "99"],
        ["analyze", "-n", "0"],
        ["analyze", "-n", "99999999999999999999999"],
        ["solve", "1234", "--candidates-only", "--first", "1111", "--variant", "distinct"],
        ["tree", "--candidates-only", "--first", "1111", "--variant", "distinct"],
        ["optimal", "--memory", "99999999999999999999"],
        ["bound", "--memory", "99999999999999999999"],
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, capsys, no_debug):
    status, err = run(argv, capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("mastermind: error: ")
    assert "internal error" not in err and "Traceback" not in err


def test_a_package_error_from_the_library_is_bad_input(monkeypatch, capsys, no_debug):
    monkeypatch.setattr(analysis, "solve", failing_solve(CodeError("no such code")))
    status, err = run(["solve", "1234"], capsys)
    assert (status, err) == (2, "mastermind: error: no such code\n")


@pytest.mark.parametrize(
    "error",
    [
        ZeroDivisionError("division by zero"),
        RuntimeError("lost\nits way"),
        ValueError("plain"),
        TypeError("odd"),
    ],
)
def test_an_unexpected_exception_is_an_internal_error(error, monkeypatch, capsys, no_debug):
    monkeypatch.setattr(analysis, "solve", failing_solve(error))
    status, err = run(["solve", "1234"], capsys)
    assert status == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"mastermind: internal error: {type(error).__name__}: ")
    assert " ".join(str(error).split()) in err
    assert "MASTERMIND_DEBUG=1" in err and "--debug" in err and "please report it" in err


@pytest.mark.parametrize("argv", [["--debug", "solve", "1234"], ["solve", "1234", "--debug"]])
def test_debug_option_prints_the_traceback(argv, monkeypatch, capsys, no_debug):
    monkeypatch.setattr(analysis, "solve", failing_solve(ZeroDivisionError("boom")))
    status, err = run(argv, capsys)
    assert status == 1
    assert "Traceback (most recent call last)" in err and "failing_solve" not in err
    assert "in solve" in err  # the frame that raised
    last = err.strip().splitlines()[-1]
    assert last.startswith("mastermind: internal error: ZeroDivisionError: boom")


@pytest.mark.parametrize("value, shown", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_the_environment_variable_prints_the_traceback(value, shown, monkeypatch, capsys):
    monkeypatch.setenv("MASTERMIND_DEBUG", value)
    monkeypatch.setattr(analysis, "solve", failing_solve(ZeroDivisionError("boom")))
    status, err = run(["solve", "1234"], capsys)
    assert status == 1
    assert ("Traceback" in err) is shown
    assert err.count("\n") > 1 if shown else err.count("\n") == 1


def test_debug_does_not_change_bad_input(capsys, no_debug):
    status, err = run(["--debug", "solve", "99"], capsys)
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_interrupts_and_time_limits_stay_unfinished(monkeypatch, capsys, no_debug):
    monkeypatch.setattr(analysis, "solve", failing_solve(KeyboardInterrupt()))
    status, err = run(["solve", "1234"], capsys)
    assert status == 1 and "interrupted" in err and "internal error" not in err
    monkeypatch.setattr(
        analysis, "solve", failing_solve(TimeLimitReached("the time limit was reached"))
    )
    status, err = run(["solve", "1234"], capsys)
    assert status == 1 and "time limit" in err and "internal error" not in err
    assert err.count("\n") == 1


def test_the_help_says_what_debug_does(capsys):
    assert main(["--help"], io.StringIO()) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--debug" in text and "MASTERMIND_DEBUG=1" in text and "traceback" in text


def test_a_real_process_reports_bad_input_on_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "mastermind", "solve", "99"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [["analyze", "--scheduler", "local:0"], ["analyze", "--checkpoint", "/nonexistent/run.db"]],
)
def test_the_units_errors_are_bad_input(argv, capsys, no_debug):
    status, err = run(argv, capsys)
    assert status == 2 and err.count("\n") == 1 and err.startswith("mastermind: error: ")


def test_a_witness_failing_its_own_check_is_an_internal_error(
    tmp_path, monkeypatch, capsys, no_debug
):
    from mastermind.worstcase import bounds

    def check_strategy(*args, **kwargs):
        raise bounds.StrategyCheckError("secret 12: the strategy has no move")

    monkeypatch.setattr(bounds, "check_strategy", check_strategy)
    status, err = run(
        ["bound", "-n", "2", "-k", "2", "--witness", str(tmp_path / "w.json")], capsys
    )
    assert status == 1 and err.count("\n") == 1
    assert err.startswith("mastermind: internal error: AssertionError: the witness")
    assert not (tmp_path / "w.json").exists()
