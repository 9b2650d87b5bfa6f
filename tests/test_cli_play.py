"""Tests of ``mastermind play`` (mastermind.cli.play and its dialogue): the interactive
loops driven in-process, through a pipe and through a real pseudo-terminal."""

from __future__ import annotations

import io
import itertools
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import pytest
import reference as ref

import mastermind
from mastermind import Game, analyze, choose_guess, solve
from mastermind.apps.play import PlayError, SecretCodemaker, Session
from mastermind.cli import main
from mastermind.cli.dialogue import play_codebreaker, play_codemaker

G46 = Game(4, 6)
SECRETS = ref.SECRETS_4_6

# the directory holding the package these tests import (src/ or site-packages), so that the
# subprocesses run the same build
SRC = Path(mastermind.__file__).resolve().parents[1]


class Person(io.TextIOBase):
    """An input stream whose next line is ``policy(prompt)``, the prompt being the last
    (unfinished) line written to ``out``; ``None`` ends the input."""

    def __init__(self, out: io.StringIO, policy: Callable[[str], Optional[str]]):
        self.out = out
        self.policy = policy
        self.asked = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        self.asked += 1
        assert self.asked < 200, "the game does not end"
        line = self.policy(self.out.getvalue().rsplit("\n", 1)[-1])
        return "" if line is None else line + "\n"


SCORE_PROMPT = re.compile(r"guess (\d+): (\S+)(?:  \(the only code left\))?  score> $")
FIX_PROMPT = "fix ROW SCORE or undo> "


def scorer(
    game: Game,
    secret: str,
    lies: Optional[dict[int, str]] = None,
    bad: Optional[dict[int, list[str]]] = None,
    repair: Callable[[str], Optional[str]] = lambda p: None,
):
    """A person scoring truthfully, except once for each row in ``lies``, and typing the
    malformed answers ``bad[row]`` before a row's real answer."""
    lies = dict(lies or {})
    bad = {r: list(v) for r, v in (bad or {}).items()}

    def policy(prompt: str) -> Optional[str]:
        m = SCORE_PROMPT.search(prompt)
        if m:
            row, code = int(m.group(1)), m.group(2)
            if bad.get(row):
                return bad[row].pop(0)
            if row in lies:
                return lies.pop(row)
            return str(game.score(code, secret))
        if prompt == FIX_PROMPT:
            return repair(prompt)
        return None

    return policy


def run_breaker(game: Game, policy, **kw) -> tuple[int, str]:
    out = io.StringIO()
    status = play_codebreaker(game, input=Person(out, policy), output=out, **kw)
    return status, out.getvalue()


def solved_count(text: str) -> tuple[int, str]:
    m = re.search(r"Solved in (\d+) guess(?:es)?: (?:your|the) secret is (\S+)\.\n\Z", text)
    assert m, text[-500:]
    return int(m.group(1)), m.group(2)


# ---------------------------------------------------------------------- the computer guesses
def test_a_claimed_win_on_a_guess_that_cannot_be_the_secret_is_repaired():
    """The person claims a win on a non-candidate guess: reported, then fixed."""
    secret = "3632"  # minmax plays 1122 1344 3526 1462 3632; 1462 is not a candidate
    steps = solve(G46, secret)
    cands, row = G46.secrets, None
    for i, step in enumerate(steps, 1):
        if step.guess not in cands:
            row = i
            break
        cands = G46.filter(cands, step.guess, step.score)
    assert row == 4
    status, text = run_breaker(
        G46,
        scorer(
            G46, secret, lies={row: "4 0"}, repair=lambda p: f"fix {row} {steps[row - 1].score}"
        ),
    )
    assert status == 0 and "These answers are inconsistent" in text
    assert text.count("Solved in") == 1 and solved_count(text) == (len(steps), secret)


