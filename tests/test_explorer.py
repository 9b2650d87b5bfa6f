"""The strategy explorer page: its embedded tree is the analysis' tree (decoded here the way
the page decodes it), it is self-contained, and in a real browser (Debian's Chromium through
Selenium) a line of play can be clicked through and a typed secret is found as the
strategy finds it."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import NEEDS_A_PROGRAM

from mastermind import Game, analyze, solve, two_d
from mastermind.cli import main
from mastermind.views.explorer import ExplorerError, page_data, to_html
from mastermind.views.pegs import colour_of


def decode(data: dict) -> tuple[list[int], list[list[int]], list[int], list[int]]:
    """parent, children, size and depth of every node, from the preorder arrays."""
    g, c = data["g"], data["c"]
    n = len(g)
    parent, depth, size = [-1] * n, [1] * n, [0] * n
    kids: list[list[int]] = [[] for _ in range(n)]
    stack, left = [0], [c[0] >> 1]
    for i in range(1, n):
        while left[-1] == 0:
            stack.pop()
            left.pop()
        p = stack[-1]
        left[-1] -= 1
        parent[i], depth[i] = p, depth[p] + 1
        kids[p].append(i)
        if c[i] >> 1:
            stack.append(i)
            left.append(c[i] >> 1)
    for i in range(n - 1, -1, -1):
        size[i] += c[i] & 1
        if i:
            size[parent[i]] += size[i]
    return parent, kids, size, depth


@pytest.mark.parametrize(
    "spec,strategy,co",
    [
        ((4, 6, "classic"), "minmax", False),
        ((4, 6, "distinct"), "entropy", True),
        ((3, 4, "black-peg"), "parts", False),
    ],
)
def test_embedded_tree_plays_every_secret(spec, strategy, co):
    game = Game(*spec)
    result = analyze(game, strategy, candidates_only=co, tree=True)
    data = json.loads(json.dumps(page_data(result)))
    parent, kids, size, depth = decode(data)
    assert size[0] == result.secrets == int(game.secrets.size)
    wins = {data["g"][i]: i for i in range(len(data["g"])) if data["c"][i] & 1}
    assert sorted(wins) == game.secrets.tolist()
    dist: dict[int, int] = {}
    for secret, node in wins.items():  # the path to a secret's win follows its scores
        path = []
        while node >= 0:
            path.append(node)
            node = parent[node]
        path.reverse()
        for a, b in zip(path, path[1:]):
            score = game.score_index(data["g"][a], secret)
            assert data["slots"][data["s"][b]] == (
                str(score.black) if spec[2] == "black-peg" else str(score)
            )
        dist[len(path)] = dist.get(len(path), 0) + 1
        if secret % 97 == 0:
            assert [game.format_code(data["g"][i]) for i in path] == [
                s.guess_text for s in solve(game, secret, strategy, candidates_only=co)
            ]
    assert dist == result.distribution
    assert {int(d): n for d, n in data["dist"].items()} == result.distribution
    for i, ks in enumerate(kids):  # children in slot order, sizes add up
        assert [data["s"][j] for j in ks] == sorted(data["s"][j] for j in ks)
        assert size[i] == sum(size[j] for j in ks) + (data["c"][i] & 1)
    assert data["palette"] == [colour_of(c) for c in range(1, game.k + 1)]


def test_page_is_self_contained():
    page = to_html(analyze(Game(4, 6), tree=True))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for word in ("http:", "https:", "src=", "<link", "@import", "url("):
        assert word not in page.lower()
    assert page.count("<script") == 2 and page.count("<style") == 1
    blob = re.search(r'<script type="application/json" id="mm-data">(.*?)</script>', page, re.S)
    assert json.loads(blob.group(1))["total"] == 5801


def test_page_size_of_a_5_8_tree():
    result = analyze(Game(5, 8), tree=True)
    page = to_html(result)
    assert len(page.encode()) < 600_000  # compact: 34,752 nodes
    assert len(page_data(result)["g"]) == sum(1 for _ in result.tree.walk())


def test_custom_game_and_errors(tmp_path, capsys):
    data = page_data(analyze(two_d(), "entropy", tree=True))
    assert data["n"] is None and len(data["codes"]) == 25 and data["palette"] is None
    assert data["codes"][data["g"][0]] == "22"
    with pytest.raises(ExplorerError, match="tree=True"):
        to_html(analyze(Game(2, 2)))
    target = tmp_path / "t.html"
    assert main(["tree", "-n", "3", "-k", "3", "-o", str(target)]) == 0
    assert "strategy explorer" in target.read_text()
    assert main(["tree", "-o", str(target), "--depth", "2"]) == 2
    assert "--depth applies to the text and dot formats" in capsys.readouterr().err


# ---------------------------------------------------------------------- in a browser
def _chromium() -> tuple[str, str] | None:
    browser = next(
        (shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None
    )
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def browser():
    found = _chromium()
    webdriver = None
    try:
        from selenium import webdriver
    except ImportError:
        found = None
    if found is None:
        message = f"{NEEDS_A_PROGRAM} Chromium and chromedriver (and selenium, of the test extra)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs them: never skip there
        pytest.skip(message)
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--disable-extensions",
        "--disable-background-networking",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=found[1]), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(path.as_uri())
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.body.dataset.ready === '1'")
    )


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgba({}, {}, {}, 1)".format(*(int(h[i : i + 2], 16) for i in (0, 2, 4)))


def _current(driver) -> str:
    return driver.find_element("id", "current").get_attribute("data-guess")


def _find(driver, secret: str) -> list[tuple[str, str, str]]:
    from selenium.webdriver.support.ui import WebDriverWait

    box = driver.find_element("id", "secret")
    box.clear()
    box.send_keys(secret)
    driver.find_element("id", "find-button").click()
    WebDriverWait(driver, 30).until(
        lambda d: (
            d.find_element("id", "steps").get_attribute("data-done")
            or "error" in (d.find_element("id", "find-message").get_attribute("class") or "")
        )
    )
    return [
        (
            li.get_attribute("data-guess"),
            li.get_attribute("data-score"),
            li.get_attribute("data-left"),
        )
        for li in driver.find_elements("css selector", "#steps li")
    ]


@pytest.mark.browser
def test_browser_click_through_a_line_of_play(browser, tmp_path):
    game = Game(4, 6)
    result = analyze(game, "minmax", tree=True)
    page = tmp_path / "tree.html"
    page.write_text(to_html(result), encoding="utf-8")
    _open(browser, page)
    assert browser.title == "[4,6] minmax, all codes: strategy explorer"
    assert _current(browser) == "1122"
    pegs = browser.find_elements("css selector", "#current .peg")
    assert [p.value_of_css_property("background-color") for p in pegs] == [
        _rgb(colour_of(c)) for c in (1, 1, 2, 2)
    ]
    rows = browser.find_elements("css selector", "#dist-table tr[data-guesses]")
    assert [
        (int(r.get_attribute("data-guesses")), int(r.find_element("css selector", "td.all").text))
        for r in rows
    ] == sorted(result.distribution.items())
    answers = browser.find_elements("css selector", "#answers .answer")
    assert len(answers) == sum(1 for x in game.partition("1122") if x)  # 12 and 4 0
    steps = solve(game, "6543")
    for step, after in zip(steps, steps[1:]):  # click the answer the secret gives
        assert _current(browser) == step.guess_text
        browser.find_element(
            "css selector", f'#answers button.answer[data-score="{step.score}"]'
        ).click()
        assert _current(browser) == after.guess_text
        crumbs = browser.find_elements("css selector", "#crumbs button")
        assert [c.text for c in crumbs] == [s.guess_text for s in steps[: steps.index(after) + 1]]
    assert "This is the secret: found in 5 guesses." in browser.find_element("id", "current").text
    here = browser.find_elements("css selector", "#dist-table td.here")
    assert [h.text for h in here] == ["", "", "", "", "1"]
    browser.back()  # the browser's history follows the line of play
    assert _current(browser) == steps[-2].guess_text
    browser.find_elements("css selector", "#crumbs button")[0].click()
    assert _current(browser) == "1122"
    assert (
        browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    )  # nothing fetched


@pytest.mark.browser
def test_browser_follows_a_typed_secret(browser, tmp_path):
    game = Game(4, 6)
    page = tmp_path / "tree.html"
    page.write_text(to_html(analyze(game, "entropy", tree=True)), encoding="utf-8")
    _open(browser, page)
    for secret in ("6543", "1 1 2 3", "3,6,3,2"):
        got = _find(browser, secret)
        want = [
            (s.guess_text, str(s.score), str(s.remaining))
            for s in solve(game, secret.replace(",", "").replace(" ", ""), "entropy")
        ]
        assert got == want
        assert _current(browser) == want[-1][0]
        message = browser.find_element("id", "find-message").text
        assert message == f"Found {want[-1][0]} in {len(want)} guesses."
    for bad, words in (
        ("7777", "colours are 1..6, got 7"),
        ("12", "12 has 2 digits"),
        ("", "type a secret first"),
    ):
        assert _find(browser, bad) == []
        assert words in browser.find_element("id", "find-message").text


@pytest.mark.browser
def test_browser_5_8_tree(browser, tmp_path):
    """A [5,8] page loads, and a secret needing the longest game is followed to the end."""
    game = Game(5, 8)
    result = analyze(game, "minmax", tree=True)
    page = tmp_path / "tree58.html"
    page.write_text(to_html(result), encoding="utf-8")
    _open(browser, page)
    assert browser.execute_script("return document.body.dataset.nodes") == str(
        sum(1 for _ in result.tree.walk())
    )
    deepest = max(result.tree.walk(), key=lambda x: x[0])
    secret = game.format_code(deepest[1].guess)
    got = _find(browser, secret)
    assert len(got) == result.max == 7
    assert got == [(s.guess_text, str(s.score), str(s.remaining)) for s in solve(game, secret)]
