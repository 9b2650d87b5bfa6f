"""Comparisons: every row is the analysis it stands for (published totals, brute force on a
small game), and the text, Markdown, CSV and JSON forms say the same numbers."""

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
import reference as ref

from mastermind import Game, analyze
from mastermind.apps.comparison import Comparison, ComparisonRow, Pool, compare

KNOWN = json.loads((Path(__file__).parent / "known_answers.json").read_text())
STRATEGIES = ["minmax", "entropy", "parts", "expected-size", "first-candidate"]


@pytest.fixture(scope="module")
def c46() -> Comparison:
    return compare(Game(4, 6))


def test_4_6_totals_are_the_published_ones(c46):
    totals = {(r.strategy, str(r.pool)): r.total for r in c46.rows}
    assert totals == {
        ("minmax", "all"): 5801,
        ("entropy", "all"): 5722,
        ("parts", "all"): 5668,
        ("expected-size", "all"): 5696,
        ("first-candidate", "all"): 7471,
        ("minmax", "candidates"): 5828,
        ("entropy", "candidates"): 5786,
        ("parts", "candidates"): 5701,
        ("expected-size", "candidates"): 5722,
        ("first-candidate", "candidates"): 7471,
    }
    # and every [4,6] entry of the known-answer file that a row covers
    checked = 0
    for e in KNOWN:
        game = (e["pegs"], e["colours"], e.get("variant", "classic"), e["first"])
        if game == (4, 6, "classic", None):
            row = c46.row(e["strategy"], "candidates" if e["candidates_only"] else "all")
            assert (row.total, row.first_guess) == (e["total"], e["first_guess"])
            if "distribution" in e:
                assert {str(d): n for d, n in row.distribution.items()} == e["distribution"]
            checked += 1
    assert checked >= 6
    assert [r.strategy for r in c46.rows] == STRATEGIES * 2
    assert [str(r.pool) for r in c46.rows] == ["all"] * 5 + ["candidates"] * 5


def test_rows_are_the_analyses(c46):
    game = c46.game
    for r in c46.rows:
        a = analyze(game, r.strategy, candidates_only=r.pool is Pool.CANDIDATES)
        assert r.distribution == a.distribution and r.first_guess == game.format_code(a.first_guess)
        assert r.average == Fraction(r.total, 1296) == a.average and r.max == a.max
        assert r.secrets == 1296 and isinstance(r.seconds, float)


@pytest.mark.parametrize("n,k", [(3, 3), (2, 4)])
def test_small_game_rows_against_brute_force(n, k):
    c = compare(Game(n, k))
    for r in c.rows:
        co = r.pool is Pool.CANDIDATES
        _, expect, _ = ref.analyze(*ref.mastermind(n, k), r.strategy, co)
        assert r.distribution == expect


def _markdown_rows(text: str) -> list[list[str]]:
    lines = text.strip().splitlines()
    assert set(lines[1].replace("|", "").split()) <= {"---", "---:"}
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in [lines[0]] + lines[2:]]


def test_markdown_text_csv_json_agree(c46):
    md = _markdown_rows(c46.to_markdown())
    assert md[0] == list(Comparison.COLUMNS)
    plain = c46.to_text().splitlines()
    assert plain[0] == "[4,6]: 1296 secrets" and plain[1] == ""
    table = list(csv.DictReader(io.StringIO(c46.to_csv())))
    doc = json.loads(json.dumps(c46.to_json()))
    assert doc["secrets"] == 1296 and doc["game"] == "[4,6]"
    assert len(md) - 1 == len(plain) - 3 == len(table) == len(doc["rows"]) == 10
    for r, cells, line, row, j in zip(c46.rows, md[1:], plain[3:], table, doc["rows"]):
        strategy, pool, first, total, avg, exact, mx, dist, secs = cells
        assert (strategy, first, int(total), int(mx)) == (r.strategy, r.first_guess, r.total, r.max)
        assert pool == ("all codes" if r.pool is Pool.ALL else "candidates only")
        assert Fraction(exact) == r.average and abs(float(avg) - r.total / 1296) < 5e-5
        assert [int(x) for x in dist.split("/")] == r.counts()
        assert sum(d * int(x) for d, x in enumerate(dist.split("/"), 1)) == r.total
        assert float(secs) >= 0
        assert line.split()[0] == r.strategy and total in line.split() and exact in line.split()
        counts = [int(row[f"guesses_{d}"]) for d in range(1, 10)]
        assert sum(counts) == int(row["secrets"]) == 1296
        assert sum(d * x for d, x in enumerate(counts, 1)) == int(row["total"]) == r.total
        assert Fraction(row["average_fraction"]) == r.average and row["pool"] == str(r.pool)
        assert j["total"] == r.total and j["average_fraction"] == exact
        assert j["distribution"] == {str(d): x for d, x in r.distribution.items()}
        assert j["candidates_only"] is (r.pool is Pool.CANDIDATES)
    assert "seconds" not in c46.to_markdown(seconds=False)
    assert "seconds" not in c46.to_csv(seconds=False)


