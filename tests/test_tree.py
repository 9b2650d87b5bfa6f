"""Tree exports: JSON replays to the analysis' distribution, DOT is a well-formed tree
(and renders when Graphviz is there), the cheat sheet accounts for every secret."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import reference as ref

from mastermind import Game, analyze, two_d
from mastermind.custom import two_d_score
from mastermind.views.tree import (
    TreeError,
    render,
    replay,
    replay_distribution,
    to_dot,
    to_json,
    to_text,
)

GAMES = [
    ((4, 6, "classic"), "minmax"),
    ((4, 6, "distinct"), "entropy"),
    ((3, 4, "black-peg"), "parts"),
    ((3, 5, "bulls-and-cows"), "expected-size"),
    ((4, 4, "permutation"), "first-candidate"),
    ((3, 3, "classic"), "entropy"),
]


@pytest.mark.parametrize("candidates_only", [False, True], ids=["all", "cands"])
@pytest.mark.parametrize("spec,strategy", GAMES, ids=lambda x: str(x))
def test_json_replay_reproduces_the_distribution(spec, strategy, candidates_only):
    game = Game(*spec)
    result = analyze(game, strategy, candidates_only=candidates_only, tree=True)
    data = json.loads(json.dumps(to_json(result)))
    assert data["total"] == result.total and data["secrets"] == game.secrets.size
    assert ref.replay_tree(data) == result.distribution
    assert replay_distribution(data, game) == result.distribution


def test_two_d_tree_replays():
    game = two_d()
    result = analyze(game, "entropy", tree=True)
    data = json.loads(json.dumps(to_json(result)))
    assert (data["variant"], data["pegs"], data["end_score"]) == ("custom", None, "=")
    assert replay_distribution(data, game) == {1: 1, 2: 3, 3: 9, 4: 11, 5: 1}
    # by hand, with twoD's own score function only (not the package's score table)
    texts = {(True, False, False): "<=", (False, True, False): ">=", (False, False, False): "none"}
    for v in ref.variant_sets(2, 5, "classic")[0]:
        v = (v[0] - 1, v[1] - 1)
        node, path = data["tree"], []
        while True:
            g = (int(node["guess"][0]), int(node["guess"][1]))
            path.append(g)
            s = two_d_score(g, v)
            if s.equal:
                break
            node = node["children"][texts[tuple(s)]]
        assert [game.format_code(game.index(g)) for g in path] == replay(data, game, v)


@pytest.mark.parametrize("spec,strategy", GAMES[:3], ids=lambda x: str(x))
def test_dot_is_the_tree(spec, strategy, tmp_path):
    game = Game(*spec)
    result = analyze(game, strategy, tree=True)
    nodes, edges = ref.parse_dot(to_dot(result))
    tree_nodes = list(result.tree.walk())
    assert len(nodes) == len(tree_nodes) and len(edges) == len(nodes) - 1
    assert {dst for _, dst, _ in edges} == set(nodes) - {"n0"}  # one parent each: a tree
    assert {label for *_, label in edges} <= {str(s) for s in game.slots}
    leaves = [t for t in nodes.values() if "left" not in t]
    assert len(leaves) == sum(1 for _, nd in tree_nodes if nd.size == 1 and not nd.children)
    cut_nodes, _ = ref.parse_dot(to_dot(result, max_depth=2))
    assert "..." in cut_nodes.values() and len(cut_nodes) < len(nodes)
    if shutil.which("dot"):
        path = tmp_path / "tree.dot"
        path.write_text(to_dot(result))
        run = subprocess.run(["dot", "-Tsvg", str(path)], capture_output=True, text=True)
        assert run.returncode == 0 and "<svg" in run.stdout


def test_text_cheat_sheet_accounts_for_every_secret():
    for spec, strategy in GAMES:
        result = analyze(Game(*spec), strategy, tree=True)
        lines = to_text(result).splitlines()
        assert lines[0].startswith("# ") and f"total {result.total}" in lines[0]
        found = sum(1 for s in lines if s.endswith("it is the secret]") or s.endswith("solved"))
        assert found == result.secrets
        guesses = sum(1 for s in lines if "left" in s)
        assert guesses == sum(1 for _ in result.tree.walk())
    short = to_text(result, max_depth=1, header=False).splitlines()
    assert short[0].startswith(Game(3, 3).format_code(result.first_guess))
    assert all("..." in s for s in short[1:] if "left" not in s and "solved" not in s)


def test_tree_errors(monkeypatch, tmp_path):
    result = analyze(Game(3, 3), "minmax")
    with pytest.raises(TreeError, match="tree=True"):
        to_json(result)
    with pytest.raises(TreeError, match=".svg, .png or .pdf"):
        render("digraph {}", str(tmp_path / "x.gif"))
    monkeypatch.setattr("mastermind.views.tree.dot_program", lambda: None)
    with pytest.raises(TreeError, match="Graphviz is not installed"):
        render("digraph {}", str(tmp_path / "x.svg"))


@pytest.mark.parametrize(
    "data, words",
    [
        ({}, "needs the fields 'tree' and 'end_score'"),
        ([1, 2], "needs the fields"),
        ({"tree": {"guess": "1122"}, "end_score": 40}, "end_score must be"),
        ({"tree": {"children": {}}, "end_score": "4 0"}, "node at the root has no guess"),
        ({"tree": {"guess": 1122}, "end_score": "4 0"}, "node at the root has no guess"),
        ({"tree": {"guess": "1x22"}, "end_score": "4 0"}, "guess '1x22' at the root"),
        ({"tree": {"guess": "1122", "children": [1]}, "end_score": "4 0"}, "are not an object"),
        (
            {"tree": {"guess": "1122", "children": {"0 0": 7}}, "end_score": "4 0"},
            "node after 1122 has no guess",
        ),
    ],
)
def test_replay_names_what_is_wrong_with_a_malformed_tree(data, words):
    from mastermind.views.tree import TreeError, replay

    with pytest.raises(TreeError, match=words):
        replay(data, Game(4, 6), "6543")
