"""The docstring examples of every module, and the README's and docs' examples, run as
doctests."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import mastermind

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(mastermind.__path__, "mastermind.")
    if not m.name.rsplit(".", 1)[1].startswith("_")
)
# modules whose docstrings must hold examples (the others may have none)
WITH_EXAMPLES = {
    "mastermind",
    "mastermind.game",
    "mastermind.rules",
    "mastermind.analysis.strategies",
    "mastermind.analysis.exhaustive",
    "mastermind.worstcase.bounds",
    "mastermind.custom",
    "mastermind.views.tree",
    "mastermind.apps.play",
    "mastermind.cli.dialogue",
}


def test_every_module_is_found():
    assert set(MODULES) | {"mastermind"} >= WITH_EXAMPLES


@pytest.mark.parametrize("name", ["mastermind"] + MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name in WITH_EXAMPLES:
        assert result.attempted > 0


# every page of the documentation site, user guide and research pages included
DOCUMENTS = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))


def test_the_documents_with_examples_are_tested():
    assert {
        "README.md",
        "docs/bounds.md",
        "docs/variants.md",
        "docs/getting-started.md",
        "docs/commands/analyze.md",
        "docs/commands/optimal.md",
    } <= set(DOCUMENTS)


@pytest.mark.parametrize("path", DOCUMENTS)
def test_document_examples(path):
    text = (ROOT / path).read_text()
    result = doctest.testfile(str(ROOT / path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or ">>>" not in text
