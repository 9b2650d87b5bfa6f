"""A stopped optimal search's lower bound (``Optimizer.run``'s ``lower``: what
``optimal(time_limit=...)``, ``lower_bound`` and the bracket scripts take as proved), held
to the brute force.

The search is stopped after every possible number of looks at its stop flag
(``StopFlag.stop_after_polls``: each set it solves looks once, and so does the making of
each list of guesses), a fresh search each time, on one thread: the stops walk one
deterministic path from the first node to the end.  Along it the bound is never above the
brute force's optimum, never falls (a later stop has proved at least what an earlier one
had), and at the end it is the optimum, the search's total.  The positions are small
ones where a bound taken from one untried guess alone, rather than the least over all
of them, was above the optimum or fell."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import reference as ref

from mastermind import Game
from mastermind.kernel import _core
from mastermind.optimum import _optimal
from mastermind.optimum.search import new_optimizer

# (pegs, colours, the first guess and its score, or None: the whole game)
POSITIONS = [
    (3, 3, None),
    (2, 5, None),
    (2, 7, ("62", "1 0")),
    (3, 5, ("131", "2 0")),
    (3, 6, ("141", "1 1")),
    (4, 3, ("1111", "2 0")),
    (4, 4, ("3214", "2 2")),
    (5, 3, ("21312", "3 2")),
]


@cache
def position(n, k, after):
    """(game, the secrets left, the history as code indices, the brute force's optimum)."""
    game = Game(n, k)
    cands, hist = np.ascontiguousarray(game.secrets), np.zeros(0, np.int32)
    if after is not None:
        cands = np.ascontiguousarray(game.filter(game.secrets, *after))
        hist = np.array([game.code(after[0])], dtype=np.int32)
    rules = ref.game_rules(game)
    want = ref.optimal_total(rules.guesses, [int(c) for c in cands], rules.score, rules.end)
    return game, cands, hist, int(want)


def looks(run) -> int:
    """How many times ``run(flag)`` looks at its flag when it runs to the end."""
    flag = _core.StopFlag()
    flag.stop_after_polls(1 << 50)
    run(flag)
    return (1 << 50) - flag.polls_left


def stopped_at(run, polls):
    flag = _core.StopFlag()
    flag.stop_after_polls(polls)
    return run(flag)


@pytest.mark.parametrize("memory", [1 << 24, 4096])
@pytest.mark.parametrize("n,k,after", POSITIONS)
def test_a_stopped_search_s_bound_is_proved_and_never_falls(n, k, after, memory):
    """With a memo that keeps everything and one of 4 KiB (sets searched again)."""
    game, cands, hist, want = position(n, k, after)

    def run(flag):
        search = new_optimizer(game, candidates_only=False, memory=memory, threads=1)
        return search.run(cands, hist, 0, 0, -1, flag)

    end = looks(run)
    before = 0
    for polls in range(end):
        status, _, lower, _ = stopped_at(run, polls)
        assert status == _optimal.RUN_STOPPED
        assert before <= lower <= want, (polls, before, lower, want)
        before = lower
    status, total, lower, _ = stopped_at(run, end)
    assert status == _optimal.RUN_OPTIMUM and total == lower == want


@pytest.mark.parametrize("n,k,after", POSITIONS[2:])
def test_a_stopped_search_on_two_threads_proves_no_more_than_the_optimum(n, k, after):
    """Every node's parts solved side by side by two workers (``par_min`` 1): a stop at
    any moment (where, the threads decide) still gives a bound at most the optimum."""
    game, cands, hist, want = position(n, k, after)

    def run(flag):
        search = new_optimizer(game, candidates_only=False, memory=1 << 24, threads=2)
        search.par_min = 1
        return search.run(cands, hist, 0, 0, -1, flag)

    for polls in range(looks(run) + 1):
        status, total, lower, _ = stopped_at(run, polls)
        assert lower <= want
        assert status == _optimal.RUN_STOPPED or total == lower == want
