"""The orders the kernel's searches follow, as the kernel exports them for the plans of
units: the worst-case search's openings (``_search.root_openings``) and the optimal
search's root guesses (``_optimal.root_order``) must be exactly what the rules say,
restated here in NumPy (the ranking keys, the hopeless guesses dropped, the bounds)."""

import numpy as np
import pytest

from mastermind.analysis.strategies import symmetry_classes
from mastermind.game import Game
from mastermind.kernel import _core, _symmetry
from mastermind.optimum import _optimal
from mastermind.stopping import run_stoppable
from mastermind.strategy_tree import split_by_score
from mastermind.worstcase import _search

MASKS_MAX = 40  # sets this small are solved by the optimal search's few-code path
INF = _optimal.NO_STRATEGY


def _separable(p, d):
    total, level = 0, 1
    for _ in range(max(d, 0)):
        total += level
        level = min(level * p, 1 << 50)
    return min(total, 1 << 50)


def root_openings(game, cands, pool, d, order, nonwin):
    """The worst-case search's openings at a node for d guesses, restated: every guess
    that is a candidate or splits the set, whose largest part counting allows within d - 1
    guesses, by (key, not a candidate, largest part, index); None when counting alone
    refutes d."""
    kernel = game.kernel
    hist = kernel.histograms(pool, cands).astype(np.int64)
    keys = kernel.keys(pool, cands, order)
    win = game.win_slot
    nw = np.delete(hist, win, axis=1)
    nparts = (nw > 0).sum(axis=1)
    maxpart = nw.max(axis=1) if nw.shape[1] else np.zeros(len(pool), dtype=np.int64)
    cand = hist[:, win] > 0
    pmax = min(int(nparts.max()) if len(pool) else 0, nonwin)
    cap = _separable(pmax, d - 1)
    if cands.size > 1 + pmax * cap:
        return None
    useful = (cand | (nparts > 1)) & (maxpart <= cap)
    rows = [i for i in range(len(pool)) if useful[i]]
    rows.sort(key=lambda i: (int(keys[i]), not cand[i], int(maxpart[i]), int(pool[i])))
    return [int(pool[i]) for i in rows]


class _Opening:
    def __init__(self, guess, order, parts):
        self.guess, self.order, self.parts = guess, order, parts


def root_order(game, cands, candidates_only, dl):
    """The optimal search's root guesses, restated: one per symmetry class, the ones
    giving no information dropped, each bounded by the set's size plus its parts'
    complete-tree estimates (from the best part count), the hopeless ones dropped, by
    (bound, sum of squared part sizes, not a candidate, index)."""
    kernel = game.kernel
    m = int(cands.size)
    if candidates_only and game.symmetric:
        reps = np.array(symmetry_classes(game), dtype=np.int32)
        pool = np.ascontiguousarray(reps[np.isin(reps, cands)])
    elif candidates_only:
        pool = np.ascontiguousarray(cands)
    elif game.symmetric:
        pool = run_stoppable(
            lambda f: _symmetry.canonical_guesses(
                kernel, game.guesses, np.zeros(0, dtype=np.int32), f
            )
        )
    else:
        pool = np.ascontiguousarray(game.guesses)
    hist = kernel.histograms(pool, cands).astype(np.int64)
    win = game.win_slot
    nw = np.delete(hist, win, axis=1)
    nparts = (nw > 0).sum(axis=1)
    cand = hist[:, win] > 0
    useful = cand | (nparts > 1)
    bnode = min(int(nparts[useful].max()) if useful.any() else 0, kernel.nslots - 1)
    estt = _optimal.est_table(m, bnode, dl - 1)
    openings = []
    for i in np.flatnonzero(useful).tolist():
        row = hist[i]
        lb = m + sum(estt[int(c)] for j, c in enumerate(row.tolist()) if j != win)
        if lb >= INF:
            continue
        g = int(pool[i])
        parts = [
            (s, part, estt[int(row[s])]) for s, part in split_by_score(game, g, cands) if s != win
        ]
        openings.append(_Opening(g, (lb, int((row * row).sum()), not bool(cand[i]), g), parts))
    openings.sort(key=lambda o: o.order)
    return openings


GAMES = [
    (3, 4, "classic"),
    (4, 4, "classic"),
    (4, 5, "classic"),
    (4, 6, "classic"),
    (4, 6, "distinct"),
    (4, 5, "black-peg"),
]


def _pool(game, cands, candidates_only):
    """The guesses the worst-case plan ranks: one per symmetry class (candidates only:
    those among the candidates)."""
    pool = np.array(symmetry_classes(game), dtype=np.int32)
    if candidates_only:
        pool = pool[np.isin(pool, cands)]
    return np.ascontiguousarray(pool)


