"""The examples of docs/variants.md and of the variant modules' docstrings run as doctests."""

import doctest
import importlib
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_variants_doc():
    result = doctest.testfile(str(DOCS / "variants.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", ["mastermind.custom", "mastermind.tree"])
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
