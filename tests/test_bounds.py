"""Tests of mastermind.worstcase.bounds: the exact search against a plain brute force, the published
optima, witnesses checked by the independent checker, time limits."""

from __future__ import annotations

import _thread
import random
import threading

import numpy as np
import pytest
import reference as ref
from same_search import same_search

from mastermind.analysis.exhaustive import Node, analyze
from mastermind.errors import MastermindError
from mastermind.game import Game, GameError
from mastermind.worstcase import _search
from mastermind.worstcase.bounds import (
    BoundsError,
    SearchStats,
    SearchUnfinished,
    StrategyCheckError,
    Witnessed,
    check_strategy,
    counting_bound,
    solution_exists,
    worst_case,
)
from mastermind.worstcase.search import Search


# ---------------------------------------------------------------------- brute force
def brute_force(game: Game, guesses=None, candidates_only: bool = False) -> ref.WorstCase:
    """The plain exhaustive search on the game's codes, scored by the reference scorer."""
    return ref.WorstCase(*ref.game_rules(game, guesses), candidates_only=candidates_only)


def _random_subsets(game: Game, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        m = rng.randint(1, min(game.size, 12))
        out.append(sorted(rng.sample(range(game.size), m)))
    return out


# ---------------------------------------------------------------------- against brute force
@pytest.mark.parametrize("n,k", ref.TINY)
@pytest.mark.parametrize("cands_only", [False, True])
def test_optimum_matches_brute_force(n, k, cands_only):
    game = Game(n, k)
    brute = brute_force(game, candidates_only=cands_only)
    best = brute.least(game.secrets.tolist())
    for d in range(1, best + 2):
        for sym in (True, False):
            assert solution_exists(game, d, candidates_only=cands_only, symmetry=sym) is (
                d >= best
            ), (d, sym)
    w = worst_case(game, candidates_only=cands_only)
    assert (w.lower, w.upper, w.exact) == (best, best, True)
    assert check_strategy(game, w.witness, candidates_only=cands_only) == best


@pytest.mark.parametrize(
    "n,k,variant",
    [
        (3, 3, "distinct"),
        (3, 4, "distinct"),
        (3, 3, "bulls-and-cows"),
        (3, 4, "bulls-and-cows"),
        (2, 3, "black-peg"),
        (3, 3, "black-peg"),
        (3, 3, "permutation"),
        (4, 4, "permutation"),
    ],
)
@pytest.mark.parametrize("cands_only", [False, True])
def test_variants_match_brute_force(n, k, variant, cands_only):
    game = Game(n, k, variant)
    brute = brute_force(game, candidates_only=cands_only)
    best = brute.least(game.secrets.tolist())
    for sym in (True, False):
        assert solution_exists(game, best, candidates_only=cands_only, symmetry=sym)
        assert not solution_exists(game, best - 1, candidates_only=cands_only, symmetry=sym)
    w = worst_case(game, candidates_only=cands_only)
    assert (w.lower, w.upper) == (best, best)
    assert check_strategy(game, w.witness, candidates_only=cands_only) == best


@pytest.mark.parametrize("n,k", [(2, 3), (3, 3), (2, 4), (4, 2), (3, 4), (4, 3)])
@pytest.mark.parametrize("cands_only", [False, True])
def test_random_candidate_sets_match_brute_force(n, k, cands_only):
    """Arbitrary sets (no symmetry of their own), every depth, with and without the
    symmetry reduction; every True is witnessed and checked."""
    game = Game(n, k)
    brute = brute_force(game, candidates_only=cands_only)
    for cands in _random_subsets(game, 25, seed=1000 * n + k):
        best = brute.least(cands)
        for d in range(max(0, best - 2), best + 2):
            for sym in (True, False):
                got = solution_exists(
                    game,
                    d,
                    candidates=np.array(cands, dtype=np.int32),
                    candidates_only=cands_only,
                    symmetry=sym,
                    witness=True,
                )
                assert got.exists is (d >= best), (cands, d, sym)
                if got.exists and cands:
                    assert check_strategy(game, got.tree, cands, candidates_only=cands_only) <= d


@pytest.mark.parametrize("n,k", [(3, 3), (3, 4), (4, 3)])
@pytest.mark.parametrize("matrix_after", [0, 1, 1000])
def test_matrix_leaves_match_brute_force(n, k, matrix_after):
    """The d = 3 nodes' label-matrix separation checks give the plain answers."""
    game = Game(n, k)
    brute = brute_force(game)
    for cands in _random_subsets(game, 30, seed=77 + n * k):
        arr = np.array(cands, dtype=np.int32)
        best = brute.least(cands)
        for d in (best - 1, best, 3):
            if d < 0:
                continue
            search = Search(
                game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26
            )
            search.core.matrix_after = matrix_after
            assert search.run(arr, d)[0] is (d >= best), (cands, d)


@pytest.mark.parametrize("row_cap", [None, 0, 5 * 81])
def test_label_rows_kept_or_made_again_match_brute_force(row_cap):
    """The label rows a search keeps for its matrices (all of them, none, or five: the
    others made again in the node's own matrix) give the plain answers."""
    game = Game(4, 3)
    brute = brute_force(game)
    search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    search.core.matrix_after = 0
    if row_cap is not None:
        search.core.row_cap = row_cap
    for cands in _random_subsets(game, 40, seed=5):
        best = brute.least(cands)
        for d in (best - 1, best):
            if d >= 0:
                got = search.run(np.array(cands, dtype=np.int32), d)[0]
                assert got is (d >= best), (cands, d, row_cap)


TABLE_BYTES = (1 << 16) * 48
"""The memo's first table (65,536 entries of 48 bytes): a memory just past it leaves room
for a few dozen sets, so the memo lets entries go over and over."""


@pytest.mark.parametrize("n,k", [(3, 4), (4, 3)])
def test_memo_that_lets_go_matches_brute_force(n, k):
    """A memo with room for a few sets, which lets entries go to make room for new ones
    (every answer it drops is found again when needed), gives the plain answers, and a
    witness that holds."""
    game = Game(n, k)
    brute = brute_force(game)
    search = Search(
        game, game.guesses, candidates_only=False, symmetry=True, memory=TABLE_BYTES + 256
    )
    assert search.core.memo_evicts
    for cands in _random_subsets(game, 40, seed=11 + n * k):
        best = brute.least(cands)
        arr = np.array(cands, dtype=np.int32)
        for d in (best - 1, best, best + 1):
            if d >= 0:
                assert search.run(arr, d)[0] is (d >= best), (cands, d)
        if best >= 1:
            tree = search.witness(arr, best)
            assert check_strategy(game, tree, cands) <= best
    stats = search.core.stats
    assert stats["memo_evictions"] > 0 and stats["memo_evicted"] > 0
    assert stats["memo_bytes"] <= TABLE_BYTES + 256


@pytest.mark.parametrize("n,k", [(4, 6), (4, 7)])
def test_memo_size_changes_no_answer(n, k):
    """Whole games within d guesses: a memo that holds everything, one that lets entries
    go to make room, and one that stores nothing once full all answer alike."""
    game = Game(n, k)
    secrets = np.ascontiguousarray(game.secrets)
    answers = []
    for memory, evicts in ((1 << 28, True), (TABLE_BYTES + 40 << 10, True), (TABLE_BYTES, False)):
        search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory)
        search.core.memo_evicts = evicts
        answers.append([search.run(secrets, d)[0] for d in range(3, 7)])
    assert answers[0] == answers[1] == answers[2]
    assert answers[0] == [d >= {(4, 6): 5, (4, 7): 6}[(n, k)] for d in range(3, 7)]


