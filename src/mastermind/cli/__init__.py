"""The ``mastermind`` command: one module per command, this file dispatching to them.

Each command module defines ``configure(parser)`` (its options, description, and
``func``, the function that runs it as ``func(args, out) -> exit status``).  Only the
command being run is imported (``mastermind --help`` imports none of them and no NumPy),
as pip does with its commands.  The library never imports this package.

``main(argv)`` is testable in-process and returns the exit status: 0 done, 1 unfinished
(interrupted, a time limit), 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Optional, TextIO

from .common import (EXIT_OK, EXIT_UNFINISHED, EXIT_USAGE, Interrupted, Parser, UsageError,
                     check_jobs)

__all__ = ["COMMANDS", "EXIT_OK", "EXIT_UNFINISHED", "EXIT_USAGE", "UsageError",
           "build_parser", "main"]

# command -> (module in this package, one-line summary, aliases)
COMMANDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "analyze": ("analyze", "play a strategy against every secret: the distribution of guesses",
                ("analyse",)),
    "solve": ("solve", "play a strategy against one secret, step by step", ()),
    "compare": ("compare", "every strategy and guess pool in one table: text, JSON, CSV, "
                "Markdown", ()),
    "first-guesses": ("first_guesses",
                      "the four valuations of every first-guess symmetry class", ()),
    "play": ("play", "play a game: the computer breaks your code, or you break its code", ()),
    "tree": ("tree", "write the whole strategy tree: JSON, Graphviz DOT/SVG/PNG, cheat sheet",
             ()),
    "bound": ("bound", "the exact worst case: the fewest guesses that always suffice", ()),
    "optimal": ("optimal", "the exact expected case: the least total number of guesses", ()),
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
               "1 unfinished (Ctrl-C, a time limit, output that could not be written), "
               "2 bad input.")
    parser.add_argument("--version", action="version", version=f"mastermind {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    chosen = _command_named(argv)
    for name, (module, summary, aliases) in COMMANDS.items():
        p = sub.add_parser(name, aliases=list(aliases), help=summary, description=summary)
        if name == chosen:
            importlib.import_module(f".{module}", __name__).configure(p)
    if chosen is not None:  # what argparse finds wrong at the top is about the command
        parser.hint = f"mastermind {chosen}"
    return parser


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``), writing to ``out``."""
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
        status = int(args.func(args, out))
        out.flush()
        return status
    except UsageError as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Interrupted as e:
        print(f"\nmastermind: {e}", file=sys.stderr)
        return EXIT_UNFINISHED
    except BrokenPipeError:  # e.g. `mastermind analyze | head`
        _silence_stdout()
        return EXIT_OK
    except OSError as e:  # standard output full or gone (a file error is a UsageError)
        _silence_stdout()
        print(f"mastermind: error: cannot write the output: {e.strerror or e}",
              file=sys.stderr)
        return EXIT_UNFINISHED
    except (ValueError, OverflowError) as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("mastermind: error: out of memory: try a smaller game", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmastermind: interrupted; nothing was finished", file=sys.stderr)
        return EXIT_UNFINISHED


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that Python's last flush at exit finds
    nowhere to fail (a second traceback for the same full disk or closed pipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):  # pragma: no cover - no stdout at all
        pass