def _mid_game(game):
    """The candidates left after two guesses, a set without the whole game's symmetry."""
    secret = game.secrets[game.secrets.size // 3]
    history = [(g, game.score_index(g, secret)) for g in (game.guesses[1], game.guesses[-7])]
    return np.ascontiguousarray(game.candidates(history), dtype=np.int32)


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("candidates_only", [False, True])
@pytest.mark.parametrize("order", [_core.VAL_ENTROPY, _core.VAL_MINMAX, _core.VAL_EXPECTED])
def test_search_root_openings_match_the_plan(spec, candidates_only, order):
    game = Game(*spec)
    nonwin = game.kernel.nslots - 1
    for cands in (np.ascontiguousarray(game.secrets, dtype=np.int32), _mid_game(game)):
        pool = _pool(game, cands, candidates_only)
        if candidates_only and pool.size == 0:
            pool = np.ascontiguousarray(cands)
        for d in range(2, 7):
            # (the plan takes an empty list as None, no opening: the kernel says None
            # whenever it refutes the node before trying a guess)
            expect = root_openings(game, cands, pool, d, order, nonwin) or None
            got = _search.root_openings(game.kernel, pool, cands, d, order, nonwin)
            if expect is None:
                assert got is None, (spec, d)
            else:
                assert got is not None and got.dtype == np.int32, (spec, d)
                assert got.tolist() == expect, (spec, d, candidates_only)


def test_search_root_openings_every_guess_of_a_mid_game_set():
    """The whole guess set (no symmetry classes) on a set of a few dozen codes."""
    game = Game(4, 6)
    cands = _mid_game(game)
    pool = np.ascontiguousarray(game.guesses)
    for d in (2, 3, 4):
        expect = (
            root_openings(game, cands, pool, d, _core.VAL_ENTROPY, game.kernel.nslots - 1) or None
        )
        got = _search.root_openings(
            game.kernel, pool, cands, d, _core.VAL_ENTROPY, game.kernel.nslots - 1
        )
        assert (got is None) == (expect is None)
        if got is not None:
            assert got.tolist() == expect


def test_search_root_openings_checks_its_arguments():
    game = Game(3, 4)
    pool = np.ascontiguousarray(game.guesses)
    with pytest.raises(ValueError):
        _search.root_openings(game.kernel, pool, game.secrets, 3, _core.VAL_FIRST, 8)
    with pytest.raises(ValueError):
        _search.root_openings(game.kernel, pool, game.secrets[:0], 3, _core.VAL_ENTROPY, 8)


def _kernel_root_order(game, cands, candidates_only, max_guesses, blanks):
    return _optimal.root_order(
        game.kernel,
        game.guesses,
        cands,
        np.zeros(0, dtype=np.int32),
        cands_only=candidates_only,
        symmetry=game.symmetric,
        blanks=blanks,
        max_guesses=max_guesses,
    )


def _same_openings(game, cands, candidates_only, max_guesses, blanks):
    dl = max_guesses or 100
    expect = root_order(game, cands, candidates_only, dl)
    guesses, bounds, key2, notcand, bnode = _kernel_root_order(
        game, cands, candidates_only, max_guesses, blanks
    )
    assert guesses.dtype == np.int32 and bounds.dtype == np.int64
    assert guesses.tolist() == [o.guess for o in expect]
    assert [
        (int(b), int(k), bool(n), int(g)) for b, k, n, g in zip(bounds, key2, notcand, guesses)
    ] == [o.order for o in expect]
    estt = _optimal.est_table(int(cands.size), bnode, dl - 1)
    for o in expect:  # the parts' estimates from the root's bnode
        assert [est for _, _, est in o.parts] == [estt[part.size] for _, part, _ in o.parts]
    return len(expect)


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("candidates_only", [False, True])
def test_optimal_root_order_matches_the_plan(spec, candidates_only):
    game = Game(*spec)
    cands = np.ascontiguousarray(game.secrets, dtype=np.int32)
    blanks = game.symmetric and game.guesses.size == game.size
    for max_guesses in (0, 5, 4):
        _same_openings(game, cands, candidates_only, max_guesses, blanks)


@pytest.mark.parametrize("spec", [(4, 6, "classic"), (4, 5, "classic"), (4, 6, "distinct")])
@pytest.mark.parametrize("candidates_only", [False, True])
def test_optimal_root_order_of_a_mid_game_set(spec, candidates_only):
    """A set after two guesses, scanned with the whole game's symmetry (an empty
    history) and no merged colours, as the plan's function does."""
    game = Game(*spec)
    cands = np.ascontiguousarray(game.secrets, dtype=np.int32)
    for g in (game.code("1234"), game.code("1455")):  # the largest part each time
        labels = game.kernel.slots(g, cands)
        part = cands[labels == np.bincount(labels).argmax()]
        if part.size <= max(MASKS_MAX, game.kernel.nslots):
            break
        cands = np.ascontiguousarray(part)
    assert max(MASKS_MAX, game.kernel.nslots) < cands.size < game.secrets.size
    # (candidates only: the set is not closed under the whole game's symmetry, so few of
    # its codes, perhaps none, are the smallest of their orbit; both agree all the same)
    assert _same_openings(game, cands, candidates_only, 0, False) > 0 or candidates_only


def test_optimal_root_order_limit_and_refusals():
    game = Game(4, 4)
    cands = np.ascontiguousarray(game.secrets)
    guesses, bounds, _, _, _ = _kernel_root_order(game, cands, False, 0, True)
    cut = int(bounds[len(bounds) // 2])
    limited = _optimal.root_order(
        game.kernel,
        game.guesses,
        cands,
        np.zeros(0, np.int32),
        cands_only=False,
        symmetry=True,
        blanks=True,
        max_guesses=0,
        limit=cut,
    )
    assert limited[0].tolist() == guesses[bounds < cut].tolist()
    assert _optimal.FEW_CODES_MAX == MASKS_MAX
    with pytest.raises(ValueError):  # few codes: scanned by part counts
        _kernel_root_order(game, cands[: _optimal.FEW_CODES_MAX], False, 0, False)
    with pytest.raises(ValueError):  # two guesses: settled without a scan
        _kernel_root_order(game, cands, False, 2, True)
