"""Strategy trees as the kernel records them, checked: the rows (parent, slot, guess,
size, depth), depth-first, replayed against the set they claim to solve.

A checkpoint gives back answers that were written to a file; before an answer made of
records is used, :func:`replay` plays its tree against every code of its set with the
game's scores and says what it costs (the total and the deepest guess), or that it is no
strategy for that set at all.  One kernel call per node: cheap next to the search that
found it.

>>> from mastermind.game import Game
>>> game = Game(2, 2)
>>> recs = np.array([[-1, -1, 0, 4, 1], [0, 1, 1, 1, 2], [0, 2, 2, 1, 2],
...                  [0, 3, 3, 1, 2]], dtype=np.int32)
>>> replay(game, recs, np.arange(4, dtype=np.int32)) is None   # 11 cannot tell 12 from 21
True
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["replay"]


def replay(
    game: Any, recs: Any, cands: Any, candidates_only: bool = False
) -> Optional[tuple[int, int]]:
    """(total guesses over ``cands``, the most guesses any code needs) of the tree that
    ``recs`` describe, or None if they do not describe a strategy finding every code of
    ``cands`` (a wrong size, a missing or extra branch, an unknown guess, a guess outside
    the set with ``candidates_only``)."""
    recs = np.asarray(recs)
    cands = np.ascontiguousarray(cands, dtype=np.int32)
    if recs.ndim != 2 or recs.shape[1] != 5 or recs.shape[0] == 0 or cands.size == 0:
        return None
    if recs.dtype.kind not in "iu":
        return None
    rows = recs.tolist()
    guesses = np.asarray(game.guesses)
    nslots, win = int(game.nslots), int(game.win_slot)
    children: list[dict[int, int]] = [{} for _ in rows]
    for i, (parent, slot, guess, _, _) in enumerate(rows):
        if i == 0:
            if parent != -1:
                return None
        elif not (
            0 <= parent < i and 0 <= slot < nslots and slot != win and slot not in children[parent]
        ):
            return None
        else:
            children[parent][slot] = i
        at = int(np.searchsorted(guesses, guess))
        if not (0 <= guess < game.size and at < guesses.size and guesses[at] == guess):
            return None
    sets: list[Optional[np.ndarray]] = [None] * len(rows)
    depth = [0] * len(rows)
    sets[0], depth[0] = cands, 1
    total = deepest = 0
    for i, (_, _, guess, size, _) in enumerate(rows):
        part = sets[i]
        if part is None or part.size != size:
            return None
        sets[i] = None
        if candidates_only and not np.any(part == guess):
            return None
        labels = np.asarray(game.kernel.slots(int(guess), part))
        found = int(np.count_nonzero(labels == win))
        if found:
            total += found * depth[i]
            deepest = max(deepest, depth[i])
        present = set(np.unique(labels[labels != win]).tolist())
        if present != set(children[i]):
            return None
        for slot in present:
            child = children[i][slot]
            sets[child] = np.ascontiguousarray(part[labels == slot])
            depth[child] = depth[i] + 1
    return total, deepest
