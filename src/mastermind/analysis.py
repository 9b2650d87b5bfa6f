"""Exhaustive analysis: play a strategy against every secret (DESIGN section 3).

>>> from mastermind.game import Game
>>> a = analyze(Game(4, 6), "minmax")
>>> a.total, a.max, a.distribution, str(a.average)
(5801, 5, {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}, '5801/1296')
>>> [(str(s.guess_text), str(s.score)) for s in solve(Game(4, 6), "6543")][:2]
[('1122', '0 0'), ('3345', '1 2')]
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Union

import numpy as np

from .game import CodeLike, Game, Score
from .strategies import (Strategy, Valuations, choose_guess, first_guess,
                         symmetry_classes)

Progress = Callable[[int, int], None]


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

    def to_json(self, game: Game) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": game.format_code(self.guess), "candidates": self.size}
        if self.children:
            out["children"] = {str(s): c.to_json(game) for s, c in self.children.items()}
        return out


@dataclass
class Analysis:
    """The result of :func:`analyze`."""

    game: Game
    strategy: Strategy
    candidates_only: bool
    first_guess: int
    distribution: dict[int, int]
    seconds: float = 0.0
    tree: Optional[Node] = None

    @property
    def secrets(self) -> int:
        return sum(self.distribution.values())

    @property
    def total(self) -> int:
        return sum(d * c for d, c in self.distribution.items())

    @property
    def average(self) -> Fraction:
        return Fraction(self.total, self.secrets)

    @property
    def max(self) -> int:
        return max(self.distribution)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pegs": self.game.n,
            "colours": self.game.k,
            "variant": self.game.variant.value,
            "strategy": self.strategy.value,
            "candidates_only": self.candidates_only,
            "first_guess": self.game.format_code(self.first_guess),
            "secrets": self.secrets,
            "total": self.total,
            "average": float(self.average),
            "average_fraction": f"{self.average.numerator}/{self.average.denominator}",
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "seconds": round(self.seconds, 6),
        }
        if self.tree is not None:
            out["tree"] = self.tree.to_json(self.game)
        return out


def _resolve_first(game: Game, strategy: Strategy, candidates_only: bool,
                   first: Optional[CodeLike]) -> int:
    if first is None:
        return first_guess(game, strategy, candidates_only)
    g = game.guess(first)
    if candidates_only and not game.is_secret(g):
        raise ValueError(f"{game.format_code(g)} is not a candidate, and only candidates may be played")
    return g


def analyze(game: Game, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
            candidates_only: bool = False, first: Optional[CodeLike] = None,
            tree: bool = False, jobs: Optional[int] = None,
            progress: Optional[Progress] = None) -> Analysis:
    """Play ``strategy`` against every secret of ``game``.

    Parameters
    ----------
    candidates_only : only candidates may be guessed (else every code of the guess set).
    first : the opening guess; by default the one the rule chooses.
    tree : also return the strategy tree (:class:`Node`).
    jobs : threads (default: all cores); the result does not depend on it.
    progress : called as ``progress(secrets_done, secrets_total)``.
    """
    strategy = Strategy.parse(strategy)
    start = time.perf_counter()
    g0 = _resolve_first(game, strategy, candidates_only, first)
    secrets = game.secrets
    labels = game.kernel.slots(g0, secrets)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(game.nslots + 1))
    parts = [(s, np.ascontiguousarray(secrets[order[bounds[s]:bounds[s + 1]]]))
             for s in range(game.nslots) if bounds[s + 1] > bounds[s]]
    dist = np.zeros(1, dtype=np.int64)
    root = Node(g0, int(secrets.size)) if tree else None
    done = 0
    total = int(secrets.size)

    def run(part: np.ndarray) -> tuple[np.ndarray, Optional[np.ndarray]]:
        return game.kernel.walk(game.guesses, part, strategy.kind, candidates_only,
                                game.secrets_are_guesses, -1, 2, tree)

    # Largest parts first keeps both cores busy to the end; results merge in slot order.
    work = [(s, p) for s, p in parts if s != game.win_slot]
    work.sort(key=lambda sp: -sp[1].size)
    results: dict[int, tuple[np.ndarray, Optional[np.ndarray]]] = {}
    if game.win_slot in dict(parts):
        dist = _add(dist, np.array([0, 1]))
        done += 1
    jobs = max(1, jobs or os.cpu_count() or 1)
    if progress:
        progress(done, total)
    with ThreadPoolExecutor(max_workers=min(jobs, max(1, len(work)))) as pool:
        futures = {s: pool.submit(run, p) for s, p in work}
        for s, p in work:
            results[s] = futures[s].result()
            done += int(p.size)
            if progress:
                progress(done, total)
    for s, _ in parts:
        if s in results:
            d, recs = results[s]
            dist = _add(dist, d)
            if root is not None and recs is not None:
                root.children[game.slots[s]] = _build_tree(game, recs)
    distribution = {i: int(c) for i, c in enumerate(dist) if c}
    return Analysis(game, strategy, candidates_only, g0, distribution,
                    time.perf_counter() - start, root)


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    size = max(a.size, b.size)
    return np.pad(a, (0, size - a.size)) + np.pad(b, (0, size - b.size))


def _build_tree(game: Game, recs: np.ndarray) -> Node:
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


@dataclass(frozen=True)
class Step:
    """One guess of a solved game: the guess, its score, and the candidates left after."""

    guess: int
    score: Score
    remaining: int
    guess_text: str


def solve(game: Game, secret: CodeLike, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
          candidates_only: bool = False, first: Optional[CodeLike] = None) -> list[Step]:
    """The trace of one game against ``secret``: a list of :class:`Step`."""
    strategy = Strategy.parse(strategy)
    target = game.secret(secret)
    cands = game.secrets
    g = _resolve_first(game, strategy, candidates_only, first)
    steps: list[Step] = []
    win = game.slots[game.win_slot]
    while True:
        score = game.score(g, target)
        cands = game.kernel.filter(g, game.slot(score), cands)
        steps.append(Step(g, score, int(cands.size), game.format_code(g)))
        if score == win:
            return steps
        if len(steps) > 64:  # pragma: no cover - every strategy here splits or wins
            raise RuntimeError("the strategy does not terminate")
        g = choose_guess(game, cands, strategy, candidates_only)


@dataclass(frozen=True)
class FirstGuessRow:
    """The four valuations of one first-guess symmetry class."""

    guess: int
    code: str
    table: tuple[int, ...]
    values: Valuations


def first_guess_table(game: Game) -> list[FirstGuessRow]:
    """All four valuations of every first-guess class (DESIGN section 2, "tab02").

    >>> from mastermind.game import Game
    >>> [(r.code, r.values.max_part, r.values.parts) for r in first_guess_table(Game(4, 6))]
    [('1111', 625, 5), ('1112', 317, 11), ('1122', 256, 13), ('1123', 276, 14), ('1234', 312, 14)]
    """
    rows = []
    for g in symmetry_classes(game):
        table = game.partition(g)
        rows.append(FirstGuessRow(g, game.format_code(g), tuple(int(x) for x in table),
                                  Valuations.of(table)))
    return rows
