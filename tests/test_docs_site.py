"""The documentation site (mkdocs.yml) against the package: every command has its page in
the user guide, every page is in the navigation, and every link between pages leads to a
page.  (`mkdocs build --strict`, in .ci/docs, checks the rendering; the pages' examples
run in tests/test_doctests.py.)"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NEEDS_A_PROGRAM

import mastermind
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


ARCHITECTURE = (DOCS / "architecture.md").read_text()
RECIPES = ARCHITECTURE.split("## Where to add")[1].split("\n## ")[0]


def named_files(text: str) -> list[str]:
    """The files a page names in code spans: paths with a folder or a source suffix."""
    names = []
    for span in re.findall(r"`([^`\s]+)`", text):
        span = span.rstrip(".,;:")
        if "<" in span or "(" in span or span.startswith(("mastermind.", "-", ".")):
            continue
        if "/" in span or re.search(r"\.(py|pyx|pxd|pxi|pyi|h|md|yml|toml)$", span):
            names.append(span)
    return names


def test_every_file_the_architecture_names_exists():
    """The map's recipes name every place the code needs: each of them must exist (in
    the repository, or in the package's folder)."""
    package = ROOT / "src" / "mastermind"
    names = named_files(RECIPES)
    assert len(names) > 30 and "engine/kinds.py" in names
    missing = [n for n in names if not ((ROOT / n).exists() or (package / n).exists())]
    assert not missing, missing


def test_the_house_drawing_is_the_codes():
    """docs/house.svg is what scripts/docs/house.py draws from the code today."""
    if shutil.which("dot") is None:
        pytest.skip(f"{NEEDS_A_PROGRAM} Graphviz's dot")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs" / "house.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr + " (run: python scripts/docs/house.py)"


def test_a_run_without_the_programs_says_so_in_one_line_at_its_end(tmp_path):
    """README's test command on a machine without Chromium or Graphviz: the tests that need
    them skip, and the run's last line names what is missing and how to install it."""
    env = {
        "PATH": str(tmp_path),  # no dot, no chromium: an empty folder
        "PYTHONPATH": str(Path(mastermind.__file__).resolve().parents[1]),
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not slow",
            "tests/test_cli_tree.py::test_cli_tree_renders_svg",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("1 skipped for want of Chromium, chromedriver or Graphviz's dot")
    assert "sudo apt-get install chromium chromium-driver graphviz" in last