@pytest.mark.parametrize(
    "secret",
    SECRETS + [G46.format_code(int(c)) for c in random.Random(5).sample(list(G46.secrets), 6)],
)
def test_computer_breaks_a_scored_code_within_the_worst_case(secret):
    status, text = run_breaker(G46, scorer(G46, secret))
    count, found = solved_count(text)
    assert status == 0 and found == secret
    assert count == len(solve(G46, secret)) <= analyze(G46, "minmax").max == 5
    assert "Traceback" not in text


def test_computer_breaks_a_code_with_other_options():
    game = Game(4, 6, "distinct")
    for secret in ("1234", "6512"):
        status, text = run_breaker(
            game, scorer(game, secret), strategy="entropy", candidates_only=True, first="1234"
        )
        count, found = solved_count(text)
        assert status == 0 and found == secret
        assert count == len(solve(game, secret, "entropy", candidates_only=True, first="1234"))


def test_score_forms_all_accepted():
    forms = ["{s.black} {s.white}", "{s.black},{s.white}", "{s.black}{s.white}", "{p}"]
    turn = itertools.count()

    def policy(prompt: str) -> Optional[str]:
        m = SCORE_PROMPT.search(prompt)
        score = G46.score(m.group(2), "6543")
        return forms[next(turn) % 4].format(s=score, p=score.pegs())

    status, text = run_breaker(G46, policy)
    assert status == 0 and solved_count(text) == (len(solve(G46, "6543")), "6543")
    expected = [
        forms[i % 4].format(s=step.score, p=step.score.pegs())
        for i, step in enumerate(solve(G46, "6543"))
    ]
    assert re.findall(r"score> (.*)", text) == expected and len(expected) == 5


def test_malformed_scores_are_asked_again():
    bad = ["", "x", "5 0", "3 1", "2 1 0", "BWB", "-1 0", "2;1", "12345", "b w", "4 1", "banana"]
    status, text = run_breaker(G46, scorer(G46, "6543", bad={2: bad, 4: ["?"]}))
    assert status == 0 and solved_count(text) == (len(solve(G46, "6543")), "6543")
    assert "Traceback" not in text
    assert text.count("guess 2: ") == len(bad) + 1  # re-asked once per malformed answer
    assert "'5 0' is not a possible score: blacks + whites is at most 4" in text
    assert "'3 1' is not a possible score: 3 blacks and 1 white cannot happen" in text
    assert "'BWB': write the blacks first" in text
    assert "'2;1' is not a score; write '2 1', '2,1', '21' or pegs 'BBW' ('-' for none)" in text
    assert (
        "'banana' is neither a score nor a command: write a score as '2 1', '2,1', '21' "
        "or pegs 'BBW'"
    ) in text
    assert "I guess; you answer each guess with its score" in text  # help on '?'


def test_inconsistent_answer_is_reported_and_fixed():
    secret, truth = "6543", str(G46.score("1122", "6543"))
    fixes = iter(["0 0", "fix 1", "fix 99 0 0", "history", f"fix 1 {truth}"])
    status, text = run_breaker(
        G46, scorer(G46, secret, lies={1: "1 0"}, repair=lambda p: next(fixes))
    )
    assert status == 0 and "Traceback" not in text
    head, _, tail = text.partition("These answers are inconsistent")
    assert tail, text
    # the reported rows are the first smallest conflicting set of the history so far
    rows = [
        (G46.code(c), G46.parse_score(s))
        for c, s in re.findall(r"guess \d+: (\S+)  score> (.*)", head)
    ]
    rules = ref.game_rules(G46)
    expected = ref.minimal_conflict(rules.secrets, rows, rules.score)
    assert 1 in expected
    m = re.match(r": no secret gives them all\. Rows? ([\d, and]+) cannot all be true", tail)
    assert m and tuple(int(x) for x in re.findall(r"\d+", m.group(1))) == expected
    marked = re.findall(r"^\*\s+(\d+)\s", tail.split("At least")[0], re.M)
    assert tuple(map(int, marked)) == expected
    assert "The answers so far are inconsistent" in tail  # a score while inconsistent
    assert "Write 'fix ROW SCORE'" in tail and "no row 99: there are rows 1.." in tail
    assert f"Row 1 is now {truth}" in tail
    count, found = solved_count(text)
    assert found == secret and count >= len(rows)


