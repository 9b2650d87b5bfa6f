"""``mastermind compare``: every strategy with every guess pool in one table (text, JSON,
CSV, Markdown), and optionally their distributions drawn to a file."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from ..rules import Strategy
from .common import (
    EXIT_OK,
    discard_on_error,
    game_options,
    jobs_option,
    make_game,
    plot_destination,
)
from .progress import ProgressBar


def _listed(values: list[str]) -> list[str]:
    """``["minmax,entropy", "parts"]`` -> ``["minmax", "entropy", "parts"]``."""
    return [v for value in values for v in value.split(",") if v]


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Play every strategy, each with every guess pool, against every secret "
        "and print one table: first guess, total guesses, average (decimal and "
        "exact), longest game, how many secrets are found in 1, 2, 3... "
        "guesses, and the seconds each analysis took."
    )
    p.epilog = (
        "Examples: 'mastermind compare --markdown --optimal', 'mastermind compare "
        "-n 5 -k 8 --strategies minmax,entropy --pools all --plot dist.png', 'mastermind "
        "compare --csv > table.csv'."
    )
    game_options(p)
    s = p.add_argument_group("rows")
    s.add_argument(
        "--strategies",
        nargs="+",
        default=None,
        metavar="S",
        help="strategies to compare, separated by commas or spaces (default: all: "
        + ", ".join(x.value for x in Strategy)
        + ")",
    )
    s.add_argument(
        "--pools",
        nargs="+",
        default=None,
        metavar="POOL",
        help="guess pools: 'all' (any code may be guessed) and/or 'candidates' "
        "(only codes that can still be the secret); default: both",
    )
    s.add_argument(
        "--optimal",
        action="store_true",
        help="add a row 'optimal' per pool: the least total any strategy reaches, "
        "proved by 'mastermind optimal''s search ([4,6]: 5625, well under a "
        "second; bigger games can take minutes or more)",
    )
    o = p.add_argument_group("output")
    fmt = o.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object")
    fmt.add_argument("--csv", action="store_true", help="CSV, one column per number of guesses")
    fmt.add_argument("--markdown", action="store_true", help="a Markdown table")
    o.add_argument(
        "--no-seconds",
        action="store_true",
        help="leave out the seconds (a table that is the same on every run)",
    )
    o.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the distributions to FILE (.png, .svg or .pdf; needs "
        "matplotlib: pip install 'mastermind-analysis[plot]')",
    )
    jobs_option(p)
    p.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..apps.comparison import compare

    strategies = [Strategy.parse(s) for s in _listed(args.strategies)] if args.strategies else None
    pools = _listed(args.pools) if args.pools else None  # checked by the library
    # the plot file is checked before the work, not after it
    with discard_on_error(plot_destination(args.plot)) as plot:
        game = make_game(args)
        bar = ProgressBar(f"{game.name} compare", enabled=False if args.no_progress else None)
        try:
            result = compare(
                game, strategies, pools, optimal=args.optimal, jobs=args.jobs, progress=bar
            )
        finally:
            bar.close()
        if plot is not None:
            plot.save_plot(result)
    seconds = not args.no_seconds
    if args.json:
        doc = result.to_json()
        if not seconds:
            for row in doc["rows"]:
                del row["seconds"]
        json.dump(doc, out)
        out.write("\n")
    elif args.csv:
        out.write(result.to_csv(seconds))
    elif args.markdown:
        out.write(result.to_markdown(seconds) + "\n")
    else:
        _table(result, out, seconds)
    return EXIT_OK


def _table(result, out: TextIO, seconds: bool) -> None:
    from .render import print_table, wants_colour

    if not wants_colour(out):
        out.write(result.to_text(seconds) + "\n")
        return
    # the columns of Comparison.COLUMNS, named shortly enough for 100 columns
    heads = [
        "strategy",
        "pool",
        "first",
        "total",
        "average",
        "exact",
        "max",
        "found in 1 2 3... guesses",
        "seconds",
    ][: 9 if seconds else 8]
    cells = result.cells(seconds)
    for row in cells:
        row[1] = row[1].split()[0]  # "all", "candidates"
        row[7] = row[7].replace("/", " ")  # folds between numbers on a narrow terminal
    print_table(
        out,
        heads,
        cells,
        numeric={"total", "average", "exact", "max", "seconds"},
        wrap=[heads[7]],
        title=result.title(),
    )