@pytest.mark.parametrize("n,k,opening", [(3, 4, "112"), (3, 5, "123"), (4, 3, "1123")])
def test_root_tries_the_guesses_canonical_under_the_history(n, k, opening):
    """A part after an opening, its root trying one guess per class of the permutations
    fixing the opening (colours and positions together: more than the part's own
    symmetry), gives the brute force's answers and witnesses that hold, in no more
    nodes than the part's own symmetry."""
    game = Game(n, k)
    least = brute_force(game).least
    g = game.code(opening)
    for part in _history_parts(game, [opening]):
        best = least([int(c) for c in part])
        for d in (best - 1, best):
            own = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
            kept = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
            pool = kept.root_pool(np.array([g], dtype=np.int32))
            assert pool is not None and pool.size < game.guesses.size
            assert kept.run(part, d, pool=pool)[0] is own.run(part, d)[0] is (d >= best)
            assert kept.nodes <= own.nodes
        assert check_strategy(game, kept.witness(part, best), part) <= best


def test_a_root_that_tries_some_guesses_answers_for_them_alone():
    """[4,6] within 5, the root trying only some openings: no for 1111's class, yes for
    1122's (Knuth's), each opening's own answer (the guess found one of those tried);
    a no says nothing of the set: the same search then finds it solvable."""
    game = Game(4, 6)
    secrets = np.ascontiguousarray(game.secrets)
    search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    one = np.array([game.code("1111")], dtype=np.int32)
    two = np.array([game.code("1111"), game.code("1122")], dtype=np.int32)
    assert search.run(secrets, 5, tries=one) == (False, -1)
    ok, g = search.run(secrets, 5, tries=two)
    assert ok and g == game.code("1122")
    assert search.run(secrets, 5)[0] and not search.run(secrets, 4)[0]
    fresh = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    assert fresh.run(secrets, 5, tries=one) == (False, -1) and fresh.run(secrets, 5)[0]


