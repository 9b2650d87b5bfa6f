"""Exhaustive analysis: published numbers, brute-force cross-checks, tree and trace agree."""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import reference as ref

from mastermind import Game, Strategy, analyze, solve
from mastermind.analysis import _walk
from mastermind.analysis.exhaustive import first_guess_table
from mastermind.kernel import _symmetry

KNOWN = json.loads((Path(__file__).parent / "known_answers.json").read_text())
STRATEGIES = ["minmax", "entropy", "parts", "expected-size", "first-candidate"]


def _id(e):
    return (
        f"{e['pegs']}x{e['colours']}-{e.get('variant', 'classic')}-{e['strategy']}"
        f"{'-co' if e['candidates_only'] else ''}{'-' + e['first'] if e['first'] else ''}"
    )


@pytest.mark.parametrize(
    "entry",
    [pytest.param(e, marks=[pytest.mark.slow] if e.get("slow") else [], id=_id(e)) for e in KNOWN],
)
def test_published_results(entry):
    game = Game(entry["pegs"], entry["colours"], entry.get("variant", "classic"))
    a = analyze(
        game, entry["strategy"], candidates_only=entry["candidates_only"], first=entry["first"]
    )
    assert game.format_code(a.first_guess) == entry["first_guess"]
    assert a.total == entry["total"]
    assert a.secrets == game.secrets.size
    if "max" in entry:
        assert a.max == entry["max"]
    if "distribution" in entry:
        assert {str(d): c for d, c in a.distribution.items()} == entry["distribution"]


def test_minmax_4_6_details():
    a = analyze(Game(4, 6), "minmax")
    assert a.distribution == {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}
    assert a.average == Fraction(5801, 1296) and round(float(a.average), 3) == 4.476
    j = a.to_json()
    assert j["average_fraction"] == "5801/1296" and j["first_guess"] == "1122"
    assert j["distribution"] == {"1": 1, "2": 6, "3": 62, "4": 533, "5": 694}


SMALL = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (3, 4), (4, 3), (5, 2), (1, 4), (4, 2)]


@pytest.mark.parametrize("n,k", SMALL)
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("candidates_only", [False, True])
def test_small_games_against_brute_force(n, k, strategy, candidates_only):
    game = Game(n, k)
    a = analyze(game, strategy, candidates_only=candidates_only, jobs=1)
    first, expect, _ = ref.analyze(*ref.mastermind(n, k), strategy, candidates_only)
    assert a.distribution == expect and game.colours(a.first_guess) == first


@pytest.mark.parametrize("first", ["1212", "1233", "2111"])
def test_given_first_guess_against_brute_force(first):
    n, k = 4, 3
    game = Game(n, k)
    a = analyze(game, "entropy", first=first)
    _, expect, _ = ref.analyze(*ref.mastermind(n, k), "entropy", first=tuple(int(c) for c in first))
    assert a.distribution == expect and game.format_code(a.first_guess) == first


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tree_replay_and_solve_agree(strategy):
    game = Game(4, 4)
    a = analyze(game, strategy, tree=True)
    assert a.tree is not None and a.tree.size == game.size
    win = game.slots[game.win_slot]
    lengths = []
    for secret in range(game.size):
        node, depth = a.tree, 1
        while game.score_index(node.guess, secret) != win:
            node = node.children[game.score_index(node.guess, secret)]
            depth += 1
        lengths.append(depth)
        steps = solve(game, secret, strategy)
        assert len(steps) == depth and steps[-1].guess == secret
    assert np.bincount(lengths).tolist()[1:] == [
        a.distribution.get(d, 0) for d in range(1, a.max + 1)
    ]
    # every node's size is the number of secrets reaching it
    for _, node in a.tree.walk():
        assert node.size == sum(c.size for c in node.children.values()) + (
            1
            if game.is_secret(node.guess)
            and node.size > sum(c.size for c in node.children.values())
            else 0
        )


@pytest.mark.parametrize("strategy", ["minmax", "entropy"])
def test_jobs_do_not_change_results(strategy):
    game = Game(4, 6)
    one = analyze(game, strategy, jobs=1, tree=True)
    two = analyze(game, strategy, jobs=2, tree=True)
    assert one.distribution == two.distribution
    assert one.to_json()["tree"] == two.to_json()["tree"]


def test_solve_trace():
    game = Game(4, 6)
    steps = solve(game, "6543")
    assert [s.guess_text for s in steps][0] == "1122"
    assert steps[-1].score == (4, 0) and steps[-1].guess_text == "6543"
    cands = game.secrets
    for s in steps:  # remaining = candidates consistent with the history so far
        cands = game.filter(cands, s.guess, s.score)
        assert s.remaining == cands.size
    assert len(steps) <= 5


def test_candidates_only_first_must_be_candidate():
    with pytest.raises(ValueError, match="not a candidate"):
        analyze(Game(4, 6, "distinct"), candidates_only=True, first="1122")


def test_progress_is_reported():
    calls = []
    analyze(Game(4, 6), progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (1296, 1296)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))


