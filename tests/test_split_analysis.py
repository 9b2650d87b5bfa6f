"""An analysis cut all the way down (mastermind.analysis.units): the large scans of its
nodes, the top two levels included, run as units over blocks of guesses, and the
node's guess is the best of the blocks' bests by the choice rule.  The block sizes are
made tiny here so that small games have nodes scanned by many blocks; every answer must
be the in-process one, tree included, on threads and on a LocalCluster of two workers,
whatever the budget; a run stopped in the middle resumes from its scans."""

from pathlib import Path

import numpy as np
import pytest

import mastermind.analysis.units as ua
from mastermind import Game, analyze
from mastermind.analysis import _scan, _walk
from mastermind.engine.checkpoint import read_units
from mastermind.kernel import _symmetry
from mastermind.rules import Strategy
from mastermind.strategy_tree import split_by_score

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Scans of more than 200 pairs are units, of at most 3,000 pairs each; parts of
    more than 8 candidates are nodes of the plan when their scan needs more than one
    block."""
    monkeypatch.setattr(ua, "EXPAND_MIN", 8)
    monkeypatch.setattr(ua, "CLIENT_PAIRS", 200)
    monkeypatch.setattr(ua, "SCAN_BLOCK", 3000)


def scans(path):
    """The scan units of a checkpoint, by node: {path: blocks}."""
    nodes: dict[str, int] = {}
    for key, *_ in read_units(str(path)):
        if key.startswith("scan/"):
            node = key[5:].rsplit(":", 1)[0]
            nodes[node] = nodes.get(node, 0) + 1
    return nodes


# ------------------------------------------------------------------ the merge rule
@pytest.mark.parametrize("strategy", ["minmax", "entropy", "parts", "expected-size"])
@pytest.mark.parametrize("candidates_only", [False, True])
def test_the_best_of_the_blocks_bests_is_the_walks_guess(strategy, candidates_only):
    """At every node of the first two levels of [4,6] (and with symmetry, its guess list
    one per class), the least (key, not a candidate, guess) over any cut of the guess
    list into blocks is the guess the kernel's walk plays there."""
    game = Game(4, 6)
    kind = Strategy.parse(strategy).kind
    rng = np.random.default_rng(7)
    g0 = game.code("1123")
    h = np.array([g0], dtype=np.int32)
    glist = _symmetry.canonical_guesses(game.kernel, game.guesses, h)
    checked = 0
    for _, part in split_by_score(game, g0, game.secrets):
        if part.size < 3:
            continue
        guesses = part if candidates_only else glist
        want = _walk.choose(
            game.kernel,
            guesses,
            part,
            kind,
            cands_only=candidates_only,
            shortcut_ok=True,
            threads=1,
            blanks=True,
        )
        for _ in range(3):
            cuts = np.unique(np.r_[0, rng.integers(1, guesses.size, 4), guesses.size])
            best = min(
                (key, 1 - int(cand), g)
                for g, key, cand in (
                    _scan.best_guess(game.kernel, guesses[lo:hi], part, kind)
                    for lo, hi in zip(cuts[:-1], cuts[1:])
                )
            )
            assert best[2] == want, (strategy, part.size, cuts)
            checked += 1
    assert checked >= 20


# ------------------------------------------------------------------ on threads
@pytest.mark.parametrize(
    "n, k, variant, strategy, options",
    [
        (4, 6, "classic", "minmax", {"tree": True}),
        (4, 6, "classic", "entropy", {"tree": True, "candidates_only": True}),
        (4, 5, "classic", "expected-size", {"tree": True, "symmetry": False}),
        (4, 6, "bulls-and-cows", "parts", {"tree": True}),
        (4, 6, "classic", "first-candidate", {}),
    ],
)
def test_nodes_scanned_by_blocks_give_the_in_process_analysis(
    tmp_path, tiny_blocks, n, k, variant, strategy, options
):
    game = Game(n, k, variant)
    here = analyze(game, strategy, **options)
    path = tmp_path / "a.sqlite"
    there = analyze(game, strategy, checkpoint=str(path), jobs=2, **options)
    assert there.distribution == here.distribution and there.tree == here.tree
    nodes = scans(path)
    if strategy == "first-candidate":
        assert not nodes  # nothing to scan: the walk plays the first candidate
    else:
        assert max(nodes.values()) >= 2  # some node was scanned by several blocks
        assert any("." not in node for node in nodes)  # the top's nodes among them
        assert any("." in node for node in nodes)  # and deeper ones


def test_blocks_and_the_smallest_budgets_together(tmp_path, tiny_blocks):
    """Scans by blocks, then every walk unit split at once (budget 0) down to subtrees
    of two candidates: the same tree."""
    game = Game(4, 5)
    here = analyze(game, "minmax", tree=True)
    path = tmp_path / "a.sqlite"
    there = analyze(game, "minmax", tree=True, checkpoint=str(path), unit_seconds=0, jobs=2)
    assert there.distribution == here.distribution and there.tree == here.tree
    assert there.units_split > 0 and scans(path)
    rows = read_units(str(path))
    keys = {r[0] for r in rows}
    assert all(parent in keys for _, parent, _, _, _ in rows if parent)


