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

from .common import EXIT_OK, EXIT_UNFINISHED, EXIT_USAGE, Parser, UsageError

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
    parser = Parser(
        prog="mastermind",
        description="Analyse generalized [n,k]-Mastermind: play the classic one-step "
                    "strategies against one secret or against every secret, prove worst "
                    "cases, play a game.",
        epilog="Codes are written 1122 (colours 1..k; separate them, '1 10 3 2', when "
               "k >= 10). Examples: 'mastermind analyze', 'mastermind analyze -n 5 -k 8 "
               "--strategy entropy --json', 'mastermind solve 6543'. "
               "'mastermind COMMAND --help' explains a command.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    chosen = _command_named(argv)
    for name, (module, summary, aliases) in COMMANDS.items():
        p = sub.add_parser(name, aliases=list(aliases), help=summary, description=summary)
        if name == chosen:
            importlib.import_module(f".{module}", __name__).configure(p)
    return parser


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``), writing to ``out``."""
    out = sys.stdout if out is None else out
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(out)
            return EXIT_USAGE
        if getattr(args, "jobs", None) is not None and args.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        return int(args.func(args, out))
    except UsageError as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OverflowError) as e:
        print(f"mastermind: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("mastermind: error: out of memory: try a smaller game", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nmastermind: interrupted; nothing was finished", file=sys.stderr)
        sys.stderr.flush()
        os._exit(EXIT_UNFINISHED)  # worker threads may still be inside the kernel
    except BrokenPipeError:  # e.g. `mastermind analyze | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
