"""``mastermind campaign`` (mastermind.worstcase.campaign) on small games with known
answers: stopped, resumed and finished to worst_case's value with nothing recorded run
again; killed outright and resumed; its witness checked by the independent checker;
status from state.json alone (no checkpoint needed), its replay agreeing; the
projection; shards that make the checkpoint again, a damaged or missing one named and
its units run again; a campaign's question never changed by later options."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import mastermind
from mastermind import Game, worst_case
from mastermind.verify import verify_file
from mastermind.worstcase.certify import write_part_certificate

SRC = str(Path(mastermind.__file__).resolve().parents[1])
P58 = Path(__file__).resolve().parents[1] / "results" / "p58"


def campaign(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``mastermind campaign ARGS`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-m", "mastermind", "campaign", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def counts(out: str) -> tuple[int, int, int]:
    """(units run, recorded after, recorded before) from a run's last line."""
    m = re.search(r"(\d+) units run, (\d+) recorded \((\d+) before\)", out)
    assert m, out
    return int(m[1]), int(m[2]), int(m[3])


def finished_times(path: Path) -> dict[str, float]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT key, finished FROM units"))
    finally:
        conn.close()


Q46 = ["-n", "4", "-k", "6", "--guesses", "5", "--unit-seconds", "0.002"]


def test_stopped_resumed_finished_and_read_back(tmp_path):
    c = tmp_path / "c46"
    first = campaign("run", str(c), *Q46, "--stop-after-units", "3")
    assert first.returncode == 1, first.stderr
    ran, after, before = counts(first.stdout)
    assert first.stdout.startswith("stopped") and before == 0 and ran >= 3
    times = finished_times(c / "checkpoint.sqlite")
    second = campaign("run", str(c), "--stop-after-units", "2")
    ran2, after2, before2 = counts(second.stdout)
    assert before2 == after and ran2 >= 2
    later = finished_times(c / "checkpoint.sqlite")
    kept(times, later)
    third = campaign("run", str(c))
    assert third.returncode == 0, third.stderr + third.stdout
    ran3, after3, before3 = counts(third.stdout)
    kept(later, finished_times(c / "checkpoint.sqlite"))
    value = worst_case(Game(4, 6)).upper
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["decided"] and state["summary"]["value"] == value == 5
    assert state["summary"]["units"] == after3 and state["last_run"]["status"] == "decided"
    solved = [o for o in state["openings"] if o["state"] == "solvable"]
    assert solved and all(p["state"] == "solvable" for p in solved[0]["parts"])
    verdict = verify_file(str(c / "witness.json"))
    assert verdict.upper == 5 and sum(verdict.distribution.values()) == 1296
    _read_back(c, state, after3)


def kept(before: dict[str, float], after: dict[str, float]) -> None:
    """Nothing recorded ran again: every row is as it was, but for a question that was
    decided since (its whole answer replaces its split) and the rows below it (dropped)."""
    for key, t in before.items():
        if key in after and after[key] != t:
            assert not any(k.startswith(key + "/") for k in after), key  # (settled)
        elif key not in after:
            assert any(key.startswith(k + "/") for k in after), key  # below a settled one


def _read_back(c: Path, state: dict, units: int) -> None:
    """status from state.json alone; its replay from the shards agrees; the projection."""
    final = finished_times(c / "checkpoint.sqlite")
    (c / "checkpoint.sqlite").unlink()
    st = campaign("status", str(c), "--json")
    assert st.returncode == 0, st.stderr
    assert json.loads(st.stdout)["summary"] == state["summary"]
    assert not (c / "checkpoint.sqlite").exists()  # status read the state file alone
    replayed = campaign("status", str(c), "--json", "--replay")
    assert replayed.returncode == 0, replayed.stderr
    again = json.loads(replayed.stdout)
    assert again["summary"] == state["summary"]
    assert [o["state"] for o in again["openings"]] == [o["state"] for o in state["openings"]]
    assert finished_times(c / "checkpoint.sqlite") == final  # made again from the shards
    text = campaign("status", str(c))
    assert "p(4,6) = 5" in text.stdout
    proj = campaign("projection", str(c), "--json", "--workers", "1,4", "--record", "0.001")
    assert proj.returncode == 0, proj.stderr
    pj = json.loads(proj.stdout)
    assert pj["open_questions"] == 0 and pj["measured_units_on_workers"]["1"]["speedup"] == 1.0
    assert sum(m["units"] for m in pj["levels"].values()) == units


def test_a_refuted_question_gives_the_next_value(tmp_path):
    """Within 5 guesses [4,7] is refuted (its root parts split and are refuted below):
    every opening has a refuted part, so p(4,7) = 6, worst_case's value."""
    c = tmp_path / "c47"
    done = campaign(
        "run", str(c), "-n", "4", "-k", "7", "--guesses", "5", "--unit-seconds", "0.005"
    )
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["value"] == 6 == worst_case(Game(4, 7)).upper
    assert all(o["state"] == "refuted" for o in state["openings"])
    assert not (c / "witness.json").exists()


