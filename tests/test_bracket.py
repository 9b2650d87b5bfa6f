"""The bound tree's lower bound of the optimum (mastermind.optimum.bracket): never above the exact
optimum (every small game, a position, a custom game, Bulls and Cows), equal to it when
the tree reaches sets the exact search settles, never decreasing with the depth, the
same as a plain-Python recursion over every guess (no symmetry), and the [5,8] script
on a small game (written, resumed)."""

from __future__ import annotations

import json
import runpy
import sys
from functools import cache
from pathlib import Path

import pytest
import reference as ref

from mastermind import Game, MastermindError, two_d
from mastermind.limits import MAX_BRACKET_DEPTH
from mastermind.optimum.bracket import lower_bound
from mastermind.optimum.solver import optimal
from mastermind.strategy_tree import split_by_score

ROOT = Path(__file__).resolve().parents[1]

GAMES = [
    (3, 3, "classic"),
    (3, 4, "classic"),
    (4, 4, "classic"),
    (4, 5, "classic"),
    (4, 6, "classic"),
    (3, 5, "classic"),
    (4, 5, "bulls-and-cows"),
    (4, 6, "bulls-and-cows"),
    (3, 4, "black-peg"),
]


@pytest.mark.parametrize("n,k,variant", GAMES)
def test_never_above_the_optimum_and_rising_with_depth(n, k, variant):
    game = Game(n, k, variant)
    best = optimal(game).total
    bounds = [lower_bound(game, depth=d).bound for d in range(4)]
    assert all(b <= best for b in bounds)
    assert bounds == sorted(bounds)
    # one code found by the first guess at most, every other by two or more guesses
    assert bounds[0] >= 2 * game.secrets.size - 1


@pytest.mark.parametrize(
    "n,k,variant,depth,optimum",
    [
        (3, 4, "classic", 2, 206),  # every part of every opening has at most 40 codes
        (4, 4, "classic", 2, 905),
        (4, 5, "classic", 3, 2463),
        (5, 4, "classic", 3, 3954),
        (4, 5, "bulls-and-cows", 3, 462),
        (4, 6, "bulls-and-cows", 3, 1446),
    ],
)
def test_equal_to_the_optimum_when_deep_enough(n, k, variant, depth, optimum):
    assert lower_bound(Game(n, k, variant), depth=depth).bound == optimum


def test_the_tiny_games_are_solved_exactly():
    r = lower_bound(Game(3, 3), depth=1)
    assert (r.bound, r.how, r.solves) == (73, "exact", 1)
    assert lower_bound(Game(3, 3), depth=0).how == "estimate"


def test_from_a_position():
    game = Game(4, 6)
    for history in ([("1123", (0, 1))], [("1234", (1, 1))], [("1122", (0, 0)), ("3345", (1, 0))]):
        best = optimal(game, history=history).total
        bounds = [lower_bound(game, history=history, depth=d) for d in range(4)]
        assert all(b.bound <= best for b in bounds)
        assert [b.bound for b in bounds] == sorted(b.bound for b in bounds)
        assert bounds[0].secrets == game.candidates(history).size
    # a position left with one code: its guess
    one = lower_bound(game, history=[("1234", (3, 0)), ("1235", (4, 0))][:1], depth=2)
    assert one.bound <= optimal(game, history=[("1234", (3, 0))]).total


def test_each_opening_bound_is_below_its_optimum():
    game = Game(4, 6)
    r = lower_bound(game, depth=2)
    assert r.bound == min(g.bound for g in r.guesses)
    assert len(r.guesses) == 5  # one opening per class: 1111, 1112, 1122, 1123, 1234
    for g in r.guesses:
        assert g.bound <= optimal(game, first=g.guess).total
    assert any(g.complete for g in r.guesses)


