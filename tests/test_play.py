"""Tests of mastermind.play: sessions, codemakers, and the interactive loops driven
in-process, through a pipe and through a real pseudo-terminal."""

from __future__ import annotations

import functools
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

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mastermind
from mastermind import Game, Score, ScoreError, analyze, choose_guess, solve
from mastermind.cli import main
from mastermind.game import CodeError, reference_score
from mastermind.cli.dialogue import play_codebreaker, play_codemaker
from mastermind.play import (Adversary, InconsistentAnswers, PlayError, Row, SecretCodemaker,
                             Session, minimal_conflict)

# the directory holding the package these tests import (src/ or site-packages), so that the
# subprocesses run the same build
SRC = Path(mastermind.__file__).resolve().parents[1]
G46 = Game(4, 6)
SECRETS = ["1111", "6543", "1234", "3632", "5555", "2121", "6611", "4456"]


# ---------------------------------------------------------------------- helpers
@functools.lru_cache(maxsize=None)
def _secrets_giving(game: Game, guess: int, score: Score) -> frozenset[int]:
    """Plain Python: the secrets (as colour tuples) that give ``score`` to ``guess``."""
    u = game.colours(guess)
    return frozenset(v for v in map(game.colours, game.secrets.tolist())
                     if reference_score(u, v) == score)


def brute_conflict(game: Game, rows: list[tuple[int, Score]]) -> tuple[int, ...]:
    """Plain-Python reference: the first smallest set of rows with no common secret."""
    sat = [_secrets_giving(game, game.code(g), Score(*s)) for g, s in rows]
    for size in range(1, len(rows) + 1):
        for subset in itertools.combinations(range(len(rows)), size):
            if not frozenset.intersection(*(sat[i] for i in subset)):
                return tuple(i + 1 for i in subset)
    return ()


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


def scorer(game: Game, secret: str, lies: Optional[dict[int, str]] = None,
           bad: Optional[dict[int, list[str]]] = None,
           repair: Callable[[str], Optional[str]] = lambda p: None):
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


# ---------------------------------------------------------------------- Session
@pytest.mark.parametrize("strategy,candidates_only,first", [
    ("minmax", False, None), ("entropy", False, None), ("parts", True, None),
    ("expected-size", False, "1234"), ("first-candidate", False, None)])
def test_session_plays_exactly_the_analysis_guesses(strategy, candidates_only, first):
    for secret in SECRETS:
        steps = solve(G46, secret, strategy, candidates_only=candidates_only, first=first)
        s = Session(G46, strategy, candidates_only=candidates_only, first=first)
        played = []
        while not s.solved:
            g = s.suggest()
            played.append(g)
            assert s.record(g, G46.score(g, secret)) == steps[len(played) - 1].remaining
        assert played == [step.guess for step in steps]


def test_session_state_undo_and_fix():
    s = Session(G46)
    assert s.remaining == 1296 and s.history == () and s.consistent and not s.solved
    assert s.record("1122", "1 0") == 256
    assert s.record("1344", (0, 2)) == 41
    assert s.history == (Row(G46.code("1122"), Score(1, 0)), Row(G46.code("1344"), Score(0, 2)))
    assert s.remaining_after() == [256, 41]
    assert len(s.codes()) == 41 and s.codes(2) == ["3133", "3135"]
    with pytest.raises(ValueError):
        s.candidates[0] = 5  # read-only
    assert s.undo() == Row(G46.code("1344"), Score(0, 2))
    assert s.remaining == 256 and G46.format_code(s.suggest()) == "1344"
    assert s.fix(1, "0 0") == 256 and s.history[0].score == Score(0, 0)
    assert s.undo().guess == G46.code("1122")
    with pytest.raises(PlayError, match="nothing to undo"):
        s.undo()
    with pytest.raises(PlayError, match="no row 1"):
        s.fix(1, "0 0")


def test_session_rejects_bad_input_without_recording():
    s = Session(G46)
    with pytest.raises(ScoreError, match="is not a score"):
        s.record("1122", "two")
    with pytest.raises(ScoreError, match="cannot happen"):
        s.record("1122", "3 1")
    with pytest.raises(ScoreError):
        s.record("1122", (1, 2, 3))
    with pytest.raises(CodeError):
        s.record("7777", "0 0")
    assert s.history == ()
    s.record("1122", "0 0")
    with pytest.raises(PlayError, match="no row 2"):
        s.fix(2, "1 0")
    with pytest.raises(ScoreError):
        s.fix(1, "9 9")
    assert s.history[0].score == Score(0, 0)
    with pytest.raises(PlayError, match="only candidates"):
        Session(Game(4, 6, "distinct"), candidates_only=True, first="1111")


