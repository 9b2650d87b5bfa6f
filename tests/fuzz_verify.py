"""Fuzzing the independent checker (mastermind.verify) with files from strangers.

An input is the bytes of a file: a certificate or a strategy tree, gzip-compressed or
not. :func:`check_one` writes them to a file and runs :func:`~mastermind.verify.verify_file`
on it; a *finding* is anything but a verdict or the checker's own refusal
(:class:`~mastermind.verify.VerifyError`, :class:`~mastermind.verify.MalformedFile`): an
internal error, a run past :data:`SECONDS` (a hang past the caps), more than
:data:`MEMORY` bytes allocated at once for one input (traced by :mod:`tracemalloc`,
NumPy's arrays included), or a certificate of a small game accepted for a bound that is
false (the true worst case is known).

The seeds (:func:`seeds`) are the shipped certificates (``results/certificates/``; the
small one whole, the others cut after their first claims, so that one run takes well
under a second), certificates and witnesses made for tiny games of every variant, and
exported strategy trees, each plain and gzip-compressed.  :func:`mutate` changes an
input at the level of its JSON (a value replaced by another of any type, a field
dropped, a record repeated or dropped, a line cut, a number made huge or a bool) or of
its bytes (flips, cuts, junk after the gzip stream).

Run by tests/test_verify_fuzz.py: a short Hypothesis run in the default suite, and a
coverage-guided run with atheris (``pip install atheris``) behind the ``slow`` marker.
Standalone: ``python tests/fuzz_verify.py --minutes 30 [--corpus DIR]`` runs atheris
and prints executions, inputs kept and findings.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
import zlib
from functools import cache
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "results" / "certificates"
SECONDS = 300.0  # one input checked within this, or it is a finding (a claim at the
# checker's cap on work, 2^30 scores, takes a minute or two; past this it is a hang)
TOTAL_WORK = 1 << 32  # the checker's cap on a certificate's scores, as fuzzed: lowered
# from its own (2^39, two hours, which [4,9]'s published certificate needs a third of) so
# that an input at the cap ends within SECONDS; the cap is held all the same
MEMORY = 1 << 30  # one input checked within this much (traced: Python's and NumPy's)
ADDRESS_SPACE = 12 << 30  # the fuzzing process's own (RLIMIT_AS), a guard only: atheris
# and libFuzzer grow over hours, which says nothing of the checker
TINY = [
    (2, 2, "classic"),
    (2, 3, "classic"),
    (3, 3, "classic"),
    (2, 4, "classic"),
    (3, 4, "distinct"),
    (3, 4, "bulls-and-cows"),
    (3, 3, "black-peg"),
    (2, 3, "black-peg"),
]


class Finding(Exception):
    """What the checker must never do with an input."""


# ---------------------------------------------------------------------- seeds
@cache
def seeds(quick: bool = False) -> tuple[bytes, ...]:
    """Every seed input (bytes of a file), plain and gzip-compressed; ``quick``: only
    those checked in milliseconds (else the bombs too, :func:`bombs`)."""
    plain = _shipped(quick) + _made()
    packed = [gzip.compress(p, mtime=0) for p in plain]
    return tuple(plain + packed + ([] if quick else list(bombs().values())))


def _certificate(game: dict[str, Any], *records: dict[str, Any], part: Any = None) -> bytes:
    head: dict[str, Any] = {"format": "mastermind-certificate", "version": 1, "game": game}
    head.update({"part": part} if part is not None else {"lower": 1, "upper": 1})
    return b"".join(json.dumps(r).encode() + b"\n" for r in (head, *records))


def bombs(scale: int = (1 << 25) - 64) -> dict[str, bytes]:
    """Inputs that once cost the checker far more than their size (gzip-compressed;
    ``scale``: the lines of the tree bomb): a tree file of empty objects on short lines
    (172 KB, 128 MB of JSON: 3.8 GB), of empty lists (4.3 GB), one claim of [4,20] with
    a one-step history and 1 guess (161 bytes: 50 s), that claim within 4 guesses again
    and again (the claims' total), a [5,20] header alone (1 GB), and keys given twice
    (the last one won)."""
    tree = b'{"pegs": 2, "colours": 2, "tree": {"guess": "11", "children": {}}, "junk": [\n'
    game = {"pegs": 4, "colours": 20, "variant": "classic"}
    part = {"history": [[0, [2, 0]]], "guesses": 1}
    claim = {"claim": 0, **part}
    heavy = [{**claim, "claim": i, "guesses": 4} for i in range(200)]
    raw = {
        "objects": tree + b"{},\n" * scale + b"{}]}\n",
        "lists": tree + b"[],\n" * scale + b"[]]}\n",
        "claim": _certificate(game, claim, {"end": True, "claims": 1}, part=part),
        "claims": _certificate(game, *heavy, {"end": True, "claims": 200}),
        "header": _certificate({"pegs": 5, "colours": 20, "variant": "classic"}),
        "twice": b'{"pegs": 2, "pegs": 3, "colours": 2, "tree": {"guess": "11"}}\n',
    }
    return {name: gzip.compress(data, mtime=0) for name, data in raw.items()}


def _shipped(quick: bool) -> list[bytes]:
    """The shipped certificates: [4,6]'s whole (checked in 0.2 s); the others' header,
    and unless ``quick`` their first claims too (a claim of [5,7] takes a second)."""
    out = []
    for path in sorted(SHIPPED.glob("*.cert.gz")):
        if path.name == "p4-6.cert.gz":
            out.append(gzip.decompress(path.read_bytes()))
            continue
        with gzip.open(path, "rb") as f:
            head = json.loads(f.readline())
            lines = [json.dumps(head).encode() + b"\n"]
            if not quick:
                game = head["game"]
                claims = 3 if game["colours"] ** game["pegs"] <= 5000 else 1
                lines += [f.readline() for _ in range(claims)]
        out.append(b"".join(lines))
    return out


def _made() -> list[bytes]:
    """Certificates and witnesses of tiny games, and exported trees, made by the package."""
    from mastermind import Game, analyze, worst_case
    from mastermind.views.tree import to_json

    out = []
    with tempfile.TemporaryDirectory() as folder:
        for n, k, variant in TINY:
            game = Game(n, k, variant)
            path = os.path.join(folder, "c.gz")
            result = worst_case(game, certificate=path)
            out.append(gzip.decompress(Path(path).read_bytes()))
            tree = {"pegs": n, "colours": k, "variant": variant, "max_guesses": result.upper}
            tree["tree"] = result.witness.to_json(game)
            out.append(json.dumps(tree).encode() + b"\n")
            exported = to_json(analyze(game, "entropy", tree=True))
            out.append(json.dumps(exported, indent=1).encode() + b"\n")
    return out


@cache
def true_worst_case(n: int, k: int, variant: str) -> Optional[int]:
    """p of a game small enough to solve at once (None for a larger one)."""
    from mastermind import Game, worst_case

    try:
        game = Game(n, k, variant)
    except Exception:
        return None
    if game.size > 256:
        return None
    return worst_case(game).upper


# ---------------------------------------------------------------------- one input
_SCRATCH: dict[str, str] = {}


def check_one(data: bytes) -> str:
    """Run the checker on ``data`` as a file: "proved", "rejected" or "malformed";
    :class:`Finding` for anything it must never do."""
    from mastermind import verify
    from mastermind.verify import MalformedFile, VerifyError, verify_file

    verify.MAX_TOTAL_WORK = min(verify.MAX_TOTAL_WORK, TOTAL_WORK)
    path = _SCRATCH.get("path")
    if path is None:
        fd, path = tempfile.mkstemp(prefix="fuzz-verify-", suffix=".input")
        os.close(fd)
        _SCRATCH["path"] = path
    with open(path, "wb") as f:
        f.write(data)
    if not tracemalloc.is_tracing():
        tracemalloc.start()
    tracemalloc.reset_peak()
    held = tracemalloc.get_traced_memory()[0]  # (what the process held before)
    start = time.monotonic()
    try:
        verdict = verify_file(path)
        outcome = "proved"
    except MalformedFile:
        outcome = "malformed"
    except VerifyError:
        outcome = "rejected"
    except MemoryError:
        raise Finding("memory past the limit") from None
    except Exception as e:
        raise Finding(f"internal error: {type(e).__name__}: {e}") from e
    seconds = time.monotonic() - start
    if seconds > SECONDS:
        raise Finding(f"{seconds:.0f} s on one input")
    peak = tracemalloc.get_traced_memory()[1] - held
    if peak > MEMORY:
        raise Finding(f"{peak >> 20:,} MB for one input")
    if outcome == "proved" and verdict.lower is not None:
        _sound(data, verdict)
    return outcome


def _sound(data: bytes, verdict: Any) -> None:
    """A proved certificate of a small game states its true worst case."""
    text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    head = json.loads(text.split(b"\n", 1)[0])
    game = head["game"]
    truth = true_worst_case(game["pegs"], game["colours"], game.get("variant", "classic"))
    if truth is not None and not verdict.lower <= truth <= verdict.upper:
        raise Finding(f"accepted {verdict.summary!r}, but p = {truth}")


# ---------------------------------------------------------------------- mutations
ODD_VALUES: list[Any] = [
    True,
    False,
    None,
    0,
    -1,
    1,
    2,
    10**12,
    10**30,
    1e12,
    1e308,
    -0.0,
    "3",
    "",
    "1¹",
    "1122",
    "1 0",
    [],
    [[]],
    {},
    {"guess": "11"},
    [0, [0, 0], 0],
    [[1, 0], [0, 1]],
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random change of ``data``, at the level of its JSON or of its bytes; a
    gzip-compressed input stays compressed (most of the time)."""
    try:
        return _mutate(data, rng)
    except (ValueError, RecursionError, EOFError, OSError, zlib.error):  # (what it cannot parse)
        return _bytes(data, rng)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    packed = data[:2] == b"\x1f\x8b"
    try:
        text = gzip.decompress(data) if packed else data
    except Exception:
        return _bytes(data, rng)
    roll = rng.random()
    if roll < 0.65:
        text = _json(text, rng)
    elif roll < 0.9:
        text = _bytes(text, rng)
    else:
        return _bytes(data, rng) if packed else gzip.compress(text, mtime=0)
    if packed and rng.random() < 0.9:
        text = gzip.compress(text, mtime=0)
        if rng.random() < 0.05:
            text += rng.choice([b"junk", b"\0" * 10, b"\x1f\x8b\x08"])
    return text


def _bytes(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    kind = rng.randrange(5)
    if kind == 0:  # a bit flipped
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if kind == 1:  # cut
        return data[:i]
    if kind == 2:  # bytes put in
        return (
            data[:i] + rng.choice([b"\n", b"[", b"{", b"]]]", b'"', b"\xff", b"9" * 30]) + data[i:]
        )
    if kind == 3:  # deep nesting
        depth = rng.choice([300, 5000])
        return data[:i] + b"[" * depth + b"]" * depth + data[i:]
    return data[:i] + data[i:][::-1]


def _json(text: bytes, rng: random.Random) -> bytes:
    """A change to one JSON line (records of a certificate) or to the whole document."""
    lines = text.split(b"\n")
    docs = []
    for line in lines:
        try:
            docs.append(json.loads(line) if line.strip() else None)
        except ValueError:
            docs.append(line)
    if all(d is None or isinstance(d, bytes) for d in docs):  # a document over many lines
        try:
            return json.dumps(_change(json.loads(text), rng)).encode() + b"\n"
        except ValueError:
            return _bytes(text, rng)
    i = rng.randrange(len(docs))
    kind = rng.randrange(6)
    if kind == 0 and len(docs) > 1:
        del docs[i]
    elif kind == 1:
        docs.insert(i, docs[rng.randrange(len(docs))])
    else:
        tries = 0
        while (docs[i] is None or isinstance(docs[i], bytes)) and tries < 20:
            i, tries = rng.randrange(len(docs)), tries + 1
        if docs[i] is not None and not isinstance(docs[i], bytes):
            docs[i] = _change(docs[i], rng)
    return b"\n".join(
        d if isinstance(d, bytes) else (b"" if d is None else json.dumps(d).encode()) for d in docs
    )


def _change(value: Any, rng: random.Random) -> Any:
    """``value`` with one part (at a random depth) replaced, dropped or stretched."""
    if isinstance(value, (dict, list)) and value and rng.random() < 0.75:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = rng.choice(keys)
        if rng.random() < 0.15:
            if isinstance(value, dict):
                del value[key]
            else:
                value.pop(key)
            return value
        value[key] = _change(value[key], rng)
        return value
    if isinstance(value, int) and not isinstance(value, bool) and rng.random() < 0.5:
        return value + rng.choice([-1, 1, 2, 10**6])
    if isinstance(value, list) and rng.random() < 0.3:
        return value * rng.choice([2, 50])
    return rng.choice(ODD_VALUES)


# ---------------------------------------------------------------------- atheris
def run_atheris(minutes: float, corpus: Path, out: Path) -> None:
    """Coverage-guided fuzzing of the checker for ``minutes`` (in this process: atheris
    exits it when done); the inputs it keeps go to ``corpus``, its findings to ``out``."""
    import atheris

    with atheris.instrument_imports(include=["mastermind.verify"]):
        import mastermind.verify  # noqa: F401

    corpus.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    if not any(corpus.iterdir()):
        for i, seed in enumerate(seeds()):
            (corpus / f"seed-{i:03d}").write_bytes(seed)
    rng = random.Random(0)

    def one_input(data: bytes) -> None:
        check_one(data)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng.seed(seed)
        if rng.random() < 0.4:
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
    atheris.Setup(argv, one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--corpus", type=Path, default=Path("fuzz-corpus"))
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    args = parser.parse_args()
    run_atheris(args.minutes, args.corpus, args.findings)


if __name__ == "__main__":
    main()