def _history_parts(game: Game, guesses: list[str]) -> list[np.ndarray]:
    """The parts of the secrets under the guesses one after the other (every score of
    the first, then each of those parts under the second...): sets whose unplayed colours
    and positions make symmetry classes, different ones from part to part."""
    parts = [np.asarray(game.secrets, dtype=np.int32)]
    for guess in guesses:
        g = game.code(guess)
        nxt = []
        for part in parts:
            by = {}
            for c in part:
                by.setdefault(game.score_index(g, int(c)), []).append(int(c))
            nxt += [np.array(v, dtype=np.int32) for v in by.values()]
        parts = nxt
    return [p for p in parts if len(p) >= 3]


@pytest.mark.parametrize(
    "n,k,history,brute",
    [(3, 5, ["112"], True), (4, 6, ["1123"], False), (4, 7, ["1123"], False)],
)
def test_canonical_lists_change_nothing_but_time(n, k, history, brute):
    """Nodes with symmetry read their canonical guesses from lists kept for the classes
    seen last: the same answers, nodes and guesses scanned as testing every guess, on
    parts with symmetry classes of their own ([4,6] and [4,7]: more kinds of them than
    the lists kept, so lists are let go and made again); [3,5]'s answers against the
    brute force."""
    game = Game(n, k)
    kept = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    tested = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    tested.core.canonical_lists = False
    assert kept.core.canonical_lists and not tested.core.canonical_lists
    least = brute_force(game).least if brute else None
    for part in _history_parts(game, history):
        d = 1
        while not tested.run(part, d)[0]:
            assert kept.run(part, d)[0] is False
            d += 1
        assert kept.run(part, d)[0] is True
        if least is not None:
            assert d == least([int(c) for c in part])
    one, two = kept.core.stats, tested.core.stats
    for name in ("nodes", "leaves", "scanned", "false_cheap", "at_depth"):
        assert one[name] == two[name], name
    assert one["canon_hits"] > 0 and two["canon_hits"] == two["canon_misses"] == 0
    if not brute:
        assert one["canon_misses"] > 16  # more kinds than the lists kept


def test_matrix_separation_finds_the_first_separating_guess():
    """[4,5] (625 guesses: nine blocks of 64 and 49 more): the guesses a search finds
    with every d = 3 node's separation checks made through its label matrix are those
    it finds with every check made the plain way, guess by guess."""
    game = Game(4, 5)
    rng = np.random.default_rng(3)
    plain = Search(game, game.guesses, candidates_only=False, symmetry=False, memory=1 << 26)
    plain.core.matrix_after = 1 << 30
    matrix = Search(game, game.guesses, candidates_only=False, symmetry=False, memory=1 << 26)
    matrix.core.matrix_after = 0
    answers = set()
    for _ in range(40):
        m = int(rng.integers(12, 60))
        arr = np.sort(rng.choice(game.size, m, replace=False)).astype(np.int32)
        for d in (3, 4):
            got = matrix.run(arr, d)
            assert got == plain.run(arr, d), (arr.tolist(), d)
            answers.add(got[0])
    assert answers == {True, False}
    assert matrix.core.stats["leaves"] > 0


