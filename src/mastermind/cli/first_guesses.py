"""``mastermind first-guesses``: the valuations of every class of opening guesses."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from ..rules import Strategy, secrets_text
from .common import EXIT_OK, game_options, jobs_option, make_game, output_options
from .render import Cell, Pegs, print_table, wants_colour

if TYPE_CHECKING:
    from ..game import Game


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "For each class of opening guesses (1111, 1112, 1122, ...), the largest "
        "part, entropy, expected size and number of parts, and which strategy "
        "opens with it."
    )
    game_options(p)
    output_options(p)
    jobs_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..analysis.exhaustive import first_guess_table
    from ..analysis.strategies import first_guess

    game = make_game(args)
    rows = first_guess_table(game)
    openings = {
        s.value: game.format_code(first_guess(game, s, jobs=args.jobs))
        for s in Strategy
        if s is not Strategy.FIRST_CANDIDATE
    }
    if args.json:
        _json(game, rows, openings, out)
    elif wants_colour(out):
        _table(game, rows, openings, out)
    else:
        _text(game, rows, openings, out)
    return EXIT_OK


def _json(game: Game, rows: list, openings: dict[str, str], out: TextIO) -> None:
    """The classes and openings as one JSON object."""
    classes = [
        {
            "guess": r.code,
            "max_part": r.values.max_part,
            "entropy": r.values.entropy,
            "expected_size": r.values.expected_size,
            "parts": r.values.parts,
            "table": list(r.table),
        }
        for r in rows
    ]
    doc = {
        "pegs": game.n,
        "colours": game.k,
        "variant": game.variant.value,
        "secrets": int(game.secrets.size),
        "classes": classes,
        "openings": openings,
    }
    json.dump(doc, out)
    out.write("\n")


def _table(game: Game, rows: list, openings: dict[str, str], out: TextIO) -> None:
    """The classes as a colour table, the guesses as pegs."""
    look = Pegs(game, out)
    cells: list[list[Cell]] = [
        [
            look.code(r.guess),
            str(r.values.max_part),
            f"{r.values.entropy:.3f}",
            f"{r.values.expected_size:.1f}",
            str(r.values.parts),
            ", ".join(s for s, c in openings.items() if c == r.code),
        ]
        for r in rows
    ]
    print_table(
        out,
        ["guess", "max part", "entropy", "exp. size", "parts", "opened by"],
        cells,
        numeric={"max part", "entropy", "exp. size", "parts"},
        title=f"{game.name}: first-guess classes over {secrets_text(game.secrets.size)}",
        legend=look.legend(),
    )


def _text(game: Game, rows: list, openings: dict[str, str], out: TextIO) -> None:
    """The classes as plain text."""
    width = max(5, game.n if game.k <= 9 else 3 * game.n)
    out.write(f"{game.name}: first-guess classes over {secrets_text(game.secrets.size)}\n\n")
    out.write(
        f"{'guess':<{width}}  {'max part':>8}  {'entropy':>7}  {'exp. size':>9}  "
        f"{'parts':>5}  opened by\n"
    )
    for r in rows:
        by = ", ".join(s for s, c in openings.items() if c == r.code)
        out.write(
            f"{r.code:<{width}}  {r.values.max_part:8d}  {r.values.entropy:7.3f}  "
            f"{r.values.expected_size:9.1f}  {r.values.parts:5d}  {by}\n"
        )
