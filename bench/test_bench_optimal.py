"""The exact expected-case optimum (mastermind.optimum.solver): the published games.

[4,6], [4,7], Bulls and Cows [4,9] and black-peg [4,4] run by default; Bulls and Cows [4,10] and [4,8]
take tens of seconds:
``python -m pytest bench/test_bench_optimal.py --benchmark-only -m slow``.  Every
benchmark checks its total.
"""

import pytest

from mastermind import Game
from mastermind.optimum.solver import optimal


@pytest.mark.benchmark(group="optimal")
def test_optimal_4_6(benchmark, game_4_6):
    result = benchmark(optimal, game_4_6)
    benchmark.extra_info["nodes"] = result.nodes
    assert result.exact and result.total == 5625


@pytest.mark.benchmark(group="optimal")
def test_optimal_4_6_within_5(benchmark, game_4_6):
    result = benchmark(optimal, game_4_6, max_guesses=5)
    assert result.exact and result.total == 5626


SLOW = pytest.mark.slow


@pytest.mark.benchmark(group="optimal")
@pytest.mark.parametrize(
    "n,k,variant,total,rounds",
    [
        pytest.param(4, 7, "classic", 11228, 2, id="optimal_4_7"),
        # fancidev's mmstrat publishes 14914 (rules p4c9n)
        pytest.param(4, 9, "bulls-and-cows", 14914, 2, id="optimal_bulls_and_cows_4_9"),
        # blacks only: four non-winning scores, deep trees, many nodes
        pytest.param(4, 4, "black-peg", 1301, 2, id="optimal_black_peg_4_4"),
        pytest.param(4, 10, "bulls-and-cows", 26274, 1, marks=SLOW, id="slow_bulls_and_cows_4_10"),
        pytest.param(4, 8, "classic", 20471, 1, marks=SLOW, id="slow_4_8"),
    ],
)
def test_optimal(benchmark, n, k, variant, total, rounds):
    game = Game(n, k, variant)
    result = benchmark.pedantic(optimal, args=(game,), rounds=rounds, iterations=1)
    benchmark.extra_info["nodes"] = result.nodes
    assert result.exact and result.total == total
