"""What every command shares: exit statuses, the usage error, the argument parser class,
the option groups (game, strategy, output, threads), building the game they name (with a
word first when it is big), and output files checked before the work and written whole.

Only plain-Python modules of the library (:mod:`~mastermind.rules`,
:mod:`~mastermind.limits`, :mod:`~mastermind.files`, :mod:`~mastermind.checks`) are
imported here: building the parser loads no NumPy and no kernel.  The ranges of the
options the library also takes (threads, seconds, memory, spot-checks) are checked by
the library's own :mod:`~mastermind.checks`, in the option's name.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, Optional, TextIO, TypeVar

from .. import checks, files
from ..files import OutputError as OutputError  # (exit status 1; cli/__init__)
from ..limits import BIG_BUILD, MAX_COLOURS, MAX_JOBS, MAX_MEMORY, MAX_PEGS
from ..rules import Strategy, Variant

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from ..game import Game, GameLike

EXIT_OK, EXIT_UNFINISHED, EXIT_USAGE, EXIT_MISSING_TOOL, EXIT_SPOT_CHECK = 0, 1, 2, 3, 4
"""0 done; 1 unfinished (Ctrl-C, a time limit, an output or a checkpoint that could not be
written, an internal error); 2 bad input; 3 a tool the request needs is not installed
(Graphviz's dot, matplotlib, Dask); 4 a spot-check (--recheck) found an answer of a
worker or of the checkpoint wrong: the result may be wrong."""

T = TypeVar("T")

LONG_RUN = 60.0  # seconds (a rough estimate) from which an analysis is announced as long
MAX_MEMORY_MB = MAX_MEMORY >> 20  # the largest --memory


class UsageError(Exception):
    """Bad input from the command line: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with errors raised as :class:`UsageError` (one line, exit status 2) that
    point at the help of the command being parsed."""

    hint: Optional[str] = None  # the help to point at, when not this parser's own

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.hint or self.prog} --help')")

    def _print_message(self, message: str, file: Optional[SupportsWrite[str]] = None) -> None:
        # argparse's own version drops write errors: `--help > /dev/full` would succeed
        if message:
            (file or sys.stderr).write(message)


def integer(text: str) -> int:
    """An integer option's value: ASCII digits only (``int`` would also take ``"４"``,
    ``"٦"`` or ``"1_6"``, which no code or score of this package reads)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(text)
    return int(text)


def number(text: str) -> float:
    """A number option's value (seconds): ASCII digits, a point, an exponent; not
    ``nan``, ``inf``, other scripts' digits or underscores."""
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
        raise ValueError(text)
    return float(text)


def checked(check: Callable[[Any], T], value: Any, name: str, option: str) -> T:
    """``value`` through the library's ``check`` (:mod:`mastermind.checks`); what it
    refuses is a :class:`UsageError` in the words of the library, the option
    (``--time-limit``) in place of the keyword (``time_limit``)."""
    try:
        return check(value)
    except checks.ArgumentError as e:
        words = str(e)
        if words.startswith(name + " "):
            words = option + words[len(name) :]
        raise UsageError(words) from None


def check_time_limit(args: argparse.Namespace) -> None:
    """``--time-limit`` refused unless a positive, finite number of seconds."""
    checked(checks.time_limit, getattr(args, "time_limit", None), "time_limit", "--time-limit")


def game_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game")
    g.add_argument(
        "-n",
        "--pegs",
        type=integer,
        default=4,
        metavar="N",
        help=f"positions in a code, 1..{MAX_PEGS} (default 4)",
    )
    g.add_argument(
        "-k",
        "--colours",
        "--colors",
        dest="colours",
        type=integer,
        default=6,
        metavar="K",
        help=f"colours, 1..{MAX_COLOURS} (default 6)",
    )
    g.add_argument(
        "--variant",
        default="classic",
        choices=[v.value for v in Variant],
        help="classic (default): repetition everywhere; distinct: secrets without "
        "repeated colours; bulls-and-cows: no repetition anywhere; "
        "black-peg: blacks only; permutation: n = k, no repetition",
    )


