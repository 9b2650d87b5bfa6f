"""Plain-Python references the kernel and the analysis are held to.

Straight from the definitions (DESIGN sections 1-3), with no shared code: scoring by
counting, partitions with dicts, the choice rule with exact keys (entropy compared through
the integer prod T**T, so ties are exact), and the strategy tree walked recursively.
"""

from __future__ import annotations

import itertools
from collections import Counter


def codes(n: int, k: int) -> list[tuple[int, ...]]:
    """All codes (colours 1..k) in lexicographic order: index = position in the list."""
    return list(itertools.product(range(1, k + 1), repeat=n))


def score(u: tuple[int, ...], v: tuple[int, ...], black_only: bool = False) -> tuple[int, int]:
    b = sum(x == y for x, y in zip(u, v))
    if black_only:
        return (b, 0)
    cu, cv = Counter(u), Counter(v)
    return (b, sum(min(cu[c], cv[c]) for c in cu) - b)


def partition(u, cands, black_only=False) -> dict[tuple[int, int], list]:
    parts: dict[tuple[int, int], list] = {}
    for v in cands:
        parts.setdefault(score(u, v, black_only), []).append(v)
    return parts


def key(strategy: str, sizes: list[int]) -> int:
    """Lower is better, exact."""
    if strategy == "minmax":
        return max(sizes)
    if strategy == "entropy":  # higher entropy <=> smaller prod T**T
        p = 1
        for t in sizes:
            p *= t**t
        return p
    if strategy == "parts":
        return -len(sizes)
    if strategy == "expected-size":
        return sum(t * t for t in sizes)
    raise ValueError(strategy)


def choose(strategy, cands, guesses, n, black_only=False):
    """The choice rule: best key, then a candidate, then the smallest (lexicographic) code."""
    if len(cands) == 1 or strategy == "first-candidate":
        return cands[0]
    cset = set(cands)
    best = None
    for g in guesses:  # guesses in lexicographic order
        sizes = [len(p) for p in partition(g, cands, black_only).values()]
        k = (key(strategy, sizes), g not in cset)
        if best is None or k < best[0]:
            best = (k, g)
    return best[1]


def first_by_full_scan(strategy, secrets, guesses, n, candidates_only=False, black_only=False):
    pool = secrets if candidates_only else guesses
    return choose(strategy, secrets, pool, n, black_only)


def analyze(n, k, strategy, candidates_only=False, first=None, secrets=None, guesses=None,
            black_only=False) -> dict[int, int]:
    """Distribution {guesses: secrets} of the strategy played against every secret."""
    allc = codes(n, k)
    secrets = allc if secrets is None else secrets
    guesses = allc if guesses is None else guesses
    dist: Counter = Counter()
    win = (n, 0)

    def walk(cands, depth, fixed):
        pool = cands if candidates_only else guesses
        g = fixed if fixed is not None else choose(strategy, cands, pool, n, black_only)
        for s, part in sorted(partition(g, cands, black_only).items()):
            if s == win:
                dist[depth] += len(part)
            else:
                walk(part, depth + 1, None)

    walk(list(secrets), 1, first)
    return dict(sorted(dist.items()))


def optimal_total(guesses: list, secrets: list, score_fn, win, max_guesses=None,
                  candidates_only: bool = False) -> float:
    """The least total number of guesses over every secret (DESIGN section 7) by brute
    force: every guess at every node, memoised on exact sets only (which changes no
    answer); ``inf`` when no strategy keeps within ``max_guesses``."""
    from functools import lru_cache

    table = {(g, s): score_fn(g, s) for g in guesses for s in secrets}

    @lru_cache(maxsize=None)
    def total(cands: tuple, left: int) -> float:
        if len(cands) == 1:
            return 1 if left >= 1 else float("inf")
        if left <= 1:
            return float("inf")
        best = float("inf")
        for g in (cands if candidates_only else guesses):
            parts: dict = {}
            for s in cands:
                parts.setdefault(table[g, s], []).append(s)
            if len(parts) == 1 and g not in cands:
                continue                        # learns nothing, finds nothing
            t = len(cands) + sum(total(tuple(p), left - 1) for sc, p in parts.items()
                                 if sc != win)
            best = min(best, t)
        return best

    return total(tuple(secrets), max_guesses or 100)
