"""Plain-Python references the package is held to: every brute force the tests compare
with, in one place, straight from the definitions and with no code shared with the package.

A game is given by its rules: the guess set G, the secret set V (both in index order), a
score function ``score(guess, secret)`` and which scores end the game (``end``: a
predicate, or the one winning score).  :func:`mastermind` gives the rules of a built-in
variant on colour tuples, :func:`game_rules` those of a package ``Game`` on its code
indices (scored here, from the code's colours, never by the package).

* scoring by counting (:func:`score`), partitions with dicts (:func:`partition`);
* the valuations as exact integer keys, lower is better (:func:`key`: entropy
  ``sum T log2 T`` is compared through the integer ``prod T**T``, so its ties are exact);
* the choice rule: the best key, then a candidate, then the smallest index
  (:func:`choose`), and the strategy played against every secret (:func:`analyze`);
* the worst case by exhaustive search (:class:`WorstCase`, :func:`solvable`), the least
  total by exhaustive search (:func:`optimal_total`);
* the first smallest set of inconsistent answers (:func:`minimal_conflict`);
* readers of the exported trees: a JSON tree replayed with :func:`score` only
  (:func:`replay_tree`), a strict reader of the DOT the package writes (:func:`parse_dot`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Hashable, Sequence
from functools import cache, lru_cache
from math import prod
from typing import Any, NamedTuple, Union

Code = tuple
STRATEGIES = ("minmax", "entropy", "parts", "expected-size", "first-candidate")

#: games small enough for the exhaustive worst-case search on every subset
TINY = [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3), (5, 2)]

#: a few [4,6] secrets (every colour pattern), for tests that play whole games
SECRETS_4_6 = ["1111", "6543", "1234", "3632", "5555", "2121", "6611", "4456"]


# ---------------------------------------------------------------------- rules
def codes(n: int, k: int) -> list[Code]:
    """All codes (colours 1..k) in lexicographic order: index = position in the list."""
    return list(itertools.product(range(1, k + 1), repeat=n))


def variant_sets(n: int, k: int, variant: str) -> tuple[list[Code], list[Code]]:
    """(G, V) of a built-in variant, both in lexicographic order, from the definitions:
    every code may be guessed except in bulls-and-cows and permutation (distinct colours
    only); the secrets have distinct colours in distinct, bulls-and-cows and permutation."""
    every = codes(n, k)
    distinct = [c for c in every if len(set(c)) == n]
    guesses = {
        "classic": every,
        "black-peg": every,
        "distinct": every,
        "bulls-and-cows": distinct,
        "permutation": distinct,
    }[variant]
    secrets = distinct if variant in ("distinct", "bulls-and-cows", "permutation") else every
    return guesses, secrets


def score(u: Sequence[int], v: Sequence[int], black_only: bool = False) -> tuple[int, int]:
    """(blacks, whites) of guess u against secret v by counting; (blacks, 0) in black-peg."""
    b = sum(x == y for x, y in zip(u, v))
    if black_only:
        return (b, 0)
    return (b, sum(min(u.count(c), v.count(c)) for c in set(u)) - b)


class Rules(NamedTuple):
    """A game as the references play it."""

    guesses: list
    secrets: list
    score: Callable[[Any, Any], Hashable]
    end: Callable[[Any], bool]


def mastermind(n: int, k: int, variant: str = "classic") -> Rules:
    """The rules of a built-in variant on colour tuples; the game ends on (n, 0)."""
    guesses, secrets = variant_sets(n, k, variant)
    black_only = variant == "black-peg"
    return Rules(guesses, secrets, lambda u, v: score(u, v, black_only), lambda s: s == (n, 0))


def game_rules(game: Any, guesses: Sequence[int] | None = None) -> Rules:
    """The rules of a package game (``Game(n, k, variant)``) on its code indices: its guess
    and secret sets (or ``guesses``), scored by :func:`score` on the codes' colours."""
    colours = [game.colours(i) for i in range(game.size)]
    black_only = game.variant.value == "black-peg"
    pool = [int(g) for g in (game.guesses if guesses is None else guesses)]
    win = (game.n, 0)
    return Rules(
        pool,
        [int(s) for s in game.secrets],
        lambda u, v: score(colours[u], colours[v], black_only),
        lambda s: s == win,
    )


def _ends(end: Union[Callable[[Any], bool], Hashable]) -> Callable[[Any], bool]:
    """``end`` as a predicate: a callable as it is, a score as ``s == end``."""
    return end if callable(end) else (lambda s: s == end)


