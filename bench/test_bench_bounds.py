"""The worst-case search (mastermind.worstcase.bounds.solution_exists) on questions of p(5,8)'s
run: a part that one more guess leaves after the opening 11234 and a second guess, with 4
guesses left, the kind of question the p(5,8) campaign (`mastermind campaign`) hands its
workers by the hundred.

The solvable one runs by default; the two refutations take 10-20 s:
``python -m pytest bench/test_bench_bounds.py --benchmark-only -m slow``.  Every
benchmark checks its answer (a solvable one's witness replayed).
"""

from collections import defaultdict

import numpy as np
import pytest

from mastermind.worstcase.bounds import check_strategy, solution_exists


def _part(game, first, score, second, rank):
    """The rank-th largest part (0: the largest) of guess ``second`` on the secrets that
    score ``score`` against ``first``."""
    parts = defaultdict(list)
    g2 = game.code(second)
    for c in np.asarray(game.filter(game.secrets, first, score)):
        parts[game.score_index(g2, int(c))].append(int(c))
    return np.array(sorted(parts.values(), key=len, reverse=True)[rank], dtype=np.int32)


@pytest.mark.benchmark(group="worst case")
def test_exists_5_8_part_solvable(benchmark, game_5_8):
    """525 codes (after 11234 = 1 2 and 12156), solvable within 4."""
    part = _part(game_5_8, "11234", "1 2", "12156", 1)
    got = benchmark.pedantic(
        solution_exists, args=(game_5_8, 4, part), kwargs={"witness": True}, rounds=2
    )
    assert len(part) == 525 and got.exists
    assert check_strategy(game_5_8, got.tree, part) <= 4


@pytest.mark.slow
@pytest.mark.benchmark(group="worst case slow")
@pytest.mark.parametrize("score,size", [("0 3", 890), ("1 1", 1542)])
def test_exists_5_8_part_refuted(benchmark, game_5_8, score, size):
    """The largest part of 12345 after 11234 = 0 3 (890 codes) and 1 1 (1,542): no
    strategy finds them within 4."""
    part = _part(game_5_8, "11234", score, "12345", 0)
    got = benchmark.pedantic(solution_exists, args=(game_5_8, 4, part), rounds=1)
    assert len(part) == size and got is False
