"""Kernel throughput: scored pairs per second (single thread), on [4,6] and [5,8] data."""

import numpy as np
import pytest

from mastermind.analysis import _scan
from mastermind.kernel import _core


@pytest.mark.benchmark(group="kernel")
@pytest.mark.parametrize("which", ["4x6", "5x8"])
def test_histograms_pairs_per_second(benchmark, which, game_4_6, game_5_8):
    game = game_4_6 if which == "4x6" else game_5_8
    rng = np.random.default_rng(1)
    guesses = np.unique(rng.integers(0, game.size, 256)).astype(np.int32)
    cands = game.secrets
    benchmark(game.kernel.histograms, guesses, cands)
    pairs = guesses.size * cands.size
    benchmark.extra_info["pairs"] = pairs
    benchmark.extra_info["pairs_per_second"] = pairs / benchmark.stats.stats.mean
    benchmark.extra_info["simd"] = _core.SIMD


@pytest.mark.benchmark(group="kernel")
@pytest.mark.parametrize("kind", ["minmax", "entropy", "parts", "expected-size"])
def test_best_guess_scan_5_8(benchmark, kind, game_5_8):
    """The full choice-rule scan of all 32768 guesses over a 2000-candidate set."""
    game = game_5_8
    rng = np.random.default_rng(2)
    cands = np.unique(rng.integers(0, game.size, 2000)).astype(np.int32)
    k = {
        "minmax": _core.VAL_MINMAX,
        "entropy": _core.VAL_ENTROPY,
        "parts": _core.VAL_PARTS,
        "expected-size": _core.VAL_EXPECTED,
    }[kind]
    benchmark(_scan.best_guess, game.kernel, game.guesses, cands, k)
    pairs = game.guesses.size * cands.size
    benchmark.extra_info["pairs_per_second"] = pairs / benchmark.stats.stats.mean
