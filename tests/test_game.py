"""Game definitions: indices, slots, parsing and formatting, validation."""

import numpy as np
import pytest
import reference as ref

from mastermind import CodeError, Game, GameError, Score, ScoreError
from mastermind.game import MAX_CODES


def test_indices_are_lexicographic():
    g = Game(4, 6)
    assert g.parse_code("1111") == 0 and g.parse_code("1112") == 1
    assert g.parse_code("6666") == 1295
    assert [g.colours(i) for i in range(g.size)] == ref.codes(4, 6)


def test_slots_for_n4():
    assert [tuple(s) for s in Game(4, 6).slots] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
        (2, 1),
        (2, 2),
        (3, 0),
        (4, 0),
    ]
    assert Game(4, 6).win_slot == 13


def test_partition_tables_of_two_openings():
    """[4,6]: how 1111 and 1122 split the 1296 secrets, score slot by score slot."""
    g = Game(4, 6)
    assert g.partition("1111").tolist() == [625, 0, 0, 0, 0, 500, 0, 0, 0, 150, 0, 0, 20, 1]
    assert g.partition("1122").tolist() == [256, 256, 96, 16, 1, 256, 208, 36, 0, 114, 32, 4, 20, 1]


@pytest.mark.parametrize("text", ["1 10 3 2", "1,10,3,2", " 1, 10 ,3 2 "])
def test_separated_codes_for_many_colours(text):
    g = Game(4, 10)
    assert g.colours(g.parse_code(text)) == (1, 10, 3, 2)
    assert g.format_code(g.parse_code(text)) == "1 10 3 2"


def test_code_forms_agree():
    g = Game(4, 6)
    assert g.code("1122") == g.code((1, 1, 2, 2)) == g.code(g.index([1, 1, 2, 2])) == 7
    assert g.format_code(7) == "1122"


@pytest.mark.parametrize(
    "text,why",
    [
        ("", "empty"),
        ("112", "has 3 digits"),
        ("11223", "has 5 digits"),
        ("1 1 2", "has 3 colours"),
        ("1172", "1..6"),
        ("11a2", "not a code"),
        ("1 1 2 0", "1..6"),
    ],
)
def test_bad_codes(text, why):
    with pytest.raises(CodeError, match=why):
        Game(4, 6).parse_code(text)


def test_bad_code_index():
    with pytest.raises(CodeError):
        Game(4, 6).code(1296)
    with pytest.raises(CodeError):
        Game(4, 6).code(-1)


@pytest.mark.parametrize(
    "text,score",
    [
        ("2 1", (2, 1)),
        ("2,1", (2, 1)),
        ("21", (2, 1)),
        ("BBW", (2, 1)),
        ("bbw", (2, 1)),
        ("-", (0, 0)),
        ("0 0", (0, 0)),
        ("4 0", (4, 0)),
        ("WWWW", (0, 4)),
        (" 1 / 2 ", (1, 2)),
    ],
)
def test_score_parsing(text, score):
    assert Game(4, 6).parse_score(text) == score


@pytest.mark.parametrize(
    "text,why",
    [
        ("3 1", "cannot happen"),
        ("3 2", "at most 4"),
        ("abc", "not a score"),
        ("2", "not a score"),
        ("WB", "blacks first"),
        ("2 1 1", "not a score"),
        ("", "not a score"),
    ],
)
def test_bad_scores(text, why):
    with pytest.raises(ScoreError, match=why):
        Game(4, 6).parse_score(text)


def test_score_and_pegs_format():
    assert str(Score(2, 1)) == "2 1" and Score(2, 1).pegs() == "BBW" and Score(0, 0).pegs() == "-"


@pytest.mark.parametrize(
    "args,why",
    [
        ((0, 6), "pegs"),
        ((9, 2), "pegs"),
        ((4, 0), "colours"),
        ((4, 17), "colours"),
        ((8, 16), "at most"),
        ((4.0, 6), "integer"),
        ((True, 6), "integer"),
        ((4, 6, "nope"), "unknown variant"),
        ((5, 4, "distinct"), "pegs <= colours"),
        ((4, 5, "permutation"), "pegs == colours"),
    ],
)
def test_bad_games(args, why):
    with pytest.raises(GameError, match=why):
        Game(*args)


def test_limit_is_stated():
    assert MAX_CODES == 2**24
    assert Game(8, 2).size == 256


def test_candidates_from_history():
    g = Game(4, 6)
    secret = g.code("6543")
    history = [(guess, g.score(guess, "6543")) for guess in ("1122", "3345", "3454")]
    cands = g.candidates(history)
    assert secret in cands.tolist()
    brute = [
        v
        for v in range(g.size)
        if all(ref.score(g.colours(g.code(u)), g.colours(v)) == tuple(s) for u, s in history)
    ]
    assert cands.tolist() == brute


def test_as_indices_validates_and_sorts():
    g = Game(3, 3)
    assert g.as_indices([5, 1, 5, "111"]).tolist() == [0, 1, 5]
    with pytest.raises(CodeError):
        g.as_indices(np.array([0, 27]))