# ---------------------------------------------------------------------- the choice rule
def partition(guess: Hashable, cands: Sequence[Hashable], score_fn: Callable = score) -> dict:
    """{score: [the candidates giving it]} for ``guess``, the candidates in their order."""
    parts: dict = {}
    for v in cands:
        parts.setdefault(score_fn(guess, v), []).append(v)
    return parts


def key(strategy: str, sizes: Sequence[int]) -> int:
    """The valuation of a partition (its non-empty part sizes) as an exact key, lower is
    better."""
    if strategy == "minmax":
        return max(sizes)
    if strategy == "entropy":  # higher entropy <=> smaller sum t log2 t <=> smaller prod t**t
        return prod(t**t for t in sizes)
    if strategy == "parts":
        return -len(sizes)
    if strategy == "expected-size":
        return sum(t * t for t in sizes)
    raise ValueError(strategy)


def choose(
    strategy: str, cands: Sequence[Hashable], pool: Sequence[Hashable], score_fn: Callable = score
) -> Hashable:
    """The rule's guess from ``pool`` (in index order) with ``cands`` left: one candidate
    (or first-candidate) plays the first candidate; else the best key, then a candidate,
    then the smallest index."""
    if len(cands) == 1 or strategy == "first-candidate":
        return cands[0]
    inside = set(cands)
    return min(
        pool,
        key=lambda g: (  # min keeps the first of equals: the smallest index
            key(strategy, [len(p) for p in partition(g, cands, score_fn).values()]),
            g not in inside,
        ),
    )


def analyze(
    guesses: Sequence[Hashable],
    secrets: Sequence[Hashable],
    score_fn: Callable,
    end: Callable[[Any], bool],
    strategy: str,
    candidates_only: bool = False,
    first: Hashable | None = None,
) -> tuple[Hashable, dict[int, int], dict]:
    """The strategy played against every secret: (first guess, {guesses: secrets},
    {secret: guesses})."""
    end = _ends(end)
    dist: dict[int, int] = {}
    per_secret: dict = {}

    def play(cands: list, depth: int, g: Hashable | None) -> None:
        if g is None:
            g = choose(strategy, cands, cands if candidates_only else guesses, score_fn)
        for s, part in partition(g, cands, score_fn).items():
            if end(s):
                assert part == [g]
                dist[depth] = dist.get(depth, 0) + 1
                per_secret[g] = depth
            else:
                play(part, depth + 1, None)

    g0 = (
        first
        if first is not None
        else choose(
            strategy, list(secrets), list(secrets) if candidates_only else guesses, score_fn
        )
    )
    play(list(secrets), 1, g0)
    return g0, dict(sorted(dist.items())), per_secret


# ---------------------------------------------------------------------- exhaustive searches
class WorstCase:
    """Can every secret of a set be found within d guesses?  Plain exhaustive search over
    every guess at every node: no bound, no symmetry, no ordering; only a memo on exact
    sets and the skip of a guess that neither splits the set nor ends the game, neither of
    which changes an answer.  ``candidates_only``: only the set's own codes are played."""

    def __init__(
        self,
        guesses: Sequence[Hashable],
        secrets: Sequence[Hashable],
        score_fn: Callable,
        end: Callable[[Any], bool],
        candidates_only: bool = False,
    ):
        self.guesses = tuple(guesses)
        self.end = _ends(end)
        self.candidates_only = candidates_only
        rows = dict.fromkeys([*self.guesses, *secrets])
        self.table = {g: {v: score_fn(g, v) for v in secrets} for g in rows}
        self.solvable = lru_cache(maxsize=None)(self._solvable)

    def _solvable(self, cands: frozenset, d: int) -> bool:
        if not cands:
            return True
        if d == 0:
            return False
        for g in sorted(cands) if self.candidates_only else self.guesses:
            parts: dict = {}
            row = self.table[g]
            for v in cands:
                parts.setdefault(row[v], set()).add(v)
            if len(parts) == 1 and not any(self.end(s) for s in parts):
                continue  # learns nothing, finds nothing
            if all(self.solvable(frozenset(p), d - 1) for s, p in parts.items() if not self.end(s)):
                return True
        return False

    def least(self, cands: Sequence[Hashable]) -> int:
        """The least d within which every code of ``cands`` is found (the set must be
        solvable at all: every code guessable, or told apart)."""
        cands = frozenset(cands)
        d = 0
        while not self.solvable(cands, d):
            d += 1
        return d


