"""How codes and scores look: the colours of the 16 code pegs, of the key pegs and of the
board, shared by the notebook tables (:mod:`mastermind.views.notebook`), the explorer page
(:mod:`mastermind.views.explorer`) and the terminal (:mod:`mastermind.cli.render`), so that
colour 3 is the same yellow everywhere.  Plain Python.

The colours are Sasha Trubetskoy's list of 20 distinct colours (the first 16), which stay
apart from each other on light and dark backgrounds.

>>> colour_of(1), name_of(6), len(COLOURS)
('#e6194b', 'purple', 16)
>>> peg_html(2)
'<span class="mm-peg" style="background:#3cb44b" title="2 (green)"></span>'
"""

from __future__ import annotations

from html import escape

# (hex, name) of colours 1..16
_PALETTE = (
    ("#e6194b", "red"),
    ("#3cb44b", "green"),
    ("#ffe119", "yellow"),
    ("#4363d8", "blue"),
    ("#f58231", "orange"),
    ("#911eb4", "purple"),
    ("#42d4f4", "cyan"),
    ("#f032e6", "magenta"),
    ("#bfef45", "lime"),
    ("#fabed4", "pink"),
    ("#469990", "teal"),
    ("#dcbeff", "lavender"),
    ("#9a6324", "brown"),
    ("#fffac8", "beige"),
    ("#800000", "maroon"),
    ("#000075", "navy"),
)

COLOURS = tuple(h for h, _ in _PALETTE)
"""The code pegs' colours, ``COLOURS[c - 1]`` for colour c (1..16)."""

BOARD = "#7a5230"  # the board behind the pegs (wood)
HOLE = "#4a2f18"  # an empty key-peg hole
LABEL = "#f3e3c3"  # numbers written on the board
KEY_BLACK = "#000000"
KEY_WHITE = "#ffffff"


def colour_of(c: int) -> str:
    """The hex colour of colour ``c`` (1..16)."""
    return COLOURS[c - 1]


def name_of(c: int) -> str:
    """The name of colour ``c`` (1..16): red, green, yellow, ..."""
    return _PALETTE[c - 1][1]


# The style of the HTML pegs; notebook tables and the explorer page include it.
CSS = """\
.mm-peg{display:inline-block;width:1em;height:1em;border-radius:50%;margin:0 .12em;
 vertical-align:-.15em;box-shadow:inset -.15em -.15em .25em rgba(0,0,0,.35)}
.mm-key{display:inline-block;width:.55em;height:.55em;border-radius:50%;margin:0 .08em;
 vertical-align:.05em;border:1px solid #555}
.mm-key.b{background:#000}.mm-key.w{background:#fff}.mm-key.e{background:transparent;
 border-color:#bbb}
.mm-code{font-family:monospace;margin-right:.4em}
"""


def peg_html(c: int) -> str:
    """One code peg as an HTML span (its number and colour name in the tooltip)."""
    return (
        f'<span class="mm-peg" style="background:{colour_of(c)}" '
        f'title="{c} ({escape(name_of(c))})"></span>'
    )


def keys_html(black: int, white: int, n: int) -> str:
    """A score as key pegs: ``black`` black, ``white`` white, the rest empty."""
    return (
        '<span class="mm-key b"></span>' * black
        + '<span class="mm-key w"></span>' * white
        + '<span class="mm-key e"></span>' * max(0, n - black - white)
    )
