"""Full exhaustive analyses: [4,6] for every strategy, [5,8] for the four scanning ones."""

import pytest

from mastermind import analyze

STRATEGIES = ["minmax", "entropy", "parts", "expected-size", "first-candidate"]


@pytest.mark.benchmark(group="analyze 4x6")
@pytest.mark.parametrize("candidates_only", [False, True], ids=["all", "cands"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_analyze_4_6(benchmark, game_4_6, strategy, candidates_only):
    result = benchmark(analyze, game_4_6, strategy, candidates_only=candidates_only)
    benchmark.extra_info["total"] = result.total


@pytest.mark.benchmark(group="analyze 5x8")
@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
def test_analyze_5_8(benchmark, game_5_8, strategy):
    result = benchmark.pedantic(analyze, args=(game_5_8, strategy), rounds=3, iterations=1,
                                warmup_rounds=0)
    benchmark.extra_info["total"] = result.total
    benchmark.extra_info["first_guess"] = game_5_8.format_code(result.first_guess)
    benchmark.extra_info["distribution"] = result.distribution
    if strategy == "minmax":
        assert result.total == 183966