def test_a_stopped_exact_search_gives_its_proved_bound():
    game = Game(4, 6)
    r = lower_bound(game, depth=2, exact_max=2000, exact_seconds=1e-6)
    assert r.solves >= 1 and r.solves_stopped >= 1
    assert r.bound <= 5625
    full = lower_bound(game, depth=1, exact_max=2000, exact_seconds=60)
    assert (full.bound, full.how) == (5625, "exact")


def test_a_custom_game():
    game = two_d(4)
    best = optimal(game).total
    bounds = [lower_bound(game, depth=d).bound for d in range(4)]
    assert all(b <= best for b in bounds) and bounds == sorted(bounds)


# ------------------------------------------------------- exact leaves (the last level)
@pytest.mark.parametrize("n,k,variant", GAMES)
def test_exact_leaves_stay_below_the_optimum_and_above_the_plain_tree(n, k, variant):
    game = Game(n, k, variant)
    best = optimal(game).total
    plain = [lower_bound(game, depth=d).bound for d in range(3)]
    leaves = [lower_bound(game, depth=d, exact_leaves=40).bound for d in range(3)]
    assert all(p <= v <= best for p, v in zip(plain, leaves))
    assert leaves == sorted(leaves)


@pytest.mark.parametrize(
    "n,k,depth,optimum",
    [(4, 5, 2, 2463), (5, 4, 2, 3954), (4, 6, 3, 5625)],
)
def test_exact_leaves_reach_the_optimum_a_level_sooner(n, k, depth, optimum):
    game = Game(n, k)
    assert lower_bound(game, depth=depth).bound < optimum  # the plain tree falls short
    r = lower_bound(game, depth=depth, exact_leaves=40)
    assert (r.bound, r.how) == (optimum, f"depth {depth}")
    assert r.solves > lower_bound(game, depth=depth).solves


def test_a_stopped_leaf_search_gives_at_least_the_estimate():
    game = Game(4, 6)
    plain = lower_bound(game, depth=2, exact_seconds=1e-6).bound
    r = lower_bound(game, depth=2, exact_leaves=40, exact_seconds=1e-6)
    assert r.solves_stopped >= 1
    assert plain <= r.bound <= 5625


def test_progress_counts_the_first_guesses():
    seen = []
    r = lower_bound(Game(4, 6), depth=2, progress=lambda done, total: seen.append((done, total)))
    total = len(r.guesses)
    assert total == 5 and seen == [(i, total) for i in range(1, total + 1)]


# ----------------------------------------------- a plain-Python recursion, every guess
def _est(p: int, b: int) -> int:
    total, level, depth = 0, 1, 0
    while p > 0:
        depth += 1
        take = min(level, p)
        total += take * depth
        p -= take
        level *= max(b, 1)
    return total


