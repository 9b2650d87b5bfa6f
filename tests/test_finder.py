"""Tests of mastermind.worstcase.finder: the budgeted rounds give exactly the exact search's answers
(against the brute force on tiny games and solution_exists on larger ones, every level
count and order), every strategy found passes check_strategy, and the published optima."""

from __future__ import annotations

import random

import numpy as np
import pytest
import reference as ref

from mastermind.game import Game
from mastermind.worstcase.bounds import BoundsError, check_strategy, solution_exists
from mastermind.worstcase.finder import find_strategy


def agrees(game: Game, d: int, expect: bool, **kw) -> None:
    f = find_strategy(game, d, **kw)
    assert f.status == ("found" if expect else "refuted")
    if expect:
        cands = kw.get("candidates")
        depth = (
            check_strategy(game, f.tree, cands, candidates_only=kw.get("candidates_only", False))
            if f.tree is not None
            else 0
        )
        assert depth <= d


@pytest.mark.parametrize("n,k", ref.TINY)
@pytest.mark.parametrize("cands_only", [False, True])
def test_tiny_games_against_brute_force(n, k, cands_only):
    game = Game(n, k)
    brute = ref.WorstCase(*ref.game_rules(game), candidates_only=cands_only)
    p = brute.least(game.secrets.tolist())
    for d in range(max(p - 2, 1), p + 2):
        for levels in (1, 2, 3):
            agrees(game, d, d >= p, candidates_only=cands_only, levels=levels)


@pytest.mark.parametrize("n,k", [(3, 3), (3, 4), (4, 3)])
def test_random_candidate_sets_against_brute_force(n, k):
    game = Game(n, k)
    brute = ref.WorstCase(*ref.game_rules(game))
    rng = random.Random(n * 10 + k)
    for _ in range(15):
        cands = sorted(rng.sample(range(game.size), rng.randint(3, min(game.size, 40))))
        p = brute.least(cands)
        for d in (p - 1, p):
            agrees(
                game,
                d,
                d >= p,
                candidates=np.array(cands, dtype=np.int32),
                orders=rng.choice(["minmax", "entropy", "parts", ("parts", "minmax")]),
            )


@pytest.mark.parametrize(
    "n,k,variant",
    [
        (4, 4, "classic"),
        (4, 5, "classic"),
        (3, 6, "classic"),
        (5, 3, "classic"),
        (4, 5, "distinct"),
        (4, 6, "bulls-and-cows"),
        (4, 4, "black-peg"),
        (5, 5, "permutation"),
    ],
)
def test_same_answers_as_the_exact_search(n, k, variant):
    game = Game(n, k, variant)
    for cands_only in (False, True):
        d = 2
        while not solution_exists(game, d, candidates_only=cands_only):
            agrees(game, d, False, candidates_only=cands_only)
            d += 1
        agrees(game, d, True, candidates_only=cands_only, budget=0.01, width=1)


def test_published_optima():
    """Knuth: p(4,6) = 5; Jäger and Peczarski: p(4,7) = 6."""
    assert find_strategy(Game(4, 6), 4).status == "refuted"
    f = find_strategy(Game(4, 6), 5)
    assert f.found and check_strategy(f.game, f.tree) == 5
    assert find_strategy(Game(4, 7), 5).status == "refuted"
    f = find_strategy(Game(4, 7), 6)
    assert f.found and check_strategy(f.game, f.tree) == 6
    assert f.decided and all(r["solvable"] for r in f.decided if r["path"] == [])
    assert "within 6 guesses" in f.summary()


@pytest.mark.slow
def test_four_pegs_nine_colours_needs_seven():
    """p(4,9) >= 7: every opening leaves a part that 5 more guesses cannot solve (two of
    them are whole smaller games: 1111 scored 0 0 leaves [4,8], 1112 scored 0 0 [4,7])."""
    f = find_strategy(Game(4, 9), 6)
    assert f.status == "refuted"
    refuted = {tuple(map(tuple, r["path"])) for r in f.decided if r["solvable"] is False}
    assert (("1111", "0 0"),) in refuted and (("1112", "0 0"),) in refuted


def test_time_limit_and_arguments():
    f = find_strategy(Game(5, 8), 6, time_limit=0.5)
    assert f.status == "time-limit" and f.tree is None and "undecided" in f.summary()
    for bad in (
        {"levels": 0},
        {"levels": True},
        {"orders": "knuth"},
        {"orders": ()},
        {"budget": 0},
        {"budget": float("nan")},
        {"width": 0},
    ):
        with pytest.raises(BoundsError):
            find_strategy(Game(3, 3), 3, **bad)