def test_first_guess_table_sums():
    for row in first_guess_table(Game(3, 5)):
        assert sum(row.table) == 125


# ---------------------------------------------------------------- fast path == plain scan
# The fast path reduces each scan by symmetry (one guess per class of the colour and
# position permutations that fix the history), merges absent colours,
# bounds partial tables and shortcuts small nodes; ``plain=True`` scores every allowed guess
# in full at every node.  Whole strategy trees must be identical, tie rules included.


def _same_as_plain(game, strategy, candidates_only, first=None):
    fast = analyze(game, strategy, candidates_only=candidates_only, tree=True, first=first)
    plain = analyze(
        game, strategy, candidates_only=candidates_only, tree=True, first=first, plain=True
    )
    assert fast.first_guess == plain.first_guess
    assert fast.distribution == plain.distribution
    assert fast.to_json()["tree"] == plain.to_json()["tree"]


@pytest.mark.parametrize(
    "n,k",
    [
        (2, 2),
        (2, 3),
        (3, 2),
        (3, 3),
        (2, 5),
        (3, 4),
        (4, 3),
        (3, 5),
        (4, 4),
        (5, 3),
        (2, 8),
        (3, 6),
    ],
)
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("candidates_only", [False, True])
def test_fast_equals_plain_small_games(n, k, strategy, candidates_only):
    _same_as_plain(Game(n, k), strategy, candidates_only)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("candidates_only", [False, True])
def test_fast_equals_plain_4_6(strategy, candidates_only):
    _same_as_plain(Game(4, 6), strategy, candidates_only)


@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
def test_fast_equals_plain_5_6(strategy):
    """Large enough for every scan path: the colour-class bounds, the eight-guess lanes,
    parallel scans with more candidates than guesses (parts once went wrong there)."""
    _same_as_plain(Game(5, 6), strategy, False)


@pytest.mark.parametrize("first", ["1111", "1213", "3456"])
def test_fast_equals_plain_other_openings(first):
    for strategy in ("minmax", "entropy", "parts", "expected-size"):
        _same_as_plain(Game(4, 6), strategy, False, first=first)


@pytest.mark.parametrize(
    "variant,n,k",
    [("distinct", 4, 6), ("black-peg", 4, 4), ("bulls-and-cows", 4, 6), ("permutation", 5, 5)],
)
@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
def test_fast_equals_plain_variants(variant, n, k, strategy):
    _same_as_plain(Game(n, k, variant), strategy, False)


def test_canonical_guesses_are_orbit_minima():
    """Brute force: the orbit of a code under every (colour, position) permutation that
    fixes the history; a guess is kept exactly when it is the smallest of its orbit."""
    import itertools

    game = Game(3, 4)
    rng = np.random.default_rng(5)
    for _ in range(6):
        history = np.unique(rng.integers(0, game.size, rng.integers(0, 3))).astype(np.int32)
        hist_cols = [game.colours(h) for h in history]
        group = []
        for pi in itertools.permutations(range(3)):
            for sigma in itertools.permutations(range(1, 5)):

                def act(x, pi=pi, sigma=sigma):
                    y = [0] * 3
                    for p in range(3):
                        y[pi[p]] = sigma[x[p] - 1]
                    return tuple(y)

                if all(act(h) == h for h in hist_cols):
                    group.append(act)
        expect = [
            g for g in range(game.size) if all(game.index(a(game.colours(g))) >= g for a in group)
        ]
        got = _symmetry.canonical_guesses(game.kernel, game.guesses, history).tolist()
        assert got == expect


@pytest.mark.parametrize("n,k", [(8, 2), (7, 2), (6, 3)])
@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
def test_fast_equals_plain_long_codes(n, k, strategy):
    """n = 8 takes the generic histogram path (its cells need a 4-bit shift)."""
    _same_as_plain(Game(n, k), strategy, False)


@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
def test_fast_equals_plain_wide_codes(strategy):
    """n*k > 64: four-word codes.  The whole game is too big for the plain scan, so walk
    the subtree of the secrets consistent with two played guesses, both ways."""
    game = Game(5, 13)
    history = [game.code("1 2 3 4 5"), game.code("6 7 8 9 10")]
    secret = game.code("1 2 3 6 7")
    cands = game.candidates([(h, game.score_index(h, secret)) for h in history])
    assert cands.size == 130
    hist = np.array(history, dtype=np.int32)
    kind = Strategy(strategy).kind
    fast = _walk.walk(
        game.kernel,
        game.guesses,
        cands,
        kind,
        cands_only=False,
        shortcut_ok=True,
        depth=3,
        record=True,
        history=hist,
        symmetry=True,
        blanks=True,
    )
    plain = _walk.walk(
        game.kernel,
        game.guesses,
        cands,
        kind,
        cands_only=False,
        shortcut_ok=True,
        depth=3,
        record=True,
        history=hist,
        plain=True,
    )
    assert fast[0].tolist() == plain[0].tolist()
    assert fast[1].tolist() == plain[1].tolist()