@pytest.mark.parametrize("n,k", [(3, 5), (4, 5), (5, 4), (7, 2)])
def test_label_counts_are_the_partition_tables(n, k):
    """What a d = 3 node reads from its label matrix, every guess against a set (the
    largest non-winning part, how many parts, the win, how many labels), is its
    partition table, for sets across the 32-guess groups and past 255 codes (the byte
    counters saturate); a group is given up only when every guess it wants has a part
    past the cap ([7,2]: 35 labels, more than the vector path of the classes takes)."""
    game = Game(n, k)
    rng = np.random.default_rng(n * k)
    allg = np.arange(game.size, dtype=np.int32)
    win = game.win_slot
    ngrp = game.size // 32
    for m in (1, 5, 31, 33, 64, 200, 300):
        if m > game.size:
            continue
        cands = np.sort(rng.choice(game.size, m, replace=False)).astype(np.int32)
        hist = game.kernel.histograms(allg, cands).astype(np.int64)
        nonwin = np.delete(hist, win, axis=1)
        most_ref = np.minimum(nonwin.max(axis=1), 255)
        parts_ref = (nonwin > 0).sum(axis=1)
        won_ref = (hist[:, win] > 0).astype(np.int64)
        for cap in (2, 20, 254):
            want = rng.integers(0, 1 << 32, size=ngrp, dtype=np.uint64).astype(np.uint32)
            want[::3] = 0xFFFFFFFF
            most, parts, won, full, classes = _search.label_counts(game.kernel, cands, cap, want)
            assert (classes == parts_ref + won_ref).all()
            done = np.r_[np.repeat(full.astype(bool), 32), np.ones(game.size - 32 * ngrp, bool)]
            assert (most[done] == most_ref[done]).all()
            assert (parts[done] == parts_ref[done]).all()
            assert (won[done] == won_ref[done]).all()
            for j in np.nonzero(full == 0)[0]:
                wanted = [32 * j + b for b in range(32) if (int(want[j]) >> b) & 1]
                assert all(most_ref[g] > cap for g in wanted), (m, cap, j)
                assert (most[32 * j : 32 * j + 32] == 255).all()
            if cap == 254:
                assert full.all()


@pytest.mark.parametrize("rule", ["label_classes", "label_counts"])
@pytest.mark.parametrize("n,k,largest", [(3, 5, 125), (4, 5, 300), (4, 6, 300), (5, 4, 380)])
def test_label_rules_change_nothing_but_time(rule, n, k, largest):
    """The d = 3 nodes' ranking counted in their label matrix (``label_counts``), and
    their separation checks looking only at guesses that give enough labels
    (``label_classes``): the same answers, root guesses, nodes, leaves, memo hits and
    guesses scanned as without, on random sets (to 380 codes: the counters past 255)
    and on parts with symmetry classes of their own."""
    game = Game(n, k)
    rng = random.Random(n * 100 + k)
    on = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    off = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    setattr(off.core, rule, False)
    assert getattr(on.core, rule) and not getattr(off.core, rule)
    sets = [
        np.array(sorted(rng.sample(range(game.size), rng.randint(3, largest))), dtype=np.int32)
        for _ in range(14)
    ]
    sets += _history_parts(game, ["1123"[:n] if n < 5 else "11223"])[:10]
    one, _ = same_search(on, off, sets)
    assert one["leaves"] > 0 and one["at_depth"].get(3, 0) > 0


@pytest.mark.parametrize("n,k", [(2, 4), (3, 3)])
def test_custom_guess_sets_match_brute_force(n, k):
    game = Game(n, k)
    rng = random.Random(7)
    for _ in range(12):
        pool = sorted(rng.sample(range(game.size), rng.randint(3, game.size)))
        cands = sorted(rng.sample(pool, rng.randint(1, min(8, len(pool)))))
        brute = brute_force(game, guesses=pool)
        best = brute.least(cands)
        for d in (best - 1, best):
            assert solution_exists(game, d, cands, pool) is (d >= best)


