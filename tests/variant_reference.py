"""Plain-Python reference games (variants, custom games) and analysis, straight from the definitions (no kernel).

Used by the tests to hold the kernel path (built-in variants) and the table path (custom
games) to the definitions: the guess set G, the secret set V, the score, the end score, and
DESIGN section 2's choice rule (best valuation, then a candidate, then the smallest index).
Entropy ties are exact here: ``sum T log2 T`` is compared through the integer
``prod T**T``.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from math import prod

Code = tuple
STRATEGIES = ("minmax", "entropy", "parts", "expected-size", "first-candidate")


def mm_score(u: Sequence[int], v: Sequence[int], black_only: bool = False) -> tuple[int, int]:
    """(blacks, whites) of guess u against secret v; (blacks, 0) for black-peg."""
    b = sum(1 for x, y in zip(u, v) if x == y)
    m = sum(min(u.count(c), v.count(c)) for c in set(u))
    return (b, 0) if black_only else (b, m - b)


def variant_sets(n: int, k: int, variant: str) -> tuple[list[Code], list[Code]]:
    """(G, V) of a built-in variant, both in lexicographic order, from the definitions."""
    every = list(itertools.product(range(1, k + 1), repeat=n))
    distinct = [c for c in every if len(set(c)) == n]
    guesses = {"classic": every, "black-peg": every, "distinct": every,
               "bulls-and-cows": distinct, "permutation": distinct}[variant]
    secrets = distinct if variant in ("distinct", "bulls-and-cows", "permutation") else every
    return guesses, secrets


def key(sizes: Sequence[int], strategy: str) -> int:
    """The valuation of a partition (non-empty part sizes) as a key, lower is better."""
    if strategy == "minmax":
        return max(sizes)
    if strategy == "entropy":
        return prod(t**t for t in sizes)  # exact image of sum t log2 t
    if strategy == "parts":
        return -len(sizes)
    if strategy == "expected-size":
        return sum(t * t for t in sizes)
    raise ValueError(strategy)


def split(guess: Hashable, cands: Sequence[Hashable], score: Callable) -> dict:
    parts: dict = defaultdict(list)
    for v in cands:
        parts[score(guess, v)].append(v)
    return parts


def choose(guesses: Sequence[Hashable], cands: Sequence[Hashable], score: Callable,
           strategy: str, candidates_only: bool = False) -> Hashable:
    """DESIGN section 2's rule; ``guesses`` and ``cands`` in index order."""
    if len(cands) == 1 or strategy == "first-candidate":
        return cands[0]
    pool = cands if candidates_only else guesses
    inside = set(cands)
    best = min(range(len(pool)), key=lambda i: (
        key([len(p) for p in split(pool[i], cands, score).values()], strategy),
        pool[i] not in inside, i))
    return pool[best]


def analyze(guesses: Sequence[Hashable], secrets: Sequence[Hashable], score: Callable,
            end: Callable[[object], bool], strategy: str, candidates_only: bool = False,
            first: Hashable | None = None) -> tuple[Hashable, dict[int, int], dict]:
    """(first guess, {guesses: secrets}, {secret: guesses}) of the strategy."""
    dist: dict[int, int] = defaultdict(int)
    per_secret: dict = {}

    def play(cands: list, depth: int, g: Hashable | None) -> None:
        if g is None:
            g = choose(guesses, cands, score, strategy, candidates_only)
        for s, part in split(g, cands, score).items():
            if end(s):
                assert part == [g]
                dist[depth] += 1
                per_secret[g] = depth
            else:
                play(part, depth + 1, None)

    g0 = first if first is not None else choose(guesses, list(secrets), score, strategy,
                                                candidates_only)
    play(list(secrets), 1, g0)
    return g0, dict(sorted(dist.items())), per_secret


def solvable(limit: int, guesses: Sequence[Hashable], cands: Sequence[Hashable],
             score: Callable, end: Callable[[object], bool]) -> bool:
    """Is there a strategy that finds every candidate within ``limit`` guesses?  Plain
    exhaustive search with the one sound cut "one guess finds at most one secret"."""
    if not cands:
        return True
    if limit <= 0:
        return False
    if len(cands) == 1:
        return True
    if limit == 1:
        return False
    for g in guesses:
        parts = split(g, cands, score)
        if len(parts) == 1 and not any(end(s) for s in parts):
            continue  # learns nothing
        if all(solvable(limit - 1, guesses, p, score, end)
               for s, p in parts.items() if not end(s)):
            return True
    return False
