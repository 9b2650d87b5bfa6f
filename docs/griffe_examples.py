"""A Griffe extension for the documentation site (mkdocs.yml): the package's docstrings
end with doctest examples (``>>>`` lines, checked by tests/test_doctests.py) that follow
the text or the last numpy-style section without a heading of their own.  This puts an
``Examples`` heading before the first of them, so that mkdocstrings renders them as
Python sessions instead of reading them as Markdown (where ``>`` opens a quotation and
``[...]`` a link).  It also shows the Sphinx roles the docstrings use for names
(``:func:`~mastermind.analysis.analyze```) as plain code, the last component only for a
``~``, as Sphinx does."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|exc|obj|const):`(~?)([^`]+)`")


def _code(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


class DoctestExamples(griffe.Extension):
    """Give a docstring's doctest examples an ``Examples`` section; roles as code."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None:
            return
        docstring.value = ROLE.sub(_code, docstring.value)
        if ">>>" not in docstring.value:
            return
        lines = docstring.value.split("\n")
        if any(re.fullmatch(r"Examples?", line.strip()) for line in lines):
            return
        first = next(i for i, line in enumerate(lines) if line.lstrip().startswith(">>>"))
        lines[first:first] = ["", "Examples", "--------"]
        docstring.value = "\n".join(lines)
