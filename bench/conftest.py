"""Benchmarks: run with ``python -m pytest bench/ --benchmark-only`` (see docs/performance.md)."""

import pytest

from mastermind import Game


@pytest.fixture(scope="session")
def game_4_6():
    return Game(4, 6)


@pytest.fixture(scope="session")
def game_5_8():
    return Game(5, 8)
