"""Full exhaustive analyses: [4,6] for every strategy, [5,8] for the four scanning ones.

Every benchmark asserts its result, so a speed-up that changes an answer fails here too.
"""

import pytest

from mastermind import analyze

STRATEGIES = ["minmax", "entropy", "parts", "expected-size", "first-candidate"]
TOTALS_4_6 = {
    ("minmax", False): 5801,
    ("entropy", False): 5722,
    ("parts", False): 5668,
    ("expected-size", False): 5696,
    ("first-candidate", False): 7471,
    ("minmax", True): 5828,
    ("entropy", True): 5786,
    ("parts", True): 5701,
    ("expected-size", True): 5722,
    ("first-candidate", True): 7471,
}
# [5,8], all guesses allowed, first guess by the rule (11234 but for parts: 11223)
TOTALS_5_8 = {"minmax": 183966, "entropy": 179863, "parts": 181834, "expected-size": 180287}


@pytest.mark.benchmark(group="analyze 4x6")
@pytest.mark.parametrize("candidates_only", [False, True], ids=["all", "cands"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_analyze_4_6(benchmark, game_4_6, strategy, candidates_only):
    result = benchmark(analyze, game_4_6, strategy, candidates_only=candidates_only)
    assert result.total == TOTALS_4_6[strategy, candidates_only]


@pytest.mark.benchmark(group="analyze 5x8")
@pytest.mark.parametrize("strategy", list(TOTALS_5_8))
def test_analyze_5_8(benchmark, game_5_8, strategy):
    result = benchmark.pedantic(
        analyze, args=(game_5_8, strategy), rounds=3, iterations=1, warmup_rounds=1
    )
    benchmark.extra_info["total"] = result.total
    benchmark.extra_info["first_guess"] = game_5_8.format_code(result.first_guess)
    benchmark.extra_info["distribution"] = {str(k): v for k, v in result.distribution.items()}
    assert result.total == TOTALS_5_8[strategy]


@pytest.mark.benchmark(group="analyze 5x8 one thread")
def test_analyze_5_8_minmax_one_thread(benchmark, game_5_8):
    result = benchmark.pedantic(
        analyze,
        args=(game_5_8, "minmax"),
        kwargs={"jobs": 1},
        rounds=2,
        iterations=1,
        warmup_rounds=0,
    )
    assert result.total == TOTALS_5_8["minmax"]
