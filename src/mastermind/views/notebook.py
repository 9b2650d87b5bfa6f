"""HTML for notebooks: the tables Jupyter shows for an analysis, a comparison, a play
session (its history with coloured pegs and key pegs) and a worst-case result, through
their ``_repr_html_`` methods.

Plain Python (``html.escape``); the peg colours are :mod:`mastermind.views.pegs`'.  Every
fragment is one ``<div class="mm">`` with its own small style sheet, so it looks the same
in Jupyter, VS Code and a saved notebook.

>>> from mastermind.game import Game
>>> from mastermind.analysis.exhaustive import analyze
>>> html = analysis_html(analyze(Game(3, 3), "minmax"))
>>> html.count("<tr>"), "total 74" in html
(5, True)
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any, Optional, cast

from ..rules import average_text, secrets_text
from .pegs import CSS, keys_html, peg_html

if TYPE_CHECKING:
    from ..game import Game, GameLike

__all__ = [
    "analysis_html",
    "code_html",
    "comparison_html",
    "score_html",
    "session_html",
    "worst_case_html",
]

_STYLE = (
    CSS
    + """\
.mm table{border-collapse:collapse;margin:.3em 0}
.mm th,.mm td{padding:.15em .6em;text-align:left;border-bottom:1px solid #ddd}
.mm td.n,.mm th.n{text-align:right;font-variant-numeric:tabular-nums}
.mm tr.conflict td{background:#fde2e2}
.mm .bar{display:inline-block;height:.8em;background:#4363d8;vertical-align:middle}
.mm p{margin:.2em 0}
"""
)


def _wrap(body: str) -> str:
    return f'<div class="mm"><style>{_STYLE}</style>{body}</div>'


def _pegged(game: GameLike) -> Optional[Game]:
    """The game, when its codes are drawn as pegs (Mastermind, at most 16 colours: a
    custom game has no colours), else None."""
    return cast("Game", game) if game.k is not None and game.k <= 16 else None


def code_html(game: GameLike, index: int) -> str:
    """A code as its text and, for Mastermind games, its coloured pegs."""
    text = f'<span class="mm-code">{escape(game.format_code(index))}</span>'
    mastermind = _pegged(game)
    if mastermind is None:
        return text
    return text + "".join(peg_html(c) for c in mastermind.colours(index))


def score_html(game: GameLike, score: Any) -> str:
    """A score as its text and, for Mastermind games, its key pegs."""
    text = escape(game.format_score(score))
    mastermind = _pegged(game)
    if mastermind is None:
        return text
    keys = keys_html(score.black, score.white, mastermind.n)  # (black-peg: never a white)
    return f'<span class="mm-code">{text}</span>{keys}'


def _table(
    headers: list[str],
    rows: list[list[str]],
    numeric: set[str],
    classes: Optional[list[str]] = None,
) -> str:
    head = "".join(
        f'<th class="n">{escape(h)}</th>' if h in numeric else f"<th>{escape(h)}</th>"
        for h in headers
    )
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        cells = "".join(
            f'<td class="n">{c}</td>' if h in numeric else f"<td>{c}</td>"
            for h, c in zip(headers, row)
        )
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _pool(*, candidates_only: bool) -> str:
    return "candidates only" if candidates_only else "all codes"


def analysis_html(a: Any) -> str:
    """An :class:`~mastermind.analysis.exhaustive.Analysis`: the game, the first guess, the totals, and
    the distribution as a table with bars."""
    game, avg = a.game, a.average
    top = max(a.distribution.values())
    rows = [
        [
            str(d),
            f"{c:,}",
            f"{c / a.secrets:.1%}",
            f'<span class="bar" style="width:{max(1, round(12 * c / top * 10)) / 10}em"></span>',
        ]
        for d, c in sorted(a.distribution.items())
    ]
    head = (
        f"<p><b>{escape(game.name)} {escape(str(a.strategy))}</b>, {_pool(candidates_only=a.candidates_only)}, "
        f"first guess {code_html(game, a.first_guess)}</p>"
        f"<p>{secrets_text(a.secrets, ',')}: total {a.total}, average {average_text(avg)}, "
        f"max {a.max}</p>"
    )
    return _wrap(
        head + _table(["guesses", "secrets", "share", ""], rows, {"guesses", "secrets", "share"})
    )


def comparison_html(c: Any) -> str:
    """A :class:`~mastermind.apps.comparison.Comparison`: one table row per strategy and pool."""
    heads = c.headers()
    rows = []
    for r, cells in zip(c.rows, c.cells()):
        cells = [escape(x) for x in cells]
        cells[2] = code_html(c.game, c.game.code(r.first_guess)) if _pegged(c.game) else cells[2]
        rows.append(cells)
    return _wrap(f"<p><b>{escape(c.title())}</b></p>" + _table(heads, rows, set(c.NUMERIC)))


def session_html(s: Any) -> str:
    """A :class:`~mastermind.apps.play.Session`: its history (guess pegs, key pegs, candidates
    left after each row; the rows of a conflict marked) and where the game stands."""
    game = s.game
    left = s.remaining_after()
    conflict = set(s.conflict())
    rows = [
        [str(i), code_html(game, r.guess), score_html(game, r.score), f"{left[i - 1]:,}"]
        for i, r in enumerate(s.history, 1)
    ]
    if s.solved:
        state = f"solved in {len(s.history)} guesses: {code_html(game, s.history[-1].guess)}"
    elif not s.consistent:
        rows_text = ", ".join(map(str, sorted(conflict)))
        state = f"inconsistent: rows {rows_text} cannot all be true"
    else:
        state = (
            f"{s.remaining:,} candidates left; the {escape(str(s.strategy))} strategy "
            f"plays {code_html(game, s.suggest())}"
        )
    head = f"<p><b>{escape(game.name)}</b> session, {escape(str(s.strategy))}: {state}</p>"
    table = (
        _table(
            ["#", "guess", "score", "left"],
            rows,
            {"#", "left"},
            ["conflict" if i in conflict else "" for i in range(1, len(rows) + 1)],
        )
        if rows
        else "<p>(no guesses yet)</p>"
    )
    return _wrap(head + table)


def worst_case_html(w: Any) -> str:
    """A :class:`~mastermind.worstcase.bounds.WorstCase`: the bounds, how each was proved, and the
    searches run."""
    value = str(w.upper) if w.exact else f"{w.lower}..{w.upper}"
    head = (
        f"<p><b>{escape(w.game.name)}</b>, {_pool(candidates_only=w.candidates_only)}: worst case "
        f"<b>{value}</b> ({escape(w.status)})</p>"
        f"<p>{escape(w.summary())}</p>"
        f"<p>lower bound by {escape(w.lower_proof)}, upper bound by "
        f"{escape(w.upper_source)}; {w.nodes:,} nodes in {w.seconds:.2f} s</p>"
    )
    what = {True: "exists", False: "none", None: "unfinished"}
    rows = [[str(s.guesses), what[s.exists], f"{s.nodes:,}", f"{s.seconds:.2f}"] for s in w.steps]
    table = (
        _table(["at most", "strategy", "nodes", "seconds"], rows, {"at most", "nodes", "seconds"})
        if rows
        else ""
    )
    return _wrap(head + table)
