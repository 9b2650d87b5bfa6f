"""What every command shares: exit statuses, the usage error, the argument parser class,
the option groups (game, strategy, output) and building the game they name.

Only :mod:`mastermind.rules` is imported here (plain Python): building the parser loads
no NumPy and no kernel.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NoReturn

from ..rules import Strategy, Variant

if TYPE_CHECKING:
    from ..game import Game

EXIT_OK, EXIT_UNFINISHED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad input from the command line: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with errors raised as :class:`UsageError` (one line, exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def game_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game")
    g.add_argument("-n", "--pegs", type=int, default=4, metavar="N",
                   help="positions in a code, 1..8 (default 4)")
    g.add_argument("-k", "--colours", "--colors", dest="colours", type=int, default=6,
                   metavar="K", help="colours, 1..16 (default 6)")
    g.add_argument("--variant", default="classic", choices=[v.value for v in Variant],
                   help="classic (default): repetition everywhere; distinct: secrets without "
                        "repeated colours; bulls-and-cows: no repetition anywhere; "
                        "black-peg: blacks only; permutation: n = k, no repetition")


def strategy_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("strategy")
    s.add_argument("-s", "--strategy", default="minmax", choices=[x.value for x in Strategy],
                   help="minmax (Knuth, default), entropy, parts (most parts), expected-size "
                        "(Irving), first-candidate")
    s.add_argument("--candidates-only", action="store_true",
                   help="guess only codes that can still be the secret (default: any code)")
    s.add_argument("--first", metavar="CODE",
                   help="the opening guess, e.g. 1122 (default: the strategy's own choice)")


def output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def make_game(args: argparse.Namespace) -> "Game":
    """The game the game options name."""
    from ..game import Game

    return Game(args.pegs, args.colours, args.variant)
