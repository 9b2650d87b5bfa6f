"""Tests of mastermind.bounds: the exact search against a plain brute force, the published
optima, witnesses checked by the independent checker, time limits and the CLI."""

from __future__ import annotations

import _thread
import io
import json
import random
import threading
from functools import lru_cache

import numpy as np
import pytest

from mastermind import cli
from mastermind.analysis import Node, analyze
from mastermind.bounds import (BoundsError, SearchStats, SearchUnfinished, StrategyCheckError,
                               Witnessed, check_strategy, counting_bound, solution_exists,
                               worst_case)
from mastermind.game import Game, reference_score

TINY = [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3), (5, 2)]


# ---------------------------------------------------------------------- brute force
class Brute:
    """Plain recursive solution_exists: no bounds, no symmetry, no ordering (only a memo,
    which does not change answers).  Scores from reference_score."""

    def __init__(self, game: Game, guesses=None, candidates_only: bool = False):
        self.game = game
        codes = range(game.size)
        cols = [game.colours(i) for i in codes]
        self.win = (game.n, 0)
        self.score = [[tuple(reference_score(cols[u], cols[v])) for v in codes] for u in codes]
        self.guesses = tuple(game.guesses.tolist() if guesses is None else guesses)
        self.candidates_only = candidates_only
        self.exists = lru_cache(maxsize=None)(self._exists)

    def _exists(self, cands: frozenset, d: int) -> bool:
        if not cands:
            return True
        if d == 0:
            return False
        pool = sorted(cands) if self.candidates_only else self.guesses
        for g in pool:
            parts: dict = {}
            for v in cands:
                parts.setdefault(self.score[g][v], set()).add(v)
            if all(self.exists(frozenset(p), d - 1) for s, p in parts.items() if s != self.win):
                return True
        return False

    def optimum(self, cands: frozenset) -> int:
        d = 0
        while not self.exists(cands, d):
            d += 1
        return d


def _random_subsets(game: Game, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        m = rng.randint(1, min(game.size, 12))
        out.append(sorted(rng.sample(range(game.size), m)))
    return out


# ---------------------------------------------------------------------- against brute force
@pytest.mark.parametrize("n,k", TINY)
@pytest.mark.parametrize("cands_only", [False, True])
def test_optimum_matches_brute_force(n, k, cands_only):
    game = Game(n, k)
    brute = Brute(game, candidates_only=cands_only)
    best = brute.optimum(frozenset(game.secrets.tolist()))
    for d in range(1, best + 2):
        for sym in (True, False):
            assert solution_exists(game, d, candidates_only=cands_only,
                                   symmetry=sym) is (d >= best), (d, sym)
    w = worst_case(game, candidates_only=cands_only)
    assert (w.lower, w.upper, w.exact) == (best, best, True)
    assert check_strategy(game, w.witness, candidates_only=cands_only) == best


@pytest.mark.parametrize("n,k", [(2, 3), (3, 3), (2, 4), (4, 2), (3, 4), (4, 3)])
@pytest.mark.parametrize("cands_only", [False, True])
def test_random_candidate_sets_match_brute_force(n, k, cands_only):
    """Arbitrary sets (no symmetry of their own), every depth, with and without the
    symmetry reduction; every True is witnessed and checked."""
    game = Game(n, k)
    brute = Brute(game, candidates_only=cands_only)
    for cands in _random_subsets(game, 25, seed=1000 * n + k):
        best = brute.optimum(frozenset(cands))
        for d in range(max(0, best - 2), best + 2):
            for sym in (True, False):
                got = solution_exists(game, d, candidates=np.array(cands, dtype=np.int32),
                                      candidates_only=cands_only, symmetry=sym, witness=True)
                assert got.exists is (d >= best), (cands, d, sym)
                if got.exists and cands:
                    assert check_strategy(game, got.tree, cands,
                                          candidates_only=cands_only) <= d


@pytest.mark.parametrize("n,k", [(2, 4), (3, 3)])
def test_custom_guess_sets_match_brute_force(n, k):
    game = Game(n, k)
    rng = random.Random(7)
    for _ in range(12):
        pool = sorted(rng.sample(range(game.size), rng.randint(3, game.size)))
        cands = sorted(rng.sample(pool, rng.randint(1, min(8, len(pool)))))
        brute = Brute(game, guesses=pool)
        best = brute.optimum(frozenset(cands))
        for d in (best - 1, best):
            assert solution_exists(game, d, cands, pool) is (d >= best)


def test_candidate_that_cannot_be_guessed_is_never_found():
    game = Game(3, 3)
    assert solution_exists(game, 5, candidates=[0, 1], guesses=[1, 2]) is False
    assert solution_exists(game, 1, candidates=[0], guesses=[0]) is True
    assert solution_exists(game, 0, candidates=[]) is True


def test_no_heuristic_cut():
    """[3,9]: every one-step strategy (minmax, entropy, parts, expected size) needs 7
    guesses, so a search that only followed greedy choices would answer False for 6; the
    exact search finds a 6-guess strategy (checked) and proves 5 impossible."""
    game = Game(3, 9)
    for strategy in ("minmax", "entropy", "parts", "expected-size"):
        assert analyze(game, strategy).max == 7
    found = solution_exists(game, 6, witness=True)
    assert found.exists and check_strategy(game, found.tree) == 6
    assert solution_exists(game, 5) is False


def test_candidates_only_is_a_restriction():
    """[4,6]: 5 guesses suffice, but not when only candidates may be played (so pruning
    to candidates would be a heuristic cut)."""
    game = Game(4, 6)
    assert solution_exists(game, 5, candidates_only=True) is False
    assert solution_exists(game, 6, candidates_only=True) is True