def test_part_certificates_gzip_or_xz_are_what_a_refutation_rests_on(tmp_path):
    """A refuted part with a certificate in certificates/ (.cert.gz or .cert.xz) that the
    checker accepts rests on it; a forged file beside them counts for nothing."""
    c = tmp_path / "c47"
    done = campaign("run", str(c), "-n", "4", "-k", "7", "--guesses", "5")
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    refuted = [
        (o["opening"], p["score"])
        for o in state["openings"]
        for p in o["parts"]
        if p["state"] == "refuted"
    ]
    assert len(refuted) == len(state["openings"]) >= 2
    (c / "certificates").mkdir()
    for (opening, score), suffix in zip(refuted[:2], ("gz", "xz")):
        name = f"{opening}-{score.replace(' ', '')}.cert.{suffix}"
        write_part_certificate(str(c / "certificates" / name), Game(4, 7), [(opening, score)], 4)
    (c / "certificates" / f"{refuted[2][0]}-00.cert.xz").write_bytes(b"not a certificate")
    status = campaign("status", str(c), "--json", "--replay")
    assert status.returncode == 0, status.stderr
    rests = json.loads(status.stdout)["summary"]["rests_on"]
    assert rests["certified"] == 2 and rests["here"] == len(refuted) - 2


def test_parts_answered_before_their_opening_fell_say_so(tmp_path):
    """Focused on 1234, [4,7] within 5 proves that opening's parts smallest first until
    its 432-code part is refuted: each part proved before says solvable (its row kept,
    its witness replayed), each never asked says not needed; none says open."""
    c = tmp_path / "f47"
    done = campaign(
        "run", str(c), "-n", "4", "-k", "7", "--guesses", "5", "--focus", "1234",
        "--unit-seconds", "0.005",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["value"] == 6 and state["summary"]["open"] == 0
    focus = next(o for o in state["openings"] if o["opening"] == "1234")
    words = {p["score"]: p["state"] for p in focus["parts"] if p["size"] >= 3}
    assert words["1 1"] == "refuted" and words["1 0"] == "solvable"
    assert {words["0 2"], words["0 1"]} == {"not needed"}
    before = [p for p in focus["parts"] if p.get("note")]
    assert before and all(p["state"] == "solvable" and p["units"] == 1 for p in before)
    others = [p for o in state["openings"] if o is not focus for p in o["parts"]]
    assert {p["state"] for p in others if p["size"] >= 3} == {"refuted", "not needed"}
    text = campaign("status", str(c)).stdout
    assert "not needed (the opening decided without them)" in text
    assert not re.search(r" open +\d+ units", text)  # (no part's state is open)


def test_openings_left_open_by_a_proof_say_the_question_was_decided(tmp_path):
    """[4,6] within 5 is decided by one opening whose parts are all solvable: the other
    openings stay open, and their parts never asked say the question (not their opening)
    was decided without them."""
    c = tmp_path / "w46"
    done = campaign("run", str(c), "-n", "4", "-k", "6", "--guesses", "5")
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["value"] == 5
    left = [o for o in state["openings"] if o["state"] == "open"]
    assert left and any(o["state"] == "solvable" for o in state["openings"])
    text = campaign("status", str(c)).stdout
    assert "not needed (the question decided without them)" in text
    for o in left:
        block = text.split(f"\n{o['opening']}: open", 1)[1].split("\n", 2)[1]
        assert "the opening decided" not in block and "its opening was decided" not in block


def test_openings_side_by_side_each_its_largest_part_first(tmp_path):
    """By default every opening goes at once, one part of each at a time, its largest
    first: [4,7] within 5 falls at each opening's largest part, so those five parts are
    the only ones asked (two at a time here), every other part not needed."""
    c = tmp_path / "s47"
    done = campaign("run", str(c), "-n", "4", "-k", "7", "--guesses", "5", "-j", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["value"] == 6 and state["summary"]["units"] == 5
    for o in state["openings"]:
        asked = [p for p in o["parts"] if p["units"]]
        assert [p["state"] for p in asked] == ["refuted"], o["opening"]
        assert asked[0]["size"] == max(p["size"] for p in o["parts"])
    assert state["summary"]["not needed"] == state["summary"]["parts"] - 5


def test_units_sent_in_batches_give_the_same_answer(tmp_path):
    """--batch 8 on two threads: [4,6] within 5 proved, its witness checked on its own."""
    c = tmp_path / "b46"
    done = campaign("run", str(c), *Q46, "--batch", "8", "-j", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    state = json.loads((c / "state.json").read_text())
    assert state["summary"]["value"] == 5 and counts(done.stdout)[0] > 8
    assert verify_file(str(c / "witness.json")).upper == 5
    bad = campaign("run", str(tmp_path / "x"), *Q46, "--batch", "0")
    assert bad.returncode == 2 and "batch" in bad.stderr


def test_a_killed_run_resumes_to_the_same_answer(tmp_path):
    """SIGKILL in the middle of a run: the next run goes on from what was committed."""
    c = tmp_path / "c"
    env = dict(os.environ, PYTHONPATH=SRC)
    args = [sys.executable, "-m", "mastermind", "campaign", "run", str(c), *Q46]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _some_rows(c / "checkpoint.sqlite"):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    done = campaign("run", str(c))
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads((c / "state.json").read_text())["summary"]["value"] == 5


def _some_rows(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT COUNT(*) FROM units").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def test_a_damaged_or_missing_shard_is_named_and_its_units_run_again(tmp_path):
    c = tmp_path / "c"
    for stop in ("4", "4", "0"):
        extra = ["--stop-after-units", stop] if stop != "0" else []
        campaign("run", str(c), *Q46, *extra)
    shards = sorted((c / "shards").glob("*.jsonl.gz"))
    assert len(shards) == 3
    final = json.loads((c / "state.json").read_text())["summary"]
    (c / "checkpoint.sqlite").unlink()
    shards[1].write_bytes(gzip.compress(b'{"shard": 2, "through": 1}\n{"key": broken'))
    shards[2].unlink()
    done = campaign("run", str(c))
    assert done.returncode == 0, done.stderr
    assert "00002.jsonl.gz cannot be read" in done.stderr
    assert "shard 00003 is missing" in done.stderr
    assert json.loads((c / "state.json").read_text())["summary"]["value"] == final["value"]


def test_a_checkpoint_behind_a_newer_shard_is_made_again_from_the_shards(tmp_path):
    """A second machine's copy (its checkpoint and the first shard) gets the shard the
    first machine exported later, as a pull brings it: its checkpoint is behind, kept
    aside, and made again from the shards; it then reads as the first machine's."""
    a, b = tmp_path / "a", tmp_path / "b"
    campaign("run", str(a), *Q46, "--stop-after-units", "4")
    shutil.copytree(a, b)
    campaign("run", str(a), "--stop-after-units", "4")
    newest = sorted((a / "shards").glob("*.jsonl.gz"))[-1]
    assert not (b / "shards" / newest.name).exists()
    shutil.copy(newest, b / "shards" / newest.name)
    done = campaign("status", str(b), "--replay", "--json")
    assert done.returncode == 0, done.stderr
    assert "the checkpoint is behind the shards" in done.stderr
    assert (b / "checkpoint.sqlite.behind").exists()
    here = json.loads((a / "state.json").read_text())["summary"]
    assert json.loads(done.stdout)["summary"]["units"] == here["units"]
    again = campaign("status", str(b), "--replay", "--json")  # (now up to date)
    assert (
        "behind" not in again.stderr
        and json.loads(again.stdout)["summary"] == json.loads(done.stdout)["summary"]
    )


def test_a_campaigns_question_is_its_own(tmp_path):
    c = tmp_path / "c"
    campaign("run", str(c), *Q46, "--stop-after-units", "1")
    other = campaign("run", str(c), "-k", "7")
    assert other.returncode == 2 and "colours 7 (the campaign's: 6)" in other.stderr
    assert "Traceback" not in other.stderr
    none = campaign("status", str(tmp_path / "nothing"))
    assert none.returncode == 2 and "no campaign here" in none.stderr


def test_the_p58_campaign_replays_to_the_state_it_ships(tmp_path):
    """results/p58 as a fresh clone has it (the shards, no checkpoint): its rows, written
    under the unit kinds' recorded names before the package moved to families, make a
    checkpoint again, and the replay gives the state the campaign ships, part by part."""
    c = tmp_path / "p58"
    c.mkdir()
    shutil.copytree(P58 / "shards", c / "shards")
    shutil.copytree(P58 / "certificates", c / "certificates")
    for name in ("campaign.json", "state.json"):
        shutil.copy(P58 / name, c / name)
    shipped = json.loads((c / "state.json").read_text())
    replayed = campaign("status", str(c), "--json", "--replay", timeout=600)
    assert replayed.returncode == 0, replayed.stderr
    again = json.loads(replayed.stdout)
    assert again["summary"] == shipped["summary"] and again["summary"]["units"] > 0

    def parts(state: dict) -> list:
        return [[p.get("guesses"), p["state"]] for o in state["openings"] for p in o["parts"]]

    assert parts(again) == parts(shipped)
    # what the decision rests on: the openings with a part certificate by it (known by
    # its SHA-256 in state.json, not checked again here), the others by answers imported
    # from the shards (the checkpoint was made from them), none re-checked here
    certified = len([*(P58 / "certificates").glob("*.cert.[gx]z")])
    assert 1 <= certified <= 7
    assert again["summary"]["rests_on"] == {
        "certified": certified,
        "here": 0,
        "rechecked": 0,
        "imported": 7 - certified,
        "unknown": 0,
    }
    if certified < 7:
        imported = f"{7 - certified} imported from the shards, not re-checked"
        assert imported in again["summary"]["text"]
