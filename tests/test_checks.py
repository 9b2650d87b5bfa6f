"""The checks of scalar arguments (mastermind.checks) load no NumPy, take NumPy numbers
where they take Python ones, and are the command line's checks of the same options too:
one rule, the option's name in the message."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import bare_environment

import mastermind
from mastermind import checks
from mastermind.cli import common as cli_common
from mastermind.cli import main
from mastermind.limits import DEFAULT_MEMORY, DEFAULT_MEMORY_MB, MAX_JOBS

SRC = Path(mastermind.__file__).resolve().parents[1]


def test_the_checks_load_no_numpy():
    probe = (
        "import sys\nfrom mastermind import checks\n"
        "checks.threads(2); checks.seconds(1.5, 't'); checks.recheck(0.5); checks.memory(8)\n"
        "checks.flag(True, 'f'); checks.integer(3, 'n', 0)\n"
        "assert 'numpy' not in sys.modules, 'numpy loaded'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=bare_environment(PYTHONPATH=str(SRC)),
    )
    assert done.returncode == 0, done.stderr


def test_numpy_numbers_are_taken_as_before():
    assert checks.threads(np.int64(3)) == 3 and type(checks.threads(np.int16(3))) is int
    assert checks.integer(np.uint8(7), "n", 0, 9) == 7
    assert checks.seconds(np.float32(0.5), "t") == 0.5 and checks.seconds(np.int32(2), "t") == 2
    assert checks.recheck(np.float64(1.0)) == 1.0 and checks.memory(np.int64(5)) == 5
    assert checks.flag(np.bool_(False), "f") is False
    for bad, call in [
        (np.bool_(True), lambda v: checks.integer(v, "n", 0)),
        (np.float64(2.0), lambda v: checks.integer(v, "n", 0)),
        (np.float64("nan"), lambda v: checks.seconds(v, "t")),
        (np.int64(0), checks.threads),
        (np.int64(1), lambda v: checks.flag(v, "f")),
        (True, checks.recheck),
        ("1", checks.memory),
    ]:
        with pytest.raises(checks.ArgumentError):
            call(bad)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["analyze", "--unit-seconds", "-1"], "--unit-seconds must be a number of seconds >= 0"),
        (["bound", "--recheck", "1.5"], "--recheck must be a fraction of the units from 0 to 1"),
        (["optimal", "--time-limit", "0"], "--time-limit must be a positive number of seconds"),
        (["bound", "--time-limit", "-2"], "--time-limit must be a positive number of seconds"),
        (["analyze", "--jobs", "0"], f"--jobs must be between 1 and {MAX_JOBS}, not 0"),
        (["optimal", "--memory", "0"], "--memory must be at least 1 MB"),
        (["bound", "--memory", str(1 << 40)], "--memory must be at most 1,073,741,824 MB"),
        (["campaign", "run", "nowhere", "--recheck", "2"], "--recheck must be a fraction"),
        (["campaign", "recheck", "nowhere", "--fraction", "-1"], "--fraction must be a fraction"),
    ],
)
def test_the_command_line_checks_its_options_by_the_library_rules(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mastermind: error: {words}") and err.count("\n") == 1


def test_an_option_in_range_passes_the_library_check():
    class Args:
        jobs, memory, time_limit, recheck, unit_seconds = MAX_JOBS, 1, 0.25, 1.0, 0.0

    cli_common.check_jobs(Args)
    cli_common.check_memory(Args)
    cli_common.check_time_limit(Args)
    assert cli_common.recheck(Args) == 1.0 and cli_common.unit_seconds(Args) == 0.0


def test_the_default_memory_is_one_value_in_bytes_and_in_mb():
    from mastermind.cli import bound, optimal

    assert DEFAULT_MEMORY_MB << 20 == DEFAULT_MEMORY
    for command in ("bound", "optimal"):
        p = cli_common.Parser(prog=command)
        (bound if command == "bound" else optimal).configure(p)
        assert p.parse_args([]).memory == DEFAULT_MEMORY_MB