def strategy_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("strategy")
    s.add_argument(
        "-s",
        "--strategy",
        default="minmax",
        choices=[x.value for x in Strategy],
        help="minmax (Knuth, default), entropy, parts (most parts), expected-size "
        "(Irving), first-candidate",
    )
    s.add_argument(
        "--candidates-only",
        action="store_true",
        help="guess only codes that can still be the secret (default: any code)",
    )
    s.add_argument(
        "--first",
        metavar="CODE",
        help="the opening guess, e.g. 1122 (default: the strategy's own choice)",
    )


def output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-j",
        "--jobs",
        type=integer,
        default=None,
        metavar="N",
        help=f"threads to use, 1..{MAX_JOBS} (default: every core); the result "
        "does not depend on it",
    )


def distributed_options(p: argparse.ArgumentParser) -> None:
    d = p.add_argument_group("beyond one machine (docs/distributed.md)")
    d.add_argument(
        "--scheduler",
        metavar="ADDRESS|local:N",
        help="run the work as units on a Dask cluster: the scheduler's address "
        "(e.g. tcp://10.0.0.5:8786), or local:N to start N worker processes "
        "on this machine for the run (needs pip install "
        "'mastermind-analysis[distributed]'); the result is the same",
    )
    d.add_argument(
        "--recheck",
        type=number,
        default=0.0,
        metavar="FRACTION",
        help="spot-checks: re-run this fraction of the units (0 to 1) on this machine "
        "and compare, whether a worker or the checkpoint gave the answer; a mismatch "
        "is one line naming the unit and the worker, the re-run's answer is used, "
        "and the exit status is 4. The client trusts the cluster with its code (Dask "
        "runs what it is sent) and with its answers, and a checkpoint as a file of its "
        "own, unless re-checked: 0.1 is advised for a cluster you do not control "
        "(docs/distributed.md, the trust model)",
    )
    d.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="record each finished unit of work in FILE (SQLite), with or without "
        "--scheduler; after Ctrl-C, a crash or a reboot, the same command "
        "again resumes: only the unfinished units run. A FILE written for "
        "another game, other options or another version is refused",
    )


def check_files(args: argparse.Namespace, **options: Optional[str]) -> None:
    """Before any work: no two file options naming the same file (one would destroy the
    other), and a ``--checkpoint`` that can be one (a regular file or a new name; not a
    device, a FIFO or a directory).  ``options`` maps each option's name to its path."""
    named = [(name, path) for name, path in options.items() if path]
    checkpoint = getattr(args, "checkpoint", None)
    if checkpoint:
        named.append(("--checkpoint", checkpoint))
    for i, (a, pa) in enumerate(named):
        for b, pb in named[i + 1 :]:
            if _same_file(pa, pb):
                raise UsageError(f"{a} and {b} name the same file ({pb}): give each its own")
    if checkpoint:
        from ..engine.checkpoint import check_path

        check_path(checkpoint)


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist yet (and their real paths differ)
        return False


def uses_units(args: argparse.Namespace) -> bool:
    """Whether the command runs as units of work (a scheduler or a checkpoint)."""
    return (
        getattr(args, "scheduler", None) is not None
        or getattr(args, "checkpoint", None) is not None
    )


def check_scheduler(args: argparse.Namespace) -> None:
    """A malformed ``--scheduler`` (``local:0``, ``local:x``) refused before any work."""
    if getattr(args, "scheduler", None) is not None:
        from ..engine.executors import parse_scheduler

        parse_scheduler(args.scheduler)