def test_inconsistent_answer_is_repaired_by_undo():
    truthful = scorer(G46, "2121")
    state = {"lied": False, "unwinding": False}

    def policy(prompt: str) -> Optional[str]:
        """Lie on row 1; once told of the conflict, undo back to row 1 and answer again."""
        if prompt == FIX_PROMPT:
            state["unwinding"] = True
            return "undo"
        row = int(SCORE_PROMPT.search(prompt).group(1))
        if row == 1 and not state["lied"]:
            state["lied"] = True
            return "0 0"
        if state["unwinding"] and row > 1:
            return "undo"
        state["unwinding"] = False
        return truthful(prompt)

    status, text = run_breaker(G46, policy)
    assert status == 0 and "These answers are inconsistent" in text
    assert "Took back row 1: 1122 scored 0 0 (-)." in text
    # once every row is taken back, the game replays the analysis's game
    after = text.rpartition("Took back row 1")[2]
    assert len(re.findall(r"guess \d+: \S+.*score> \d", after)) == len(solve(G46, "2121"))
    assert solved_count(text) == (len(solve(G46, "2121")), "2121")


def test_undo_on_an_empty_history_and_list():
    answers = iter(["undo", "list", "1 0", "list", "quit"])
    status, text = run_breaker(G46, lambda p: next(answers))
    assert status == 1
    assert "nothing to undo." in text and "1,296 codes possible: 1111 1112" in text
    first = G46.format_code(int(G46.filter(G46.secrets, "1122", "1 0")[0]))
    assert "... and 1,256 more" in text and f"256 codes possible: {first} " in text
    assert "... and 216 more" in text
    assert text.endswith("Game abandoned: unfinished.\n")


def test_computer_scores_itself_with_a_secret():
    out = io.StringIO()
    assert play_codebreaker(G46, secret="3632", output=out, input=io.StringIO("")) == 0
    lines = out.getvalue().splitlines()
    steps = solve(G46, "3632")
    assert lines[-1] == f"Solved in {len(steps)} guesses: the secret is 3632."
    assert [ln.split()[2] for ln in lines[1:-1]] == [s.guess_text for s in steps]


def test_end_of_input_and_interrupt_leave_the_game_unfinished():
    status, text = run_breaker(G46, scorer(G46, "6543", bad={3: [None]}))  # type: ignore
    assert status == 1 and text.endswith("End of input: the game is unfinished.\n")

    class Interrupting(io.StringIO):
        def readline(self, size=-1):
            raise KeyboardInterrupt

    for run in (
        lambda o: play_codebreaker(G46, input=Interrupting(), output=o),
        lambda o: play_codemaker(G46, input=Interrupting(), output=o),
    ):
        out = io.StringIO()
        assert run(out) == 1 and out.getvalue().endswith("\nInterrupted: the game is unfinished.\n")


# ---------------------------------------------------------------------- the person guesses
def run_maker(lines: list[str], **kw) -> tuple[int, str]:
    out = io.StringIO()
    status = play_codemaker(
        G46, input=io.StringIO("".join(x + "\n" for x in lines)), output=out, **kw
    )
    return status, out.getvalue()