def test_plain_table_columns_line_up(c46):
    lines = c46.to_text().splitlines()[2:]
    start = lines[0].index("total")
    end = start + len("total")
    for ln in lines[1:]:  # numbers end where their header ends
        assert ln[start - 2 : end].strip().isdigit() and ln[end] == " "


def test_choices_and_order():
    c = compare(Game(3, 4), ["parts", "minmax"], "candidates")
    assert [(r.strategy, str(r.pool)) for r in c.rows] == [
        ("parts", "candidates"),
        ("minmax", "candidates"),
    ]
    c = compare(Game(3, 4), "minmax", ["candidates", "all"])
    assert [str(r.pool) for r in c.rows] == ["candidates", "all"]
    with pytest.raises(KeyError):
        c.row("entropy")


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"strategies": ["knuth"]}, "unknown strategy 'knuth'"),
        ({"pools": ["some"]}, "unknown guess pool 'some'"),
        ({"strategies": ["minmax", "minmax"]}, "named twice"),
        ({"strategies": []}, "at least one strategy"),
    ],
)
def test_bad_choices(kw, message):
    with pytest.raises(ValueError, match=message):
        compare(Game(2, 2), **kw)


def test_progress_covers_every_row():
    calls = []
    compare(Game(3, 3), ["minmax", "entropy"], progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (4 * 27, 4 * 27)
    assert all(t == 108 for _, t in calls)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))


def test_row_of_any_result():
    a = analyze(Game(4, 6, "distinct"), "entropy")
    row = ComparisonRow.of(a, name="distinct example")
    assert (row.strategy, row.pool, row.total, row.distribution_text) == (
        "distinct example",
        Pool.ALL,
        1440,
        "0/7/55/229/69",
    )
    c = Comparison(a.game, [row])
    assert c.to_json()["variant"] == "distinct" and c.max == 5


def test_optimal_rows_are_the_optimum_and_beat_every_strategy():
    game = Game(4, 6)
    c = compare(game, ["minmax", "parts"], optimal=True)
    assert [(r.strategy, str(r.pool)) for r in c.rows] == [
        ("minmax", "all"),
        ("parts", "all"),
        ("optimal", "all"),
        ("minmax", "candidates"),
        ("parts", "candidates"),
        ("optimal", "candidates"),
    ]
    best = c.row("optimal", "all")
    assert (best.total, best.max, best.first_guess) == (5625, 6, "1123")  # Koyama and Lai
    assert best.distribution == {1: 1, 2: 8, 3: 84, 4: 661, 5: 540, 6: 2}
    for pool in ("all", "candidates"):
        assert c.row("optimal", pool).total <= min(r.total for r in c.rows if str(r.pool) == pool)
    # the candidates-only optimum cannot beat the optimum over every code
    assert c.row("optimal", "candidates").total >= best.total


def test_optimal_rows_progress_reaches_the_end():
    seen = []
    compare(
        Game(3, 3), ["minmax"], ["all"], optimal=True, progress=lambda d, t: seen.append((d, t))
    )
    assert seen[-1] == (54, 54) and all(d <= t == 54 for d, t in seen)
    with pytest.raises(ValueError, match="optimal"):
        compare(Game(3, 3), optimal="yes")