@contextlib.contextmanager
def unit_errors(args: argparse.Namespace, err: TextIO = sys.stderr) -> Iterator[None]:
    """Around a command that may run units: Ctrl-C says what the checkpoint keeps (the
    exit status stays 1), a unit that failed on its worker is one line (status 1)."""
    try:
        yield
    except KeyboardInterrupt:
        path = getattr(args, "checkpoint", None)
        if path is None:
            raise
        raise Interrupted(f"interrupted; {_kept(path)}") from None
    except Exception as e:
        units = sys.modules.get("mastermind.engine.units")
        if units is None or not isinstance(e, units.UnitError):
            raise
        raise Interrupted(f"error: {e}") from None


def units_text(units: int, resumed: Optional[int]) -> str:
    """``"79 units of work (12 taken from the checkpoint)"``."""
    text = f"{units:,} unit{'s' if units != 1 else ''} of work"
    return text + (f" ({resumed:,} taken from the checkpoint)" if resumed else "")


def kept_note(args: argparse.Namespace, finished: bool, err: Optional[TextIO] = None) -> None:
    """After a run stopped early with a checkpoint: what it keeps, how to resume (on
    ``err``, standard error as it is when called)."""
    path = getattr(args, "checkpoint", None)
    if path is not None and not finished:
        (err or sys.stderr).write(f"mastermind: {_kept(path)}\n")


