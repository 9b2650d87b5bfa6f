"""Built-in variants against the definitions (a plain-Python analysis) and the published
numbers; the classic game's anchors still hold."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import reference as ref

from mastermind import Game, GameError, ScoreError, Variant, analyze, solve
from mastermind.analysis.strategies import choose_guess, first_guess
from mastermind.cli import main

SMALL = [
    (3, 3, "classic"),
    (2, 4, "classic"),
    (3, 4, "distinct"),
    (2, 3, "distinct"),
    (4, 4, "distinct"),
    (3, 4, "bulls-and-cows"),
    (3, 5, "bulls-and-cows"),
    (3, 3, "black-peg"),
    (2, 4, "black-peg"),
    (3, 3, "permutation"),
    (4, 4, "permutation"),
]


@pytest.mark.parametrize("n,k,variant", SMALL)
def test_sets_and_scores_follow_the_definitions(n, k, variant):
    game = Game(n, k, variant)
    guesses, secrets, score, _ = ref.mastermind(n, k, variant)
    assert [game.colours(i) for i in game.guesses] == guesses
    assert [game.colours(i) for i in game.secrets] == secrets
    assert game.secrets_are_guesses
    for u in guesses[:: max(1, len(guesses) // 7)]:
        for v in secrets:
            assert tuple(game.score(u, v)) == score(u, v)
        table = game.partition(u)
        expected = [0] * game.nslots
        for v in secrets:
            expected[game.slot(score(u, v))] += 1
        assert table.tolist() == expected


@pytest.mark.parametrize("candidates_only", [False, True], ids=["all", "cands"])
@pytest.mark.parametrize("strategy", ref.STRATEGIES)
@pytest.mark.parametrize("n,k,variant", SMALL)
def test_analysis_matches_brute_force(n, k, variant, strategy, candidates_only):
    game = Game(n, k, variant)
    guesses, secrets, score, end = ref.mastermind(n, k, variant)
    g0, dist, _ = ref.analyze(guesses, secrets, score, end, strategy, candidates_only)
    result = analyze(game, strategy, candidates_only=candidates_only, jobs=1)
    assert game.colours(result.first_guess) == g0
    assert result.distribution == dist
    # the symmetry-reduced opening equals the full scan over the guess set
    full = choose_guess(game, game.secrets, strategy, candidates_only)
    assert first_guess(game, strategy, candidates_only) == full


@pytest.mark.parametrize(
    "n,k,variant",
    [(3, 4, "distinct"), (3, 3, "black-peg"), (4, 4, "permutation"), (3, 4, "bulls-and-cows")],
)
def test_solve_replays_every_secret(n, k, variant):
    game = Game(n, k, variant)
    guesses, secrets, score, end = ref.mastermind(n, k, variant)
    _, _, per_secret = ref.analyze(guesses, secrets, score, end, "entropy")
    for v in secrets:
        steps = solve(game, v, "entropy")
        assert len(steps) == per_secret[v]
        assert tuple(steps[-1].score) == (n, 0)
        assert all(game.is_guess(s.guess) for s in steps)


# ---------------------------------------------------------------------- published numbers
def test_distinct_colour_example_entropy():
    """The distinct-colour example (docs/variants.md): [4,6] secrets with no repeated
    colour, entropy, any code as a guess: 7/55/229/69 secrets in 2/3/4/5 guesses."""
    result = analyze(Game(4, 6, "distinct"), "entropy")
    assert result.distribution == {2: 7, 3: 55, 4: 229, 5: 69}
    assert (result.secrets, result.total, result.max) == (360, 1440, 5)
    assert result.game.format_code(result.first_guess) == "1123"


def test_bulls_and_cows_parts_from_1234():
    """[4,10] Bulls and Cows, most parts, any guess, opening 1234 (widmaN's table)."""
    result = analyze(Game(4, 10, "bulls-and-cows"), "parts", first="1234")
    assert (result.secrets, result.total, result.max) == (5040, 26751, 8)


@pytest.mark.parametrize(
    "strategy,first,total,worst",
    [("minmax", None, 5801, 5), ("parts", "1123", 5668, 6), ("entropy", None, 5722, 6)],
)
def test_classic_anchors_unchanged(strategy, first, total, worst):
    result = analyze(Game(4, 6, "classic"), strategy, first=first)
    assert (result.total, result.max) == (total, worst)


def test_variant_set_sizes():
    assert Game(4, 6, "distinct").guesses.size == 1296
    assert Game(4, 10, "bulls-and-cows").guesses.size == 5040
    assert Game(5, 5, "permutation").secrets.size == 120
    assert Game(4, 6, "black-peg").nslots == 5
    assert Game(4, 6, "black-peg").partition("1234").tolist() == [625, 500, 150, 20, 1]


# ---------------------------------------------------------------------- errors and CLI
@pytest.mark.parametrize(
    "args,words",
    [
        ((5, 4, "distinct"), "pegs <= colours"),
        ((5, 4, "bulls-and-cows"), "pegs <= colours"),
        ((3, 4, "permutation"), "pegs == colours"),
        ((4, 6, "nope"), "unknown variant"),
    ],
)
def test_bad_variants(args, words):
    with pytest.raises(GameError, match=words):
        Game(*args)


def test_variant_code_and_score_errors():
    game = Game(4, 6, "bulls-and-cows")
    with pytest.raises(ValueError, match="cannot be played"):
        game.guess("1123")
    with pytest.raises(ValueError, match="cannot be a secret"):
        solve(game, "1123")
    peg = Game(4, 6, "black-peg")
    assert peg.parse_score("2") == (2, 0)
    with pytest.raises(ScoreError, match="no whites"):
        peg.parse_score("1 2")


def test_cli_variant_everywhere(capsys):
    out = io.StringIO()
    assert main(["analyze", "--variant", "distinct", "-s", "entropy", "--json"], out) == 0
    data = json.loads(out.getvalue())
    assert (data["variant"], data["total"], data["first_guess"]) == ("distinct", 1440, "1123")
    out = io.StringIO()
    assert (
        main(["solve", "231", "-n", "3", "-k", "3", "--variant", "permutation", "--json"], out) == 0
    )
    assert json.loads(out.getvalue())["steps"][-1]["black"] == 3
    out = io.StringIO()
    assert main(["first-guesses", "--variant", "black-peg", "--json"], out) == 0
    assert json.loads(out.getvalue())["variant"] == "black-peg"
    assert main(["solve", "1123", "--variant", "bulls-and-cows"], io.StringIO()) == 2
    assert "cannot be a secret" in capsys.readouterr().err
    assert main(["analyze", "--variant", "permutation"], io.StringIO()) == 2
    assert "pegs == colours" in capsys.readouterr().err


def test_variant_enum_round_trip():
    assert {str(v) for v in Variant} == {
        "classic",
        "distinct",
        "bulls-and-cows",
        "black-peg",
        "permutation",
    }
    assert repr(Game(4, 6, "distinct")) == "Game(4, 6, 'distinct')"
    assert np.array_equal(Game(3, 3).guesses, np.arange(27))


@pytest.mark.parametrize(
    "spec",
    [
        (4, 6, "classic"),
        (4, 6, "distinct"),
        (4, 6, "black-peg"),
        (4, 7, "bulls-and-cows"),
        (5, 5, "permutation"),
        (5, 6, "distinct"),
    ],
)
def test_symmetric_opening_equals_full_scan(spec):
    game = Game(*spec)
    for strategy in ref.STRATEGIES:
        for co in (False, True):
            assert first_guess(game, strategy, co) == choose_guess(game, game.secrets, strategy, co)


@pytest.mark.parametrize(
    "spec", [(5, 13, "distinct"), (5, 13, "black-peg"), (5, 14, "bulls-and-cows")]
)
def test_wide_kernel_scores_follow_the_definitions(spec):
    """n * k > 64: the kernel's four-word encoding, on seeded random pairs."""
    n, k, variant = spec
    game = Game(*spec)
    assert game.kernel.mode == 1
    rng = np.random.default_rng(6)
    guesses = game.guesses[rng.integers(0, game.guesses.size, 40)]
    secrets = np.unique(game.secrets[rng.integers(0, game.secrets.size, 40)])
    black = variant == "black-peg"
    for u in guesses:
        for v in secrets:
            assert tuple(game.score_index(u, v)) == ref.score(
                game.colours(u), game.colours(v), black
            )
        table = np.zeros(game.nslots, dtype=np.int64)
        for v in secrets:
            table[game.slot(ref.score(game.colours(u), game.colours(v), black))] += 1
        assert game.partition(u, secrets).tolist() == table.tolist()
