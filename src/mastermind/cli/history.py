"""``--after GUESS=SCORE``: a position given by the guesses already played, for the
commands that start from one (``optimal``, ``lower-bound``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .common import UsageError

if TYPE_CHECKING:
    from ..game import Game


def after_option(p: argparse._ActionsContainer) -> None:
    """Add ``--after`` to a parser or one of its argument groups."""
    p.add_argument(
        "--after",
        action="append",
        default=[],
        metavar="GUESS=SCORE",
        help="a guess already played and its score, e.g. --after 1122=BW (or "
        "1122=1,1); repeat it for each guess: from that position, over the "
        "secrets left",
    )


def parse_after(game: Game, after: list[str]) -> list[tuple[int, Any]]:
    """``["1122=BW", ...]`` -> [(guess, score), ...], each checked; none left: an error."""
    history = []
    for item in after:
        guess, sep, score = item.partition("=")
        if not sep:
            raise UsageError(
                f"--after {item!r}: write GUESS=SCORE, e.g. "
                f"{game.format_code(0)}={'B' if game.n > 1 else '-'}"
            )
        history.append((game.guess(guess.strip()), game.parse_score(score)))
    if history and game.candidates(history).size == 0:
        raise UsageError("no secret is consistent with the --after guesses and scores")
    return history
