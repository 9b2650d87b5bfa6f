"""Make the pictures the documentation shows (docs/*.png): the [4,6] comparison plot, a game of
``mastermind play`` in a colour terminal, and the strategy explorer in a browser.

Needs the plot and test extras (matplotlib, selenium), tmux, and Debian's chromium and
chromium-driver.  The terminal is tmux (100 x 30, truecolor); its screen, captured with
its colours, is drawn by rich as SVG and photographed by headless Chromium.  Every PNG is
reduced to a small palette so that the files stay small.

    python scripts/docs/screenshots.py            # writes docs/compare-4-6.png, play.png, explorer.png
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))

import mastermind as mm  # noqa: E402
from mastermind.views.explorer import to_html  # noqa: E402


def shrink(path: Path, colours: int = 128) -> None:
    """Rewrite a PNG with a palette of ``colours`` (a fraction of the size)."""
    from PIL import Image

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def plot() -> Path:
    target = DOCS / "compare-4-6.png"
    mm_cli = [sys.executable, "-m", "mastermind", "compare", "--plot", str(target)]
    subprocess.run(
        mm_cli, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(SRC)}
    )
    shrink(target)
    return target


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def terminal(secret: str = "3632") -> Path:
    """A game of ``mastermind play`` against ``secret``, with 'history' before the third
    answer."""
    from rich.console import Console
    from rich.text import Text

    game = mm.Game(4, 6)
    name = "mm-shot"
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    _tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", "-e", "COLORTERM=truecolor")
    try:
        _tmux(
            "send-keys",
            "-t",
            name,
            f"cd {ROOT} && export PYTHONPATH=src COLORTERM=truecolor "
            "PS1='$ ' && clear && python -m mastermind play",
            "Enter",
        )
        turn = 0
        for _ in range(40):
            time.sleep(0.5)
            screen = _tmux("capture-pane", "-t", name, "-p")
            if "Solved in" in screen:
                break
            asked = re.findall(r"guess (\d+): (\d{4})[^\n]*score>\s*$", screen, re.M)
            if not asked or int(asked[-1][0]) <= turn:
                continue
            turn = int(asked[-1][0])
            if turn == 3:
                _tmux("send-keys", "-t", name, "history", "Enter")
                time.sleep(0.5)
            _tmux("send-keys", "-t", name, str(game.score(asked[-1][1], secret)), "Enter")
        time.sleep(0.5)
        ansi = _tmux("capture-pane", "-t", name, "-p", "-e", "-N")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    lines = ansi.rstrip("\n").split("\n")
    while lines and not re.sub(r"\x1b\[[0-9;]*m", "", lines[-1]).strip():
        lines.pop()
    rec = Console(
        record=True, width=100, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    rec.print(Text.from_ansi("\n".join(lines)), soft_wrap=True)
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / "play.svg"
        svg.write_text(rec.export_svg(title="mastermind play"), encoding="utf-8")
        width, height = (
            float(x)
            for x in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg.read_text()).groups()
        )
        target = DOCS / "play.png"
        drv = browser()
        try:
            drv.set_window_size(int(width), int(height) + 1)
            drv.get(svg.as_uri())
            time.sleep(0.3)
            drv.save_screenshot(str(target))
        finally:
            drv.quit()
    shrink(target)
    return target


def explorer(secret: str = "3632") -> Path:
    """The [4,6] minmax explorer after following ``secret`` to the end."""
    from selenium.webdriver.support.ui import WebDriverWait

    result = mm.analyze(mm.Game(4, 6), "minmax", tree=True)
    target = DOCS / "explorer.png"
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "tree.html"
        page.write_text(to_html(result), encoding="utf-8")
        drv = browser()
        try:
            drv.set_window_size(1200, 900)
            drv.get(page.as_uri())
            WebDriverWait(drv, 30).until(
                lambda d: d.execute_script("return document.body.dataset.ready === '1'")
            )
            drv.find_element("id", "secret").send_keys(secret)
            drv.find_element("id", "find-button").click()
            WebDriverWait(drv, 30).until(
                lambda d: d.find_element("id", "steps").get_attribute("data-done")
            )
            # stop one guess before the end: the answers of a live position are shown
            drv.find_elements("css selector", "#crumbs button")[-2].click()
            time.sleep(0.3)
            height = drv.execute_script("return document.documentElement.scrollHeight")
            drv.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1200, "height": int(height), "deviceScaleFactor": 1, "mobile": False},
            )
            time.sleep(0.3)
            drv.save_screenshot(str(target))
        finally:
            drv.quit()
    shrink(target)
    return target


if __name__ == "__main__":
    DOCS.mkdir(exist_ok=True)
    for make in (plot, terminal, explorer):
        path = make()
        print(f"wrote {path.relative_to(ROOT)}: {path.stat().st_size:,} bytes")