def test_candidate_that_cannot_be_guessed_is_never_found():
    game = Game(3, 3)
    assert solution_exists(game, 5, candidates=[0, 1], guesses=[1, 2]) is False
    assert solution_exists(game, 1, candidates=[0], guesses=[0]) is True
    assert solution_exists(game, 0, candidates=[]) is True


def test_no_heuristic_cut():
    """[3,9]: every one-step strategy (minmax, entropy, parts, expected size) needs 7
    guesses, so a search that only followed greedy choices would answer False for 6; the
    exact search finds a 6-guess strategy (checked) and proves 5 impossible."""
    game = Game(3, 9)
    for strategy in ("minmax", "entropy", "parts", "expected-size"):
        assert analyze(game, strategy).max == 7
    found = solution_exists(game, 6, witness=True)
    assert found.exists and check_strategy(game, found.tree) == 6
    assert solution_exists(game, 5) is False


def test_candidates_only_is_a_restriction():
    """[4,6]: 5 guesses suffice, but not when only candidates may be played (so pruning
    to candidates would be a heuristic cut)."""
    game = Game(4, 6)
    assert solution_exists(game, 5, candidates_only=True) is False
    assert solution_exists(game, 6, candidates_only=True) is True


# ---------------------------------------------------------------------- published results
def _optimum(n: int, k: int, cands_only: bool = False):
    w = worst_case(Game(n, k), candidates_only=cands_only)
    assert w.exact and w.status == "exact"
    assert check_strategy(w.game, w.witness, candidates_only=cands_only) == w.upper
    return w


def test_knuth_4_6_both_directions():
    game = Game(4, 6)
    stats = SearchStats()
    assert solution_exists(game, 4, stats=stats) is False
    assert stats.nodes >= 1
    found = solution_exists(game, 5, witness=True)
    assert isinstance(found, Witnessed) and found.exists
    assert check_strategy(game, found.tree) == 5
    w = _optimum(4, 6)
    assert (w.lower, w.upper, w.lower_proof) == (5, 5, "search")
    assert w.summary() == "5: a strategy needing at most 5 guesses exists; none with 4"


@pytest.mark.parametrize("n,k,p", [(4, 5, 5), (4, 7, 6)])
def test_jaeger_peczarski(n, k, p):
    w = _optimum(n, k)
    assert w.upper == p


@pytest.mark.parametrize("k", range(5, 10))
def test_three_pegs_formula(k):
    assert _optimum(3, k).upper == (k - 1) // 3 + 4


@pytest.mark.slow
@pytest.mark.parametrize("k", range(10, 17))
def test_three_pegs_formula_slow(k):
    assert _optimum(3, k).upper == (k - 1) // 3 + 4


@pytest.mark.slow
def test_bulls_and_cows_four_ten_needs_seven():
    """Slovesnov's published worst case of Bulls and Cows."""
    w = worst_case(Game(4, 10, "bulls-and-cows"))
    assert (w.lower, w.upper) == (7, 7)
    assert check_strategy(w.game, w.witness) == 7


def test_five_eight_needs_six():
    """[5,8]: 5 guesses never suffice (the lower half of the open question)."""
    assert solution_exists(Game(5, 8), 5) is False


@pytest.mark.slow
@pytest.mark.parametrize(
    "n,k,p", [(4, 8, 6), (5, 5, 5), (6, 4, 5), (4, 10, 7), (5, 6, 6), (5, 7, 6), (6, 5, 6)]
)
def test_beyond_the_table(n, k, p):
    """The frontier of docs/bounds.md: p(5,6) and p(5,7) had no published value (the
    published strategies give 6 and 7)."""
    assert _optimum(n, k).upper == p


def test_candidates_only_optima():
    assert _optimum(4, 6, cands_only=True).upper == 6
    assert _optimum(3, 5, cands_only=True).upper == 5


def test_counting_bound():
    assert counting_bound(Game(4, 6)) == 4  # 1 + 13 + 169 + 2197 >= 1296 > 183
    assert counting_bound(Game(2, 2)) == 3
    assert counting_bound(Game(3, 3), candidates=[0]) == 1