def test_person_breaks_a_seeded_secret_with_hints():
    secret = G46.format_code(SecretCodemaker(G46, seed=11).secret)
    steps = solve(G46, secret)
    first_cands = G46.filter(G46.secrets, steps[0].guess, steps[0].score)
    lines = [
        "hint",
        "hint suggest",
        steps[0].guess_text,
        "hint",
        "hint suggest",
        "12",
        "7777",
        "frobnicate",
        "history",
    ] + [s.guess_text for s in steps[1:]]
    status, text = run_maker(lines, seed=11)
    assert status == 0 and "Traceback" not in text
    assert text.endswith(f"You broke the code in {len(steps)} guesses: {secret}.\n")
    assert "1,296 codes are still possible" in text
    assert "The minmax strategy would play 1122." in text
    assert f"{first_cands.size:,} codes are still possible" in text
    assert (
        f"The minmax strategy would play "
        f"{G46.format_code(choose_guess(G46, first_cands, 'minmax'))}."
    ) in text
    assert "'12' has 2 colours, a code has 4" in text and "colours are 1..6, got 7" in text
    assert "Unknown command 'frobnicate': type 'help'." in text
    for i, s in enumerate(steps, 1):
        assert re.search(rf"^\s+{i}  {s.guess_text}   {s.score} \(", text, re.M)


def test_person_gives_up_or_quits():
    secret = G46.format_code(SecretCodemaker(G46, seed=2).secret)
    status, text = run_maker(["1122", "give up"], seed=2)
    assert status == 0 and text.endswith(f"You gave up after 1 guess. The secret was {secret}.\n")
    status, text = run_maker(["1122", "quit"], seed=2)
    assert status == 1 and secret not in text.split("guess 1>")[1]
    status, text = run_maker(["1122"], seed=2)
    assert status == 1 and text.endswith("End of input: the game is unfinished.\n")
    status, text = run_maker(["help", "give up"], secret="6543", strategy="entropy")
    assert "the entropy strategy's next guess" in text and text.endswith("was 6543.\n")


def test_person_against_the_adversary():
    """Minmax play through the loop: the adversary's reveal fits every printed answer."""
    for seed in range(5):
        out = io.StringIO()
        tracker = Session(G46)

        def policy(
            prompt: str, out: io.StringIO = out, tracker: Session = tracker
        ) -> Optional[str]:
            m = re.search(r"guess (\d+)> $", prompt)
            assert m
            rows = re.findall(r"^\s+(\d+)  (\d{4})   (\d \d) \(", out.getvalue(), re.M)
            if len(rows) > len(tracker.history):
                tracker.record(rows[-1][1], rows[-1][2])
            return G46.format_code(tracker.suggest())

        status = play_codemaker(
            G46, adversary=True, seed=seed, input=Person(out, policy), output=out
        )
        text = out.getvalue()
        m = re.search(r"You broke the code in (\d+) guesses: (\d{4})\.\n\Z", text)
        assert status == 0 and m, text
        rows = re.findall(r"^\s+\d+  (\d{4})   (\d \d) \(", text, re.M)
        assert len(rows) == int(m.group(1)) <= 5
        assert all(str(G46.score(g, m.group(2))) == s for g, s in rows)
    status, text = run_maker(["1122", "3456", "hint", "give up"], adversary=True, seed=1)
    secret = re.search(r"A secret that fits every answer is (\d{4})\.\n\Z", text).group(1)
    rows = re.findall(r"^\s+\d+  (\d{4})   (\d \d) \(", text, re.M)
    assert status == 0 and len(rows) == 2
    assert all(str(G46.score(g, secret)) == s for g, s in rows)
    with pytest.raises(PlayError):
        play_codemaker(G46, adversary=True, secret="1234")


