"""A campaign's folder as git carries it between people: its files are a stranger's
(mastermind.worstcase.campaign.folder).  A link, a FIFO or a device at any of its names is
refused in one line by every command, never followed, nothing written at its target and
nothing hanging; malformed files end in one line naming the file, never an internal
error, and never leave the campaign stuck; the folder's lock is taken before anything is
restored or written, so two runs started together on a fresh clone are one run and one
refusal.  Every link, FIFO and device is made in the test's own folder."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import mastermind
from mastermind import MastermindError
from mastermind.worstcase.campaign.question import Campaign

SRC = str(Path(mastermind.__file__).resolve().parents[1])
Q33 = ["-n", "3", "-k", "3", "--guesses", "4"]


def campaign(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``mastermind campaign ARGS`` in a fresh interpreter (``timeout``: a guard)."""
    return subprocess.run(
        [sys.executable, "-m", "mastermind", "campaign", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=SRC),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err


@pytest.fixture(scope="module")
def decided(tmp_path_factory) -> Path:
    """A campaign of [3,3] within 4 guesses, decided: every file it makes."""
    c = tmp_path_factory.mktemp("base") / "c"
    done = campaign("run", str(c), *Q33)
    assert done.returncode == 0, done.stderr
    assert {p.name for p in c.iterdir()} >= {"campaign.json", "state.json", "witness.json"}
    return c


@pytest.fixture
def copy(decided, tmp_path) -> Path:
    c = tmp_path / "c"
    shutil.copytree(decided, c)
    return c


@pytest.fixture
def victim(tmp_path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text("precious\n")
    return path


# ---------------------------------------------------------------------- links
NAMES = [
    "campaign.json",
    "state.json",
    "witness.json",
    "run.log",
    "checkpoint.sqlite",
    "checkpoint.sqlite-journal",
    "campaign.lock",
    "shards",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_link_among_the_campaigns_files_is_refused_never_followed(copy, victim, name):
    target = copy / name
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    target.symlink_to(victim)
    for action in (["run"], ["export"], ["status"], ["status", "--replay"]):
        done = campaign(*action, str(copy))
        assert done.returncode == 2, (action, done.stderr)
        assert one_line(done.stderr) and str(target) in done.stderr, done.stderr
        assert "symbolic link" in done.stderr
    assert victim.read_text() == "precious\n" and target.is_symlink()


def test_a_dangling_link_makes_nothing_at_its_target(copy, tmp_path):
    (copy / "checkpoint.sqlite").unlink()
    (copy / "checkpoint.sqlite").symlink_to(tmp_path / "made-here.sqlite")
    (copy / "run.log").unlink()
    (copy / "run.log").symlink_to(tmp_path / "log-here")
    done = campaign("run", str(copy))
    assert done.returncode == 2 and one_line(done.stderr)
    assert not (tmp_path / "made-here.sqlite").exists() and not (tmp_path / "log-here").exists()


def test_links_at_the_temporary_names_of_old_receive_nothing(tmp_path, victim):
    """Earlier versions wrote ``.NAME.part`` beside each file: a link planted there
    receives nothing, and every file is left a regular file."""
    c = tmp_path / "d"
    c.mkdir()
    (c / ".campaign.json.part").symlink_to(victim)
    (c / ".state.json.part").symlink_to(victim)
    (c / "shards").mkdir()
    (c / "shards" / ".00001.jsonl.gz.part").symlink_to(victim)
    done = campaign("run", str(c), *Q33)
    assert done.returncode == 0, done.stderr
    assert campaign("export", str(c)).returncode == 0
    assert victim.read_text() == "precious\n"
    for path in [c / "campaign.json", c / "state.json", *(c / "shards").glob("[0-9]*")]:
        assert stat.S_ISREG(os.lstat(path).st_mode), path


@pytest.mark.parametrize(
    "name,kind",
    [
        ("checkpoint.sqlite", "fifo"),
        ("state.json", "fifo"),
        ("run.log", "fifo"),
        ("state.json", "link to /dev/zero"),
        ("state.json", "device"),
        ("checkpoint.sqlite", "device"),
    ],
)
def test_a_fifo_or_a_device_is_refused_without_hanging(copy, name, kind):
    """Every command refuses at once (the subprocess's timeout is a guard: a hang
    fails the test instead of the suite)."""
    path = copy / name
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))
        except (PermissionError, OSError) as e:
            pytest.skip(f"cannot make a device node here: {e}")
    else:
        path.symlink_to("/dev/zero")
    for action in (["run"], ["status"], ["status", "--json"], ["export"], ["projection"]):
        done = campaign(*action, str(copy), timeout=60)
        assert done.returncode == 2, (action, done.stderr)
        assert one_line(done.stderr) and str(path) in done.stderr, done.stderr


# ---------------------------------------------------------------------- the lock
HOLDER = """
import sys, time
from mastermind.worstcase.campaign.folder import hold
with hold(sys.argv[1]):
    print("holding", flush=True)
    time.sleep(600)
"""


def fresh_clone(decided: Path, where: Path) -> Path:
    """What a clone has: the question, the shards and the state, no checkpoint."""
    where.mkdir()
    shutil.copytree(decided / "shards", where / "shards")
    for name in ("campaign.json", "state.json"):
        shutil.copy(decided / name, where / name)
    return where


def test_the_lock_is_taken_before_anything_is_restored(decided, tmp_path):
    c = fresh_clone(decided, tmp_path / "clone")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(c)],
        env=dict(os.environ, PYTHONPATH=SRC),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        for action in (["run"], ["export"], ["status", "--replay"], ["projection"]):
            done = campaign(*action, str(c))
            assert done.returncode == 2 and one_line(done.stderr), done.stderr
            assert f"in use by another run ({socket.gethostname()}:{holder.pid})" in done.stderr
        assert not (c / "checkpoint.sqlite").exists() and not (c / "run.log").exists()
        assert campaign("status", str(c)).returncode == 0  # (a look needs no lock)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
    done = campaign("run", str(c))
    assert done.returncode == 0, done.stderr
    assert not (c / "campaign.lock").exists()


