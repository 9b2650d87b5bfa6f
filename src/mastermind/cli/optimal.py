"""``mastermind optimal``: the strategy with the least total number of guesses, proved."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, TextIO, cast

from ..limits import DEFAULT_MEMORY_MB, MAX_OPTIMAL_GUESSES
from ..rules import secrets_text
from .common import (
    EXIT_OK,
    EXIT_UNFINISHED,
    UsageError,
    check_files,
    check_memory,
    check_scheduler,
    check_time_limit,
    distributed_options,
    game_options,
    integer,
    jobs_option,
    kept_note,
    make_game,
    number,
    output_file,
    output_options,
    recheck,
    unit_errors,
    unit_seconds,
    unit_seconds_option,
    units_text,
    uses_units,
)
from .history import after_option, parse_after
from .progress import ProgressBar
from .render import distribution_table, wants_colour

if TYPE_CHECKING:
    from ..optimum.solver import Optimum
    from ..views.tree import Analysis


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The expected-case optimum: the strategy with the least total number of "
        "guesses over every secret (the winning guess counts), found by an "
        "exact branch-and-bound search and proved least. On a time limit or "
        "Ctrl-C, the best strategy found and the proved lower bound are "
        "printed and the exit status is 1."
    )
    p.epilog = (
        "Examples: 'mastermind optimal' ([4,6]: 5625), 'mastermind optimal "
        "--max-guesses 5' (5626), 'mastermind optimal -n 4 -k 7 --json', "
        "'mastermind optimal --variant bulls-and-cows -k 10 --tree bc.json'."
    )
    game_options(p)
    _strategy_options(p)
    output_options(p)
    p.add_argument(
        "--tree",
        metavar="FILE",
        help="write the strategy (JSON, as 'mastermind tree --format json') to FILE",
    )
    p.add_argument(
        "--time-limit",
        type=number,
        default=None,
        metavar="S",
        help="stop after S seconds (the whole command) with the best strategy "
        "found and the proved lower bound",
    )
    jobs_option(p)
    p.add_argument(
        "--memory",
        type=integer,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help=f"memory for the search's memo in MB (default {DEFAULT_MEMORY_MB})",
    )
    distributed_options(p)
    unit_seconds_option(p)
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.set_defaults(func=run)


def _strategy_options(p: argparse.ArgumentParser) -> None:
    """What kind of strategy, and from which position."""
    s = p.add_argument_group("strategy")
    s.add_argument(
        "--max-guesses",
        type=integer,
        default=None,
        metavar="D",
        help="only strategies that never need more than D guesses",
    )
    s.add_argument(
        "--candidates-only",
        action="store_true",
        help="guess only codes that can still be the secret",
    )
    s.add_argument("--first", metavar="CODE", help="the opening guess, e.g. 1122")
    after_option(s)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """0 when the optimum is proved (or proved impossible), 1 when stopped early."""
    from ..optimum.solver import optimal
    from ..views.tree import to_json

    start = time.monotonic()
    check_time_limit(args)
    if args.max_guesses is not None and not 1 <= args.max_guesses <= MAX_OPTIMAL_GUESSES:
        raise UsageError(f"--max-guesses must be between 1 and {MAX_OPTIMAL_GUESSES}")
    check_memory(args)
    check_scheduler(args)
    unit_seconds(args)
    recheck(args)
    check_files(args, **{"--tree": args.tree})
    with output_file(args.tree, "--tree") as dest:
        game = make_game(args)
        history = parse_after(game, args.after)
        left = (
            None
            if args.time_limit is None
            else max(args.time_limit - (time.monotonic() - start), 1e-3)
        )
        bar_ = ProgressBar(
            f"{game.name} optimal",
            unit="units" if uses_units(args) else "opening guesses",
            enabled=False if args.no_progress else None,
        )
        try:
            with unit_errors(args):
                result = optimal(
                    game,
                    max_guesses=args.max_guesses,
                    candidates_only=args.candidates_only,
                    first=args.first,
                    history=history,
                    time_limit=left,
                    jobs=args.jobs,
                    progress=bar_,
                    memory=args.memory << 20,
                    scheduler=args.scheduler,
                    checkpoint=args.checkpoint,
                    unit_seconds=unit_seconds(args),
                    recheck=recheck(args),
                )
        finally:
            bar_.close()
        if dest is not None and result.tree is None:  # stopped before one, or none exists
            dest.discard()
            sys.stderr.write(f"mastermind: nothing written to {args.tree}: no strategy was found\n")
        elif dest is not None:
            # (an optimum with its tree holds every field a tree's export reads)
            dest.write(json.dumps(to_json(cast("Analysis", result)), indent=1) + "\n")
            dest.commit()
    if args.json:
        json.dump(result.to_json(), out)
        out.write("\n")
    elif wants_colour(out) and result.distribution:
        _table(result, out)
    else:
        _text(result, out)
    kept_note(args, result.exact)
    return EXIT_OK if result.exact else EXIT_UNFINISHED


def _heading(result: "Optimum") -> str:
    game = result.game
    pool = "candidates only" if result.candidates_only else "all guesses allowed"
    limit = f", at most {result.max_guesses} guesses" if result.max_guesses else ""
    head = f"{game.name} optimal (the least total), {pool}{limit}"
    if result.history:
        played = ", ".join(
            f"{game.format_code(g)} scored {game.slots[s]}" for g, s in result.history
        )
        head += f", after {played} ({secrets_text(result.secrets)} left)"
    if result.first_guess is not None:
        head += (
            f", {'next' if result.history else 'first'} guess "
            f"{game.format_code(result.first_guess)}"
        )
    return head


def _footer(result: "Optimum") -> str:
    return (
        f"{result.summary()}   [{result.seconds:.3f} s, {result.nodes:,} nodes"
        + ("" if result.source == "search" else f"; strategy from {result.source}")
        + "]"
        + ("" if result.units is None else f"\n{units_text(result.units, result.units_resumed)}")
    )


def _text(result: "Optimum", out: TextIO) -> None:
    out.write(_heading(result) + "\n\n")
    if result.distribution:
        out.write(" guesses   secrets\n")
        for d, c in sorted(result.distribution.items()):
            out.write(f"{d:8d}  {c:8d}\n")
        out.write("\n")
    out.write(_footer(result) + "\n")


def _table(result: "Optimum", out: TextIO) -> None:
    """The distribution as a rich table with bars, on a terminal."""
    distribution_table(out, result.distribution, result.secrets, _heading(result), _footer(result))
