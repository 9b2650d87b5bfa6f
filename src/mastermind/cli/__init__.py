"""The ``mastermind`` command: one module per command, this file dispatching to them.

Each command module defines ``configure(parser)`` (its options, description, and
``func``, the function that runs it as ``func(args, out) -> exit status``).  Only the
command being run is imported (``mastermind --help`` imports none of them and no NumPy),
as pip does with its commands.  The library never imports this package.

``main(argv)`` is testable in-process and returns the exit status: 0 done, 1 unfinished
(interrupted, a time limit, an output or checkpoint that could not be written), 2 bad
input, 3 a missing tool, 4 a spot-check that failed (``--recheck``).  Bad input is
exactly a :class:`UsageError` or a :class:`~mastermind.errors.MastermindError` (the
errors the package raises on purpose) but for two kinds:
:class:`~mastermind.errors.ResourceError` (a full disk: unfinished) and
:class:`~mastermind.errors.MissingTool` (status 3).  Anything else is a bug, reported on
one line as an internal error (status 1), with its traceback when ``--debug`` is given
or ``MASTERMIND_DEBUG`` is set (not empty, not 0).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import io
import os
import select
import signal
import stat
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Optional, TextIO

from ..errors import MastermindError, MissingTool, ResourceError
from ..interrupts import keeping_lost_interrupts, take_stop_request
from .common import (
    EXIT_MISSING_TOOL,
    EXIT_OK,
    EXIT_SPOT_CHECK,
    EXIT_UNFINISHED,
    EXIT_USAGE,
    Interrupted,
    OutputError,
    Parser,
    UsageError,
    check_jobs,
)

__all__ = [
    "COMMANDS",
    "EXIT_MISSING_TOOL",
    "EXIT_OK",
    "EXIT_SPOT_CHECK",
    "EXIT_UNFINISHED",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "debugging",
    "main",
]

DEBUG_VARIABLE = "MASTERMIND_DEBUG"
"""Set (not empty, not 0) at run time: an internal error prints its traceback (at build
time the same variable asks setup.py for a debug build of the kernel)."""

# command -> (module in this package, one-line summary, aliases)
COMMANDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "analyze": (
        "analyze",
        "play a strategy against every secret: the distribution of guesses",
        ("analyse",),
    ),
    "solve": ("solve", "play a strategy against one secret, step by step", ()),
    "compare": (
        "compare",
        "every strategy and guess pool in one table: text, JSON, CSV, Markdown",
        (),
    ),
    "first-guesses": (
        "first_guesses",
        "the four valuations of every first-guess symmetry class",
        (),
    ),
    "play": ("play", "play a game: the computer breaks your code, or you break its code", ()),
    "tree": ("tree", "write the whole strategy tree: JSON, Graphviz DOT/SVG/PNG, cheat sheet", ()),
    "bound": ("bound", "the exact worst case: the fewest guesses that always suffice", ()),
    "campaign": (
        "campaign",
        "decide a worst-case question over many runs, in a folder that keeps its state",
        (),
    ),
    "optimal": ("optimal", "the exact expected case: the least total number of guesses", ()),
    "optimum-campaign": (
        "optimum_campaign",
        "work out an expected-case optimum over many runs, in a folder that keeps its state",
        (),
    ),
    "lower-bound": (
        "lower_bound",
        "a proved lower bound of the expected-case optimum, where the search is out of reach",
        (),
    ),
    "verify": ("verify", "check a worst-case certificate or a strategy tree, independently", ()),
}


def _command_named(argv: Sequence[str]) -> Optional[str]:
    """The command ``argv`` names (aliases resolved), or None."""
    word = next((a for a in argv if not a.startswith("-")), None)
    for name, (_, _, aliases) in COMMANDS.items():
        if word == name or word in aliases:
            return name
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser; the options of the command ``argv`` names are added (and its module
    imported), the other commands are listed by name and summary only."""
    from .. import __version__

    parser = Parser(
        prog="mastermind",
        description="Analyse generalized [n,k]-Mastermind: play the classic one-step "
        "strategies against one secret or against every secret, prove worst "
        "cases, play a game.",
        epilog="Codes are written 1122 (colours 1..k; separate them, '1 10 3 2', when "
        "k >= 10). Examples: 'mastermind analyze', 'mastermind analyze -n 5 -k 8 "
        "--strategy entropy --json', 'mastermind solve 6543'. "
        "'mastermind COMMAND --help' explains a command. Exit status: 0 done, "
        "1 unfinished (Ctrl-C, once or twice; a time limit; an output or a checkpoint "
        "that could not be written, a full disk; an internal error), 2 bad input, "
        "3 a tool it needs is not installed (Graphviz's dot, matplotlib, Dask), "
        "4 a spot-check (--recheck) found a wrong answer.",
    )
    parser.add_argument("--version", action="version", version=f"mastermind {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help=f"on an internal error (a bug), print its traceback; the same as "
        f"setting {DEBUG_VARIABLE}=1 when running a command",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    chosen = _command_named(argv)
    for name, (module, summary, aliases) in COMMANDS.items():
        p = sub.add_parser(name, aliases=list(aliases), help=summary, description=summary)
        # also after the command (`mastermind analyze --debug`), without a line in its help
        p.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
        if name == chosen:
            importlib.import_module(f".{module}", __name__).configure(p)
    if chosen is not None:  # what argparse finds wrong at the top is about the command
        parser.hint = f"mastermind {chosen}"
    return parser


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``), writing to ``out``.

    SIGTERM is taken as Ctrl-C while it runs (from the main thread): the work stops, the
    files being written are dropped, and the status is 1.  A second Ctrl-C while the
    first one is being handled is status 1 too; run as the program itself (``argv``
    not given), a Ctrl-C after the command has its status ends the process at once with
    that status (never the signal's own 130)."""
    try:
        status = _main_with_signals(argv, out)
    except KeyboardInterrupt:  # again, while the first one was being handled
        _say("\nmastermind: interrupted")
        status = EXIT_UNFINISHED
    if argv is None and threading.current_thread() is threading.main_thread():
        _exit_on_late_interrupt(status)
    return status


def _main_with_signals(argv: Optional[Sequence[str]], out: Optional[TextIO]) -> int:
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # one line each, as the errors
        if threading.current_thread() is not threading.main_thread():
            return _main(argv, out)
        take_stop_request()  # (none left from an earlier command)
        previous = signal.signal(signal.SIGTERM, _terminate)
        try:
            with keeping_lost_interrupts():
                return _main(argv, out)
        finally:
            signal.signal(signal.SIGTERM, previous)


def _say(text: str) -> None:
    try:
        print(text, file=sys.stderr)
    except (OSError, ValueError):  # pragma: no cover - stderr gone
        pass


def _exit_on_late_interrupt(status: int) -> None:
    """From now on (the command is over, the process is ending: threads joined, files
    closed), Ctrl-C ends the process at once with ``status``; once Python's exit
    handlers run (the threads joined), Ctrl-C is ignored: past them, Python puts the
    system's own handler back, which would end the process by the signal (status 130)."""

    def leave(signum: int, frame: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)

    signal.signal(signal.SIGINT, leave)
    atexit.register(signal.signal, signal.SIGINT, signal.SIG_IGN)


def _show_warning(
    message: Any,
    category: Any,
    filename: str,
    lineno: int,
    file: Optional[TextIO] = None,
    line: Optional[str] = None,
) -> None:
    """A warning on one line of stderr: ``mastermind: warning: ...``."""
    try:
        print(f"mastermind: warning: {_one_line(message)}", file=file or sys.stderr)
    except OSError:  # pragma: no cover - stderr gone
        pass


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM: stop as Ctrl-C does."""
    raise KeyboardInterrupt


def _main(argv: Optional[Sequence[str]], out: Optional[TextIO]) -> int:
    out = sys.stdout if out is None else out
    if out is None:  # started with standard output closed
        print("mastermind: error: standard output is closed", file=sys.stderr)
        return EXIT_UNFINISHED
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(argv)
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version: printed; make sure it got out
            sys.stdout.flush()
            return int(e.code or 0)
        if args.command is None:
            parser.print_help(out)
            out.flush()
            return EXIT_USAGE
        check_jobs(args)
        status = _command(args, out)
        if _reader_gone(out):  # a large write cut short may pass without an error
            raise BrokenPipeError
        return status
    except UsageError as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Interrupted as e:
        print(f"\nmastermind: {e}", file=sys.stderr)
        return EXIT_UNFINISHED
    except OutputError as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_UNFINISHED
    except BrokenPipeError:  # e.g. `mastermind analyze | head`: quietly, not all written
        _silence_stdout()
        return EXIT_UNFINISHED
    except OSError as e:  # standard output full or gone (a file error is a UsageError)
        _silence_stdout()
        print(f"mastermind: error: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return EXIT_UNFINISHED
    except MemoryError:
        print("mastermind: error: out of memory: try a smaller game", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmastermind: interrupted; nothing was finished", file=sys.stderr)
        return EXIT_UNFINISHED
    except Exception as e:
        if isinstance(e, MissingTool):
            print(f"mastermind: error: {_one_line(e)}", file=sys.stderr)
            return EXIT_MISSING_TOOL
        if isinstance(e, ResourceError):
            print(f"mastermind: error: {_one_line(e)}", file=sys.stderr)
            return EXIT_UNFINISHED
        if isinstance(e, MastermindError):
            print(f"mastermind: error: {_one_line(e)}", file=sys.stderr)
            return EXIT_USAGE
        if _time_limit(e):
            print(f"mastermind: {_one_line(e)}; nothing was finished", file=sys.stderr)
            return EXIT_UNFINISHED
        return _internal_error(e, debugging(argv))


def _command(args: argparse.Namespace, out: TextIO) -> int:
    """Run the parsed command, its output flushed: its status, or 4 when a spot-check
    (``--recheck``) found an answer wrong."""
    with _spot_checks() as failed:
        status = int(args.func(args, out))
    out.flush()
    if failed and status in (EXIT_OK, EXIT_UNFINISHED):
        print(
            f"mastermind: {len(failed)} spot-check{'s' if len(failed) != 1 else ''} "
            "found an answer wrong (above): the answers not re-checked may be wrong too; "
            "the cluster (or the checkpoint) is not to be trusted",
            file=sys.stderr,
        )
        status = EXIT_SPOT_CHECK
    return status


@contextlib.contextmanager
def _spot_checks() -> Iterator[list[str]]:
    """The spot-checks that fail while the block runs (each still shown as a warning,
    one line): their messages."""
    failed: list[str] = []
    show = warnings.showwarning

    def counting(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        if getattr(category, "__name__", "") == "SpotCheckWarning":
            failed.append(str(message))
        show(message, category, *args, **kwargs)

    warnings.showwarning = counting
    try:
        yield failed
    finally:
        warnings.showwarning = show


def debugging(argv: Sequence[str] = ()) -> bool:
    """Whether an internal error shows its traceback: ``--debug`` in ``argv``, or
    ``MASTERMIND_DEBUG`` set to anything but empty or 0."""
    return "--debug" in argv or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def _time_limit(e: BaseException) -> bool:
    """Whether ``e`` is a time limit reached (the library stops there on purpose)."""
    stopping = sys.modules.get("mastermind.stopping")
    return stopping is not None and isinstance(e, stopping.TimeLimitReached)


def _one_line(e: BaseException) -> str:
    """The message of ``e`` on one line (its type's name when it has none)."""
    text = " ".join(str(e).split())
    return text or type(e).__name__


def _internal_error(e: BaseException, debug: bool) -> int:
    """An exception nobody raised on purpose: a bug.  One line (the traceback first when
    ``debug``), exit status 1."""
    if debug:
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
        hint = "the traceback is above"
    else:
        hint = f"set {DEBUG_VARIABLE}=1 or pass --debug for the traceback"
    print(
        f"mastermind: internal error: {type(e).__name__}: {_one_line(e)} ({hint}); "
        "please report it",
        file=sys.stderr,
    )
    return EXIT_UNFINISHED


def _reader_gone(out: TextIO) -> bool:
    """Whether ``out`` is a pipe whose reader has closed it (``| head``): a large write
    that the reader cut short can be accepted in part without an error."""
    try:
        fd = out.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        return any(events & select.POLLERR for _, events in poll.poll(0))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that Python's last flush at exit finds
    nowhere to fail (a second traceback for the same full disk or closed pipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):  # pragma: no cover - no stdout at all
        pass
