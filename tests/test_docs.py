"""The examples of docs/variants.md run as doctests."""

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_variants_doc():
    result = doctest.testfile(str(DOCS / "variants.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
