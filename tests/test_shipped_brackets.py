"""The shipped brackets of the optimum (results/bracket_5_8.json; results/bracket_5_7.json,
where the two sides meet) hold together: their openings are one of each symmetry class of
first guess, each opening's parts are the parts its guess leaves, each opening's bound is
the secrets plus its parts' bounds, the lower side is the least of them and the upper side
the total of the shipped strategy, which replays to it; the small parts said exact are
re-solved here, and every part of [5,7] said exact is the part's subtree in the shipped
strategy that opens with its opening."""

from __future__ import annotations

import gzip
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
    ("bracket_5_7.json", "optimal/5x7.json.gz", 5, 7),
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
    with gzip.open(path, "rt") if name.endswith(".gz") else open(path) as f:
        return json.load(f)


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


def subtree_total(node: dict) -> int:
    """The guesses a tree node's subtree spends: one a secret reaching it, and below."""
    return node["candidates"] + sum(subtree_total(c) for c in node.get("children", {}).values())


@pytest.mark.parametrize("opening", ["11223", "11234", "11123", "12345", "11122", "11112"])
def test_each_5_7_opening_solved_is_the_strategy_shipped_for_it(opening):
    """[5,7]'s optimum is decided opening by opening: each opening whose parts were all
    solved ships the strategy that reaches that total (results/optimal/5x7.json.gz for the
    least, 5x7-first-OPENING.json.gz for the others), replayed here, and each part's
    exact total is that strategy's subtree there."""
    doc = load("bracket_5_7.json")
    row = {o["guess"]: o for o in doc["openings"]}[opening]
    name = (
        "optimal/5x7.json.gz"
        if row["bound"] == doc["lower"]
        else f"optimal/5x7-first-{opening}.json.gz"
    )
    strategy = load(name)
    dist = replay_distribution(strategy, Game(5, 7))
    assert strategy["first_guess"] == opening
    assert sum(d * c for d, c in dist.items()) == strategy["total"] == row["bound"]
    children = strategy["tree"]["children"]
    for p in row["parts"]:
        assert p["how"] == "exact" and subtree_total(children[p["score"]]) == p["bound"]