# ---------------------------------------------------------------------- the checker
def test_checker_rejects_broken_strategies():
    game = Game(3, 3)
    ok, tree = solution_exists(game, 4, witness=True)
    assert ok and check_strategy(game, tree) == 4
    # a missing branch
    score, child = next(iter(tree.children.items()))
    del tree.children[score]
    with pytest.raises(StrategyCheckError, match="has no move"):
        check_strategy(game, tree)
    tree.children[score] = child
    # a guess outside the guess set
    with pytest.raises(StrategyCheckError, match="not an allowed guess"):
        check_strategy(game, tree, guesses=[1, 2, 3])
    # a non-candidate guess when only candidates may be played
    w = worst_case(game)
    bad = Node(w.witness.guess, game.size, dict(w.witness.children))
    some = next(c for c in bad.children.values() if c.children)
    some.guess = game.index([3, 3, 3]) if game.index([3, 3, 3]) != some.guess else 0
    with pytest.raises(StrategyCheckError):
        check_strategy(game, bad, candidates_only=True)
    with pytest.raises(StrategyCheckError, match="expected a strategy Node"):
        check_strategy(game, "1122")  # type: ignore[arg-type]


def test_checker_counts_every_guess():
    """[2,2] by hand: 11; on 1 0 play 12 (then 21 on 0 2); on 0 0 play 22."""
    game = Game(2, 2)
    s = game.slots
    tree = Node(
        game.code("11"),
        4,
        {
            s[game.slot((1, 0))]: Node(
                game.code("12"), 2, {s[game.slot((0, 2))]: Node(game.code("21"), 1)}
            ),
            s[game.slot((0, 0))]: Node(game.code("22"), 1),
        },
    )
    assert check_strategy(game, tree) == 3
    assert check_strategy(game, tree, candidates=["11", "22"]) == 2
    assert check_strategy(game, tree, candidates_only=True) == 3


# ---------------------------------------------------------------------- errors and limits
@pytest.mark.parametrize("bad", [-1, 1.5, True, "3", 101])
def test_bad_max_guesses(bad):
    with pytest.raises(BoundsError):
        solution_exists(Game(2, 2), bad)


def test_bad_arguments():
    game = Game(2, 3)
    with pytest.raises(MastermindError, match="time_limit"):  # the package's one check
        solution_exists(game, 3, time_limit=0)
    with pytest.raises(BoundsError, match="not both"):
        solution_exists(game, 3, guesses=[0, 1], candidates_only=True)
    with pytest.raises(BoundsError, match="empty"):
        solution_exists(game, 3, guesses=[])
    with pytest.raises(ValueError, match="out of range"):
        solution_exists(game, 3, candidates=[99])
    with pytest.raises(GameError, match="needs a game"):
        worst_case("4,6")  # type: ignore[arg-type]


def test_node_limit_stops_the_search():
    with pytest.raises(SearchUnfinished) as e:
        solution_exists(Game(4, 9), 6, node_limit=300)
    assert e.value.reason == "node-limit" and e.value.nodes >= 300


def test_time_limit_gives_partial_bounds():
    """The cheap proof first (5 guesses cannot do: refuted in a fraction of a second),
    then the heuristic's 7, then the undecided 6, cut by the limit."""
    w = worst_case(Game(4, 9), time_limit=2.0)
    assert w.status == "time-limit" and not w.exact
    assert (w.lower, w.lower_proof, w.upper, w.upper_source) == (6, "search", 7, "minmax strategy")
    assert (5, False) in [(st.guesses, st.exists) for st in w.steps]
    assert w.steps[-1].exists is None
    assert check_strategy(w.game, w.witness) == 7


@pytest.mark.parametrize("limit", [0.001, 0.5])
def test_time_limit_covers_the_heuristic(limit):
    """[6,9]'s minmax analysis takes a minute: a short limit stops it too (the upper
    bound is then the trivial one, not the strategy's)."""
    w = worst_case(Game(6, 9), time_limit=limit)
    assert w.status == "time-limit" and w.upper_source == "trivial"
    assert w.upper == 9**6 and w.witness is None and w.lower >= 5


def test_ctrl_c_stops_the_search():
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(SearchUnfinished) as e:
            solution_exists(Game(5, 8), 6)
    finally:
        timer.cancel()
    assert e.value.reason == "interrupted"
