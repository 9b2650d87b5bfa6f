"""The orders the kernel's searches follow, as the kernel exports them: the worst-case
search's openings (``_search.root_openings``) and the optimal search's root guesses
(``_optimal.root_order``) must be exactly what the plans' NumPy versions
(``units_bounds.root_openings``, ``units_optimal.root_order``) compute."""

import numpy as np
import pytest

from mastermind import _core, _optimal, _search
from mastermind.game import Game
from mastermind.strategies import symmetry_classes
from mastermind.units_bounds import root_openings
from mastermind.units_optimal import MASKS_MAX, root_order

GAMES = [(3, 4, "classic"), (4, 4, "classic"), (4, 5, "classic"), (4, 6, "classic"),
         (4, 6, "distinct"), (4, 5, "black-peg")]


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
        expect = root_openings(game, cands, pool, d, _core.VAL_ENTROPY,
                               game.kernel.nslots - 1) or None
        got = _search.root_openings(game.kernel, pool, cands, d, _core.VAL_ENTROPY,
                                    game.kernel.nslots - 1)
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
    return _optimal.root_order(game.kernel, game.guesses, cands, np.zeros(0, dtype=np.int32),
                               candidates_only, game.symmetric, blanks, max_guesses)


def _same_openings(game, cands, candidates_only, max_guesses, blanks):
    dl = max_guesses or 100
    expect = root_order(game, cands, candidates_only, dl)
    guesses, bounds, key2, notcand, bnode = _kernel_root_order(game, cands, candidates_only,
                                                               max_guesses, blanks)
    assert guesses.dtype == np.int32 and bounds.dtype == np.int64
    assert guesses.tolist() == [o.guess for o in expect]
    assert [(int(b), int(k), bool(n), int(g)) for b, k, n, g
            in zip(bounds, key2, notcand, guesses)] == [o.order for o in expect]
    estt = _optimal.est_table(int(cands.size), bnode, dl - 1)
    for o in expect:                        # the parts' estimates from the root's bnode
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
    for g in (game.code("1234"), game.code("1455")):    # the largest part each time
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
    limited = _optimal.root_order(game.kernel, game.guesses, cands, np.zeros(0, np.int32),
                                  False, True, True, 0, cut)
    assert limited[0].tolist() == guesses[bounds < cut].tolist()
    assert _optimal.FEW_CODES_MAX == MASKS_MAX
    with pytest.raises(ValueError):         # few codes: scanned by part counts
        _kernel_root_order(game, cands[:_optimal.FEW_CODES_MAX], False, 0, False)
    with pytest.raises(ValueError):         # two guesses: settled without a scan
        _kernel_root_order(game, cands, False, 2, True)