def test_depth_one_and_two_match_a_plain_recursion_over_every_guess():
    """[3,5] (125 codes): every guess tried, no symmetry, the reference scorer; sets of
    at most 40 codes (the kernel's few-code sets) settled by the exact search."""
    game = Game(3, 5)
    rules = ref.game_rules(game)
    win = (3, 0)
    guesses = rules.guesses

    def parts(g, cands):
        out = ref.partition(g, cands, rules.score)
        return [tuple(p) for s, p in out.items() if s != win]

    @cache
    def b_of(cands):
        return max(len(parts(g, cands)) for g in guesses)

    @cache
    def depth1(cands):
        b = b_of(cands)
        return len(cands) + min(sum(_est(len(p), b) for p in parts(g, cands)) for g in guesses)

    def deep(cands, hist):
        if len(cands) == 1:
            return 1
        if len(cands) <= 40:
            return optimal(game, history=hist).total
        return depth1(cands)

    full = tuple(rules.secrets)
    assert lower_bound(game, depth=1).bound == depth1(full)
    best = None
    for g in guesses:
        out = ref.partition(g, full, rules.score)
        total = len(full) + sum(deep(tuple(p), [(g, s)]) for s, p in out.items() if s != win)
        best = total if best is None else min(best, total)
    assert lower_bound(game, depth=2).bound == best

    # exact leaves: depth 1 with every part of at most 40 codes at its optimum
    @cache
    def leaf(part, g, s):
        return optimal(game, history=[(g, s)]).total if len(part) > 1 else 1

    def depth1_leaves(g):
        out = ref.partition(g, full, rules.score)
        b = b_of(full)
        return len(full) + sum(
            leaf(tuple(p), g, s) if len(p) <= 40 else _est(len(p), b)
            for s, p in out.items()
            if s != win
        )

    want = min(depth1_leaves(g) for g in guesses)
    assert lower_bound(game, depth=1, exact_leaves=40).bound == want


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs",
    [
        {"depth": -1},
        {"depth": MAX_BRACKET_DEPTH + 1},
        {"depth": "2"},
        {"depth": True},
        {"exact_max": -1},
        {"exact_max": 2.5},
        {"exact_leaves": -1},
        {"exact_leaves": 2.5},
        {"progress": 3},
        {"exact_seconds": 0},
        {"exact_seconds": None},
        {"memory": 0},
        {"history": [("1234", (4, 0))]},  # already won
        {"history": [("1234", (4, 0)), ("1235", (0, 0))]},
        {"history": [("1234", (0, 0)), ("1234", (1, 0))]},  # nothing left
        {"history": [("12345", (0, 0))]},  # not a code
        {"history": [("1234", (5, 0))]},  # not a score
    ],
)
def test_bad_input_is_refused(kwargs):
    with pytest.raises(MastermindError):
        lower_bound(Game(4, 6), **kwargs)


def test_not_a_game():
    with pytest.raises(MastermindError):
        lower_bound("4,6")


# ------------------------------------------------------------------------ the script
def run_script(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["bracket_5_8.py", *args])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(ROOT / "scripts" / "optimum" / "bracket_5_8.py"), run_name="__main__")
    assert done.value.code == 0
    return capsys.readouterr().out


def test_the_script_on_a_small_game(tmp_path, monkeypatch, capsys):
    out, cache_file = tmp_path / "b.json", tmp_path / "b.checkpoint"
    args = ["--game", "4,5", "--depth", "2", "--out", str(out), "--cache", str(cache_file)]
    run_script(monkeypatch, capsys, *args)
    first = json.loads(out.read_text())
    assert first["final"] and first["lower"] == 2463  # the optimum of [4,5]
    assert first["openings"][0]["bound"] == first["lower"]
    for o in first["openings"]:
        assert o["bound"] == first["secrets"] + sum(p["bound"] for p in o["parts"])
        assert o["bound"] <= optimal(Game(4, 5), first=o["guess"]).total
    resumed = run_script(monkeypatch, capsys, *args)  # every bound from the checkpoint
    assert "units run: 0, from the checkpoint: " in resumed
    assert json.loads(out.read_text())["lower"] == first["lower"]


def test_the_script_with_exact_leaves_from_a_result(tmp_path, monkeypatch, capsys):
    game = Game(4, 6)
    plain, leaves = tmp_path / "plain.json", tmp_path / "leaves.json"
    run_script(monkeypatch, capsys, "--game", "4,6", "--depth", "1", "--out", str(plain))
    first = json.loads(plain.read_text())
    assert first["lower"] == lower_bound(game, depth=2).bound
    args = ["--game", "4,6", "--depth", "1", "--exact-leaves", "40", "--out", str(leaves)]
    out = run_script(monkeypatch, capsys, *args, "--start-from", str(plain))
    assert "part bounds from" in out
    second = json.loads(leaves.read_text())
    assert second["final"] and second["exact_leaves"] == 40
    assert first["lower"] < second["lower"] == lower_bound(game, depth=2, exact_leaves=40).bound
    least = second["openings"][0]  # deepened whole; the others stay above it
    assert least["bound"] == second["lower"]
    assert all(p["leaves"] == 40 for p in least["parts"] if p["how"].startswith("depth"))