def solvable(
    limit: int,
    guesses: Sequence[Hashable],
    cands: Sequence[Hashable],
    score_fn: Callable,
    end: Callable[[Any], bool],
    candidates_only: bool = False,
) -> bool:
    """Is there a strategy that finds every candidate within ``limit`` guesses?"""
    return WorstCase(guesses, cands, score_fn, end, candidates_only).solvable(
        frozenset(cands), limit
    )


def optimal_total(
    guesses: Sequence[Hashable],
    secrets: Sequence[Hashable],
    score_fn: Callable,
    end: Union[Callable[[Any], bool], Hashable],
    max_guesses: int | None = None,
    candidates_only: bool = False,
) -> float:
    """The least total number of guesses over every secret (the sum over the secrets of
    the guesses that find each, the quantity the optimal strategy minimises) by brute
    force: every guess at every node, memoised on exact sets only (which changes no
    answer); ``inf`` when no strategy keeps within ``max_guesses``."""
    end = _ends(end)
    table = {(g, s): score_fn(g, s) for g in dict.fromkeys([*guesses, *secrets]) for s in secrets}

    @cache
    def total(cands: tuple, left: int) -> float:
        if len(cands) == 1:
            return 1 if left >= 1 else float("inf")
        if left <= 1:
            return float("inf")
        best = float("inf")
        for g in cands if candidates_only else guesses:
            parts: dict = {}
            for s in cands:
                parts.setdefault(table[g, s], []).append(s)
            if len(parts) == 1 and g not in cands:
                continue  # learns nothing, finds nothing
            t = len(cands) + sum(
                total(tuple(p), left - 1) for sc, p in parts.items() if not end(sc)
            )
            best = min(best, t)
        return best

    return total(tuple(secrets), max_guesses or 100)


def minimal_conflict(
    secrets: Sequence[Hashable], rows: Sequence[tuple[Hashable, Any]], score_fn: Callable = score
) -> tuple[int, ...]:
    """The first smallest set of rows (guess, score) that no secret satisfies together, as
    1-based row numbers (smallest size first, then the first in lexicographic order);
    ``()`` when some secret satisfies every row."""
    sat = [frozenset(v for v in secrets if score_fn(g, v) == tuple(s)) for g, s in rows]
    for size in range(1, len(rows) + 1):
        for subset in itertools.combinations(range(len(rows)), size):
            if not frozenset.intersection(*(sat[i] for i in subset)):
                return tuple(i + 1 for i in subset)
    return ()


# ---------------------------------------------------------------------- exported trees
def replay_tree(data: dict) -> dict[int, int]:
    """{guesses: secrets} of a strategy exported as JSON (a built-in variant's tree), every
    secret walked down it with :func:`score` only."""
    n = data["pegs"]
    _, secrets = variant_sets(n, data["colours"], data["variant"])
    black_only = data["variant"] == "black-peg"
    dist: dict[int, int] = {}
    for v in secrets:
        node, depth = data["tree"], 1
        while True:
            guess = tuple(int(c) for c in node["guess"])
            b, w = score(guess, v, black_only)
            text = f"{b} {w}"
            if text == data["end_score"]:
                assert guess == v
                break
            node, depth = node["children"][text], depth + 1
        dist[depth] = dist.get(depth, 0) + 1
    return dict(sorted(dist.items()))


def parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """A strict reader for the DOT subset the package writes: ({node: label},
    [(from, to, edge label)]); anything else fails an assertion."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph strategy {" and lines[-1] == "}"
    quoted = r'"((?:[^"\\]|\\.)*)"'
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    for line in lines[1:-1]:
        if m := re.fullmatch(
            rf"  (n\d+) \[label={quoted}(, peripheries=2|, shape=plaintext)?\];", line
        ):
            assert m.group(1) not in nodes
            nodes[m.group(1)] = m.group(2)
        elif m := re.fullmatch(rf"  (n\d+) -> (n\d+)(?: \[label={quoted}\])?;", line):
            edges.append((m.group(1), m.group(2), m.group(3)))
        else:
            assert re.fullmatch(
                rf'  (label={quoted}|labelloc="t"|rankdir=LR|'
                r"(node|edge) \[.*\]);",
                line,
            ), line
    return nodes, edges
