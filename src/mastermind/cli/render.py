"""How the terminal shows the game: codes as coloured pegs, scores as black and white key
pegs, the colour legend, and tables, all drawn by rich.

Colour is used only when the output is a terminal and ``NO_COLOR`` is not set
(https://no-color.org; ``TERM=dumb`` counts as no colour too); otherwise the commands print
their plain text, exactly as always, so pipes, tests and scripts read the same words and
columns.  rich is imported only when colour is on (``mastermind --help`` and plain output
never load it).  The peg colours are the library's (:mod:`mastermind.views.pegs`), so the
terminal, the notebook tables and the explorer page agree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional, TextIO, Union

from ..views.pegs import BOARD, HOLE, KEY_BLACK, KEY_WHITE, LABEL, colour_of

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ..game import Game
    from ..rules import Score

Cell = Union[str, "Text"]

PEG = "\u25cf"  # ● a code peg (on the board's colour)
KEY = "\u25cf"  # ● a key peg: black or white
EMPTY = "\u00b7"  # · an empty key hole


def wants_colour(stream: Any) -> bool:
    """Whether ``stream`` should get colours: a terminal, without ``NO_COLOR`` (any
    non-empty value) or ``TERM=dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def console(stream: TextIO) -> "Console":
    """A rich console writing to ``stream`` (colours as the terminal supports them)."""
    from rich.console import Console

    return Console(file=stream, highlight=False, emoji=False, markup=False)


class Pegs:
    """Codes and scores of ``game`` as rich text, and as ANSI strings for streams written
    line by line (the play dialogue)."""

    def __init__(self, game: "Game", stream: TextIO):
        self.game = game
        self.console = console(stream)

    # -------------------------------------------------------------- rich text
    def pegs(self, index: int) -> "Text":
        """The code's pegs on a strip of board: `` ● ● ● ● ``."""
        from rich.text import Text

        t = Text(" ", style=f"on {BOARD}")
        for c in self.game.colours(index):
            t.append(PEG, style=f"{colour_of(c)} on {BOARD}")
            t.append(" ", style=f"on {BOARD}")
        return t

    def code(self, index: int) -> "Text":
        """``1122`` followed by its pegs (people type codes as digits)."""
        from rich.text import Text

        return Text.assemble(self.game.format_code(index), " ", self.pegs(index))

    def keys(self, score: "Score") -> "Text":
        """The score as key pegs: black, then white, then empty holes (n in all)."""
        from rich.text import Text

        t = Text(" ", style=f"on {BOARD}")  # (a black-peg score has no white)
        t.append(KEY * score.black, style=f"{KEY_BLACK} on {BOARD}")
        t.append(KEY * score.white, style=f"{KEY_WHITE} on {BOARD}")
        t.append(EMPTY * (self.game.n - score.black - score.white), style=f"{HOLE} on {BOARD}")
        t.append(" ", style=f"on {BOARD}")
        return t

    def score(self, score: "Score") -> "Text":
        """``2 1`` (``2`` in black-peg games) followed by its key pegs."""
        from rich.text import Text

        return Text.assemble(self.game.format_score(score), " ", self.keys(score))

    def legend(self) -> "Text":
        """``colours: 1 ● 2 ● ...``: which colour each number stands for."""
        from rich.text import Text

        t = Text("colours: ")
        for c in range(1, self.game.k + 1):
            t.append(f" {c}", style=f"{LABEL} on {BOARD}")
            t.append(f" {PEG} ", style=f"{colour_of(c)} on {BOARD}")
        return t

    def history(
        self, rows: Sequence[Any], left: Optional[Sequence[int]] = None, marked: Iterable[int] = ()
    ) -> Any:
        """A play history as a table: row number, guess, score, candidates left; the rows
        in ``marked`` (1-based) starred and red."""
        marks = set(marked)
        heads = ["#", "guess", "score"] + (["left"] if left is not None else [])
        cells = []
        for i, r in enumerate(rows, 1):
            row: list[Cell] = [
                f"{'*' if i in marks else ''}{i}",
                self.code(r.guess),
                self.score(r.score),
            ]
            if left is not None:
                row.append(f"{left[i - 1]:,}")
            cells.append(row)
        t = table(heads, cells, numeric={"#", "left"})
        for i in marks:
            if 1 <= i <= len(cells):
                t.rows[i - 1].style = "bold red"
        return t

    def row(self, number: int, row: Any) -> "Text":
        """One row of a history on its own line: ``   3  1344 ●●●●  0 2 ○○··``."""
        from rich.text import Text

        return Text.assemble(f"{number:4d}  ", self.code(row.guess), "  ", self.score(row.score))

    # -------------------------------------------------------------- strings
    def ansi(self, renderable: Any) -> str:
        """``renderable`` as a string with the terminal's escape sequences."""
        with self.console.capture() as cap:
            self.console.print(renderable, end="", soft_wrap=True)
        return cap.get()

    def lines(self, renderable: Any) -> list[str]:
        """``renderable`` (a table, say) as lines of ANSI text."""
        with self.console.capture() as cap:
            self.console.print(renderable)
        return cap.get().rstrip("\n").split("\n")


