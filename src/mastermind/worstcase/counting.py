"""The counting bound: :func:`counting_bound`, the fewest guesses that counting alone
allows, a lower bound on the worst case that needs no search."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Union

import numpy as np

from .. import checks
from ..analysis.strategies import symmetry_classes
from ..game import CodeLike, GameLike
from .search import prepare, separable

__all__ = ["counting_bound"]


def counting_bound(
    game: GameLike,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    candidates_only: bool = False,
) -> int:
    """The smallest d that counting allows: d guesses find at most 1 + P + ... + P^(d-1)
    codes, P the most non-winning parts any allowed guess makes on the candidates (no
    subset gets more).  A lower bound on the worst case.

    >>> from mastermind.game import Game
    >>> counting_bound(Game(4, 6))
    4
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    cands, pool, _, _ = prepare(
        game, candidates, None, candidates_only=candidates_only, symmetry=True
    )
    if cands.size <= 1:
        return int(cands.size)
    if candidates is None:
        # every secret: the part count is a property of the guess's symmetry class
        reps = np.array(symmetry_classes(game), dtype=np.int32)
        pool = reps[np.isin(reps, cands)] if candidates_only else reps
    elif candidates_only:
        pool = cands
    hist = game.kernel.histograms(np.ascontiguousarray(pool), cands)
    nonwin = np.delete(hist, game.win_slot, axis=1)
    p = int((nonwin > 0).sum(axis=1).max())
    d = 1
    while separable(p, d) < cands.size:
        d += 1
    return d
