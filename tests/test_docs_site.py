"""The documentation site (mkdocs.yml) against the package: every command has its page in
the user guide, every page is in the navigation, and every link between pages leads to a
page.  (`mkdocs build --strict`, in .ci/docs, checks the rendering; the pages' examples
run in tests/test_doctests.py.)"""

import re
from pathlib import Path

import pytest

from mastermind.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NAV = re.findall(r":\s*([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
PAGES = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_a_page_in_the_user_guide(command):
    page = f"commands/{command}.md"
    assert (DOCS / page).is_file(), f"docs/{page} is missing"
    assert page in NAV, f"docs/{page} is not in mkdocs.yml's nav"
    assert f"mastermind {command}" in (DOCS / page).read_text()


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    assert sorted(set(NAV)) == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_links_between_pages_lead_to_pages(page):
    text = (DOCS / page).read_text()
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text):
        assert (DOCS / page).parent.joinpath(target).resolve().exists(), (page, target)


def test_the_readme_links_to_existing_files():
    text = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), target
