"""The strategy tree every computation builds and reads: :class:`Node` (a guess, the
candidates it is played against, its children by score), trees from the kernel's records
(:func:`build_tree`), a set split by score (:func:`split_by_score`), and those records
checked against the set they claim to solve (:func:`replay_records`).

Analyses, witnesses, optima and exports all share these.  The kernel records a tree as
rows (parent, slot, guess, size, depth), depth-first.  A checkpoint gives back answers
that were written to a file; before an answer made of records is used,
:func:`replay_records` plays its tree against every code of its set with the game's
scores and says what it costs (the total and the deepest guess), or that it is no
strategy for that set at all.  One kernel call per node: cheap next to the search that
found it.

>>> from mastermind.game import Game
>>> g = Game(4, 6)
>>> [(str(g.slots[s]), part.size) for s, part in split_by_score(g, g.code("1122"), g.secrets)][:3]
[('0 0', 256), ('0 1', 256), ('0 2', 96)]
>>> game = Game(2, 2)
>>> recs = np.array([[-1, -1, 0, 4, 1], [0, 1, 1, 1, 2], [0, 2, 2, 1, 2],
...                  [0, 3, 3, 1, 2]], dtype=np.int32)
>>> replay_records(game, recs, np.arange(4, dtype=np.int32)) is None   # 11 cannot tell 12 from 21
True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .rules import Score

if TYPE_CHECKING:
    from .game import GameCore, GameLike

__all__ = ["Node", "build_tree", "in_score_order", "replay_records", "split_by_score"]


def replay_records(
    game: GameLike, recs: Any, cands: Any, *, candidates_only: bool = False
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


@dataclass
class Node:
    """One node of a strategy tree: the guess played with ``size`` candidates left."""

    guess: int
    size: int
    children: dict[Score, "Node"] = field(default_factory=dict)

    def walk(self, depth: int = 1) -> Iterator[tuple[int, "Node"]]:
        """(depth, node) for every node, depth-first, the root at ``depth``."""
        yield depth, self
        for child in self.children.values():
            yield from child.walk(depth + 1)

    def to_json(self, game: GameLike) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": game.format_code(self.guess), "candidates": self.size}
        if self.children:
            out["children"] = {str(s): c.to_json(game) for s, c in self.children.items()}
        return out


def in_score_order(root: Node) -> Node:
    """``root``, every node's children sorted by score."""
    for _, node in root.walk():
        node.children = dict(sorted(node.children.items()))
    return root


def split_by_score(game: GameCore, guess: int, cands: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The non-empty parts of ``cands`` by score against ``guess``, in slot order (each
    part sorted)."""
    labels = game.kernel.slots(guess, cands)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(game.nslots + 1))
    return [
        (s, np.ascontiguousarray(cands[order[bounds[s] : bounds[s + 1]]]))
        for s in range(game.nslots)
        if bounds[s + 1] > bounds[s]
    ]


def build_tree(game: GameLike, recs: np.ndarray) -> Node:
    """Nodes from the kernel's records (parent, slot, guess, size, depth), depth-first.

    Children are keyed by score, in slot order; the winning score has no child (the game
    ends there), so a node of size 1 without children is the winning guess.
    """
    nodes: list[Node] = []
    for parent, slot, guess, size, _depth in recs.tolist():
        node = Node(guess, size)
        nodes.append(node)
        if parent >= 0:
            nodes[parent].children[game.slots[slot]] = node
    return nodes[0]
