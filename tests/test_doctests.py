"""The docstring examples of every module, and the README's examples, run as doctests."""

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = ["mastermind", "mastermind.game", "mastermind.strategies", "mastermind.analysis"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_readme_examples():
    readme = Path(__file__).resolve().parent.parent / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
