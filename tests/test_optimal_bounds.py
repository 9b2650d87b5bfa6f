"""The optimal search's sharper cuts (docs/optimal.md, "Why every cut is sound", 8 and
later): every answer they give is the brute force's on the sets small enough for it, and
the trees the search finds are, byte for byte, the ones it found before them."""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest
import reference as ref

from mastermind import Game, optimal
from mastermind.optimum import _optimal
from mastermind.optimum.search import new_optimizer

# sha256 (first 16 hex digits) of the records (parent, slot, guess, size, depth) of the
# optimal tree of each game, as the search gave them before these cuts
TREES = {
    (3, 4, None, 0, False): "4a7a1ead12819e78",
    (3, 8, None, 0, False): "f5a17744a976e126",
    (4, 3, None, 0, False): "3affb38604d31bab",
    (4, 4, None, 0, False): "1d7786c79be881c0",
    (4, 5, None, 0, False): "2a778156a8ed9d77",
    (4, 6, None, 0, False): "efd19c297fe22c3a",
    (4, 6, None, 5, False): "133434eac1283fdb",
    (4, 6, None, 0, True): "64ea729dcab55d23",
    (5, 3, None, 0, False): "6da8f65d2e14245a",
    (5, 4, None, 0, False): "c1c2c3879e465e70",
    (6, 3, None, 0, False): "724ba1b2a247cba4",
    (4, 6, "bulls-and-cows", 0, False): "a4891461c0e88d31",
    (4, 7, "bulls-and-cows", 0, False): "728a3bc99b0ed8ad",
    (3, 4, "black-peg", 0, False): "e7e857426a37dada",
    (4, 3, "black-peg", 0, False): "4f51dd8e8966b71b",
    (4, 6, "distinct", 0, False): "19703a83e08378cb",
    (5, 5, "bulls-and-cows", 0, False): "7719de2644fb3ad4",
}


def tree_of(game, *, max_guesses=0, candidates_only=False):
    """(status, total, sha of the records, the search's statistics) of the optimum of the
    whole game, one thread."""
    search = new_optimizer(game, candidates_only=candidates_only, memory=1 << 28, threads=1)
    cands = np.asarray(game.secrets, dtype=np.int32)
    status, value, _, recs = search.run(cands, np.zeros(0, np.int32), max_guesses, 0)
    sha = hashlib.sha256(np.ascontiguousarray(recs, dtype="<i4").tobytes()).hexdigest()
    return status, value, sha[:16], search.stats


@pytest.mark.parametrize("n,k,variant,max_guesses,candidates_only", sorted(TREES, key=str))
def test_the_same_trees_as_before(n, k, variant, max_guesses, candidates_only):
    game = Game(n, k, variant) if variant else Game(n, k)
    status, _, sha, _ = tree_of(game, max_guesses=max_guesses, candidates_only=candidates_only)
    assert status == _optimal.RUN_OPTIMUM
    assert sha == TREES[n, k, variant, max_guesses, candidates_only]


def small_sets(game, rng, count, top):
    """``count`` random sorted sets of 3 to ``top`` codes of ``game``."""
    for _ in range(count):
        size = int(rng.integers(3, top + 1))
        yield np.sort(rng.choice(game.size, size, replace=False)).astype(np.int32)


@pytest.mark.parametrize("n,k", [(2, 5), (3, 3), (3, 4), (4, 3)])
def test_small_sets_against_brute_force(n, k):
    """Sets of at most the slots' count and a little more, solved by one search after
    another (its memo and its remembered splitting guesses carried over, as inside a
    search), each against the brute force, with and without a limit on the guesses."""
    game = Game(n, k)
    rules = ref.game_rules(game)
    search = _optimal.Optimizer(
        game.kernel, game.guesses, cands_only=False, symmetry=False, blanks=True, mem_limit=1 << 26
    )
    search.run(np.asarray(game.secrets, dtype=np.int32), np.zeros(0, np.int32), 0, 0)
    rng = np.random.default_rng(35 + n * 10 + k)
    for cands in small_sets(game, rng, 40, min(game.size - 1, game.kernel.nslots + 2)):
        secrets = [int(c) for c in cands]
        for d in (0, 3):
            want = ref.optimal_total(rules.guesses, secrets, rules.score, rules.end, d or None)
            status, value, _, _ = search.run(cands, np.zeros(0, np.int32), d, 0)
            if want == float("inf"):
                assert status == _optimal.RUN_ABOVE_LIMIT
            else:
                assert status == _optimal.RUN_OPTIMUM and value == want


