"""Tests of mastermind.apps.play: sessions, minimal conflicts and the codemakers."""

from __future__ import annotations

import random

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from mastermind import Game, Score, ScoreError, choose_guess, solve
from mastermind.apps.play import (
    Adversary,
    InconsistentAnswers,
    PlayError,
    Row,
    SecretCodemaker,
    Session,
    minimal_conflict,
)
from mastermind.game import CodeError

G46 = Game(4, 6)
RULES46 = ref.game_rules(G46)
SECRETS = ref.SECRETS_4_6


# ---------------------------------------------------------------------- helpers
def brute_conflict(rows: list[tuple[int, Score]]) -> tuple[int, ...]:
    """The reference's first smallest set of rows (of [4,6]) with no common secret."""
    return ref.minimal_conflict(RULES46.secrets, [(G46.code(g), s) for g, s in rows], RULES46.score)


# ---------------------------------------------------------------------- Session
@pytest.mark.parametrize(
    "strategy,candidates_only,first",
    [
        ("minmax", False, None),
        ("entropy", False, None),
        ("parts", True, None),
        ("expected-size", False, "1234"),
        ("first-candidate", False, None),
    ],
)
def test_session_plays_exactly_the_analysis_guesses(strategy, candidates_only, first):
    for secret in SECRETS:
        steps = solve(G46, secret, strategy, candidates_only=candidates_only, first=first)
        s = Session(G46, strategy, candidates_only=candidates_only, first=first)
        played = []
        while not s.solved:
            g = s.suggest()
            played.append(g)
            assert (
                s.record(g, G46.score_index(g, G46.code(secret)))
                == steps[len(played) - 1].remaining
            )
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
@given(
    st.lists(
        st.tuples(st.integers(0, G46.size - 1), st.integers(0, G46.nslots - 1)),
        min_size=1,
        max_size=6,
    )
)
def test_minimal_conflict_matches_brute_force(rows):
    rows = [(g, G46.slots[slot]) for g, slot in rows]
    assert minimal_conflict(G46, rows) == brute_conflict(rows)


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, G46.size - 1),
    st.lists(st.integers(0, G46.size - 1), min_size=2, max_size=7),
    st.dictionaries(st.integers(0, 6), st.integers(0, G46.nslots - 1), max_size=2),
)
def test_minimal_conflict_of_true_answers_with_a_few_wrong_ones(secret, guesses, wrong):
    """Mostly true answers: conflicts are larger and involve the wrong rows."""
    rows = [
        (g, G46.slots[wrong[i]] if i in wrong else G46.score_index(g, secret))
        for i, g in enumerate(guesses)
    ]
    found = minimal_conflict(G46, rows)
    assert found == brute_conflict(rows)
    if found:
        assert any(rows[i - 1][1] != G46.score_index(rows[i - 1][0], secret) for i in found)


def test_minimal_conflict_on_consistent_rows_of_a_real_game():
    rows = [(step.guess, step.score) for step in solve(G46, "6543")]
    assert minimal_conflict(G46, rows) == ()
    rows[1] = (rows[1][0], Score(4, 0))
    assert minimal_conflict(G46, rows) == brute_conflict(rows) == (2, 3)


# ---------------------------------------------------------------------- codemakers
def test_secret_codemaker_seed_is_reproducible():
    a, b = SecretCodemaker(G46, seed=7), SecretCodemaker(G46, seed=7)
    assert a.secret == b.secret and a.reveal() == a.secret
    assert len({SecretCodemaker(G46, seed=i).secret for i in range(20)}) > 10
    assert SecretCodemaker(G46, "6543").answer("6543") == Score(4, 0)
    with pytest.raises(CodeError):
        SecretCodemaker(Game(4, 6, "distinct"), "1111")


@pytest.mark.parametrize(
    "game",
    [G46, Game(4, 6, "distinct"), Game(3, 4, "black-peg"), Game(4, 4, "permutation")],
    ids=str,
)
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
            assert np.array_equal(
                adv.candidates, game.candidates((r.guess, r.score) for r in adv.history)
            )
            if score == game.slots[game.win_slot]:  # only once nothing else is left
                assert before.tolist() == [g]
            else:  # the largest part of the candidates
                table = game.partition(g, before)
                table[game.win_slot] = 0
                assert adv.remaining == table[game.slot(score)] == table.max()
        secret = adv.reveal()
        assert secret == adv.history[-1].guess
        assert all(game.score_index(r.guess, secret) == r.score for r in adv.history)


def test_adversary_reveal_before_the_end_fits_every_answer():
    adv = Adversary(G46, seed=3)
    for g in ("1122", "3456", "1111"):
        adv.answer(g)
    secret = adv.reveal()
    assert secret == adv.reveal()  # stable
    assert all(G46.score_index(r.guess, secret) == r.score for r in adv.history)
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
        assert G46.score_index(g, maker.reveal()) == Score(4, 0)
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


@pytest.mark.parametrize("limit", [-1, 0, float("nan"), float("inf"), "1", True])
def test_suggest_refuses_a_bad_time_limit(limit):
    from mastermind.checks import ArgumentError

    with pytest.raises(ArgumentError, match="time_limit"):
        Session(Game(4, 6)).suggest(time_limit=limit)
