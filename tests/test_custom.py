"""Custom games: twoD (guess a pair of digits 0..4; each answer says whether the guess is
<= the secret in both coordinates, >= in both, or neither) and what is claimed of it
(greedy entropy needs five guesses at worst, four always suffice), agreement with the
kernel path of the built-in variants, and clear errors."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
import reference as ref

from mastermind import Game, GameError, analyze, solve
from mastermind.analysis.strategies import choose_guess, first_guess, symmetry_classes
from mastermind.custom import MAX_SLOTS, Comparison, CustomGame, two_d, two_d_score

WIN = Comparison(True, True, True)
TWO_D = [(a, b) for a in range(5) for b in range(5)]


def is_win(s):
    return s == WIN


# ---------------------------------------------------------------------- twoD
def test_two_d_greedy_entropy_needs_five_steps():
    """Greedy entropy needs five guesses at worst on twoD (the package's exact entropy
    and tie rule)."""
    game = two_d()
    result = analyze(game, "entropy")
    assert result.max == 5
    assert result.distribution == {1: 1, 2: 3, 3: 9, 4: 11, 5: 1}
    assert game.format_code(result.first_guess) == "22"
    assert analyze(game, "entropy", candidates_only=True).max == 5


def test_two_d_float_entropy_rule_agrees():
    """Another greedy entropy rule (float entropy, then a candidate, then the largest
    pair, not the smallest) played in plain Python also has worst case 5 with the same
    distribution."""

    def entropy(sizes):
        total = sum(sizes)
        return -sum(p * math.log(p, 2) for p in (v / total for v in sizes if v))

    def best(cands):
        return max(
            (entropy(collections.Counter(two_d_score(v, g) for v in cands).values()), g in cands, g)
            for g in TWO_D
        )[2]

    lengths: list[int] = []

    def play(cands, depth):
        g = best(cands)
        for s, part in ref.partition(g, cands, two_d_score).items():
            if is_win(s):
                lengths.append(depth)
            else:
                play(part, depth + 1)

    play(list(TWO_D), 1)
    assert max(lengths) == 5
    assert dict(collections.Counter(lengths)) == analyze(two_d(), "entropy").distribution


def test_two_d_four_steps_suffice_and_three_do_not():
    """A better strategy than greedy entropy, with a worst case of four guesses, exists.
    Exhaustive search (sound cuts only): 4 guesses always suffice, 3 do not."""
    assert ref.solvable(4, TWO_D, TWO_D, two_d_score, is_win)
    assert not ref.solvable(3, TWO_D, TWO_D, two_d_score, is_win)
    # and the package's own min-max strategy is such a 4-step strategy
    assert analyze(two_d(), "minmax").max == 4


@pytest.mark.parametrize("candidates_only", [False, True], ids=["all", "cands"])
@pytest.mark.parametrize("strategy", ref.STRATEGIES)
def test_two_d_matches_brute_force(strategy, candidates_only):
    game = two_d()
    g0, dist, per_secret = ref.analyze(TWO_D, TWO_D, two_d_score, is_win, strategy, candidates_only)
    result = analyze(game, strategy, candidates_only=candidates_only)
    assert game.codes[result.first_guess] == g0
    assert result.distribution == dist
    for v in TWO_D[::4]:
        steps = solve(game, v, strategy, candidates_only=candidates_only)
        assert len(steps) == per_secret[v]
        assert steps[-1].score == WIN


def test_two_d_codes_and_scores():
    game = two_d()
    assert [game.parse_code(t) for t in ("03", "0 3", "(0, 3)", "0,3")] == [3] * 4
    assert game.code((4, 4)) == 24 and game.code(24) == 24
    assert game.score("13", "24") == Comparison(True, False, False)
    assert game.parse_score("<=") == Comparison(True, False, False)
    assert game.slot(">=") == game.slot(Comparison(False, True, False))
    assert game.partition("22").tolist() == [8, 8, 8, 1]
    left = game.candidates([("22", "<="), ("33", "none")])
    assert [game.format_code(i) for i in left] == ["24", "42"]
    assert game.variant.value == "custom" and not game.symmetric
    assert symmetry_classes(game) == list(range(25))
    with pytest.raises(ValueError, match="not a code"):
        game.parse_code("55")
    with pytest.raises(ValueError, match="not a score"):
        game.parse_score("<")


# ---------------------------------------------------------------------- kernel vs table
def custom_of(n: int, k: int, variant: str) -> CustomGame:
    guesses, secrets = ref.variant_sets(n, k, variant)
    black = variant == "black-peg"
    return CustomGame(
        guesses,
        secrets,
        lambda u, v: ref.score(u, v, black),
        (n, 0),
        name=f"[{n},{k}] {variant} by hand",
    )


@pytest.mark.parametrize(
    "n,k,variant",
    [
        (3, 4, "distinct"),
        (3, 3, "black-peg"),
        (3, 4, "bulls-and-cows"),
        (2, 4, "classic"),
        (3, 3, "permutation"),
    ],
)
@pytest.mark.parametrize("strategy", ref.STRATEGIES)
def test_custom_equal_to_builtin(n, k, variant, strategy):
    game, custom = Game(n, k, variant), custom_of(n, k, variant)
    assert [custom.codes[i] for i in custom.secrets] == [game.colours(i) for i in game.secrets]
    for co in (False, True):
        a = analyze(game, strategy, candidates_only=co, tree=True)
        b = analyze(custom, strategy, candidates_only=co, tree=True)
        assert b.distribution == a.distribution
        assert custom.codes[b.first_guess] == game.colours(a.first_guess)
        assert tree_shape(b.tree, custom.codes.__getitem__) == tree_shape(a.tree, game.colours)
        assert choose_guess(custom, custom.secrets, strategy, co) == b.first_guess
        assert first_guess(custom, strategy, co) == b.first_guess


def tree_shape(node, name):
    return (
        name(node.guess),
        node.size,
        {tuple(s): tree_shape(c, name) for s, c in node.children.items()},
    )


def test_custom_game_with_slots_in_its_own_order():
    game = custom_of(3, 4, "distinct")
    builtin = Game(3, 4, "distinct")
    assert [tuple(s) for s in builtin.slots if s in game.slots] == list(game.slots)
    assert game.partition((1, 2, 3)).sum() == 24


# ---------------------------------------------------------------------- errors
def test_custom_errors(monkeypatch):
    codes = list(range(6))

    def diff(u, v):
        return (u > v) - (u < v)

    assert CustomGame(codes, codes, diff, 0).slots == (-1, 0, 1)
    with pytest.raises(GameError, match="cannot be guessed"):
        CustomGame([1, 2], [1, 2, 3], diff, 0)
    with pytest.raises(GameError, match="no end score occurs"):
        CustomGame(codes, codes, diff, 7)
    with pytest.raises(GameError, match="no end score occurs"):  # set(WIN) == {True}
        CustomGame(TWO_D, TWO_D, two_d_score, set(WIN))
    with pytest.raises(GameError, match="not the secret"):
        CustomGame(codes, codes, lambda u, v: abs(u - v) // 2, 0)
    with pytest.raises(GameError, match="could not end"):
        CustomGame(codes, codes, lambda u, v: (u == v) + (u == 3), 1)
    with pytest.raises(GameError, match="failed: TypeError"):
        CustomGame(codes, codes, lambda u, v: [u, v], 0)
    with pytest.raises(GameError, match="failed: ZeroDivisionError"):
        CustomGame(codes, codes, lambda u, v: u // v, 0)
    with pytest.raises(GameError, match="distinct scores"):
        big = list(range(MAX_SLOTS + 2))
        CustomGame(big, big, lambda u, v: (u - v) * (u != 0), 0)
    with pytest.raises(GameError, match="hashable"):
        CustomGame([[1], [2]], [[1]], diff, 0)
    with pytest.raises(GameError, match="no secrets"):
        CustomGame(codes, [], diff, 0)
    monkeypatch.setattr("mastermind.custom.MAX_CUSTOM_CODES", 5)
    with pytest.raises(GameError, match="at most 5"):
        CustomGame(codes, codes, diff, 0)


def test_several_end_scores_share_the_win_slot():
    codes = list(range(5))

    def score(u, v):
        return ("win", u) if u == v else ("lower" if u < v else "higher", 0)

    game = CustomGame(codes, codes, score, [("win", c) for c in codes])
    assert game.nslots == 3
    assert game.slots[game.win_slot] == ("win", 0)
    assert game.slot(("win", 3)) == game.win_slot
    result = analyze(game, "minmax")
    assert result.distribution == {1: 1, 2: 2, 3: 2}
    assert [s.guess for s in solve(game, 4, "minmax")][-1] == 4
    assert np.array_equal(game.candidates([(2, ("lower", 0))]), [3, 4])


# ---------------------------------------------------------------------- random games
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@st.composite
def random_games(draw):
    """A small game with an arbitrary score table: end score on the diagonal only."""
    size = draw(st.integers(2, 9))
    nsecrets = draw(st.integers(1, size))
    secrets = sorted(draw(st.permutations(range(size)))[:nsecrets])
    nscores = draw(st.integers(1, 4))
    table = draw(st.lists(st.integers(0, nscores - 1), min_size=size * size, max_size=size * size))

    def score(u, v):
        return "win" if u == v else f"s{table[u * size + v]}"

    return list(range(size)), secrets, score


@hypothesis.settings(max_examples=80, deadline=None, derandomize=True)
@hypothesis.given(random_games(), st.sampled_from(ref.STRATEGIES), st.booleans())
def test_random_custom_games_match_brute_force(spec, strategy, candidates_only):
    guesses, secrets, score = spec
    game = CustomGame(guesses, secrets, score, "win")
    g0, dist, per_secret = ref.analyze(
        guesses, secrets, score, lambda s: s == "win", strategy, candidates_only
    )
    result = analyze(game, strategy, candidates_only=candidates_only, jobs=1)
    assert game.codes[result.first_guess] == g0
    assert result.distribution == dist
    for v in secrets:
        assert len(solve(game, v, strategy, candidates_only=candidates_only)) == per_secret[v]


# ---------------------------------------------------------------------- bounds on custom games
def test_two_d_bounds_by_solution_exists():
    """twoD: the worst-case search finds a 4-guess strategy and proves 3 never do."""
    from mastermind.worstcase.bounds import check_strategy, solution_exists, worst_case

    game = two_d()
    assert not solution_exists(game, 3)
    ok, tree = solution_exists(game, 4, witness=True)
    assert ok and check_strategy(game, tree) == 4
    w = worst_case(game)
    assert (w.lower, w.upper, w.exact) == (4, 4, True)


@pytest.mark.parametrize(
    "n,k,variant", [(3, 3, "classic"), (3, 4, "distinct"), (3, 3, "black-peg")]
)
def test_custom_bounds_equal_builtin(n, k, variant):
    from mastermind.worstcase.bounds import worst_case

    for co in (False, True):
        a = worst_case(Game(n, k, variant), candidates_only=co)
        b = worst_case(custom_of(n, k, variant), candidates_only=co)
        assert (a.lower, a.upper, a.exact) == (b.lower, b.upper, b.exact)


def test_scores_that_are_not_equal_to_themselves_are_refused():
    """A NaN score would count as a new score for every pair: refused, not analysed."""
    import itertools

    calls = itertools.count()
    codes = list(range(1, 6))
    for fn, words in [
        (lambda u, v: "win" if u == v else float("nan"), "not equal to itself"),
        (lambda u, v: "win" if u == v else (float("nan"), 1), "not equal to itself"),
        (lambda u, v: "win" if u == v else next(calls) % 3, "not deterministic"),
    ]:
        with pytest.raises(GameError, match=words):
            CustomGame(codes, codes, fn, "win")


def test_from_definition_takes_the_framework_names():
    definition = {"G": TWO_D, "V": TWO_D, "score": two_d_score, "endstates": WIN}
    game = CustomGame.from_definition(**definition)
    assert game.size == two_d().size and game.nslots == two_d().nslots
    assert CustomGame.from_seed(**definition).table.tolist() == game.table.tolist()


def test_a_custom_game_travels_as_its_table():
    import pickle

    from mastermind.custom import TableGame, TableSpec
    from mastermind.game import GameCore, GameLike

    game = two_d()
    assert isinstance(game, GameLike)
    spec = game.spec()
    assert isinstance(spec, TableSpec) and spec.heavy
    definition = spec.definition()
    assert definition["type"] == "custom" and definition["name"] == "twoD 5x5"
    assert (definition["codes"], definition["secrets"]) == (25, 25)
    assert definition["table"] == spec.token and spec.token.startswith("table/")
    assert two_d(6).spec().token != spec.token and two_d().spec().token == spec.token
    worker = pickle.loads(pickle.dumps(spec)).game()  # no score function, no code objects
    assert isinstance(worker, TableGame) and isinstance(worker, GameCore)
    assert not isinstance(worker, GameLike)  # what a worker has of a custom game
    assert (worker.size, worker.nslots, worker.win_slot, worker.symmetric) == (25, 4, 3, False)
    assert worker.secrets.tolist() == game.secrets.tolist()
    for g in (0, 7, 24):
        assert worker.kernel.histogram(g, worker.secrets).tolist() == game.partition(g).tolist()
