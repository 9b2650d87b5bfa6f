"""``mastermind solve``: a strategy against one secret, guess by guess."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from .common import (
    EXIT_OK,
    check_first,
    game_options,
    jobs_option,
    make_game,
    output_options,
    strategy_options,
)
from .render import steps_table, wants_colour


def configure(p: argparse.ArgumentParser) -> None:
    p.description = "Show each guess, its score and the candidates left."
    p.add_argument("secret", metavar="SECRET", help="the secret code, e.g. 6543")
    game_options(p)
    strategy_options(p)
    output_options(p)
    jobs_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..analysis.exhaustive import solve

    game = make_game(args)
    check_first(args, game)
    steps = solve(
        game,
        args.secret,
        args.strategy,
        candidates_only=args.candidates_only,
        first=args.first,
        jobs=args.jobs,
    )
    secret = game.format_code(game.secret(args.secret))
    if args.json:
        json.dump(
            {
                "pegs": game.n,
                "colours": game.k,
                "variant": game.variant.value,
                "strategy": args.strategy,
                "candidates_only": args.candidates_only,
                "secret": secret,
                "guesses": len(steps),
                "steps": [
                    {
                        "guess": s.guess_text,
                        "black": s.score.black,
                        "white": s.score.white,
                        "remaining": s.remaining,
                    }
                    for s in steps
                ],
            },
            out,
        )
        out.write("\n")
        return EXIT_OK
    if wants_colour(out):
        steps_table(game, steps, out, f"{game.name} {args.strategy}, secret {secret}")
        return EXIT_OK
    width = max(5, len(steps[0].guess_text))
    out.write(f"{game.name} {args.strategy}, secret {secret}\n\n")
    out.write(f"  #  {'guess':<{width}}  score  left\n")
    for i, s in enumerate(steps, 1):
        out.write(f"{i:3d}  {s.guess_text:<{width}}  {str(s.score):<5}  {s.remaining}\n")
    out.write(f"\nsolved in {len(steps)} guess{'es' if len(steps) != 1 else ''}\n")
    return EXIT_OK
