"""``mastermind lower-bound``: a proved lower bound of the expected-case optimum."""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any, TextIO

from ..limits import MAX_BRACKET_DEPTH
from ..rules import secrets_text
from .common import EXIT_OK, UsageError, game_options, integer, make_game, output_options
from .history import after_option, parse_after
from .progress import ProgressBar

if TYPE_CHECKING:
    from ..game import Game
    from ..optimum.bracket import LowerBound


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "A proved lower bound of the optimum (the least total number of guesses "
        "over every secret, the winning guess counted, every code allowed as a "
        "guess), by a bound tree: every guess is tried at each of the top DEPTH "
        "levels, the sets below are bounded by counting, and small sets are solved "
        "exactly. With a strategy's total, it brackets the optimum when the exact "
        "search is out of reach. Each level multiplies the work by hundreds."
    )
    p.epilog = (
        "Examples: 'mastermind lower-bound' ([4,6] at depth 2: 5,452), 'mastermind "
        "lower-bound --exact-leaves 40' (5,616; the optimum is 5,625), 'mastermind lower-bound -n 5 -k 5 "
        "--exact-leaves 40 --json' (13,446 of the optimum 13,496), 'mastermind "
        "lower-bound -n 5 -k 8 --depth 1 --after 11234=BWW'."
    )
    game_options(p)
    output_options(p)
    t = p.add_argument_group("bound tree")
    t.add_argument(
        "--depth",
        type=integer,
        default=2,
        metavar="D",
        help=f"levels where every guess is tried, 0..{MAX_BRACKET_DEPTH} (default 2)",
    )
    t.add_argument(
        "--exact-leaves",
        type=integer,
        default=0,
        metavar="N",
        help="solve the last level's sets of at most N codes exactly instead of "
        "estimating them (default 0; 40 costs about ten times as much and gains "
        "about what a level more does)",
    )
    after_option(p)
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..optimum.bracket import lower_bound

    if not 0 <= args.depth <= MAX_BRACKET_DEPTH:
        raise UsageError(f"--depth must be between 0 and {MAX_BRACKET_DEPTH}")
    if args.exact_leaves < 0:
        raise UsageError("--exact-leaves must be 0 or more")
    game = make_game(args)
    history = parse_after(game, args.after)
    start = time.monotonic()
    bar = ProgressBar(
        f"{game.name} lower bound",
        unit="first guesses",
        enabled=False if args.no_progress else None,
    )
    try:
        result = lower_bound(
            game,
            history=history,
            depth=args.depth,
            exact_leaves=args.exact_leaves,
            progress=bar,
        )
    finally:
        bar.close()
    if args.json:
        json.dump(_document(game, result, args.exact_leaves), out)
        out.write("\n")
    else:
        _text(game, result, args.exact_leaves, time.monotonic() - start, out)
    return EXIT_OK


def _document(game: Game, result: "LowerBound", leaves: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"pegs": game.n, "colours": game.k, "variant": game.variant.value}
    doc.update(result.to_json())
    doc["average"] = result.average
    doc["exact_leaves"] = leaves
    return doc


def _text(game: Game, result: "LowerBound", leaves: int, seconds: float, out: TextIO) -> None:
    where = ""
    if result.history:
        played = ", ".join(
            f"{game.format_code(g)} scored {game.slots[s]}" for g, s in result.history
        )
        where = f" after {played}"
    out.write(
        f"{game.name}: no strategy finds the {secrets_text(result.secrets, ',')}{where} in "
        f"fewer than {result.bound:,} guess{'es' * (result.bound != 1)} in all (average "
        f"{result.average:.5f})\n"
    )
    tree = f"bound tree of depth {result.depth}"
    if leaves:
        tree += f", exact leaves of at most {leaves} codes"
    out.write(
        f"  {tree}: {result.scans:,} scans, {result.solves:,} exact searches, {seconds:.2f} s"
        f"{HOW.get(result.how, '')}\n"
    )
    if result.guesses:
        out.write(f"\n  {'first guess (one per class)':<30} at least\n")
        for g in sorted(result.guesses, key=lambda g: (g.bound, g.guess))[:10]:
            more = "" if g.complete else "+"
            out.write(f"  {game.format_code(g.guess):<30} {g.bound:>8,}{more}\n")
        if len(result.guesses) > 10:
            out.write(f"  ... {len(result.guesses) - 10} more\n")
        if not all(g.complete for g in result.guesses):
            out.write("  (+: left as soon as its bound reached the least)\n")


#: what a bound's ``how`` adds to the text, beyond the tree
HOW = {
    "exact": " (the set was solved: the bound is the optimum)",
    "solver": " (a stopped exact search's proved bound)",
    "estimate": " (the counting estimate)",
}