def _kept(path: str) -> str:
    """What a run stopped early leaves in its checkpoint ``path``, and what to do next:
    ``"3 finished units are kept in c.sqlite: run the same command again to resume"``.
    The file is only read (one that a run stopped before making it is not made here)."""
    import sqlite3

    from ..engine.rows import connect_read_only

    again = "run the same command again to resume"
    if not os.path.exists(path):
        return "no unit had finished: run the same command again to start"
    try:
        with contextlib.closing(connect_read_only(path)) as conn:
            count = int(conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    except (sqlite3.Error, OSError, ValueError):
        return f"the finished units, if any, are kept in {path}: {again}"
    if count == 0:
        return "no unit had finished: run the same command again to start"
    unit = "unit is" if count == 1 else "units are"
    return f"{count:,} finished {unit} kept in {path}: {again}"


class Interrupted(Exception):
    """A command stopped before its end: the message on one line, exit status 1."""


def check_jobs(args: argparse.Namespace) -> None:
    """``--jobs`` refused unless 1 .. :data:`~mastermind.limits.MAX_JOBS` (absent: every
    core)."""
    jobs = getattr(args, "jobs", None)
    if jobs is not None:
        checked(checks.threads, jobs, "jobs", "--jobs")


def check_memory(args: argparse.Namespace) -> None:
    """``--memory`` (MB) refused unless the library takes it in bytes
    (:func:`mastermind.checks.memory`: 1 MB .. :data:`MAX_MEMORY_MB` here), said in MB."""
    try:
        checks.memory(args.memory << 20)
    except checks.ArgumentError:
        if args.memory < 1:
            raise UsageError("--memory must be at least 1 MB") from None
        raise UsageError(f"--memory must be at most {MAX_MEMORY_MB:,} MB") from None


def check_first(args: argparse.Namespace, game: GameLike) -> None:
    """``--first`` with ``--candidates-only`` must be a code that can be the secret:
    refused on one line before the work starts."""
    if getattr(args, "first", None) is None or not getattr(args, "candidates_only", False):
        return
    g = game.guess(args.first)
    if not game.is_secret(g):
        raise UsageError(
            f"--first {game.format_code(g)} is not a candidate, and with "
            "--candidates-only only candidates may be played"
        )


def make_game(args: argparse.Namespace, err: TextIO = sys.stderr) -> "Game":
    """The game the game options name; on stderr first, a word when it is big."""
    from ..game import Game, GameError, build_cost

    try:
        codes, size = build_cost(args.pegs, args.colours, args.variant)
    except GameError:
        codes = size = 0  # Game() below says what is wrong
    if size >= BIG_BUILD:
        err.write(
            f"mastermind: [{args.pegs},{args.colours}] {args.variant}: {codes:,} codes; "
            f"their tables take about {size / 2**30:.1f} GB and some seconds to build\n"
        )
        err.flush()
    try:
        return Game(args.pegs, args.colours, args.variant)
    except MemoryError:
        raise GameError(
            f"not enough memory for [{args.pegs},{args.colours}] (about {size / 2**30:.1f} GB)"
        ) from None


def seconds_text(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"3.5 h"``, ``"2.1 days"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def long_run_note(what: str, secrets: int, threads: int, err: TextIO = sys.stderr) -> None:
    """Say on stderr, before it starts, that an exhaustive analysis will be long: a rough
    figure extrapolated from [6,9] minmax (531,441 secrets, 74 s on 2 cores; the time
    grows about as the square of the number of secrets)."""
    seconds = 74.0 * (secrets / 531441) ** 2 * 2 / max(1, threads)
    if seconds >= LONG_RUN:
        err.write(
            f"mastermind: {what}: {secrets:,} secrets, a long run: roughly "
            f"{seconds_text(seconds)} with {threads} thread{'s' if threads != 1 else ''} "
            "(extrapolated from [6,9]: 531,441 secrets in about a minute on 2 cores). "
            "Progress is shown on a terminal; Ctrl-C stops it.\n"
        )
        err.flush()


def plot_destination(path: Optional[str]) -> Optional["Destination"]:
    """The ``--plot`` file, checked (suffix, folder, matplotlib) and opened before the
    work; None when no plot is asked for."""
    if path is None:
        return None
    from ..views.plot import check_plot_file

    check_plot_file(path)
    return Destination(path, "--plot")


class Destination(files.Destination):
    """An output file, checked and opened before the work, written whole at the end
    (:class:`mastermind.files.Destination`: a regular file replaced whole, a device, a
    FIFO, ``-`` or ``/dev/stdout`` written in place; :class:`OutputError`, exit status
    1, when the write fails at the end); a plot too."""

    def save_plot(self, obj: object) -> None:
        """Draw ``obj`` (an analysis, a comparison) into the file and commit it."""
        from ..views.plot import check_plot_file, draw_plot

        draw_plot(obj, self, check_plot_file(self.path))
        self.commit()


@contextlib.contextmanager
def discard_on_error(dest: Optional[Destination]) -> Iterator[Optional[Destination]]:
    """Around the work that ends by writing ``dest`` (None: no file): if the block raises,
    nothing is left at its path."""
    try:
        yield dest
    except BaseException:
        if dest is not None:
            dest.discard()
        raise


def output_file(
    path: Optional[str], what: str = "the output"
) -> contextlib.AbstractContextManager[Optional[Destination]]:
    """The :class:`Destination` of ``path`` (None when there is no path), checked and
    opened now, before the block's work; the block writes and commits it, and if it
    raises, nothing is left at ``path``."""
    return discard_on_error(Destination(path, what) if path is not None else None)


def unit_seconds_option(p: argparse.ArgumentParser) -> None:
    """``--unit-seconds S``: the budget of a unit of work (analyze, bound, optimal)."""
    from ..limits import UNIT_SECONDS

    p.add_argument(
        "--unit-seconds",
        type=number,
        default=UNIT_SECONDS,
        metavar="S",
        help="with --scheduler or --checkpoint: a unit of work still running "
        "after S seconds splits into smaller units, spread over the "
        f"workers (default {UNIT_SECONDS:g}; 0 splits every unit at once); "
        "the answer never depends on it",
    )


def recheck(args: argparse.Namespace) -> float:
    """``--recheck`` checked: a fraction from 0 to 1."""
    return checked(checks.recheck, args.recheck, "recheck", "--recheck")


def unit_seconds(args: argparse.Namespace) -> float:
    """``--unit-seconds`` checked: a number of seconds >= 0 (as
    :func:`mastermind.checks.unit_seconds`; the option always has one)."""
    seconds = functools.partial(checks.seconds, name="unit_seconds", zero=True)
    return checked(seconds, args.unit_seconds, "unit_seconds", "--unit-seconds")
