"""The strategy explorer: a whole strategy tree as one self-contained HTML page (its script
and style inline, nothing fetched from a network) to walk in a browser: the current guess
as pegs, the answers as buttons leading to the next guess, a breadcrumb of the line of
play, a box to type a secret and watch the strategy find it, and the distribution of the
game beside that of the secrets still possible.

The tree is embedded compactly (:func:`page_data`): its nodes in preorder as three arrays of
integers (guess, number of answers that continue doubled plus one when the guess may be
the secret, slot of the answer leading to the node), from which the page rebuilds sizes,
parents and children once, in typed arrays; only the current node is ever drawn.  A
[5,8] tree (34,752 nodes) makes a page of about 0.4 MB.

The page's HTML, style and script are package data (``mastermind/views/web/``).

>>> from mastermind.game import Game
>>> from mastermind.analysis.exhaustive import analyze
>>> result = analyze(Game(2, 3), "minmax", tree=True)
>>> data = page_data(result)
>>> data["g"], data["c"], data["s"]
([0, 4, 8, 5, 7, 1, 6, 3, 2], [5, 5, 1, 3, 1, 7, 1, 1, 1], [-1, 0, 0, 3, 2, 3, 1, 2, 3])
>>> result.game.format_code(data["g"][0]), data["slots"][:2]
('11', ['0 0', '0 1'])
>>> page = to_html(result)
>>> page.startswith("<!DOCTYPE html>") and "http" not in page.lower()
True
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import MastermindError
from ..rules import secrets_text
from ..strategy_tree import Node
from .pegs import COLOURS
from .tree import Analysis

if TYPE_CHECKING:
    pass

__all__ = ["ExplorerError", "page_data", "to_html"]

LIST_MAX = 64  # the page lists the possible secrets of nodes with at most this many
STEP_MS = 450  # the pause between the guesses when the page plays against a secret


class ExplorerError(MastermindError):
    """A tree that cannot be shown (no tree in the analysis)."""


def page_data(result: Analysis) -> dict[str, Any]:
    """What the page embeds: the game, the totals, and the tree in preorder.

    ``g[i]`` is node i's guess (a code index), ``c[i]`` is 2 x the number of its answers
    that continue the game, plus 1 when its guess may be the secret, and ``s[i]`` the slot
    (index in ``slots``) of the answer that leads to it (-1 at the root).  Children come
    right after their parent, in slot order.
    """
    if result.tree is None:
        raise ExplorerError("the analysis has no tree: call analyze(..., tree=True)")
    game = result.game
    slot_of = {s: i for i, s in enumerate(game.slots)}
    g: list[int] = []
    c: list[int] = []
    s: list[int] = []
    stack: list[tuple[Node, int]] = [(result.tree, -1)]
    while stack:  # preorder; a loop over the tree's nodes, not over codes
        node, slot = stack.pop()
        inner = node.size - sum(ch.size for ch in node.children.values())
        g.append(node.guess)
        c.append(2 * len(node.children) + inner)
        s.append(slot)
        stack.extend((ch, slot_of[sc]) for sc, ch in reversed(node.children.items()))
    mastermind = game.k is not None
    avg = result.average
    data: dict[str, Any] = {
        "name": game.name,
        "strategy": str(result.strategy),
        "candidates_only": result.candidates_only,
        "n": game.n if mastermind else None,
        "k": game.k if mastermind else None,
        "variant": game.variant.value,
        "secrets": result.secrets,
        "total": result.total,
        "max": result.max,
        "average": f"{float(avg):.4f}",
        "average_fraction": f"{avg.numerator}/{avg.denominator}",
        "dist": {str(d): n for d, n in sorted(result.distribution.items())},
        "slots": [game.format_score(sc) for sc in game.slots],
        "win": int(game.win_slot),
        "keys": (
            [[sc.black, sc.white] for sc in game.slots]  # (black-peg slots have no white)
            if mastermind
            else None
        ),
        "palette": list(COLOURS[: game.k]) if mastermind else None,
        "codes": None,
        "list": LIST_MAX,
        "delay": STEP_MS,
        "g": g,
        "c": c,
        "s": s,
    }
    if not mastermind:  # a custom game: its codes as text (at most 20,000 of them)
        codes = [game.format_code(i) for i in range(game.size)]
        data["codes"] = codes
        data["codeIndex"] = {" ".join(t.split()): i for i, t in enumerate(codes)}
    return data


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("web", name).read_text(encoding="utf-8")


def to_html(result: Analysis) -> str:
    """The explorer page of ``result`` (an analysis with its tree), as one string."""
    data = page_data(result)
    game = result.game
    pool = "candidates only" if result.candidates_only else "all codes"
    heading = f"{game.name} {result.strategy}, {pool}: strategy explorer"
    summary = (
        f"{secrets_text(result.secrets, ',')}; first guess {game.format_code(result.first_guess)}; "
        f"total {result.total:,}, average {data['average']} ({data['average_fraction']}), "
        f"max {result.max}. Pick the answer you got to see the next guess."
    )
    example = game.format_code(int(game.secrets[game.secrets.size // 2]))
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = _asset("explorer.html")
    for key, value in (
        ("TITLE", escape(heading)),
        ("HEADING", escape(heading)),
        ("SUMMARY", escape(summary)),
        ("EXAMPLE", escape(example)),
        ("STYLE", _asset("explorer.css")),
        ("SCRIPT", _asset("explorer.js")),
        ("DATA", blob),
    ):
        page = page.replace("{{" + key + "}}", value, 1)
    return page
