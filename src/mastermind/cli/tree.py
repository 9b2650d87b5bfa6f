"""``mastermind tree``: a whole strategy as JSON, Graphviz DOT (SVG, PNG, PDF), text, or
an explorer page for the browser (HTML)."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any, Optional, TextIO

from ..files import STDOUT
from .common import (
    EXIT_OK,
    UsageError,
    check_first,
    game_options,
    integer,
    make_game,
    output_file,
    strategy_options,
)

if TYPE_CHECKING:
    from ..game import GameLike

FORMATS = ("json", "dot", "text", "html")
_SUFFIX_FORMAT = {
    ".json": "json",
    ".dot": "dot",
    ".gv": "dot",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
}
_RENDERED = (".svg", ".png", ".pdf")  # the suffixes mastermind.views.tree.render draws
EXAMPLE_GAMES = ("twoD",)  # mastermind.custom.EXAMPLES


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Write the whole strategy as a tree: the guess to play, and for each "
        "answer what to play next.  Text is a printable cheat sheet; DOT is "
        "rendered to SVG, PNG or PDF when -o names such a file and Graphviz's "
        "'dot' is installed.  HTML is one self-contained page to explore the "
        "strategy in a browser: pick answers, or type a secret and watch."
    )
    p.epilog = (
        "Examples: 'mastermind tree -n 3 -k 3', 'mastermind tree --format json -o "
        "knuth.json', 'mastermind tree -s entropy --variant distinct -o tree.svg', "
        "'mastermind tree --game twoD -s entropy'."
    )
    game_options(p)
    p.add_argument(
        "--game",
        choices=EXAMPLE_GAMES,
        help="a custom example game instead of Mastermind (overrides -n, -k and "
        "--variant): twoD, guess a pair of digits 0..4, each answer comparing it "
        "with the secret coordinate by coordinate",
    )
    strategy_options(p)
    p.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        default=None,
        help="json, dot, text or html (the explorer page; default: from the -o suffix, else text)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE instead of standard output (- is standard output); .svg, "
        ".png and .pdf are rendered with Graphviz (exit status 3 without it)",
    )
    p.add_argument(
        "--depth",
        type=integer,
        default=None,
        metavar="N",
        help="text and dot: show only the first N guesses of every line of play",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from ..analysis.exhaustive import analyze
    from ..views.tree import RENDERED, draw, find_dot, summary

    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    path = None if args.output == STDOUT else args.output  # (-: standard output)
    suffix = os.path.splitext(path)[1].lower() if path else ""
    fmt = args.format or _SUFFIX_FORMAT.get(suffix) or ("dot" if suffix in _RENDERED else "text")
    rendered = suffix in _RENDERED
    if args.depth is not None and fmt in ("json", "html"):
        raise UsageError(
            f"--depth applies to the text and dot formats; the {fmt} output holds the whole tree"
        )
    if rendered and fmt != "dot":
        raise UsageError(
            f"{path}: only the dot format can be rendered to {suffix}; "
            f"drop --format or write a .{'txt' if fmt == 'text' else fmt} file"
        )
    program = None
    if rendered:  # fail before the analysis, not after (a missing dot: status 3)
        program = find_dot()
    # the file is checked (and opened) before the work, and written whole at the end
    with output_file(path) as dest:
        game: GameLike
        if args.game:
            from ..custom import EXAMPLES

            game = EXAMPLES[args.game]()
        else:
            game = make_game(args)
        check_first(args, game)
        result = analyze(
            game, args.strategy, candidates_only=args.candidates_only, first=args.first, tree=True
        )
        text = _written(result, fmt, args.depth)
        if dest is None:
            out.write(text)
            return EXIT_OK
        if rendered:
            dest.write(draw(text, RENDERED[suffix], program=program))
        else:
            dest.write(text)
        dest.commit()
    assert result.tree is not None
    nodes = sum(1 for _ in result.tree.walk())
    out.write(f"wrote {path}: {summary(result)}; {nodes} guesses in the tree\n")
    return EXIT_OK


def _written(result: Any, fmt: str, depth: Optional[int]) -> str:
    """The tree in ``fmt`` (json, html, dot or text), as text."""
    from ..views.tree import to_dot, to_json, to_text

    if fmt == "json":
        return json.dumps(to_json(result), indent=1) + "\n"
    if fmt == "html":
        from ..views.explorer import to_html

        return to_html(result)
    if fmt == "dot":
        return to_dot(result, depth)
    return to_text(result, depth) + "\n"