def test_a_win_on_a_guess_that_cannot_be_the_secret_is_inconsistent():
    s = Session(G46)
    s.record("1111", "0 0")
    with pytest.raises(InconsistentAnswers) as e:
        s.record("1112", "4 0")
    assert e.value.rows == (1, 2) and not s.solved and not s.consistent
    # the same through the loop: the person claims a win on a non-candidate guess
    secret = "3632"  # minmax plays 1122 1344 3526 1462 3632; 1462 is not a candidate
    steps = solve(G46, secret)
    cands, row = G46.secrets, None
    for i, step in enumerate(steps, 1):
        if step.guess not in cands:
            row = i
            break
        cands = G46.filter(cands, step.guess, step.score)
    assert row == 4
    status, text = run_breaker(G46, scorer(G46, secret, lies={row: "4 0"},
                                           repair=lambda p: f"fix {row} {steps[row - 1].score}"))
    assert status == 0 and "These answers are inconsistent" in text
    assert text.count("Solved in") == 1 and solved_count(text) == (len(steps), secret)


def test_session_after_a_win():
    s = Session(G46)
    assert s.record("3456", "4 0") == 1 and s.solved
    with pytest.raises(PlayError, match="already broken: it is 3456"):
        s.record("1111", "0 0")
    with pytest.raises(PlayError):
        s.suggest()
    s.undo()
    assert not s.solved and s.remaining == 1296


def test_inconsistent_answers_name_the_conflicting_rows():
    s = Session(G46)
    s.record("1111", "1 0")
    s.record("2222", "0 0")
    with pytest.raises(InconsistentAnswers) as e:
        s.record("1234", "0 0")
    assert e.value.rows == (1, 3) and isinstance(e.value, ValueError)
    assert "rows 1 and 3 cannot all be true" in str(e.value)
    assert len(s.history) == 3 and not s.consistent and s.conflict() == (1, 3)
    with pytest.raises(InconsistentAnswers):
        s.suggest()
    with pytest.raises(InconsistentAnswers, match="already inconsistent"):
        s.record("5555", "0 0")
    assert len(s.history) == 3
    with pytest.raises(InconsistentAnswers) as e:
        s.fix(2, "1 0")  # still inconsistent: rows 1 and 3
    assert e.value.rows == (1, 3)
    with pytest.raises(InconsistentAnswers) as e:
        s.fix(2, "0 0")
    assert s.fix(3, "1 0") == 8 and s.consistent and s.conflict() == ()
    # a single impossible row: secrets of 'distinct' have no repeated colour
    d = Session(Game(4, 6, "distinct"))
    with pytest.raises(InconsistentAnswers) as e:
        d.record("1111", "2 0")
    assert e.value.rows == (1,) and "row 1 cannot" in str(e.value)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, G46.size - 1), st.integers(0, G46.nslots - 1)),
                min_size=1, max_size=6))
def test_minimal_conflict_matches_brute_force(rows):
    rows = [(g, G46.slots[slot]) for g, slot in rows]
    assert minimal_conflict(G46, rows) == brute_conflict(G46, rows)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, G46.size - 1),
       st.lists(st.integers(0, G46.size - 1), min_size=2, max_size=7),
       st.dictionaries(st.integers(0, 6), st.integers(0, G46.nslots - 1), max_size=2))
def test_minimal_conflict_of_true_answers_with_a_few_wrong_ones(secret, guesses, wrong):
    """Mostly true answers: conflicts are larger and involve the wrong rows."""
    rows = [(g, G46.slots[wrong[i]] if i in wrong else G46.score(g, secret))
            for i, g in enumerate(guesses)]
    found = minimal_conflict(G46, rows)
    assert found == brute_conflict(G46, rows)
    if found:
        assert any(rows[i - 1][1] != G46.score(rows[i - 1][0], secret) for i in found)


def test_minimal_conflict_on_consistent_rows_of_a_real_game():
    rows = [(step.guess, step.score) for step in solve(G46, "6543")]
    assert minimal_conflict(G46, rows) == ()
    rows[1] = (rows[1][0], Score(4, 0))
    assert minimal_conflict(G46, rows) == brute_conflict(G46, rows) == (2, 3)


# ---------------------------------------------------------------------- codemakers
def test_secret_codemaker_seed_is_reproducible():
    a, b = SecretCodemaker(G46, seed=7), SecretCodemaker(G46, seed=7)
    assert a.secret == b.secret and a.reveal() == a.secret
    assert len({SecretCodemaker(G46, seed=i).secret for i in range(20)}) > 10
    assert SecretCodemaker(G46, "6543").answer("6543") == Score(4, 0)
    with pytest.raises(CodeError):
        SecretCodemaker(Game(4, 6, "distinct"), "1111")


@pytest.mark.parametrize("game", [G46, Game(4, 6, "distinct"), Game(3, 4, "black-peg"),
                                  Game(4, 4, "permutation")], ids=str)
