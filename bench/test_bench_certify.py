"""The certificate writer (mastermind.worstcase.certify.write_part_certificate) on a part of
p(7,4)'s refutation of 5: the 2,260 secrets after 1111122 = (2 1), which 4 more guesses
cannot all find, 20,472 claims (``results/p74/certificates/1111122-21.cert.gz`` is this
very file).  Each round makes it with a fresh search, so the search's time is in it too.

    python -m pytest bench/test_bench_certify.py --benchmark-only

Measured on the 2-core machine with two other jobs on its cores (mean of 3 rounds):
12.1 s a round before the claims' sets were kept side by side and a set's symmetries
worked out at once, 7.2 s after (ratio 0.60; the same bytes).
"""

import gzip
import os

import pytest

from mastermind import Game
from mastermind.worstcase.certify import write_part_certificate

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, "..", "results", "p74", "certificates", "1111122-21.cert.gz")


@pytest.mark.benchmark(group="certificates")
def test_part_certificate_7_4(benchmark, tmp_path):
    game, path = Game(7, 4), str(tmp_path / "part.cert.gz")

    def make():
        return write_part_certificate(path, game, [("1111122", "2 1")], 4)

    stats = benchmark.pedantic(make, rounds=3, iterations=1)
    assert stats.claims == 20_472
    with gzip.open(path) as made, gzip.open(SHIPPED) as shipped:
        assert made.read() == shipped.read()