def test_the_script_solving_the_openings_parts_reaches_the_optimum(tmp_path, monkeypatch, capsys):
    """--exact-parts: the least opening's parts solved exactly until it has none left,
    so L is [4,6]'s optimum 5,625 (from the plain bound tree's result, below it); an
    opening solved whole is at its optimum, every other one at most at it; resumed,
    nothing is solved again."""
    plain, exact = tmp_path / "plain.json", tmp_path / "exact.json"
    cache_file = tmp_path / "exact.checkpoint"
    run_script(monkeypatch, capsys, "--game", "4,6", "--depth", "1", "--out", str(plain))
    assert json.loads(plain.read_text())["lower"] < 5625
    args = ["--game", "4,6", "--depth", "1", "--exact-parts", "1296", "--out", str(exact)]
    args += ["--exact-parts-seconds", "30", "--start-from", str(plain), "--cache", str(cache_file)]
    run_script(monkeypatch, capsys, *args)
    doc = json.loads(exact.read_text())
    assert doc["final"] and doc["lower"] == 5625 and doc["exact_parts"] == 1296
    assert all(p["how"] == "exact" for p in doc["openings"][0]["parts"] if p["size"] > 1)
    for o in doc["openings"]:
        best = optimal(Game(4, 6), first=o["guess"]).total
        whole = all(p["how"] == "exact" for p in o["parts"])
        assert o["bound"] == best if whole else o["bound"] <= best
    assert "units run: 0, from the checkpoint: " in run_script(monkeypatch, capsys, *args)
    assert json.loads(exact.read_text())["openings"] == doc["openings"]


def test_the_script_solves_only_the_openings_it_is_given(tmp_path, monkeypatch, capsys):
    """--solve-openings: a second run beside a first solves its own openings' parts only."""
    out = tmp_path / "b.json"
    args = ["--game", "4,6", "--depth", "1", "--exact-parts", "1296", "--out", str(out)]
    run_script(monkeypatch, capsys, *args, "--solve-openings", "1234")
    for o in json.loads(out.read_text())["openings"]:
        solved = [p for p in o["parts"] if p["how"] == "exact" and p["size"] > 40]
        assert bool(solved) == (o["guess"] == "1234")


def test_the_script_takes_the_parts_a_record_solved_whole(tmp_path, monkeypatch, capsys):
    """--records: the parts a record file notes as solved whole (method.whole_parts) are
    proved bounds: every part of 1123 noted at its optimum puts that opening at [4,6]'s
    optimum 5,625 with nothing solved by the script; a record of another game, and an
    entry whose bound is below its part's size, are left out."""
    game = Game(4, 6)
    notes = []
    first = game.parse_code("1123")
    for slot, codes in split_by_score(game, first, game.secrets):
        if slot == game.win_slot or codes.size == 1:
            continue
        score = str(game.slots[slot])
        res = optimal(game, history=[("1123", score)])
        notes.append({"after": ["1123", score], "secrets": res.secrets, "exact": True})
        notes[-1] |= {"total": res.total, "lower": res.total, "seconds": 0.1}
    doc = {"pegs": 4, "colours": 6, "variant": "classic", "method": {"whole_parts": notes}}
    doc["method"]["whole_parts"].append({"after": ["1234", "0 0"], "secrets": 16, "lower": 3})
    good, other = tmp_path / "good.json", tmp_path / "other.json"
    good.write_text(json.dumps(doc))
    other.write_text(json.dumps(dict(doc, colours=7)))
    out = tmp_path / "b.json"
    args = ["--game", "4,6", "--depth", "1", "--out", str(out), "--campaigns", ""]
    said = run_script(monkeypatch, capsys, *args, "--records", str(good), str(other))
    assert f"{other}: left out (another game)" in said and "an entry left out" in said
    opening = {o["guess"]: o for o in json.loads(out.read_text())["openings"]}["1123"]
    solved = [p for p in opening["parts"] if p["size"] > 1]
    assert len(solved) == len(notes) - 1 and all(p["how"] == "exact" for p in solved)
    assert opening["bound"] == 5625 == optimal(game, first="1123").total