def most_parts(rules, secrets):
    """The most non-winning parts any guess makes on ``secrets``."""
    return max(
        len({rules.score(g, s) for s in secrets if not rules.end(rules.score(g, s))})
        for g in rules.guesses
    )


def positions(game, depth):
    """The sets a history of ``depth`` guesses (12, 123, ... then 21, 231, ...: a few of
    each game's codes) leaves, largest first."""
    sets = {tuple(int(c) for c in game.secrets)}
    for _ in range(depth):
        step = set()
        for cands in sets:
            for g in (1, game.size // 3, game.size // 2):
                parts: dict = {}
                for c in cands:
                    parts.setdefault(game.score_index(g, c), []).append(c)
                step.update(tuple(p) for p in parts.values() if len(p) > 2)
        sets = step
    return sorted(sets, key=len, reverse=True)


@pytest.mark.parametrize("n,k", [(2, 4), (2, 5), (3, 3), (3, 4), (4, 3)])
def test_the_part_floor_is_never_above_the_optimum(n, k):
    """The floor a part gets before it is solved (memo, rules, the part count bounded by
    the most any guess makes on the set) against the brute force, with an empty memo and
    with the memo of the whole game's search, on random sets and the sets histories leave,
    with and without a limit on the guesses."""
    game = Game(n, k)
    rules = ref.game_rules(game)
    search = _optimal.Optimizer(
        game.kernel, game.guesses, cands_only=False, symmetry=False, blanks=True, mem_limit=1 << 26
    )
    rng = np.random.default_rng(350 + n * 10 + k)
    top = min(game.size - 1, game.kernel.nslots + 2)
    sets = [tuple(int(c) for c in s) for s in small_sets(game, rng, 20, top)]
    sets += [s for s in positions(game, 2) if len(s) <= 20][:10]
    want = {
        (s, d): ref.optimal_total(rules.guesses, list(s), rules.score, rules.end, d or None)
        for s in sets
        for d in (0, 3)
    }
    for warm in (False, True):
        if warm:
            search.run(np.asarray(game.secrets, dtype=np.int32), np.zeros(0, np.int32), 0, 0)
        for (secrets, d), best in want.items():
            b = most_parts(rules, secrets)
            cands = np.asarray(secrets, dtype=np.int32)
            floor = search.floor(cands, max_guesses=d, parts=b)
            assert _optimal.est_table(len(secrets), b, d or 100)[-1] <= floor <= best
            assert floor <= search.floor(cands, max_guesses=d, parts=b, scan=True) <= best


@pytest.mark.parametrize("n,k,first", [(3, 4, "111"), (4, 3, "1111"), (2, 6, "11")])
def test_a_given_opening_against_brute_force(n, k, first):
    """The optimum once the opening is played is the number of secrets plus the brute
    force's optimum of each part it leaves."""
    game = Game(n, k)
    rules = ref.game_rules(game)
    g = game.guess(first)
    parts: dict = {}
    for s in rules.secrets:
        parts.setdefault(rules.score(g, s), []).append(s)
    want = len(rules.secrets) + sum(
        ref.optimal_total(rules.guesses, p, rules.score, rules.end)
        for score, p in parts.items()
        if not rules.end(score)
    )
    result = optimal(game, first=first, jobs=1)
    assert result.exact and result.total == want


@pytest.mark.parametrize(
    "n,k,first", [(3, 5, "111"), (3, 6, "112"), (4, 5, "1111"), (4, 5, "1122")]
)
def test_a_given_opening_is_the_sum_of_its_positions(n, k, first):
    """The optimum once the opening is played is the number of secrets plus the optimum
    from each position it leaves (searched with no part count given: a given opening's
    own part count bounds no other guess's; [3,5] after 111 is 511, not 513)."""
    game = Game(n, k)
    g = game.guess(first)
    scores = {game.score_index(g, int(s)) for s in game.secrets} - {game.score_index(g, g)}
    after = sum(optimal(game, history=[(first, sc)], jobs=1).total for sc in scores)
    result = optimal(game, first=first, jobs=1)
    assert result.exact and result.total == game.size + after


def colours(game, code):
    """The colours (0..k-1) of a code index, the first position first."""
    return tuple((code // game.k ** (game.n - 1 - p)) % game.k for p in range(game.n))


def index(game, cols):
    """The code index of colours (0..k-1), the first position first."""
    out = 0
    for c in cols:
        out = out * game.k + c
    return out


def images(game, cands):
    """Every image of a set of code indices under a position and a colour permutation,
    each as a sorted tuple (the whole group, by brute force)."""
    found = set()
    for pos in itertools.permutations(range(game.n)):
        for col in itertools.permutations(range(game.k)):
            found.add(
                tuple(sorted(index(game, [col[colours(game, c)[p]] for p in pos]) for c in cands))
            )
    return found


@pytest.mark.parametrize(
    "n,k,variant", [(3, 4, None), (2, 5, None), (3, 4, "black-peg"), (3, 5, "distinct")]
)
def test_the_image_is_the_set_under_a_permutation(n, k, variant):
    """The key the search remembers a set under (rule 12 of docs/optimal.md) is the set's
    image under some colour and position permutation; sets equal up to a permutation
    often share it (always when their counts leave no tie)."""
    game = Game(n, k, variant) if variant else Game(n, k)
    rng = np.random.default_rng(1200 + n * 10 + k)
    secrets = np.asarray(game.secrets, dtype=np.int32)
    shared = 0
    for _ in range(12):
        size = int(rng.integers(1, min(12, len(secrets)) + 1))
        cands = np.sort(rng.choice(secrets, size, replace=False)).astype(np.int32)
        key = tuple(int(c) for c in _optimal.canon_image(game.kernel, cands))
        every = images(game, [int(c) for c in cands])
        assert key in every
        other = sorted(every)[int(rng.integers(len(every)))]
        if set(other) <= {int(s) for s in secrets}:
            again = _optimal.canon_image(game.kernel, np.asarray(other, dtype=np.int32))
            shared += tuple(int(c) for c in again) == key
    assert shared > 0


def test_the_image_needs_an_encoded_game_and_held_codes():
    game = Game(4, 6, "bulls-and-cows")
    with pytest.raises(ValueError):
        _optimal.canon_image(game.kernel, np.zeros(0, np.int32))
    with pytest.raises(ValueError):
        _optimal.canon_image(game.kernel, np.asarray([0], dtype=np.int32))  # 1111: not held


@pytest.mark.parametrize(
    "n,k,variant,max_guesses,candidates_only",
    [
        (4, 5, None, 0, False),
        (3, 6, None, 0, False),
        (4, 6, None, 5, False),
        (4, 6, None, 0, True),
        (4, 6, "bulls-and-cows", 0, False),
        (4, 3, "black-peg", 0, False),
        (4, 6, "distinct", 0, False),
    ],
)
def test_the_same_trees_with_and_without_images(n, k, variant, max_guesses, candidates_only):
    """Remembering sets under their images changes the work only: the same answer and
    tree, byte for byte, with it and without it (and it is used: answers found there)."""
    game = Game(n, k, variant) if variant else Game(n, k)
    cands = np.asarray(game.secrets, dtype=np.int32)
    runs = []
    for canon in (True, False):
        search = new_optimizer(game, candidates_only=candidates_only, memory=1 << 28, threads=1)
        assert search.canon
        search.canon = canon
        status, value, _, recs = search.run(cands, np.zeros(0, np.int32), max_guesses, 0)
        runs.append((status, value, recs.tobytes(), search.stats["canon_hits"]))
    assert runs[0][:3] == runs[1][:3] and runs[0][0] == _optimal.RUN_OPTIMUM
    assert runs[0][3] > 0 and runs[1][3] == 0


@pytest.mark.parametrize("n,k", [(3, 4), (4, 3)])
def test_positions_up_to_symmetry_against_brute_force(n, k):
    """The optimum of the positions after one guess (the search remembering the sets under
    their images), against the brute force, and the same from the position a permuted
    history leaves (an equivalent set)."""
    game = Game(n, k)
    rules = ref.game_rules(game)
    rng = np.random.default_rng(1240 + n * 10 + k)
    for first in ("12" + "3" * (n - 2),):
        g = game.guess(first)
        parts: dict = {}
        for s in game.secrets:
            parts.setdefault(game.score_index(g, int(s)), []).append(int(s))
        for score, part in parts.items():
            if not 8 <= len(part) <= 20:
                continue
            want = ref.optimal_total(rules.guesses, part, rules.score, rules.end)
            sc = (int(score[0]), int(score[1]))
            assert optimal(game, history=[(first, sc)], jobs=1).total == want
            pos, col = rng.permutation(n), rng.permutation(k)
            moved = index(game, [col[colours(game, g)[p]] for p in pos])
            got = optimal(game, history=[(game.format_code(moved), sc)], jobs=1)
            assert got.total == want


def count_floor(rules, secrets, b, candidates_only=False):
    """Rule 13 of docs/optimal.md in plain Python: min(3p - 2 - qc, 3p - min(b, p)), qc
    the most non-winning parts a candidate makes on the p ``secrets``."""
    p = len(secrets)
    qc = max(
        len({rules.score(g, s) for s in secrets if not rules.end(rules.score(g, s))})
        for g in secrets
    )
    if candidates_only:
        return 3 * p - 2 - qc
    return min(3 * p - 2 - qc, 3 * p - min(b, p))


@pytest.mark.parametrize("n,k", [(2, 5), (2, 6), (3, 3), (3, 4)])
def test_the_count_floor_is_never_above_the_optimum(n, k):
    """A part of more codes than slots gets at least the bound of its candidates' part
    counts (rule 13), and that floor is never above the brute force's optimum, with every
    code allowed and with the candidates alone, the part count bounded by the most any
    guess makes on the set or by the slots."""
    game = Game(n, k)
    rules = ref.game_rules(game)
    rng = np.random.default_rng(1300 + n * 10 + k)
    slots = game.kernel.nslots
    sharper = 0
    for candidates_only in (False, True):
        search = _optimal.Optimizer(
            game.kernel,
            game.guesses,
            cands_only=candidates_only,
            symmetry=False,
            blanks=True,
            mem_limit=1 << 26,
        )
        guesses = [int(s) for s in game.secrets] if candidates_only else rules.guesses
        for _ in range(8):
            p = int(rng.integers(slots + 1, min(game.size - 1, slots + 6) + 1))
            secrets = sorted(int(c) for c in rng.choice(game.size, p, replace=False))
            best = ref.optimal_total(
                guesses, secrets, rules.score, rules.end, candidates_only=candidates_only
            )
            cands = np.asarray(secrets, dtype=np.int32)
            for b in (most_parts(rules, secrets), slots - 1):
                floor = search.floor(cands, parts=b)
                assert count_floor(rules, secrets, b, candidates_only) <= floor <= best
                sharper += count_floor(rules, secrets, b) > _optimal.est_table(p, b, 100)[-1]
    assert sharper > 0