_ESCAPE = re.compile(r"(\x1b\[[0-9;]*m)")


def prompt_text(ansi: str) -> str:
    """An ANSI prompt for ``input()``: escape sequences wrapped in readline's
    invisible-text markers, so that line editing counts only the visible characters."""
    return _ESCAPE.sub("\x01\\1\x02", ansi)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    *,
    numeric: Iterable[str] = (),
    wrap: Iterable[str] = (),
    title: Optional[str] = None,
) -> Any:
    """A rich table: bold headers, numbers right-aligned, a light frame; only the
    ``wrap`` columns may fold when the terminal is narrow."""
    from rich import box
    from rich.table import Table

    right, folding = set(numeric), set(wrap)
    t = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        title_justify="left",
        header_style="bold",
        title_style="bold",
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    for h in headers:
        t.add_column(
            h,
            justify="right" if h in right else "left",
            no_wrap=h not in folding,
            overflow="fold",
            min_width=12 if h in folding else None,
        )
    for r in rows:
        t.add_row(*r)
    return t


def print_table(
    out: TextIO,
    headers: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    *,
    numeric: Iterable[str] = (),
    wrap: Iterable[str] = (),
    title: Optional[str] = None,
    caption: Optional[str] = None,
    legend: Optional["Text"] = None,
) -> None:
    """Print :func:`table` to the terminal ``out``, under an optional colour legend and
    over an optional caption."""
    c = console(out)
    if legend is not None:
        c.print(legend)
    if title:
        c.print(title, style="bold")  # not the table's title: that wraps at its width
    c.print(table(headers, rows, numeric=numeric, wrap=wrap))
    if caption:
        c.print(caption)


def bar(fraction: float, width: int = 24) -> str:
    """A horizontal bar of ``fraction`` (0..1) in eighths of a cell."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "\u2588" * full + ("" if part == 0 else chr(0x2590 - part))


def distribution_table(
    out: TextIO, distribution: dict[int, int], secrets: int, title: str, caption: str
) -> None:
    """A distribution of guesses on a terminal: guesses, secrets, share and a bar each."""
    top = max(distribution.values())
    rows = [
        (str(d), f"{c:,}", f"{c / secrets:.1%}", bar(c / top))
        for d, c in sorted(distribution.items())
    ]
    print_table(
        out,
        ["guesses", "secrets", "share", ""],
        rows,
        numeric={"guesses", "secrets", "share"},
        title=title,
        caption=caption,
    )


def steps_table(game: "Game", steps: Sequence[Any], out: TextIO, title: str) -> None:
    """``mastermind solve``'s steps on a terminal: the legend, then guess, score and
    candidates left per step, with pegs."""
    look = Pegs(game, out)
    rows: list[list[Cell]] = [
        [str(i), look.code(s.guess), look.score(s.score), f"{s.remaining:,}"]
        for i, s in enumerate(steps, 1)
    ]
    print_table(
        out,
        ["#", "guess", "score", "left"],
        rows,
        numeric={"#", "left"},
        title=title,
        legend=look.legend(),
        caption=f"solved in {len(steps)} guess{'es' if len(steps) != 1 else ''}",
    )
