"""The terminal: coloured pegs, key pegs, legends and rich tables on a colour terminal;
exactly the plain text elsewhere (a pipe, NO_COLOR, TERM=dumb); the progress bar."""

from __future__ import annotations

import io
import re

import pytest

from mastermind import Game, solve
from mastermind.cli import main
from mastermind.cli.progress import HONEST_FRACTION, HONEST_SECONDS, ProgressBar, time_left
from mastermind.cli.render import KEY, PEG, wants_colour
from mastermind.views.pegs import KEY_BLACK, KEY_WHITE, colour_of

SGR = re.compile(r"\x1b\[([0-9;]*)m")


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def colour_env(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.setenv("COLUMNS", "120")


def rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return ";".join(str(int(h[i : i + 2], 16)) for i in (0, 2, 4))


def glyph_colours(line: str, glyph: str) -> list[str]:
    """The foreground colour (``R;G;B``) of every ``glyph`` on an ANSI line."""
    out, fg = [], None
    pos = 0
    for m in SGR.finditer(line + "\x1b[m"):
        for ch in line[pos : m.start()]:
            if ch == glyph:
                out.append(fg)
        params = m.group(1).split(";") if m.group(1) else ["0"]
        i = 0
        while i < len(params):
            p = params[i]
            if p == "38" and params[i + 1] == "2":
                fg = ";".join(params[i + 2 : i + 5])
                i += 5
                continue
            if p in ("0", "39"):
                fg = None
            i += 1
        pos = m.end()
    return out


def plain(text: str) -> str:
    return SGR.sub("", text)


def run(argv: list[str], out: io.StringIO) -> str:
    assert main(argv, out) == 0
    return out.getvalue()


def test_wants_colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert wants_colour(Terminal()) and not wants_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_colour(Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set (no-color.org)
    assert wants_colour(Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not wants_colour(Terminal())


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "-k", "4"],
        ["solve", "6543"],
        ["solve", "3 10 1 2", "-k", "10"],
        ["first-guesses"],
        ["bound", "-n", "3", "-k", "3"],
        ["compare", "-k", "3", "--no-seconds"],
        ["solve", "121", "-n", "3", "-k", "3", "--variant", "black-peg"],
    ],
)
@pytest.mark.parametrize("why", ["NO_COLOR", "TERM=dumb"])
def test_no_colour_terminal_gets_the_plain_text(argv, why, monkeypatch):
    if why == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("TERM", "dumb")
    seconds = re.compile(r"\d+\.\d+ s\b")
    tty, pipe = run(argv, Terminal()), run(argv, io.StringIO())
    assert "\x1b" not in tty
    assert seconds.sub("", tty) == seconds.sub("", pipe)


def test_solve_on_a_colour_terminal(colour_env):
    game = Game(4, 6)
    text = run(["solve", "6543"], Terminal())
    lines = text.splitlines()
    legend = lines[0]
    assert plain(legend).split() == [
        "colours:",
        "1",
        PEG,
        "2",
        PEG,
        "3",
        PEG,
        "4",
        PEG,
        "5",
        PEG,
        "6",
        PEG,
    ]
    assert glyph_colours(legend, PEG) == [rgb(colour_of(c)) for c in range(1, 7)]
    steps = solve(game, "6543")
    rows = [ln for ln in lines if re.match(r"\s*\d+\s+\d{4}\s", plain(ln))]
    assert len(rows) == len(steps)
    for ln, step in zip(rows, steps):
        cells = plain(ln).split()
        assert cells[1] == step.guess_text and cells[-1] == str(step.remaining)
        colours = glyph_colours(ln, PEG)  # code pegs first, then the key pegs
        assert colours[:4] == [rgb(colour_of(c)) for c in game.colours(step.guess)]
        keys = colours[4:]
        assert keys == [rgb(KEY_BLACK)] * step.score.black + [rgb(KEY_WHITE)] * step.score.white
    assert plain(text).rstrip().endswith("solved in 5 guesses")


def test_tables_on_a_colour_terminal(colour_env):
    text = plain(run(["compare", "--pools", "all"], Terminal()))
    assert "─" in text  # a rich table
    rows = {
        ln.split()[0]: ln.split()
        for ln in text.splitlines()
        if ln.split() and ln.split()[0] in ("minmax", "parts")
    }
    assert rows["minmax"][1:3] == ["all", "1122"]
    text = plain(run(["analyze"], Terminal()))
    assert "average 4.4761 (5801/1296), max 5" in text
    counts = [ln.split()[:2] for ln in text.splitlines() if re.match(r"\s+\d\s+\d", ln)]
    assert counts == [["1", "1"], ["2", "6"], ["3", "62"], ["4", "533"], ["5", "694"]]
    text = plain(run(["first-guesses"], Terminal()))
    assert re.search(r"1122\s+" + PEG + r"(\s+" + PEG + r"){3}\s+256\s+2\.885", text)
    text = plain(run(["bound", "-n", "3", "-k", "3"], Terminal()))
    assert "4: a strategy needing at most 4 guesses exists; none with 3" in text