def test_two_runs_started_together_on_a_fresh_clone_are_one_run(decided, tmp_path):
    """Started at once, three times: each run either runs or says the folder is in use,
    never an internal error, and the checkpoint it leaves replays to the answer."""
    for trial in range(3):
        c = fresh_clone(decided, tmp_path / f"clone{trial}")
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "mastermind", "campaign", "run", str(c)],
                env=dict(os.environ, PYTHONPATH=SRC),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        ends = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
        assert any(code == 0 for _, _, code in ends), ends
        for _, err, code in ends:
            assert "Traceback" not in err and "internal error" not in err, err
            assert code == 0 or (code == 2 and "is in use by another run" in err), err
        replayed = campaign("status", str(c), "--replay", "--json")
        assert replayed.returncode == 0, replayed.stderr
        assert json.loads(replayed.stdout)["summary"]["value"] == 4


# ---------------------------------------------------------------------- malformed files
QUESTION = {"format": 1, "pegs": 3, "colours": 3, "variant": "classic", "guesses": 4}


@pytest.mark.parametrize(
    "text,words",
    [
        ("[1, 2]", "not an object"),
        ("[" * 20000 + "]" * 20000, "nested too deep"),
        ("\xff\xfe{", "not JSON"),
        ("x" * 70000, "holds 70,000 bytes"),
        (json.dumps({**QUESTION, "unit_seconds": -1}), "unit_seconds must be"),
        (json.dumps({**QUESTION, "memory_mb": 10**30}), "memory must be at most"),
        (json.dumps({**QUESTION, "guesses": 0}), "guesses must be an integer 1..100"),
        (json.dumps({**QUESTION, "pegs": 1e300}), "pegs"),
        (json.dumps({**QUESTION, "pegs": [3]}), "pegs"),
        (json.dumps({**QUESTION, "focus": 12}), "focus"),
        (json.dumps({**QUESTION, "focus": "99"}), "not a campaign's file"),
        (json.dumps({**QUESTION, "unit_seconds": None}), "unit_seconds"),
        (json.dumps({**QUESTION, "folder": "/etc"}), "no folder"),
        (json.dumps({**QUESTION, "surprise": 1}), "no surprise"),
        (json.dumps({**QUESTION, "format": 2}), "another version"),
        (json.dumps({k: v for k, v in QUESTION.items() if k != "guesses"}), "no guesses"),
    ],
)
def test_a_campaign_file_is_checked_as_a_new_campaign_is(tmp_path, text, words):
    (tmp_path / "campaign.json").write_text(text)
    with pytest.raises(MastermindError, match=words) as caught:
        Campaign.load(str(tmp_path))
    assert str(tmp_path / "campaign.json") in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_question_naming_a_big_game_is_checked_before_the_game_is_built(tmp_path):
    """Found by fuzzing: a question of [8,8] with guesses '1122' built the game (a
    gigabyte, seconds) before it refused the guesses; every field is checked first."""
    import tracemalloc

    bad = {"format": 1, "pegs": 8, "colours": 8, "guesses": "1122", "focus": "11234"}
    (tmp_path / "campaign.json").write_text(json.dumps(bad))
    tracemalloc.start()
    try:
        with pytest.raises(MastermindError, match="guesses must be an integer"):
            Campaign.load(str(tmp_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20
    long = {**bad, "guesses": 9, "focus": "1" * 40}
    (tmp_path / "campaign.json").write_text(json.dumps(long))
    with pytest.raises(MastermindError, match="the focus must be a code"):
        Campaign.load(str(tmp_path))


def test_a_malformed_campaign_file_is_one_line_for_every_command(copy):
    (copy / "campaign.json").write_text(json.dumps({**QUESTION, "guesses": 0}))
    for action in (["run"], ["status"], ["export"], ["projection"]):
        done = campaign(*action, str(copy))
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert "campaign.json: not a campaign's file" in done.stderr


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "{",
        '{"summary": 5, "openings": 3}',
        '{"summary": {"text": []}}',
        "\0" * 10,
        '{"summary": ' + "[" * 900 + "]" * 900 + "}",  # (parsed, but too deep to print)
    ],
)
def test_a_malformed_state_is_one_line_and_the_next_run_writes_it_again(copy, text):
    (copy / "state.json").write_text(text)
    done = campaign("status", str(copy))
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "state.json" in done.stderr and "give --replay" in done.stderr
    again = campaign("run", str(copy))  # (not stuck: the run writes it again)
    assert again.returncode == 0, again.stderr
    assert campaign("status", str(copy)).returncode == 0


