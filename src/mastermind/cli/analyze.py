"""``mastermind analyze``: a strategy against every secret, the distribution of guesses."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from ..rules import average_text, secrets_text
from .common import (
    EXIT_OK,
    UsageError,
    check_files,
    check_first,
    check_scheduler,
    discard_on_error,
    distributed_options,
    game_options,
    jobs_option,
    long_run_note,
    make_game,
    output_options,
    plot_destination,
    recheck,
    strategy_options,
    unit_errors,
    unit_seconds,
    unit_seconds_option,
    units_text,
    uses_units,
)
from .progress import ProgressBar
from .render import wants_colour

if TYPE_CHECKING:
    from ..analysis.exhaustive import Analysis


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Play a strategy against every secret and report how many secrets are "
        "found with 1, 2, 3... guesses."
    )
    game_options(p)
    strategy_options(p)
    output_options(p)
    p.add_argument(
        "--tree",
        action="store_true",
        help="include the strategy tree (guess per node) in the JSON output (with --json)",
    )
    jobs_option(p)
    distributed_options(p)
    unit_seconds_option(p)
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the distribution to FILE (.png, .svg or .pdf; needs "
        "matplotlib: pip install 'mastermind-analysis[plot]')",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.tree and not args.json:
        raise UsageError(
            "--tree adds the strategy tree to the JSON output: give --json too "
            "(or use 'mastermind tree' for a tree to read)"
        )
    check_scheduler(args)
    unit_seconds(args)
    recheck(args)
    check_files(args, **{"--plot": args.plot})
    # the plot file is checked before the work, not after it
    with discard_on_error(plot_destination(args.plot)) as plot:
        result = _analysis(args)
        if plot is not None:
            plot.save_plot(result)
    if args.json:
        json.dump(result.to_json(), out)
        out.write("\n")
    elif wants_colour(out):
        _table(result, out)
    else:
        _text(args, result, out)
    return EXIT_OK


def _analysis(args: argparse.Namespace) -> "Analysis":
    """The analysis the options ask for, with its progress bar."""
    from ..analysis.exhaustive import analyze
    from ..checks import threads

    game = make_game(args)
    check_first(args, game)
    if args.scheduler is None:
        long_run_note(f"{game.name} {args.strategy}", int(game.secrets.size), threads(args.jobs))
    bar = ProgressBar(
        f"{game.name} {args.strategy}",
        enabled=False if args.no_progress else None,
        unit="units" if uses_units(args) else "secrets",
    )
    try:
        with unit_errors(args):
            return analyze(
                game,
                args.strategy,
                candidates_only=args.candidates_only,
                first=args.first,
                tree=args.tree,
                jobs=args.jobs,
                progress=bar,
                scheduler=args.scheduler,
                checkpoint=args.checkpoint,
                unit_seconds=unit_seconds(args),
                recheck=recheck(args),
            )
    finally:
        bar.close()


def _text(args: argparse.Namespace, result: "Analysis", out: TextIO) -> None:
    """The distribution as plain text."""
    game = result.game
    pool = "candidates only" if args.candidates_only else "all guesses allowed"
    out.write(
        f"{game.name} {result.strategy}, {pool}, first guess "
        f"{game.format_code(result.first_guess)}\n\n"
    )
    out.write(" guesses   secrets\n")
    for d, c in sorted(result.distribution.items()):
        out.write(f"{d:8d}  {c:8d}\n")
    avg = result.average
    out.write(
        f"\n{secrets_text(result.secrets)}, total {result.total}, average {average_text(avg)}"
        f", max {result.max}"
        f"   [{result.seconds:.3f} s]\n"
    )
    if result.units is not None:
        out.write(f"{units_text(result.units, result.units_resumed)}\n")


def _table(result: "Analysis", out: TextIO) -> None:
    """The distribution as a rich table with bars, on a terminal."""
    from .render import distribution_table

    game, avg = result.game, result.average
    pool = "candidates only" if result.candidates_only else "all guesses allowed"
    distribution_table(
        out,
        result.distribution,
        result.secrets,
        f"{game.name} {result.strategy}, {pool}, first guess "
        f"{game.format_code(result.first_guess)}",
        f"{secrets_text(result.secrets, ',')}, total {result.total:,}, average "
        f"{average_text(avg)}, max "
        f"{result.max}   [{result.seconds:.3f} s]"
        + ("" if result.units is None else f"\n{units_text(result.units, result.units_resumed)}"),
    )
