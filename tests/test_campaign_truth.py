"""What ``mastermind campaign`` says about p(n,k) is true, and says what it rests on.

Every outcome on small games, checked against ``worst_case``: the sentence about p
gives only what the answers prove (the question at d answered yes: p <= d; no: p >= d +
1; d - 1 and the minmax strategy and the counting bound around it), names the variant,
and is the same in state.json, in the status and in run.log.  A decision says what it
rests on: refutations computed here, imported from the shards (re-checked or not), or
certified.  A forged shard that refutes one part of each opening never ends in a
value: the minmax strategy contradicts it (and a run then re-checks it), or the value
is said as holding if the imported answers hold; a re-check (``run --recheck``,
``recheck``) replaces the forged rows by their re-runs, says each one, exits with 4 and
leaves a warning in every status after it."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

import mastermind
from mastermind import Game, analyze, solution_exists, worst_case
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.rows import decode
from mastermind.engine.run import Run
from mastermind.engine.shards import export_shards
from mastermind.worstcase.campaign.question import Campaign, checkpoint_params_of, setup
from mastermind.worstcase.campaign.run import run
from mastermind.worstcase.campaign.state import DryExecutor

SRC = str(Path(mastermind.__file__).resolve().parents[1])
CLAIM = re.compile(
    r"^p\((\d+),(\d+)\)(?: ([a-z-]+))? (?:= (\d+)|is (\d+) or (\d+)|is between (\d+) and (\d+)):"
)


def campaign(*args: str) -> subprocess.CompletedProcess:
    """``mastermind campaign ARGS`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-m", "mastermind", "campaign", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def claimed(text: str) -> tuple[str, int, int]:
    """(the variant named, or "", lowest, highest value) a status sentence claims."""
    m = CLAIM.match(text)
    assert m, text
    numbers = [int(x) for x in m.groups()[3:] if x is not None]
    return m[3] or "", min(numbers), max(numbers)


def decide(folder: Path, game: Game, d: int) -> dict:
    """A campaign of ``game`` within d, run to its end in this process: its state."""
    c = Campaign.new(
        str(folder),
        pegs=game.n,
        colours=game.k,
        variant=game.variant.value,
        guesses=d,
        unit_seconds=0.005,
    )
    c.save()
    outcome = run(c, log=lambda line: None)
    assert outcome.status == "decided"
    return json.loads((folder / "state.json").read_text())


@pytest.mark.parametrize(
    "n, k, variant, d",
    [
        (4, 6, "classic", 6),  # yes within 6, and within 5 too: p <= 5, not "6 or 7"
        (3, 3, "classic", 10),  # far above p: not "10 or 11"
        (4, 4, "permutation", 3),  # no opening can work: p >= 4, not "3 or 4"
        (4, 6, "classic", 5),  # the value, both sides proved
        (4, 7, "classic", 5),  # refuted: p >= 6, and the minmax strategy gives 6
        (2, 2, "classic", 1),
        (3, 2, "black-peg", 2),
        (3, 4, "bulls-and-cows", 4),
    ],
)
def test_the_status_says_only_what_is_proved(tmp_path, n, k, variant, d):
    game = Game(n, k, variant)
    p = worst_case(game).upper
    state = decide(tmp_path / "c", game, d)
    s = state["summary"]
    named, low, high = claimed(s["text"])
    assert low <= p <= high and (low, high) == (s["lower"], s["upper"])
    assert named == ("" if variant == "classic" else variant)
    assert s["decided"] and s["answer"] is (p <= d)
    assert (s["value"] == p) if low == high else s["value"] is None
    if s["answer"]:
        assert s["upper"] <= d
    else:
        assert s["lower"] >= d + 1
    log = (tmp_path / "c" / "run.log").read_text()
    assert s["text"] in log  # the same sentence in run.log
    shown = campaign("status", str(tmp_path / "c"))
    assert shown.returncode == 0 and shown.stdout.startswith(s["text"])


def test_refuting_5_of_5_7_gives_at_least_6(tmp_path):
    """[5,7] within 5 is refuted (6 openings, one unit each): p(5,7) >= 6, and at most
    the minmax strategy's worst case (7); never "5 or 6"."""
    game = Game(5, 7)
    state = decide(tmp_path / "c", game, 5)
    s = state["summary"]
    assert s["answer"] is False and s["value"] is None
    assert not solution_exists(game, 5)  # (the lower bound, by a search of its own)
    assert (s["lower"], s["upper"]) == (6, int(analyze(game, "minmax").max)) == (6, 7)
    assert s["text"].startswith("p(5,7) is 6 or 7:")
    assert s["rests_on"]["here"] == 6 and "every opening refuted here" in s["text"]


# ---------------------------------------------------------------------- a forged shard
def forge(folder: Path) -> list[str]:
    """A [4,6] campaign within 5 (p(4,6) = 5) whose only shard says that the largest part
    of each opening cannot be solved within 4 more guesses: the keys forged."""
    c = Campaign.new(str(folder), pegs=4, colours=6, guesses=5, unit_seconds=0.005)
    c.save()
    tmp = folder / "forge.sqlite"
    store = open_checkpoint(str(tmp), "bound", c.game.spec().definition(), checkpoint_params_of(c))
    plan, _ = setup(c, Run(DryExecutor(), store))
    keys = []
    for i in range(len(plan.openings)):
        s, part = plan.parts[i][0]
        unit = plan.question(i, s, part)
        store.record(unit.key, unit.digest, {"ok": 0, "nodes": 1}, size=unit.size, seconds=0.0)
        keys.append(unit.key)
    store.close()
    export_shards(str(tmp), c.shards)
    tmp.unlink()
    return keys


def answers(folder: Path) -> dict[str, int]:
    with closing(sqlite3.connect(folder / "checkpoint.sqlite")) as conn:
        rows = conn.execute("SELECT key, result FROM units").fetchall()
    return {k: int(decode(blob)["ok"]) for k, blob in rows if "split" not in decode(blob)}


def test_a_forged_shard_is_contradicted_and_a_run_replaces_it(tmp_path):
    """The forged "no within 5" crosses the minmax strategy's 5: no value is said, and a
    run re-checks the refutations on its own (exit status 4), replaces the forged ones
    and decides p(4,6) = 5."""
    c = tmp_path / "c"
    keys = forge(c)
    assert len(keys) == 5 and worst_case(Game(4, 6)).upper == 5
    replayed = campaign("status", str(c), "--replay", "--json")
    s = json.loads(replayed.stdout)["summary"]
    assert s["answer"] is False and s["value"] is None  # not "p(4,6) = 6"
    assert s["text"].startswith("p(4,6): the answers contradict each other")
    assert "5 imported from the shards, not re-checked" in s["text"]
    assert s["rests_on"]["imported"] == 5 and s["text"].endswith("an answer is wrong")
    again = campaign("run", str(c))
    assert again.returncode == 4, again.stderr
    _replaced(c, keys, again.stderr)


def _replaced(c: Path, keys: list[str], said: str) -> None:
    """Each forged row said wrong is replaced by its re-run's answer, each one not said
    is true; the campaign decided p(4,6) = 5, with a warning in its status and log."""
    lines = [line for line in said.splitlines() if "re-check: unit" in line]
    wrong = {re.search(r"unit (\S+):", line)[1] for line in lines}
    assert wrong and wrong <= set(keys)
    ok = answers(c)
    for key in keys:
        assert ok[key] == (key in wrong)
        if key not in wrong:
            assert not solution_exists(Game(4, 6), 4, _part(key))
    s = json.loads((c / "state.json").read_text())["summary"]
    assert s["value"] == 5 and s["answer"] is True and s["wrong"] == len(wrong)
    assert s["checked"] and "witness.json) certified" in s["text"]
    status = campaign("status", str(c))
    assert status.stdout.splitlines()[1].startswith("WARNING: re-checks here found")
    assert "WARNING: re-checks here found" in (c / "run.log").read_text()


def test_a_forged_shard_nothing_contradicts_is_said_as_a_condition(tmp_path):
    """Were the minmax strategy's worst case 6 (as a heuristic's may be, one above p),
    nothing would contradict the forged shard: the status says p = 6 only as holding if
    the imported answers hold, until ``run --recheck 1`` re-runs them (exit status 4)."""
    c = tmp_path / "c"
    keys = forge(c)
    known = {"below_refuted": True, "below": False, "minmax": 6, "counting": 4}
    (c / "state.json").write_text(json.dumps({"guesses": 5, "known": known}))
    for args in (["status", "--replay", "--json"], ["run", "--json"]):
        done = campaign(*args[:1], str(c), *args[1:])
        assert done.returncode == 0, done.stderr
        s = json.loads((c / "state.json").read_text())["summary"]
        assert s["text"].startswith("p(4,6) = 6, if the answers imported from the shards hold:")
        assert not s["checked"] and s["rests_on"]["imported"] == 5
    again = campaign("run", str(c), "--recheck", "1")
    assert again.returncode == 4, again.stderr
    _replaced(c, keys, again.stderr)


def _part(key: str) -> list:
    """The secrets of the part of [4,6] a key names (exists/OPENING/SLOT/GUESSES)."""
    game = Game(4, 6)
    _, g, s, _ = key.split("/")
    scores = game.kernel.slots(int(g), game.secrets)
    return game.secrets[scores == int(s)].tolist()


def test_a_recheck_on_its_own_leaves_the_question_open_and_says_why(tmp_path):
    c = tmp_path / "c"
    keys = forge(c)
    done = campaign("recheck", str(c))
    assert done.returncode == 4, done.stderr
    state = json.loads((c / "state.json").read_text())
    s = state["summary"]
    assert s["answer"] is None and s["decided"] is False and s["wrong"] >= 1
    assert s["value"] == 5  # the minmax strategy and d - 1 refuted: true, whatever d is
    assert "WARNING" in done.stdout and sum(answers(c)[k] for k in keys) == s["wrong"]
    assert campaign("run", str(c)).returncode == 0
    assert json.loads((c / "state.json").read_text())["summary"]["answer"] is True


def test_imported_refutations_once_rechecked_say_so(tmp_path):
    """[4,7] within 5 refuted here; a clone makes its checkpoint from the shards: the
    refutations are imported, not re-checked, until ``recheck`` runs them again (all
    agree: exit status 0, nothing said wrong)."""
    c = tmp_path / "c"
    decide(c, Game(4, 7), 5)
    (c / "checkpoint.sqlite").unlink()
    replayed = json.loads(campaign("status", str(c), "--json", "--replay").stdout)["summary"]
    openings = replayed["rests_on"]["imported"]
    assert openings > 0 and replayed["value"] == 6 and replayed["rests_on"]["here"] == 0
    done = campaign("recheck", str(c))
    assert done.returncode == 0, done.stderr
    s = json.loads((c / "state.json").read_text())["summary"]
    assert s["rests_on"]["rechecked"] == openings and s["wrong"] == 0 and s["warning"] is None
    assert f"{openings} imported and re-checked here" in s["text"]


def test_a_recheck_of_settled_rows_finds_nothing_wrong(tmp_path):
    """Questions decided from their split's sub-answers (settled rows) count other nodes
    and hold other witnesses than their runs in one piece: the spot-checks compare the
    verdicts, and find nothing wrong."""
    c = tmp_path / "c"
    Q = ["-n", "4", "-k", "6", "--guesses", "5", "--unit-seconds", "0.0005"]
    assert campaign("run", str(c), *Q).returncode == 0
    with closing(sqlite3.connect(c / "checkpoint.sqlite")) as conn:
        assert conn.execute("SELECT COUNT(*) FROM dropped").fetchone()[0] > 0
    again = campaign("run", str(c), "--recheck", "1")
    assert again.returncode == 0, again.stderr
    assert "spot-check" not in again.stderr
    bad = campaign("run", str(c), "--recheck", "1.5")
    assert bad.returncode == 2 and "--recheck" in bad.stderr


def test_a_question_settled_here_from_imported_answers_is_not_computed_here(tmp_path):
    """A row written here (a question settled from the answers below it) rests on what
    lay below it: imported, if any of that was."""
    from mastermind.engine.rows import connect_read_only
    from mastermind.worstcase.campaign import origins

    path = str(tmp_path / "c.sqlite")
    store = open_checkpoint(path, "bound", {"n": 1}, {})
    store.record("exists/1/2/4", "d", {"split": 1, "nodes": 0}, size=9, seconds=0.0)
    store.record("exists/1/2/4/7/3", "d", {"ok": 0, "nodes": 1}, size=5, seconds=0.0)
    store.record("exists/5/2/4", "d", {"ok": 0, "nodes": 1}, size=5, seconds=0.0)
    store.close()
    origins.mark_imported(path)
    store = open_checkpoint(path, "bound", {"n": 1}, {})
    store.settle("exists/1/2/4", "d", {"ok": 0, "nodes": 1}, size=9)  # (here, from below)
    store.record("exists/6/2/4", "d", {"ok": 0, "nodes": 1}, size=5, seconds=0.0)
    store.close()
    with closing(connect_read_only(path)) as conn:
        rows = dict(conn.execute("SELECT key, finished FROM units"))
        got = {key: origins.origin_of(conn, key, at) for key, at in rows.items()}
    assert got == {"exists/1/2/4": "imported", "exists/5/2/4": "imported", "exists/6/2/4": "here"}
    origins.replaced(path, "exists/1/2/4", "imported", wrong=True)  # (a re-run's, here)
    with closing(connect_read_only(path)) as conn:
        assert origins.origin_of(conn, "exists/1/2/4", rows["exists/1/2/4"]) == "here"
    assert origins.found_wrong(path) == [("exists/1/2/4", "imported")]


def test_a_checkpoint_of_an_earlier_version_is_of_unknown_origin(tmp_path):
    """A checkpoint made before origins were kept: its refutations are of unknown
    origin, the value holds only if they do, and a re-check runs them again here."""
    c = tmp_path / "c"
    decide(c, Game(4, 7), 5)
    with closing(sqlite3.connect(c / "checkpoint.sqlite")) as conn:
        conn.execute("DROP TABLE campaign_origins")
    s = json.loads(campaign("status", str(c), "--json", "--replay").stdout)["summary"]
    assert s["rests_on"]["unknown"] > 0 == s["rests_on"]["here"] and not s["checked"]
    assert s["text"].startswith("p(4,7) = 6, if the answers not computed here hold:")
    assert campaign("recheck", str(c)).returncode == 0
    s = json.loads((c / "state.json").read_text())["summary"]
    assert s["checked"] and s["text"].startswith("p(4,7) = 6: at most 6")


def test_a_state_of_an_earlier_version_is_said_so(tmp_path):
    """status reads state.json as it is: one an earlier version wrote ("p(4,6) is 6 or
    7", decided, no value) is shown as such, with the way to work it out again."""
    c = tmp_path / "c"
    Campaign.new(str(c), pegs=4, colours=6, guesses=6).save()
    keys = ("parts", "solvable", "refuted", "open", "units", "splits", "seconds", "nodes")
    old = {"decided": True, "value": None, "text": "p(4,6) is 6 or 7: undecided"}
    doc = {
        "question": "can every secret be found within 6 guesses?",
        "summary": {**old, **dict.fromkeys(keys, 0), "open_units": 0},
        "openings": [],
    }
    (c / "state.json").write_text(json.dumps(doc))
    first = campaign("status", str(c)).stdout.splitlines()[0]
    assert first.endswith(
        "decided; a state of an earlier version: status --replay works it out again)"
    )
    assert campaign("run", str(c)).returncode == 0  # (the state written again)
    assert campaign("status", str(c)).stdout.startswith("p(4,6) is 4 or 5: at most 5")


def test_a_run_says_where_it_stands_as_it_goes(tmp_path):
    """``watch`` sees each opening's state and parts running as units end, the last look
    every opening refuted with the part that refuted it; each refutation is said once
    in the log (and run.log); the command's progress bar draws the same looks."""
    import io

    from mastermind.cli.campaign import _show
    from mastermind.cli.progress import ProgressBar

    c = Campaign.new(str(tmp_path / "w47"), pegs=4, colours=7, guesses=5)
    c.save()
    looks: list = []
    lines: list[str] = []
    outcome = run(c, jobs=2, log=lines.append, watch=looks.append)
    assert outcome.value == 6 and looks
    last = {o["opening"]: o for o in looks[-1]}
    assert len(last) == 5 and all(o["state"] is False and o["refuted"] for o in last.values())
    said = [line for line in lines if line.startswith("opening ")]
    assert sorted(said) == sorted(
        f"opening {g}: refuted: ({o['refuted'][0]}), {o['refuted'][1]:,} codes"
        for g, o in last.items()
    )
    assert all(line in Path(c.path("run.log")).read_text() for line in said)
    screen = io.StringIO()
    bar = ProgressBar("", stream=screen, delay=0, enabled=True, unit="openings decided")
    for look in looks:
        _show(bar, look)
    bar.close()
    assert "5/5 openings decided" in screen.getvalue()


def test_the_progress_bar_ends_full_when_an_opening_proves_the_question(tmp_path):
    """[4,6] within 5: one opening's parts all solvable decide it with other openings
    still open; the bar's last frame says so and is full, not a share of the openings."""
    import io

    from mastermind.cli.campaign import _show
    from mastermind.cli.progress import ProgressBar

    c = Campaign.new(str(tmp_path / "w46"), pegs=4, colours=6, guesses=5)
    c.save()
    looks: list = []
    assert run(c, jobs=1, log=lambda line: None, watch=looks.append).value == 5
    assert any(o["state"] is None for o in looks[-1])  # (others still open)
    screen = io.StringIO()
    bar = ProgressBar("", stream=screen, delay=0, enabled=True, unit="openings decided")
    for look in looks:
        _show(bar, look)
    bar.close()
    n = len(looks[-1])
    last = screen.getvalue().rsplit("\r", 1)[-1]
    assert "an opening solvable: decided" in last and f"100% {n}/{n} openings" in last
