"""``mastermind play``: a game at the terminal (the dialogue is :mod:`.dialogue`'s)."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, TextIO

from .common import UsageError, game_options, integer, make_game, number, strategy_options

DEFAULT_THINK = 2.0  # seconds: a person at the keyboard waits for a suggestion that long


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Without --codemaker the computer is the codebreaker: think of a secret, "
        "score each of its guesses ('2 1', '2,1', '21' or 'BBW'), and correct a "
        "mistaken score with 'undo' or 'fix ROW SCORE'. --secret makes it score "
        "itself. With --codemaker you break the computer's code ('hint', 'hint "
        "suggest', 'give up'); --adversary makes it cheat consistently so that "
        "the game lasts as long as possible. With --codemaker the strategy options "
        "(--strategy, --candidates-only, --first) shape what 'hint suggest' proposes."
    )
    p.epilog = (
        "Reads commands from standard input (a terminal or a pipe). Exit status: 0 "
        "the game is over, 1 unfinished (quit, end of input, Ctrl-C), 2 bad options."
    )
    game_options(p)
    strategy_options(p)
    m = p.add_argument_group("play")
    m.add_argument(
        "--secret",
        metavar="CODE",
        help="the computer guesses this secret and scores its own guesses",
    )
    m.add_argument(
        "--codemaker", action="store_true", help="the computer makes the code and you guess it"
    )
    m.add_argument(
        "--adversary",
        action="store_true",
        help="with --codemaker: keep no secret, answer so as to make the game "
        "as long as possible (implies --codemaker)",
    )
    m.add_argument(
        "--seed",
        type=integer,
        metavar="N",
        help="with --codemaker: seed of the secret (or of the adversary's tie "
        "breaks), for a reproducible game",
    )
    m.add_argument(
        "--think",
        type=number,
        default=DEFAULT_THINK,
        metavar="S",
        help=f"seconds the computer may think about a guess (default "
        f"{DEFAULT_THINK:g}; 0: as long as the strategy needs); past them it "
        "plays the best guess found, candidates first, and says so",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, input: Optional[TextIO] = None) -> int:
    """Run ``mastermind play`` with parsed arguments, reading from ``input`` (stdin)."""
    from .dialogue import play_codebreaker, play_codemaker

    codemaker = args.codemaker or args.adversary
    if codemaker and args.secret is not None:
        raise UsageError(
            "--secret is for the computer as codebreaker; with --codemaker the "
            "computer picks its own secret (use --seed)"
        )
    if not codemaker and args.seed is not None:
        raise UsageError("--seed only applies with --codemaker or --adversary")
    if not (args.think >= 0 and args.think < float("inf")):
        raise UsageError("--think must be a number of seconds, 0 or more")
    think = args.think or None
    game = make_game(args)
    inp = sys.stdin if input is None else input
    _tolerant(inp, "replace")  # a line the encoding cannot read is a mistyped line
    _tolerant(out, "backslashreplace")  # and one it cannot write is shown escaped
    if codemaker:
        return play_codemaker(
            game,
            seed=args.seed,
            adversary=args.adversary,
            strategy=args.strategy,
            candidates_only=args.candidates_only,
            first=args.first,
            input=inp,
            output=out,
            think=think,
        )
    return play_codebreaker(
        game,
        args.strategy,
        candidates_only=args.candidates_only,
        first=args.first,
        secret=args.secret,
        input=inp,
        output=out,
        think=think,
    )


def _tolerant(stream: object, errors: str) -> None:
    """Make a text stream bear what its encoding cannot carry (``PYTHONIOENCODING=ascii``
    and a typed ``1²34``): a codec error must not end a game."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors=errors)
        except (ValueError, OSError):  # pragma: no cover - a stream already read from
            pass
