"""The shipped brackets of the optimum (results/bracket_5_8.json, results/bracket_5_7.json)
hold together: their openings are one of each symmetry class of first guess, each
opening's parts are the parts its guess leaves, each opening's bound is the secrets plus
its parts' bounds, the lower side is the least of them and the upper side the total of the
shipped strategy, which replays to it; the small parts said exact are re-solved here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mastermind import Game
from mastermind.optimum.solver import optimal
from mastermind.strategy_tree import split_by_score
from mastermind.views.tree import replay_distribution

ROOT = Path(__file__).resolve().parents[1]

#: (bracket file, record strategy file, pegs, colours)
SHIPPED = [
    ("bracket_5_8.json", "record_5_8.json", 5, 8),
    ("bracket_5_7.json", "record_5_7.json", 5, 7),
]

#: the exact parts re-solved here: those of at most this many codes
RESOLVED = 120


def partitions(n: int, most: int, largest: int | None = None) -> set[tuple[int, ...]]:
    """The partitions of n into at most ``most`` parts, each a tuple, largest first."""
    largest = n if largest is None else largest
    if n == 0:
        return {()}
    if most == 0:
        return set()
    out = set()
    for first in range(min(n, largest), 0, -1):
        out |= {(first, *rest) for rest in partitions(n - first, most - 1, first)}
    return out


def load(name: str) -> dict:
    path = ROOT / "results" / name
    if not path.exists():
        pytest.skip(f"results/{name} is not shipped")
    return json.loads(path.read_text())


@pytest.mark.parametrize("bracket,record,n,k", SHIPPED)
def test_the_openings_are_one_of_each_class(bracket, record, n, k):
    doc = load(bracket)
    shapes = []
    for o in doc["openings"]:
        counts = [o["guess"].count(c) for c in set(o["guess"])]
        shapes.append(tuple(sorted(counts, reverse=True)))
    assert sorted(shapes) == sorted(partitions(n, k)) and len(set(shapes)) == len(shapes)


@pytest.mark.parametrize("bracket,record,n,k", SHIPPED)
def test_each_opening_is_its_parts_summed(bracket, record, n, k):
    doc, game = load(bracket), Game(n, k)
    assert doc["secrets"] == game.size
    for o in doc["openings"]:
        g = game.parse_code(o["guess"])
        parts = {
            str(game.slots[s]): int(c.size)
            for s, c in split_by_score(game, g, game.secrets)
            if s != game.win_slot
        }
        assert {p["score"]: p["size"] for p in o["parts"]} == parts
        assert all(p["bound"] >= p["size"] for p in o["parts"])  # a guess a secret at least
        assert o["bound"] == game.size + sum(p["bound"] for p in o["parts"])
    assert doc["lower"] == min(o["bound"] for o in doc["openings"])


@pytest.mark.parametrize("bracket,record,n,k", SHIPPED)
def test_the_upper_side_is_the_shipped_strategy(bracket, record, n, k):
    doc, strategy = load(bracket), load(record)
    dist = replay_distribution(strategy, Game(n, k))
    total = sum(d * c for d, c in dist.items())
    assert sum(dist.values()) == doc["secrets"]
    assert doc["upper"] == strategy["total"] == total >= doc["lower"]


@pytest.mark.parametrize("bracket,record,n,k", SHIPPED)
def test_the_small_exact_parts_are_their_optimum(bracket, record, n, k):
    doc, game = load(bracket), Game(n, k)
    small = [
        (o["guess"], p)
        for o in doc["openings"]
        for p in o["parts"]
        if p["how"] == "exact" and 1 < p["size"] <= RESOLVED
    ]
    assert small
    for guess, p in small:
        again = optimal(game, history=[(guess, p["score"])])
        assert again.exact and again.total == p["bound"], (guess, p["score"])