# ---------------------------------------------------------------------- the two code forms
def test_score_takes_written_codes_only():
    g = Game(4, 6)
    with pytest.raises(CodeError, match=r"score_index\(i, j\)"):
        g.score(1122, 1213)
    with pytest.raises(CodeError, match="not the integer"):
        g.score("1122", np.int32(7))
    assert g.score("1122", "1213") == g.score((1, 1, 2, 2), [1, 2, 1, 3]) == Score(1, 2)
    assert g.score_index(g.code("1122"), g.code("1213")) == Score(1, 2)
    assert g.score_index(1122, 1213) == ref.score(g.colours(1122), g.colours(1213))


@pytest.mark.parametrize(
    "value,words",
    [
        (-1, "code index -1 is out of range 0..1295"),
        (1296, "code index 1296 is out of range 0..1295"),
        (True, "a code index is an integer, not True"),
        ({1, 2, 3, 4}, "not a code: a set (unordered)"),
        ({1: 1}, "not a code: a mapping"),
        (b"1122", "not a code: b'1122' (write it as a string"),
        (None, "not a code: None"),
        (1.5, "not a code: 1.5"),
    ],
)
def test_bad_code_values(value, words):
    g = Game(4, 6)
    with pytest.raises(CodeError) as e:
        g.format_code(value) if isinstance(value, int) else g.code(value)
    assert words in str(e.value)
    if isinstance(value, int) and not isinstance(value, bool):
        with pytest.raises(CodeError, match="out of range"):
            g.colours(value)


@pytest.mark.parametrize(
    "text,words",
    [
        ("²²²²", "'²' is not a digit 0-9"),
        ("1²34", "'²' is not a digit 0-9"),
        ("١٢٣٤", "'١' is not a digit 0-9"),
        ("１２３４", "'１' is not a digit 0-9"),
        ("-1234", "has an empty field"),
        ("1234-", "has an empty field"),
        ("1,,2,3,4", "has an empty field"),
        ("1 2 3", "has 3 colours"),
        ("12", "has 2 digits"),
        ("", "empty code"),
        ("x" * 100_000, "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"),
    ],
)
def test_strict_code_parsing(text, words):
    g = Game(4, 6)
    with pytest.raises(CodeError) as e:
        g.parse_code(text)
    assert words in str(e.value) and len(str(e.value)) < 200


def test_separators_that_are_accepted():
    g = Game(4, 6)
    assert {
        g.parse_code(t)
        for t in ("1234", " 1 2 3 4 ", "1,2,3,4", "1-2-3-4", "1; 2 ;3,4", "1 , 2 - 3 4")
    } == {g.code((1, 2, 3, 4))}
    assert Game(3, 12).parse_code("1 12 3") == Game(3, 12).code((1, 12, 3))


@pytest.mark.parametrize(
    "score", [(1,), None, (1.0, 2.0), (True, 0), "٢ ١", b"2 1", (1, 2, 3), {2, 1}]
)
def test_bad_score_values(score):
    with pytest.raises(ScoreError):
        Game(4, 6).slot(score)


def test_the_one_peg_game_suggests_scores_it_can_give():
    assert Game(1, 6).score_forms() == "'1 0', '1,0', '10' or pegs 'B' ('-' for none)"
    assert "'2 1'" in Game(4, 6).score_forms()
    assert Game(2, 6).score_forms().startswith("'0 2'")  # (1, 1) cannot happen on 2 pegs
    with pytest.raises(ScoreError, match="'1 0', '1,0', '10' or pegs 'B'"):
        Game(1, 6).parse_score("x")


@pytest.mark.parametrize(
    "variant,held",
    [("bulls-and-cows", 5040), ("permutation", 24), ("classic", None), ("distinct", None)],
)
def test_variants_hold_only_their_playable_codes(variant, held):
    n, k = (4, 4) if variant == "permutation" else (4, 10)
    g = Game(n, k, variant)
    assert (None if g.universe is None else g.universe.size) == held
    if held:
        assert np.array_equal(g.universe, g.guesses) and g.digits.shape == (held, n)
        assert g.score("1123", "1234") == Score(1, 2)  # codes outside: scored in Python
        with pytest.raises(CodeError, match="cannot be played"):
            g.partition("1123")
        with pytest.raises(CodeError, match="cannot be played"):
            g.filter(np.array([g.code("1123")], dtype=np.int32), "1234", "1 2")


def test_game_needs_a_game():
    from mastermind import Session, analyze, solve
    from mastermind.checks import ArgumentError

    for call in (
        lambda: analyze("4,6"),
        lambda: analyze(None),
        lambda: Session(None),
        lambda: solve([4, 6], "1234"),
    ):
        with pytest.raises(GameError, match=r"needs a game such as mastermind.Game\(4, 6\)"):
            call()
    for kw, words in [
        ({"jobs": "2"}, "jobs must be an integer, not '2'"),
        ({"jobs": 70000}, "jobs must be between 1 and 256, not 70000"),
        ({"jobs": 0}, "between 1 and 256"),
        ({"progress": 5}, "progress must be a function"),
        ({"time_limit": -1}, "time_limit must be a positive number"),
    ]:
        with pytest.raises(ArgumentError, match=words):
            analyze(Game(2, 2), **kw)


