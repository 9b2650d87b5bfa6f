"""docs/performance.md's tables are written by scripts/docs/performance.py: the page has the
script's marker comments, the script renders a sample of benchmark figures into them
(tests/data/performance_sample.json; no benchmark runs here) leaving the prose, and the
page is what its saved figures (bench/results/performance.json) render."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"
SCRIPT = ROOT / "scripts" / "docs" / "performance.py"
SAMPLE = ROOT / "tests" / "data" / "performance_sample.json"
BLOCK = re.compile(r"<!-- performance:begin (\w+) -->\n(.*?)<!-- performance:end -->", re.DOTALL)


def script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )


def rendered(tmp_path: Path) -> str:
    page = tmp_path / "performance.md"
    page.write_text(PAGE.read_text())
    done = script("--from", str(SAMPLE), "--page", str(page))
    assert done.returncode == 0, done.stdout + done.stderr
    return page.read_text()


def test_the_page_has_the_scripts_blocks():
    text = PAGE.read_text()
    assert [m.group(1) for m in BLOCK.finditer(text)] == ["machine", "analyses", "peers"]
    assert text.count("<!-- performance:begin ") == 3 + text.count("performance:begin NAME")
    assert text.count("<!-- performance:end -->") == 3
    assert "python scripts/docs/performance.py" in text


def test_the_sample_renders_into_the_blocks_and_the_prose_stays(tmp_path):
    text = rendered(tmp_path)
    blocks = dict(m.groups() for m in BLOCK.finditer(text))
    assert "Sample CPU (2 CPUs for the process; widest SIMD: AVX2), 2026-01-02" in blocks["machine"]
    assert (
        "abcdef1" in blocks["machine"] and "0.5 at the start, 0.7 at the end" in blocks["machine"]
    )
    analyses = blocks["analyses"]
    assert "| [5,8] minmax (first guess 11234), total 183966, 32768 secrets, max 7 |" in analyses
    assert "0.60 s / 0.63 s (one thread: 1.16 s / 1.19 s)" in analyses
    assert "[5,8] parts (first guess 11223), total 181834 | 0.56 s / 0.56 s |" in analyses
    assert "| 0.95-2.4 ms / 1.5-3.6 ms (first-candidate: 0.1 ms / 0.2 ms) |" in analyses
    assert "| 1.3e9 / 8.1e8 |" in analyses and "| 12 ms / 15 ms |" in analyses
    peers = blocks["peers"]
    assert "| 182409 | 6.80 s / 7.00 s | 0.18 |" in peers
    assert "| 183775 | 10.7 s / 11.0 s | 0.11 |" in peers
    assert BLOCK.sub("", text) == BLOCK.sub("", PAGE.read_text())  # the prose, untouched
    again = tmp_path / "again.md"
    again.write_text(text)
    assert script("--from", str(SAMPLE), "--page", str(again)).returncode == 0
    assert again.read_text() == text  # rendering twice changes nothing


def test_the_rendered_tables_parse(tmp_path):
    markdown = pytest.importorskip("markdown")
    html = markdown.markdown(rendered(tmp_path), extensions=["tables"])
    tables = re.findall(r"<table>.*?</table>", html, re.DOTALL)
    assert len(tables) == 2
    for table in tables:
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)
        cells = {len(re.findall(r"<t[hd][ >]", row)) for row in rows}
        assert len(rows) > 3 and len(cells) == 1, table


def test_the_page_is_what_its_saved_figures_render():
    done = script("--from", str(ROOT / "bench" / "results" / "performance.json"), "--check")
    assert done.returncode == 0, (
        done.stdout + done.stderr + " (run: python scripts/docs/performance.py)"
    )