def test_black_peg_keys(colour_env):
    text = run(["solve", "121", "-n", "3", "-k", "3", "--variant", "black-peg"], Terminal())
    last = [ln for ln in text.splitlines() if "121" in plain(ln)][-1]
    assert plain(last).split()[5] == "3"  # number, code, its three pegs, blacks only
    assert glyph_colours(last, KEY)[3:] == [rgb(KEY_BLACK)] * 3


def test_time_left_is_shown_only_when_honest():
    assert time_left(50, 100, HONEST_SECONDS - 0.1) is None  # too early
    assert time_left(int(HONEST_FRACTION * 1000) - 1, 1000, 60.0) is None  # too little done
    assert time_left(250, 1000, 10.0) == pytest.approx(30.0)  # the whole run's rate
    assert time_left(0, 1000, 100.0) is None and time_left(5, 0, 100.0) is None


def test_progress_bar(colour_env):
    quiet = io.StringIO()
    bar = ProgressBar("x", stream=quiet, delay=0)
    bar(1, 2)
    bar.close()
    assert quiet.getvalue() == "" and not bar.shown  # not a terminal: nothing
    tty = Terminal()
    bar = ProgressBar("[4,6] minmax", stream=tty, delay=0)
    bar(0, 1296)
    bar(648, 1296)
    assert bar.shown
    bar.close()
    text = plain(tty.getvalue())
    assert "[4,6] minmax" in text and "648/1,296 secrets" in text and "/s" in text
    assert "estimating" in text and "left" not in text  # too early for an estimate
    off = Terminal()
    bar = ProgressBar("x", stream=off, delay=0, enabled=False)
    bar(1, 2)
    bar.close()
    assert off.getvalue() == ""


# ---------------------------------------------------------------------- a real terminal
pexpect = pytest.importorskip("pexpect")


def _env(**changes: str | None) -> dict[str, str]:
    import os
    import sys
    from pathlib import Path

    import mastermind

    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(mastermind.__file__).resolve().parents[1])
    env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "COLUMNS": "100"})
    env.pop("NO_COLOR", None)
    for k, v in changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    env["_PY"] = sys.executable
    return env


def _spawn(args: list[str], **env: str | None):
    e = _env(**env)
    return pexpect.spawn(
        e["_PY"],
        ["-m", "mastermind", "play", *args],
        env=e,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 100),
    )


def test_pty_play_shows_pegs():
    game = Game(4, 6)
    child = _spawn(["--secret", "6543"])
    child.expect(pexpect.EOF)
    text = child.before.replace("\r\n", "\n")
    lines = text.splitlines()
    assert glyph_colours(lines[1], PEG) == [rgb(colour_of(c)) for c in range(1, 7)]
    guesses = [ln for ln in lines if plain(ln).startswith("guess ")]
    steps = solve(game, "6543")
    assert len(guesses) == len(steps)
    for ln, step in zip(guesses, steps):
        assert plain(ln).startswith(f"guess {steps.index(step) + 1}: {step.guess_text} ")
        colours = glyph_colours(ln, PEG)
        assert colours[:4] == [rgb(colour_of(c)) for c in game.colours(step.guess)]
        assert colours[4:] == (
            [rgb(KEY_BLACK)] * step.score.black + [rgb(KEY_WHITE)] * step.score.white
        )
    assert lines[-1] == "Solved in 5 guesses: the secret is 6543."


def test_pty_game_with_history_in_colour():
    game, secret = Game(4, 6), "3632"
    child = _spawn([])
    child.expect("colours:")
    turns = 0
    while True:
        i = child.expect([r"guess (\d+): (\d{4})([^\n]*)score> ", r"Solved in (\d+) guesses"])
        if i == 1:
            break
        turns += 1
        code, shown = child.match.group(2), child.match.group(3)
        assert "\x01" not in shown and "\x02" not in shown  # readline's markers are hidden
        assert glyph_colours(shown, PEG) == [rgb(colour_of(int(c))) for c in code]
        if turns == 2:
            child.sendline("history")
            child.expect(r"score> ")
            table = child.before.replace("\r\n", "\n")
            row = [ln for ln in table.splitlines() if plain(ln).split()[:2] == ["1", "1122"]]
            assert row
            assert glyph_colours(row[0], PEG)[:4] == [rgb(colour_of(c)) for c in (1, 1, 2, 2)]
            child.sendline(str(game.score(code, secret)))
            continue
        child.sendline(str(game.score(code, secret)))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and turns >= 3


def test_pty_no_color_is_the_piped_text():
    import subprocess

    child = _spawn(["--secret", "6543"], NO_COLOR="1")
    child.expect(pexpect.EOF)
    on_tty = child.before.replace("\r\n", "\n")
    e = _env()
    piped = subprocess.run(
        [e["_PY"], "-m", "mastermind", "play", "--secret", "6543"],
        input="",
        capture_output=True,
        text=True,
        env=e,
        timeout=60,
    ).stdout
    assert "\x1b" not in on_tty and on_tty == piped
