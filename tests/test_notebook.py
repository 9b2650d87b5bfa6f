"""The notebook HTML (``_repr_html_``): parsed back, its tables hold the numbers and rows of
the objects, and its pegs the colours of the codes."""

from __future__ import annotations

import re
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from mastermind import Game, Session, analyze, two_d, worst_case
from mastermind.apps.comparison import compare
from mastermind.views.pegs import colour_of

VOID = {"br", "img", "hr", "meta", "input"}


class Html(HTMLParser):
    """Tables of a fragment: for every cell its text, the colours of its pegs and the kinds
    of its key pegs (b, w, e); the row classes; and a check that tags are balanced."""

    def __init__(self, text: str):
        super().__init__()
        self.stack: list[str] = []
        self.tables: list[list[list[dict]]] = []
        self.row_classes: list[list[str]] = []
        self.paragraphs: list[str] = []
        self._cell: dict | None = None
        self._para: list[str] | None = None
        self.feed(text)
        self.close()
        assert not self.stack, f"unclosed tags: {self.stack}"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
            self.row_classes.append([])
        elif tag == "tr":
            self.tables[-1].append([])
            self.row_classes[-1].append(a.get("class") or "")
        elif tag in ("td", "th"):
            self._cell = {"text": "", "pegs": [], "keys": []}
            self.tables[-1][-1].append(self._cell)
        elif tag == "p":
            self._para = []
        elif tag == "span" and self._cell is not None:
            cls = (a.get("class") or "").split()
            if "mm-peg" in cls:
                self._cell["pegs"].append(re.search(r"background:(#\w+)", a["style"]).group(1))
            if "mm-key" in cls:
                self._cell["keys"].append(cls[1])

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag in ("td", "th"):
            self._cell = None
        elif tag == "p" and self._para is not None:
            self.paragraphs.append("".join(self._para))
            self._para = None

    def handle_data(self, data):
        if self._cell is not None and "style" not in self.stack:
            self._cell["text"] += data
        if self._para is not None:
            self._para.append(data)


def texts(table: list[list[dict]]) -> list[list[str]]:
    return [[c["text"].strip() for c in row] for row in table]


def pegs_of(game: Game, code: str) -> list[str]:
    return [colour_of(c) for c in game.colours(game.code(code))]


def test_analysis_html_is_the_distribution():
    a = analyze(Game(4, 6), "minmax")
    doc = Html(a._repr_html_())
    (table,) = doc.tables
    rows = texts(table)
    assert rows[0][:3] == ["guesses", "secrets", "share"]
    assert [(int(r[0]), int(r[1].replace(",", ""))) for r in rows[1:]] == sorted(
        a.distribution.items()
    )
    assert sum(float(r[2].rstrip("%")) for r in rows[1:]) == pytest.approx(100, abs=0.3)
    assert "[4,6] minmax" in doc.paragraphs[0] and "1122" in doc.paragraphs[0]
    assert "total 5801" in doc.paragraphs[1] and "5801/1296" in doc.paragraphs[1]
    assert "max 5" in doc.paragraphs[1]


def test_comparison_html_rows():
    c = compare(Game(4, 6))
    doc = Html(c._repr_html_())
    (table,) = doc.tables
    rows = texts(table)
    assert rows[0] == list(c.COLUMNS)
    assert len(rows) == 11
    for row, cells, r in zip(table[1:], rows[1:], c.rows):
        assert cells[0] == r.strategy and int(cells[3]) == r.total and int(cells[6]) == r.max
        assert Fraction(cells[5]) == r.average and cells[7] == r.distribution_text
        assert cells[2] == r.first_guess and row[2]["pegs"] == pegs_of(c.game, r.first_guess)
    assert {int(r[3]) for r in rows[1:6]} == {5801, 5722, 5668, 5696, 7471}


def test_session_html_history_with_pegs():
    game = Game(4, 6)
    s = Session(game)
    assert "no guesses yet" in s._repr_html_()
    s.record("1122", "1 0")
    s.record("1344", "0 2")
    doc = Html(s._repr_html_())
    (table,) = doc.tables
    rows = texts(table)
    assert rows[0] == ["#", "guess", "score", "left"]
    assert [(r[0], r[1], r[2], r[3]) for r in rows[1:]] == [
        ("1", "1122", "1 0", f"{s.remaining_after()[0]}"),
        ("2", "1344", "0 2", f"{s.remaining}"),
    ]
    assert table[1][1]["pegs"] == ["#e6194b", "#e6194b", "#3cb44b", "#3cb44b"]
    assert table[1][2]["keys"] == ["b", "e", "e", "e"]
    assert table[2][1]["pegs"] == pegs_of(game, "1344")
    assert table[2][2]["keys"] == ["w", "w", "e", "e"]
    assert f"{s.remaining} candidates left" in doc.paragraphs[0]
    assert game.format_code(s.suggest()) in doc.paragraphs[0]


def test_session_html_marks_a_conflict_and_a_win():
    game = Game(4, 6)
    s = Session(game)
    s.record("1111", "1 0")
    s.record("2222", "0 0")
    with pytest.raises(ValueError):
        s.record("1234", "0 0")
    doc = Html(s._repr_html_())
    assert doc.row_classes[0] == ["", "conflict", "", "conflict"]  # header, rows 1..3
    assert "rows 1, 3 cannot all be true" in doc.paragraphs[0]
    won = Session(game)
    for step in ("1122", "6543"):
        won.record(step, game.score(step, "6543"))
    doc = Html(won._repr_html_())
    assert "solved in 2 guesses" in doc.paragraphs[0]
    assert texts(doc.tables[0])[2][2] == "4 0" and doc.tables[0][2][2]["keys"] == ["b"] * 4


def test_black_peg_scores_show_blacks_only():
    game = Game(3, 4, "black-peg")
    s = Session(game)
    s.record("112", "1")
    cell = Html(s._repr_html_()).tables[0][1][2]
    assert cell["text"].strip() == "1" and cell["keys"] == ["b", "e", "e"]


def test_worst_case_html():
    w = worst_case(Game(4, 6))
    doc = Html(w._repr_html_())
    assert "worst case 5" in doc.paragraphs[0] and "(exact)" in doc.paragraphs[0]
    rows = texts(doc.tables[0])
    assert rows[0] == ["at most", "strategy", "nodes", "seconds"]
    what = {True: "exists", False: "none"}
    assert [(int(r[0]), r[1]) for r in rows[1:]] == [(s.guesses, what[s.exists]) for s in w.steps]
    assert (4, "none") in [(int(r[0]), r[1]) for r in rows[1:]]


def test_custom_game_html_has_no_pegs():
    a = analyze(two_d(), "entropy")
    doc = Html(a._repr_html_())
    assert "mm-peg" not in a._repr_html_().split("</style>")[1]
    assert all(not c["pegs"] for row in doc.tables[0] for c in row)
    assert [int(r[1]) for r in texts(doc.tables[0])[1:]] == [1, 3, 9, 11, 1]
