"""The strategy tree every computation builds and reads: :class:`Node` (a guess, the
candidates it is played against, its children by score), trees from the kernel's records
(:func:`build_tree`), a set split by score (:func:`split_by_score`), those records
checked against the set they claim to solve (:func:`replay_records`), and a tree of any
form played against secrets one by one (:func:`replay_line`, :func:`replay_counts`).

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

A tree of any form is replayed through a :class:`TreeReader` that says how its nodes are
read and scored; :func:`replay_line` plays it against one secret, at most
:data:`~mastermind.limits.MAX_REPLAY_GUESSES` guesses deep:

>>> class Plain:   # a tree of nested (guess, {score: subtree}) pairs
...     def guess(self, node, secret, path): return node[0]
...     def score(self, guess, secret): return guess == secret
...     def won(self, score): return score
...     def child(self, node, secret, path): return node[1][path[-1][2]]
...     def endless(self, secret, path): return ValueError("no end")
>>> tree = (0, {False: (1, {False: (2, {})})})
>>> [guess for _, guess, _ in replay_line(Plain(), tree, 1)]
[0, 1]
>>> replay_counts(Plain(), tree, [0, 1, 2])
{1: 1, 2: 1, 3: 1}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Protocol

import numpy as np

from .limits import MAX_REPLAY_GUESSES
from .rules import Score

if TYPE_CHECKING:
    from .game import GameCore, GameLike

__all__ = [
    "Node",
    "Played",
    "TreeReader",
    "build_tree",
    "in_score_order",
    "replay_counts",
    "replay_line",
    "replay_records",
    "split_by_score",
    "tree_records",
]

Played = tuple[Any, int, Any]
"""One guess of a line of play: (the node, its guess, the score the secret gave it)."""


class TreeReader(Protocol):
    """How a strategy tree of some form is read and scored, for :func:`replay_line`: a
    :class:`Node` tree on a plain-Python scorer
    (:func:`mastermind.worstcase.check.check_strategy`), an exported JSON tree
    (:func:`mastermind.views.tree.replay`).  ``path`` is the line played so far; each
    method raises the reader's own error, naming where, when the tree is wrong there."""

    def guess(self, node: Any, secret: int, path: list[Played]) -> int:
        """The guess ``node`` plays, after ``path``, checked."""

    def score(self, guess: int, secret: int) -> Any:
        """The score ``secret`` gives ``guess``."""

    def won(self, score: Any) -> bool:
        """Whether ``score`` ends the game."""

    def child(self, node: Any, secret: int, path: list[Played]) -> Any:
        """The node played after ``node`` answered ``path[-1]``'s score."""

    def endless(self, secret: int, path: list[Played]) -> Exception:
        """The error of a line longer than :data:`~mastermind.limits.MAX_REPLAY_GUESSES`."""


def replay_line(reader: TreeReader, root: Any, secret: int) -> list[Played]:
    """The line of play of the tree ``root`` against ``secret``, as ``reader`` reads and
    scores it: a :data:`Played` per guess, the last one the win."""
    node = root
    path: list[Played] = []
    while True:
        guess = reader.guess(node, secret, path)
        score = reader.score(guess, secret)
        path.append((node, guess, score))
        if reader.won(score):
            return path
        if len(path) > MAX_REPLAY_GUESSES:
            raise reader.endless(secret, path)
        node = reader.child(node, secret, path)


def replay_counts(reader: TreeReader, root: Any, secrets: Iterable[int]) -> dict[int, int]:
    """{number of guesses: secrets} of the tree ``root`` played against each of
    ``secrets`` (:func:`replay_line`)."""
    dist: dict[int, int] = {}
    for secret in secrets:
        d = len(replay_line(reader, root, secret))
        dist[d] = dist.get(d, 0) + 1
    return dict(sorted(dist.items()))


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


def tree_records(game: GameLike, root: Node) -> np.ndarray:
    """The kernel's records (parent, slot, guess, size, depth) of the tree ``root``,
    depth-first, each node's children in slot order: what :func:`build_tree` reads
    back (a tree to store as numbers, in a unit's answer say).

    >>> from mastermind.game import Game
    >>> from mastermind.analysis.exhaustive import analyze
    >>> a = analyze(Game(2, 3), tree=True)
    >>> recs = tree_records(a.game, a.tree)
    >>> recs[0].tolist(), build_tree(a.game, recs) == a.tree
    ([-1, -1, 0, 9, 1], True)
    """
    slot_of = {score: i for i, score in enumerate(game.slots)}
    rows: list[list[int]] = []

    def visit(node: Node, parent: int, slot: int, depth: int) -> None:
        rows.append([parent, slot, int(node.guess), int(node.size), depth])
        at = len(rows) - 1
        for score, child in sorted(node.children.items(), key=lambda sc: slot_of[sc[0]]):
            visit(child, at, slot_of[score], depth + 1)

    visit(root, -1, -1, 1)
    return np.array(rows, dtype=np.int32)