# ---------------------------------------------------------------------- command line
def test_cli_play_in_process(monkeypatch, capsys):
    out = io.StringIO()
    assert main(["play", "--secret", "6543", "-s", "entropy"], out) == 0
    assert out.getvalue().endswith(
        f"Solved in {len(solve(G46, '6543', 'entropy'))} guesses: the secret is 6543.\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("1122\n112\ngive up\n"))
    out = io.StringIO()
    assert main(["play", "--codemaker", "--seed", "4", "-n", "3", "-k", "5"], out) == 0
    assert "'1122' has 4 colours, a code has 3. Try again." in out.getvalue()
    assert "You gave up after 1 guess. The secret was " in out.getvalue()
    monkeypatch.setattr(sys, "stdin", io.StringIO("2 0\n"))
    out = io.StringIO()
    assert main(["play", "--variant", "black-peg", "-n", "3", "-k", "4"], out) == 1
    assert "score> 2 0\n" in out.getvalue() and "End of input" in out.getvalue()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--codemaker", "--secret", "1234"], "--secret is for the computer as codebreaker"),
        (["--seed", "3"], "--seed only applies with --codemaker"),
        (["--secret", "7777"], "colours are 1..6, got 7"),
        (["--secret", "1111", "--variant", "distinct"], "1111 cannot be a secret"),
        (["-n", "0"], "pegs must be between 1 and 8"),
        (["--strategy", "nope"], "invalid choice: 'nope'"),
        (["--first", "1111", "--candidates-only", "--variant", "distinct"], "not a candidate"),
        (["--seed", "x", "--codemaker"], "invalid integer value"),
    ],
)
def test_cli_play_bad_options(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out = io.StringIO()
    assert main(["play", *argv], out) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert out.getvalue() == ""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_cli_play_through_a_pipe():
    cmd = [sys.executable, "-m", "mastermind", "play"]
    done = subprocess.run(
        cmd + ["--secret", "1234"], input="", capture_output=True, text=True, env=_env(), timeout=60
    )
    assert done.returncode == 0 and done.stdout.endswith("the secret is 1234.\n")
    done = subprocess.run(
        cmd, input="1 0\nBBX\n", capture_output=True, text=True, env=_env(), timeout=60
    )
    assert done.returncode == 1 and done.stderr == ""
    assert "'BBX' is neither a score nor a command" in done.stdout
    assert done.stdout.endswith("End of input: the game is unfinished.\n")


# ---------------------------------------------------------------------- pseudo-terminal
pexpect = pytest.importorskip("pexpect")


def spawn(*args: str):
    child = pexpect.spawn(
        sys.executable,
        ["-m", "mastermind", "play", *args],
        env=_env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    return child


def test_pty_full_game_with_a_mistake_and_a_fix():
    child = spawn()
    secret, n = "3632", 0
    lied = fixed = False
    while True:
        i = child.expect(
            [
                r"guess (\d+): (\d{4})[^\n]*score> ",
                r"or undo> ",
                r"Solved in (\d+) guesses: your secret is (\d{4})\.",
            ]
        )
        if i == 0:
            n += 1
            code = child.match.group(2)
            if not lied:
                child.sendline("banana")  # malformed: asked again
                child.expect("'banana' is neither a score nor a command")
                child.expect(r"score> ")
                assert code == "1122" and str(G46.score(code, secret)) != "0 0"
                child.sendline("0 0")  # a wrong score
                lied = True
                continue
            child.sendline(str(G46.score(code, secret)))
        elif i == 1:
            child.sendline("history")
            child.expect(r"or undo> ")
            child.sendline(f"fix 1 {G46.score('1122', secret)}")
            child.expect(r"Row 1 is now")
            fixed = True
        else:
            assert child.match.group(2) == secret and fixed
            break
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_pty_codemaker_game_and_clean_endings():
    secret = G46.format_code(SecretCodemaker(G46, seed=9).secret)
    child = spawn("--codemaker", "--seed", "9")
    for step in solve(G46, secret):
        child.expect(r"guess \d+> ")
        child.sendline(step.guess_text)
    child.expect(rf"You broke the code in \d+ guesses: {secret}\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    child = spawn("--adversary", "--seed", "1")  # Ctrl-C
    child.expect(r"guess 1> ")
    child.sendline("1122")
    child.expect(r"guess 2> ")
    child.sendintr()
    child.expect("Interrupted: the game is unfinished.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1 and "Traceback" not in (child.before or "")

    child = spawn()  # end of input (Ctrl-D)
    child.expect(r"score> ")
    child.sendeof()
    child.expect("End of input: the game is unfinished.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
