"""The worst-case search's colour-multiset counts at d = 3 nodes: a guess's multiset alone
(the blacks + whites of a pair depends only on the two codes' colour counts) proves a
part past the cap or bounds the guess's parts.  Checked against the partition tables,
and shown to change nothing but time."""

from __future__ import annotations

import random

import numpy as np
import pytest
from same_search import same_search

from mastermind.game import Game
from mastermind.worstcase.search import Search


def _search(game: Game) -> Search:
    return Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)


@pytest.mark.parametrize("n,k", [(3, 5), (4, 4), (4, 6), (5, 3)])
def test_multiset_bounds_hold_for_every_guess(n, k):
    """A guess ruled out by its multiset has a non-winning part larger than the cap, and
    its non-winning parts never exceed the multiset's bound (the partition table of
    every guess against random sets and the parts of a played history)."""
    game = Game(n, k)
    core = _search(game).core
    rng = np.random.default_rng(n * 10 + k)
    allg = np.arange(game.size, dtype=np.int32)
    win = game.win_slot
    ruled_out_seen = 0
    for m in (2, 7, 30, 90, 250):
        if m > game.size:
            continue
        cands = np.sort(rng.choice(game.size, m, replace=False)).astype(np.int32)
        hist = np.delete(game.kernel.histograms(allg, cands).astype(np.int64), win, axis=1)
        largest, parts = hist.max(axis=1), (hist > 0).sum(axis=1)
        for cap in (1, 3, 8, 20):
            ruled_out, bound = core.multiset_bounds(cands, cap)
            assert (largest[ruled_out] > cap).all(), (m, cap)
            assert (parts <= bound).all(), (m, cap)
            ruled_out_seen += int(ruled_out.sum())
    assert ruled_out_seen > 0


def test_multiset_bounds_need_the_blacks_and_whites_score():
    """Where a guess's score is not blacks and whites of the whole code space (a custom
    guess set), the rule is off: no bound is claimed."""
    game = Game(4, 4)
    some = Search(game, game.guesses[:100], candidates_only=False, symmetry=False, memory=1 << 24)
    assert some.core.multiset_bounds(np.arange(10, dtype=np.int32), 3) is None
    assert _search(game).core.multiset_bounds(np.arange(10, dtype=np.int32), 3) is not None


def _history_sets(game: Game, rng: random.Random, largest: int) -> list[np.ndarray]:
    sets = [
        np.array(sorted(rng.sample(range(game.size), rng.randint(3, largest))), dtype=np.int32)
        for _ in range(10)
    ]
    first = game.code("1123"[: game.n] if game.n < 5 else "11223")
    slots = game.kernel.slots(first, np.asarray(game.secrets, dtype=np.int32))
    secrets = np.asarray(game.secrets, dtype=np.int32)
    sets += [secrets[slots == s] for s in np.unique(slots) if (slots == s).sum() >= 3]
    return sets


@pytest.mark.parametrize("n,k,largest", [(4, 5, 300), (4, 6, 300), (5, 4, 380)])
def test_multiset_counts_change_nothing_but_time(n, k, largest):
    """The same answers, root guesses, nodes, leaves, memo hits and guesses scanned with
    the multiset counts as without, at 2, 3 and 4 guesses left."""
    game = Game(n, k)
    rng = random.Random(n * 100 + k)
    on, off = _search(game), _search(game)
    off.core.multiset_counts = False
    assert on.core.multiset_counts and not off.core.multiset_counts
    one, two = same_search(on, off, _history_sets(game, rng, largest))
    assert one["at_depth"].get(3, 0) > 0
    assert one["ms_groups"] > 0 and two["ms_groups"] == 0