def test_adversary_never_contradicts_itself(game):
    for seed in range(15):
        rng = random.Random(seed)
        adv = Adversary(game, seed=seed)
        while not adv.solved:
            assert len(adv.history) < 40
            # a random playable code, or (every other turn) a random candidate
            pool = adv.candidates if len(adv.history) % 2 else game.guesses
            g = int(pool[rng.randrange(pool.size)])
            before = adv.candidates
            score = adv.answer(g)
            assert adv.remaining > 0
            assert np.array_equal(adv.candidates,
                                  game.candidates((r.guess, r.score) for r in adv.history))
            if score == game.slots[game.win_slot]:  # only once nothing else is left
                assert before.tolist() == [g]
            else:  # the largest part of the candidates
                table = game.partition(g, before)
                table[game.win_slot] = 0
                assert adv.remaining == table[game.slot(score)] == table.max()
        secret = adv.reveal()
        assert secret == adv.history[-1].guess
        assert all(game.score(r.guess, secret) == r.score for r in adv.history)


def test_adversary_reveal_before_the_end_fits_every_answer():
    adv = Adversary(G46, seed=3)
    for g in ("1122", "3456", "1111"):
        adv.answer(g)
    secret = adv.reveal()
    assert secret == adv.reveal()  # stable
    assert all(G46.score(r.guess, secret) == r.score for r in adv.history)
    with pytest.raises(CodeError):
        adv.answer("0000")


def _minmax_game_lengths(codemakers) -> list[int]:
    memo: dict[tuple, int] = {}
    first = Session(G46).first
    lengths = []
    for maker in codemakers:
        cands, key, g, n = G46.secrets, (), first, 0
        while True:
            n += 1
            score = maker.answer(g)
            if score == Score(4, 0):
                break
            cands = G46.kernel.filter(g, G46.slot(score), cands)
            key += (g, score)
            if key not in memo:
                memo[key] = choose_guess(G46, cands, "minmax")
            g = memo[key]
        assert G46.score(g, maker.reveal()) == Score(4, 0)
        lengths.append(n)
    return lengths


def test_adversary_games_are_no_shorter_than_random_secrets():
    games = 300
    adversary = _minmax_game_lengths(Adversary(G46, seed=s) for s in range(games))
    random_ = _minmax_game_lengths(SecretCodemaker(G46, seed=s) for s in range(games))
    mean_adv, mean_rnd = sum(adversary) / games, sum(random_) / games
    assert max(adversary) <= 5 and max(random_) <= 5  # minmax's worst case on [4,6]
    assert mean_adv >= mean_rnd
    assert mean_adv > 4.7 and 4.2 < mean_rnd < 4.75  # exhaustive average: 4.476


# ---------------------------------------------------------------------- the computer guesses
@pytest.mark.parametrize("secret", SECRETS + [G46.format_code(int(c)) for c in
                                              random.Random(5).sample(list(G46.secrets), 6)])
def test_computer_breaks_a_scored_code_within_the_worst_case(secret):
    status, text = run_breaker(G46, scorer(G46, secret))
    count, found = solved_count(text)
    assert status == 0 and found == secret
    assert count == len(solve(G46, secret)) <= analyze(G46, "minmax").max == 5
    assert "Traceback" not in text


def test_computer_breaks_a_code_with_other_options():
    game = Game(4, 6, "distinct")
    for secret in ("1234", "6512"):
        status, text = run_breaker(game, scorer(game, secret), strategy="entropy",
                                   candidates_only=True, first="1234")
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
    expected = [forms[i % 4].format(s=step.score, p=step.score.pegs())
                for i, step in enumerate(solve(G46, "6543"))]
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
    assert "'2;1' is not a score; write '2 1', '2,1', '21', 'BBW' or '-' for none" in text
    assert ("'banana' is neither a score nor a command: write a score as '2 1', '2,1', '21' "
            "or pegs 'BBW'") in text
    assert "I guess; you answer each guess with its score" in text  # help on '?'


def test_inconsistent_answer_is_reported_and_fixed():
    secret, truth = "6543", str(G46.score("1122", "6543"))
    fixes = iter(["0 0", "fix 1", "fix 99 0 0", "history", f"fix 1 {truth}"])
    status, text = run_breaker(G46, scorer(G46, secret, lies={1: "1 0"},
                                           repair=lambda p: next(fixes)))
    assert status == 0 and "Traceback" not in text
    head, _, tail = text.partition("These answers are inconsistent")
    assert tail, text
    # the reported rows are the first smallest conflicting set of the history so far
    rows = [(G46.code(c), G46.parse_score(s)) for c, s in
            re.findall(r"guess \d+: (\S+)  score> (.*)", head)]
    expected = brute_conflict(G46, rows)
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

    for run in (lambda o: play_codebreaker(G46, input=Interrupting(), output=o),
                lambda o: play_codemaker(G46, input=Interrupting(), output=o)):
        out = io.StringIO()
        assert run(out) == 1 and out.getvalue().endswith("\nInterrupted: the game is unfinished.\n")