def test_a_state_nested_too_deep_is_one_line_as_json_too(copy):
    """Parsed (JSON's own depth allows it) but too deep to go through the command's
    printing: refused when read, as text and as JSON."""
    (copy / "state.json").write_text('{"summary": ' + "[" * 950 + "]" * 950 + "}")
    for shape in ([], ["--json"], ["--markdown"]):
        done = campaign("status", str(copy), *shape)
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert "nested too deep" in done.stderr


def test_a_state_holding_nan_is_printed_as_null(copy):
    doc = json.loads((copy / "state.json").read_text())
    doc["summary"]["seconds"] = float("nan")
    doc["checkpoint"]["bytes"] = float("inf")
    (copy / "state.json").write_text(json.dumps(doc))
    done = campaign("status", str(copy), "--json")
    assert done.returncode == 0, done.stderr
    assert "NaN" not in done.stdout and "Infinity" not in done.stdout
    printed = json.loads(done.stdout)
    assert printed["summary"]["seconds"] is None and printed["checkpoint"]["bytes"] is None


@pytest.mark.parametrize(
    "content",
    [b"not a database" * 100, b"SQLite format 3\0" + b"\xff" * 2000, b""],
)
def test_a_checkpoint_that_is_not_one_is_one_line(copy, content):
    (copy / "checkpoint.sqlite").write_bytes(content)
    for action in (["run"], ["export"], ["projection"], ["status", "--replay"]):
        done = campaign(*action, str(copy))
        assert done.returncode in (0, 2), done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        if done.returncode == 2:
            assert one_line(done.stderr) and "checkpoint.sqlite" in done.stderr