@pytest.mark.parametrize("value", ["x", 1, 0, None, "False", [True]])
def test_candidates_only_is_a_yes_or_a_no(value):
    """``candidates_only='x'`` was taken as True (and ``0`` as False): every entry point
    that takes it wants True or False."""
    import mastermind as mm
    from mastermind.analysis.strategies import next_guess
    from mastermind.checks import ArgumentError
    from mastermind.worstcase.bounds import counting_bound
    from mastermind.worstcase.finder import find_strategy

    g = Game(2, 2)
    for call in (
        lambda: mm.analyze(g, "minmax", candidates_only=value),
        lambda: mm.solve(g, "11", candidates_only=value),
        lambda: mm.choose_guess(g, g.secrets, candidates_only=value),
        lambda: mm.first_guess(g, candidates_only=value),
        lambda: next_guess(g, g.secrets, candidates_only=value),
        lambda: mm.worst_case(g, candidates_only=value),
        lambda: mm.solution_exists(g, 3, candidates_only=value),
        lambda: counting_bound(g, candidates_only=value),
        lambda: mm.optimal(g, candidates_only=value),
        lambda: find_strategy(g, 3, candidates_only=value),
        lambda: mm.Session(g, candidates_only=value),
    ):
        with pytest.raises(ArgumentError, match="candidates_only must be True or False"):
            call()
    assert mm.analyze(g, "minmax", candidates_only=np.bool_(True)).total == 8


@pytest.mark.parametrize(
    "history, words",
    [
        (5, "a history is a sequence of \\(guess, score\\) pairs"),
        ("11", "a history is a sequence"),
        ({"11": "1 0"}, "a history is a sequence"),
        ([1], "a step of a history is a \\(guess, score\\) pair"),
        ([("11",)], "a step of a history is a"),
        ([("11", "1 0", 3)], "a step of a history is a"),
        (["11"], "a step of a history is a"),
    ],
)
def test_a_history_that_is_no_history_is_said_so(history, words):
    """A bad ``history`` raised Python's own TypeError or ValueError (``'int' object is
    not iterable``, ``not enough values to unpack``): it is a MastermindError that says
    what a history is."""
    import mastermind as mm
    from mastermind.analysis.strategies import next_guess
    from mastermind.checks import HistoryError
    from mastermind.optimum.bracket import lower_bound

    g = Game(2, 2)
    for call in (
        lambda: g.candidates(history),
        lambda: mm.optimal(g, history=history),
        lambda: lower_bound(g, history=history),
    ):
        with pytest.raises(HistoryError, match=words) as raised:
            call()
        assert isinstance(raised.value, mm.MastermindError)
    if isinstance(history, (int, str)):  # (next_guess's history: the guesses alone)
        with pytest.raises(HistoryError, match="history is the guesses played"):
            next_guess(g, g.secrets, history=history)


@pytest.mark.parametrize("variant", ["classic", "black-peg", "permutation"])
def test_a_game_travels_as_its_spec(variant):
    import pickle

    from mastermind.game import GameLike, GameSpec

    game = Game(3, 3, variant)
    assert isinstance(game, GameLike)
    spec = game.spec()
    assert spec == GameSpec(3, 3, variant) and not spec.heavy
    assert spec.definition() == {"type": "game", "n": 3, "k": 3, "variant": variant}
    again = pickle.loads(pickle.dumps(spec))
    rebuilt = again.game()
    assert rebuilt == game and rebuilt is not game
    assert again.game() is rebuilt and spec.game() is rebuilt  # built once per process
    first = int(game.guesses[0])
    assert rebuilt.partition(first).tolist() == game.partition(first).tolist()


@pytest.mark.parametrize(
    "variant, score, plain, with_pegs",
    [
        ("classic", Score(2, 1), "2 1", "2 1 (BBW)"),
        ("classic", Score(0, 0), "0 0", "0 0 (-)"),
        ("distinct", Score(0, 3), "0 3", "0 3 (WWW)"),
        ("bulls-and-cows", Score(1, 2), "1 2", "1 2 (BWW)"),
        ("permutation", Score(4, 0), "4 0", "4 0 (BBBB)"),
        ("black-peg", Score(2, 0), "2", "2"),
        ("black-peg", Score(0, 0), "0", "0"),
    ],
)
def test_a_score_is_written_as_its_variant_tells_it(variant, score, plain, with_pegs):
    game = Game(4, 6 if variant != "permutation" else 4, variant)
    assert game.format_score(score) == plain
    assert game.format_score(score, pegs=True) == with_pegs
    assert game.parse_score(plain) == score  # read back
    assert [game.parse_score(game.format_score(s)) for s in game.slots] == list(game.slots)