# ---------------------------------------------------------------------- the person guesses
def run_maker(lines: list[str], **kw) -> tuple[int, str]:
    out = io.StringIO()
    status = play_codemaker(G46, input=io.StringIO("".join(x + "\n" for x in lines)),
                            output=out, **kw)
    return status, out.getvalue()


def test_person_breaks_a_seeded_secret_with_hints():
    secret = G46.format_code(SecretCodemaker(G46, seed=11).secret)
    steps = solve(G46, secret)
    first_cands = G46.filter(G46.secrets, steps[0].guess, steps[0].score)
    lines = ["hint", "hint suggest", steps[0].guess_text, "hint", "hint suggest", "12",
             "7777", "frobnicate", "history"] + [s.guess_text for s in steps[1:]]
    status, text = run_maker(lines, seed=11)
    assert status == 0 and "Traceback" not in text
    assert text.endswith(f"You broke the code in {len(steps)} guesses: {secret}.\n")
    assert "1,296 codes are still possible" in text
    assert "The minmax strategy would play 1122." in text
    assert f"{first_cands.size:,} codes are still possible" in text
    assert (f"The minmax strategy would play "
            f"{G46.format_code(choose_guess(G46, first_cands, 'minmax'))}.") in text
    assert "'12' has 2 colours, a code has 4" in text and "colours are 1..6, got 7" in text
    assert "Unknown command 'frobnicate': type 'help'." in text
    for i, s in enumerate(steps, 1):
        assert re.search(rf"^\s+{i}  {s.guess_text}   {s.score} \(", text, re.M)


def test_person_gives_up_or_quits():
    secret = G46.format_code(SecretCodemaker(G46, seed=2).secret)
    status, text = run_maker(["1122", "give up"], seed=2)
    assert status == 0 and text.endswith(
        f"You gave up after 1 guess. The secret was {secret}.\n")
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

        def policy(prompt: str) -> Optional[str]:
            m = re.search(r"guess (\d+)> $", prompt)
            assert m
            rows = re.findall(r"^\s+(\d+)  (\d{4})   (\d \d) \(", out.getvalue(), re.M)
            if len(rows) > len(tracker.history):
                tracker.record(rows[-1][1], rows[-1][2])
            return G46.format_code(tracker.suggest())

        status = play_codemaker(G46, adversary=True, seed=seed,
                                input=Person(out, policy), output=out)
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
        f"Solved in {len(solve(G46, '6543', 'entropy'))} guesses: the secret is 6543.\n")
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


@pytest.mark.parametrize("argv,message", [
    (["--codemaker", "--secret", "1234"], "--secret is for the computer as codebreaker"),
    (["--seed", "3"], "--seed only applies with --codemaker"),
    (["--secret", "7777"], "colours are 1..6, got 7"),
    (["--secret", "1111", "--variant", "distinct"], "1111 cannot be a secret"),
    (["-n", "0"], "pegs must be between 1 and 8"),
    (["--strategy", "nope"], "invalid choice: 'nope'"),
    (["--first", "1111", "--candidates-only", "--variant", "distinct"], "not a candidate"),
    (["--seed", "x", "--codemaker"], "invalid int value"),
])
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
    done = subprocess.run(cmd + ["--secret", "1234"], input="", capture_output=True,
                          text=True, env=_env(), timeout=60)
    assert done.returncode == 0 and done.stdout.endswith("the secret is 1234.\n")
    done = subprocess.run(cmd, input="1 0\nBBX\n", capture_output=True, text=True,
                          env=_env(), timeout=60)
    assert done.returncode == 1 and done.stderr == ""
    assert "'BBX' is neither a score nor a command" in done.stdout
    assert done.stdout.endswith("End of input: the game is unfinished.\n")


# ---------------------------------------------------------------------- pseudo-terminal
pexpect = pytest.importorskip("pexpect")


def spawn(*args: str):
    child = pexpect.spawn(sys.executable, ["-m", "mastermind", "play", *args], env=_env(),
                          encoding="utf-8", timeout=30, dimensions=(40, 200))
    return child


def test_pty_full_game_with_a_mistake_and_a_fix():
    child = spawn()
    secret, n = "3632", 0
    lied = fixed = False
    while True:
        i = child.expect([r"guess (\d+): (\d{4})[^\n]*score> ", r"or undo> ",
                          r"Solved in (\d+) guesses: your secret is (\d{4})\."])
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