def test_stray_shard_names_are_one_line_each(copy):
    """A name of twenty digits, or of a million: a line for the gap and one for the
    shard that cannot be read, not a line per missing number (on a clone: the
    checkpoint is made from the shards)."""
    (copy / "checkpoint.sqlite").unlink()
    (copy / "shards" / "99999999999999999999.jsonl.gz").write_bytes(b"junk")
    (copy / "shards" / "1000000.jsonl.gz").write_bytes(b"junk")
    done = campaign("run", str(copy))
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "shard" in line and "written" not in line]
    assert len(said) <= 6, said
    assert sum(1 for line in (copy / "run.log").read_text().splitlines() if "missing" in line) <= 2


@pytest.mark.parametrize(
    "options,words",
    [
        (["--workers", "0"], "--workers"),
        (["--workers", "-1"], "--workers"),
        (["--workers", "1,,2"], "--workers"),
        (["--workers", "99999999999"], "--workers"),
        (["--record", "-1"], "--record"),
    ],
)
def test_projection_options_out_of_range_are_one_line(copy, options, words):
    done = campaign("projection", str(copy), *options)
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert words in done.stderr


# ---------------------------------------------------------------------- shards
Q46 = ["-n", "4", "-k", "6", "--guesses", "5", "--unit-seconds", "0.002"]


def shard_lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def write_shard(path: Path, records: list[dict]) -> None:
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode()))


def test_hostile_shards_neither_stop_exports_nor_wipe_rows(tmp_path):
    """A shard with a time of 1e300 and a line dropping every key, and one whose answer
    claims a dtype of 2 MB a value: later runs still export what they run, a clone of
    the folder replays to the same state, and the malformed one is named once."""
    c = tmp_path / "c"
    assert campaign("run", str(c), *Q46, "--stop-after-units", "4").returncode == 1
    [first] = sorted((c / "shards").glob("*.jsonl.gz"))
    head, *rest = shard_lines(first)
    unit = next(r for r in rest if "key" in r)
    unit["answer"] = {"ok": 1, "recs": {"dtype": "S2000000", "shape": [3], "values": [1, 2, 3]}}
    write_shard(c / "shards" / "00002.jsonl.gz", [{**head, "shard": 2, "units": 1}, unit])
    write_shard(
        c / "shards" / "00003.jsonl.gz",
        [{**head, "shard": 3, "through": 1e300, "units": 0}, {"drop": "exists", "at": 1e300}],
    )
    again = campaign("run", str(c), "--stop-after-units", "4")
    assert again.returncode == 1, again.stderr
    fourth = c / "shards" / "00004.jsonl.gz"
    assert sum("key" in r for r in shard_lines(fourth)) >= 4  # (its units, exported)
    done = campaign("run", str(c))
    assert done.returncode == 0, done.stderr
    state = json.loads((c / "state.json").read_text())["summary"]
    clone = fresh_clone(c, tmp_path / "clone")
    replayed = campaign("status", str(clone), "--replay", "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["summary"] == state and state["value"] == 5
    named = [line for line in replayed.stderr.splitlines() if "00002.jsonl.gz" in line]
    assert len(named) == 1 and "dtype 'S2000000'" in named[0]


def test_a_shard_row_for_another_input_runs_its_unit_again(decided, tmp_path):
    """A row whose input digest is not its unit's is a stranger's damage, not another
    run's checkpoint: said in one warning, its unit run again; the campaign goes on."""
    c = fresh_clone(decided, tmp_path / "clone")
    [path] = sorted((c / "shards").glob("*.jsonl.gz"))
    records = shard_lines(path)
    forged = next(r for r in records if "key" in r)
    forged["digest"] = "00"
    write_shard(path, records)
    done = campaign("run", str(c))
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and f"unit {forged['key']}" in warned[0] and "run again" in warned[0]
    assert json.loads((c / "state.json").read_text())["summary"]["value"] == 4
