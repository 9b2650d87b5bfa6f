"""Fuzzing the readers of a campaign's folder (shards, campaign.json, state.json) with
files from strangers, as tests/fuzz_verify.py fuzzes the independent checker.

An input is one byte choosing the reader (:data:`TARGETS`), one byte choosing the run a
shard must belong to (:data:`RUNS`), then the bytes of the file.  :func:`check_one`
writes the file into a campaign's folder and reads it as the package does:

- a shard: :func:`~mastermind.engine.shards.import_shards` into a new checkpoint, then
  every row read back as ``status`` reads them (:func:`~mastermind.worstcase.campaign.state.unit_rows`);
- ``campaign.json``: :meth:`~mastermind.worstcase.campaign.question.Campaign.load`;
- ``state.json``: ``mastermind campaign status`` as text, as Markdown and as JSON (the
  command's own function, in this process).

A *finding* is anything but a reading or the package's own one-line refusal (a
:class:`~mastermind.errors.MastermindError`, or a shard named and left out): an internal
error, a run past :data:`SECONDS`, more than :data:`MEMORY` bytes allocated at once for
one input (traced by :mod:`tracemalloc`, NumPy's arrays included; a question that is
read may also build the game it names), NaN or Infinity in the JSON the command prints.

The seeds (:func:`seeds`) are the files of small campaigns made here ([3,3] decided,
[4,6] stopped after its units split), the shipped p(5,8) campaign's question, state and
small shards, and lines of its first shard (answers in the ``.npz`` form of earlier
versions).  :func:`mutate` changes the file with tests/fuzz_verify.py's mutations (JSON
values replaced, fields dropped, lines repeated or cut, bytes flipped, gzip damaged) or
puts a hostile value into a line (dtypes of megabytes, shapes of 10^12, keys that every
key starts with, times of 1e300), and now and then changes the reader or the run.

Run by tests/test_campaign_fuzz.py: a short Hypothesis run in the default suite, and a
coverage-guided run with atheris (``pip install atheris``) behind the ``slow`` marker.
Standalone: ``python tests/fuzz_campaign.py --minutes 30 [--corpus DIR]`` runs atheris
and prints executions, inputs kept and findings.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from functools import cache
from pathlib import Path
from typing import Any

import fuzz_verify

ROOT = Path(__file__).resolve().parents[1]
P58 = ROOT / "results" / "p58"
SECONDS = 60.0  # one input read within this, or it is a finding
MEMORY = 512 << 20  # one input read within this much (traced: Python's and NumPy's)
ADDRESS_SPACE = 12 << 30  # the fuzzing process's own (RLIMIT_AS), a guard only
TARGETS = ("shard", "campaign", "state")
GAMES = [(3, 3), (4, 6), (5, 8)]  # the runs a shard may have to belong to
RUNS: list[dict[str, Any]] = []  # (filled by _runs: needs the package)


class Finding(Exception):
    """What a reader must never do with an input."""


# ---------------------------------------------------------------------- the runs
def _runs() -> list[dict[str, Any]]:
    """The run of a bound campaign of each game of :data:`GAMES` (kind, game, params)."""
    if not RUNS:
        from mastermind import Game
        from mastermind.worstcase.campaign.question import Campaign, checkpoint_params_of

        for n, k in GAMES:
            c = Campaign.new("unused", pegs=n, colours=k, guesses=5)
            params = checkpoint_params_of(c)
            RUNS.append({"kind": "bound", "game": Game(n, k).spec().definition(), "params": params})
    return RUNS


# ---------------------------------------------------------------------- seeds
def _input(target: str, run: int, data: bytes) -> bytes:
    return bytes([TARGETS.index(target), run]) + data


@cache
def seeds() -> tuple[bytes, ...]:
    """Every seed input (the reader's byte, the run's byte, the file)."""
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for (n, k), extra in (((3, 3), []), ((4, 6), ["stop"])):
            c = _made_campaign(Path(folder) / f"c{n}{k}", n, k, stop=bool(extra))
            run = GAMES.index((n, k))
            out += [_input("shard", run, p.read_bytes()) for p in sorted(c.glob("shards/*"))]
            out.append(_input("campaign", run, (c / "campaign.json").read_bytes()))
            out.append(_input("state", run, (c / "state.json").read_bytes()))
    run = GAMES.index((5, 8))
    for name in ("00005", "00007", "00009", "00006"):
        out.append(_input("shard", run, (P58 / "shards" / f"{name}.jsonl.gz").read_bytes()))
    out.append(_input("shard", run, _p58_npz_lines()))
    out.append(_input("campaign", run, (P58 / "campaign.json").read_bytes()))
    out.append(_input("state", run, (P58 / "state.json").read_bytes()))
    return tuple(out)


def _made_campaign(folder: Path, n: int, k: int, *, stop: bool) -> Path:
    """A campaign of [n,k] within 5 guesses (one unit's budget 2 ms: its units split),
    decided, or stopped after 12 units."""
    from mastermind.worstcase.campaign.question import Campaign
    from mastermind.worstcase.campaign.run import run

    campaign = Campaign.new(str(folder), pegs=n, colours=k, guesses=5, unit_seconds=0.002)
    campaign.save()
    known = {"below_refuted": True, "minmax": 6}
    state = folder / "state.json"
    state.write_text(json.dumps({"guesses": 5, "known": known}))
    run(campaign, stop_after=12 if stop else 0, log=lambda line: None)
    return folder


def _p58_npz_lines() -> bytes:
    """The p(5,8) campaign's first shard cut to its first line and a few unit lines whose
    answers are in the ``.npz`` form of earlier versions (with their split lines)."""
    with gzip.open(P58 / "shards" / "00001.jsonl.gz", "rt") as f:
        first = json.loads(f.readline())
        units, splits = [], []
        for line in f:
            rec = json.loads(line)
            if "result" in rec and len(units) < 4:
                units.append(rec)
            elif "split_of" in rec and rec["split_of"] in {u["key"] for u in units}:
                splits.append(rec)
    first["units"] = len(units)
    text = "".join(json.dumps(r) + "\n" for r in [first, *units, *splits])
    return gzip.compress(text.encode(), mtime=0)


# ---------------------------------------------------------------------- one input
_SCRATCH: dict[str, Path] = {}


def _folder() -> Path:
    folder = _SCRATCH.get("folder")
    if folder is None:
        folder = _SCRATCH["folder"] = Path(tempfile.mkdtemp(prefix="fuzz-campaign-"))
    for p in folder.iterdir():
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    return folder


def check_one(data: bytes) -> str:
    """Read ``data`` as its reader does: "read" or "refused"; :class:`Finding` for
    anything a reader must never do."""
    if len(data) < 2:
        return "refused"
    target, run, body = TARGETS[data[0] % 3], _runs()[data[1] % len(GAMES)], data[2:]
    folder = _folder()
    if not tracemalloc.is_tracing():
        tracemalloc.start()
    tracemalloc.reset_peak()
    _ALLOWANCE["game"] = 0
    held = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    try:
        outcome = {"shard": _shard, "campaign": _campaign, "state": _state}[target](
            folder, body, run
        )
    except MemoryError:
        raise Finding("memory past the limit") from None
    except Finding:
        raise
    except Exception as e:
        raise Finding(f"internal error ({target}): {type(e).__name__}: {e}") from e
    seconds = time.monotonic() - start
    if seconds > SECONDS:
        raise Finding(f"{seconds:.0f} s on one input ({target})")
    peak = tracemalloc.get_traced_memory()[1] - held
    if peak > MEMORY + _ALLOWANCE.pop("game", 0):
        raise Finding(f"{peak >> 20:,} MB for one input ({target})")
    _worst(target, seconds, peak)
    return outcome


WORST: dict[str, tuple[float, int]] = {}  # per reader: the longest time, the most memory


def _worst(target: str, seconds: float, peak: int) -> None:
    """The worst time and memory of one input so far, said (on standard error) when
    either grows by a tenth: what a long run reports."""
    was = WORST.get(target, (0.0, 0))
    if seconds > was[0] * 1.1 or peak > was[1] * 1.1:
        WORST[target] = (max(seconds, was[0]), max(peak, was[1]))
        s, m = WORST[target]
        print(f"worst so far ({target}): {s:.3f} s, {m / 2**20:.1f} MB", file=sys.stderr)


def _shard(folder: Path, body: bytes, run: dict[str, Any]) -> str:
    from mastermind.engine.shards import import_shards
    from mastermind.worstcase.campaign.state import unit_rows

    (folder / "shards").mkdir()
    (folder / "shards" / "00001.jsonl.gz").write_bytes(body)
    checkpoint = str(folder / "checkpoint.sqlite")
    got = import_shards(folder / "shards", checkpoint, run)
    rows = unit_rows(checkpoint)
    if got.problems:
        if rows:
            raise Finding(f"a shard left out left {len(rows)} rows: {got.problems}")
        if any("\n" in line for line in got.problems):
            raise Finding(f"a problem of more than one line: {got.problems}")
        return "refused"
    return "read"


def _campaign(folder: Path, body: bytes, run: dict[str, Any]) -> str:
    from mastermind import MastermindError
    from mastermind.game import build_cost
    from mastermind.worstcase.campaign.question import Campaign

    (folder / "campaign.json").write_bytes(body)
    try:
        campaign = Campaign.load(str(folder))
    except MastermindError as e:
        if "\n" in str(e):
            raise Finding(f"a refusal of more than one line: {e!r:.200}") from None
        return "refused"
    _ALLOWANCE["game"] = build_cost(campaign.pegs, campaign.colours, campaign.variant)[1]
    return "read"


_ALLOWANCE = {"game": 0}
"""Memory a reading may spend beyond :data:`MEMORY`: a question that is read (checked
first, field by field) may build the game it names, up to its tables' bytes
(:func:`mastermind.game.build_cost`; [8,8]'s are a gigabyte), as any command on it does."""


QUESTION = {"format": 1, "pegs": 3, "colours": 3, "variant": "classic", "guesses": 4}


def _state(folder: Path, body: bytes, run: dict[str, Any]) -> str:
    from mastermind import MastermindError
    from mastermind.cli.campaign import run as command
    from mastermind.cli.common import UsageError

    (folder / "campaign.json").write_text(json.dumps(QUESTION))
    (folder / "state.json").write_bytes(body)
    outcomes = set()
    for shape in (
        {"json": True, "markdown": False},
        {"json": False, "markdown": False},
        {"json": False, "markdown": True},
    ):
        args = argparse.Namespace(action="status", folder=str(folder), replay=False, **shape)
        out = io.StringIO()
        try:
            command(args, out)
        except (MastermindError, UsageError) as e:
            if "\n" in str(e):
                raise Finding(f"a refusal of more than one line: {e!r:.200}") from None
            outcomes.add("refused")
            continue
        if shape["json"]:
            printed = out.getvalue()
            if "NaN" in printed or "Infinity" in printed:
                raise Finding("status --json printed NaN or Infinity")
            json.loads(printed)
        outcomes.add("read")
    return "read" if outcomes == {"read"} else "refused"


# ---------------------------------------------------------------------- mutations
HOSTILE: list[Any] = [
    "S2000000",
    "|O",
    "<U5",
    "V8",
    [10**6, 10**6],
    [-1],
    [1, 1, 1],
    "exists",
    "exists/",
    "",
    1e300,
    -1e300,
    10**30,
    -1,
    None,
    True,
    [],
    {},
    {"dtype": "<i4", "shape": [10**12], "values": []},
    {"dtype": "S2000000", "shape": [4], "values": [1, 2, 3, 4]},
    "A" * 5000,
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random change of an input: of its file mostly, now and then of its reader or
    run."""
    if len(data) < 2:
        return bytes([rng.randrange(3), rng.randrange(3)]) + data
    head, body = bytearray(data[:2]), data[2:]
    roll = rng.random()
    if roll < 0.05:
        head[rng.randrange(2)] = rng.randrange(256)
    elif roll < 0.4:
        body = _hostile(body, rng)
    else:
        body = fuzz_verify.mutate(body, rng)
    return bytes(head) + body


def _hostile(body: bytes, rng: random.Random) -> bytes:
    """A hostile value put in place of one value of one line of the file."""
    packed = body[:2] == b"\x1f\x8b"
    try:
        text = gzip.decompress(body) if packed else body
        lines = text.split(b"\n")
        i = rng.randrange(len(lines))
        doc = json.loads(lines[i])
    except Exception:
        return fuzz_verify.mutate(body, rng)
    lines[i] = json.dumps(_put(doc, rng)).encode()
    text = b"\n".join(lines)
    return gzip.compress(text, mtime=0) if packed else text


def _put(value: Any, rng: random.Random) -> Any:
    if isinstance(value, (dict, list)) and value and rng.random() < 0.8:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = rng.choice(keys)
        value[key] = _put(value[key], rng)
        return value
    return rng.choice(HOSTILE)


# ---------------------------------------------------------------------- atheris
def run_atheris(minutes: float, corpus: Path, out: Path) -> None:
    """Coverage-guided fuzzing of the readers for ``minutes`` (in this process: atheris
    exits it when done); the inputs it keeps go to ``corpus``, its findings to ``out``."""
    import atheris

    with atheris.instrument_imports(
        include=[
            "mastermind.engine.shard_answers",
            "mastermind.engine.shard_reader",
            "mastermind.engine.shards",
            "mastermind.engine.own_files",
            "mastermind.worstcase.campaign",
            "mastermind.cli.campaign",
        ]
    ):
        import mastermind.cli.campaign  # noqa: F401
        import mastermind.engine.shards  # noqa: F401
        import mastermind.worstcase.campaign.state  # noqa: F401

    corpus.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    if not any(corpus.iterdir()):
        for i, seed in enumerate(seeds()):
            (corpus / f"seed-{i:03d}").write_bytes(seed)
    rng = random.Random(0)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng.seed(seed)
        if rng.random() < 0.3:
            return atheris.Mutate(data, max_size)
        return mutate(data, rng)[:max_size]

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    argv = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={int(minutes * 60)}",
        f"-timeout={int(SECONDS)}",
        "-max_len=262144",
        "-rss_limit_mb=0",  # (the address-space limit above is the memory bound)
        f"-artifact_prefix={out}/",
        "-print_final_stats=1",
    ]
    atheris.Setup(argv, check_one, custom_mutator=custom_mutator)
    atheris.Fuzz()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--corpus", type=Path, default=Path("fuzz-campaign-corpus"))
    parser.add_argument("--findings", type=Path, default=Path("fuzz-campaign-findings"))
    args = parser.parse_args()
    run_atheris(args.minutes, args.corpus, args.findings)


if __name__ == "__main__":
    main()