def test_a_run_stopped_among_its_scans_resumes(tmp_path, tiny_blocks):
    game = Game(4, 6)
    here = analyze(game, "entropy", tree=True)
    path = str(tmp_path / "a.sqlite")

    def stop_soon(done, total):
        if done >= 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        analyze(game, "entropy", tree=True, checkpoint=path, jobs=2, progress=stop_soon)
    before = read_units(path)
    assert any(key.startswith("scan/") for key, *_ in before)
    again = analyze(game, "entropy", tree=True, checkpoint=path, jobs=1, unit_seconds=0)
    assert again.distribution == here.distribution and again.tree == here.tree
    assert again.units_resumed >= len(before)


def test_a_time_limit_among_the_scans_is_a_time_limit(tmp_path, tiny_blocks):
    """A deadline that cuts a scan unit short ends the run as a time limit (never as a
    failed unit, never with the partial scan's guess), and the run resumes."""
    from mastermind.stopping import TimeLimitReached

    game = Game(5, 6)
    here = analyze(game, "minmax")
    path = str(tmp_path / "a.sqlite")
    with pytest.raises(TimeLimitReached):
        analyze(game, "minmax", checkpoint=path, time_limit=0.3, jobs=2)
    again = analyze(game, "minmax", checkpoint=path, jobs=2)
    assert again.distribution == here.distribution and again.units_resumed > 0


@pytest.mark.parametrize("change", ["moved", "another key"])
def test_a_scan_answer_that_does_not_hold_is_run_again(tmp_path, tiny_blocks, change):
    """A scan's recorded guess is scored again before use: a guess moved from another
    block, or given another key, is dropped with a warning (even with its checksum made
    to match), its unit runs again, and the answer stays right."""
    import sqlite3
    from contextlib import closing

    from mastermind.engine.loop import CheckpointWarning
    from mastermind.engine.rows import checksum, decode, encode

    game = Game(4, 6)
    here = analyze(game, "minmax", tree=True)
    path = tmp_path / "a.sqlite"
    analyze(game, "minmax", tree=True, checkpoint=str(path))
    with closing(sqlite3.connect(path)) as conn, conn:
        found = {
            k: (d, decode(r))
            for k, d, r in conn.execute("SELECT key, digest, result FROM units")
            if k.startswith("scan/")
        }
    keys = sorted(found)
    b = keys[1]
    if change == "moved":
        a = next(k for k in keys if int(found[k][1]["guess"]) != int(found[b][1]["guess"]))
        answer = found[a][1]
    else:
        answer = dict(found[b][1], key=np.int64(int(found[b][1]["key"]) + 1))
    blob = encode(answer)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "UPDATE units SET result = ?, checksum = ? WHERE key = ?",
            (blob, checksum(b, found[b][0], blob), b),
        )
    conn.close()
    with pytest.warns(CheckpointWarning, match=f"unit {b}"):
        again = analyze(game, "minmax", tree=True, checkpoint=str(path))
    assert again.distribution == here.distribution and again.tree == here.tree
    assert again.units_resumed == again.units - 1


# ------------------------------------------------------------------ on a cluster
@pytest.mark.parametrize(("budget", "n", "k"), [(30, 4, 6), (0, 4, 5)])
def test_nodes_scanned_by_blocks_on_a_cluster(tmp_path, tiny_blocks, budget, n, k):
    """(Every unit split to the smallest on a game of 638 units, not [4,6]'s 1,630: each
    is a task of the cluster.)"""
    distributed = pytest.importorskip("distributed")
    game = Game(n, k)
    here = analyze(game, "minmax", tree=True)
    path = tmp_path / "a.sqlite"
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        there = analyze(
            game, "minmax", tree=True, client=client, checkpoint=str(path), unit_seconds=budget
        )
    assert there.distribution == here.distribution and there.tree == here.tree
    assert max(scans(path).values()) >= 2
    workers = {r[0] for r in read_units(str(path))}
    assert workers  # (every unit recorded)


# ------------------------------------------------------------------ the simulator
def simulator():
    from mastermind.engine import schedule

    return schedule


def test_the_simulator_waits_for_a_nodes_scans():
    """scan/3:0 and scan/3:1 (the node under slot 3, two blocks) come before the units
    planned once its guess is known (walk/3:0, and scan/3.1:0 of the node below it),
    and walk/3.1:0 after scan/3.1:0; walk/0 (planned at the start) waits for nothing.
    Two workers: t=0 scan/3:0 (1 s), scan/3:1 (2 s); t=1 walk/0 (4 s); t=2 scan/3.1:0
    (1 s, scans first); t=3 walk/3:0 (1 s); t=4 walk/3.1:0 (2 s): the end at 6."""
    sim = simulator()
    rows = [
        ("scan/3:0", "", 1.0, False),
        ("scan/3:1", "", 2.0, False),
        ("walk/0", "", 4.0, False),
        ("scan/3.1:0", "", 1.0, False),
        ("walk/3:0", "", 1.0, False),
        ("walk/3.1:0", "", 2.0, False),
    ]
    assert sim.simulate(rows, 2) == pytest.approx(6.0)
    assert sim.simulate(rows, 1) == pytest.approx(11.0)
    assert sim.simulate(rows, 100) == pytest.approx(5.0)  # scan 2, scan 1, walk 2
