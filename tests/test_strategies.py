"""Valuations, the choice rule (the best valuation, then a candidate, then the smallest
code) and the first-guess symmetry classes."""

import numpy as np
import pytest
import reference as ref

from mastermind import Game, Strategy, StrategyError, Valuations, choose_guess, first_guess
from mastermind.analysis.exhaustive import first_guess_table
from mastermind.analysis.strategies import symmetry_classes

# The published table of first-guess values of [4,6]: for each first-guess class, the
# largest part, the entropy (bits), the expected part size and the number of parts.
FIRST_GUESS_VALUES = {
    "1111": (625, 1.50, 512.0, 5),
    "1112": (317, 2.69, 235.9, 11),
    "1122": (256, 2.89, 204.5, 13),
    "1123": (276, 3.04, 185.3, 14),
    "1234": (312, 3.06, 188.2, 14),
}


def test_first_guess_table_reproduces_the_published_values():
    rows = first_guess_table(Game(4, 6))
    assert [r.code for r in rows] == list(FIRST_GUESS_VALUES)
    for r in rows:
        mx, ent, exp, parts = FIRST_GUESS_VALUES[r.code]
        assert r.values.max_part == mx and r.values.parts == parts
        assert round(r.values.entropy, 2) == ent
        assert round(r.values.expected_size, 1) == exp
        assert sum(r.table) == 1296


@pytest.mark.parametrize(
    "strategy,code",
    [
        ("minmax", "1122"),
        ("entropy", "1234"),
        ("parts", "1123"),
        ("expected-size", "1123"),
        ("first-candidate", "1111"),
    ],
)
def test_openings_4_6(strategy, code):
    g = Game(4, 6)
    assert g.format_code(first_guess(g, strategy)) == code
    assert g.format_code(choose_guess(g, g.secrets, strategy)) == code  # full scan agrees


def test_symmetry_classes():
    assert [Game(4, 6).format_code(i) for i in symmetry_classes(Game(4, 6))] == [
        "1111",
        "1112",
        "1122",
        "1123",
        "1234",
    ]
    g = Game(5, 8)
    assert [g.format_code(i) for i in symmetry_classes(g)] == [
        "11111",
        "11112",
        "11122",
        "11123",
        "11223",
        "11234",
        "12345",
    ]
    assert len(symmetry_classes(Game(4, 2))) == 3  # at most 2 colours used


@pytest.mark.parametrize("n,k", [(2, 3), (3, 3), (3, 4), (4, 3), (2, 5), (4, 4)])
@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
@pytest.mark.parametrize("candidates_only", [False, True])
def test_first_guess_by_classes_equals_full_scan(n, k, strategy, candidates_only):
    g = Game(n, k)
    allc = ref.codes(n, k)
    expect = ref.choose(strategy, allc, allc)  # every code is a candidate: either pool
    assert g.colours(first_guess(g, strategy, candidates_only)) == expect


def test_candidate_preferred_on_ties():
    # {1112, 1121}: any candidate splits them perfectly; a non-candidate can too, but loses
    g = Game(4, 6)
    cands = g.as_indices(["1121", "1112"])
    for s in ("minmax", "entropy", "parts", "expected-size"):
        assert g.format_code(choose_guess(g, cands, s)) == "1112"


def test_one_candidate_is_played():
    g = Game(4, 6)
    assert choose_guess(g, g.as_indices(["6543"]), "minmax") == g.code("6543")


def test_no_candidates_is_an_error():
    g = Game(4, 6)
    with pytest.raises(ValueError, match="inconsistent"):
        choose_guess(g, np.array([], dtype=np.int32))


def test_unknown_strategy():
    with pytest.raises(StrategyError, match="choose one of"):
        Strategy.parse("knuth")


def test_valuations_of_a_table():
    v = Valuations.of([2, 2, 2, 2])
    assert (v.max_part, v.parts, v.entropy, v.expected_size) == (2, 4, 2.0, 2.0)
    assert Valuations.of([]).parts == 0
