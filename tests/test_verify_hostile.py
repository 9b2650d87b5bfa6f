"""The independent checker against files from strangers: every case that once hung, ate
memory, ended in an internal error or took the wrong type, each now one line naming what
is wrong (status 2: it cannot be checked; status 1: a proof that fails), a JSON object
under --json, and the file read as a stream (a FIFO fed without end shows it stops)."""

from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import peak_in_a_fresh_process

from mastermind.cli import main
from mastermind.verify import (
    MAX_DEPTH,
    MAX_LINE,
    MalformedFile,
    VerifyError,
    read_records,
    verify_file,
    verify_strategy,
)

HEAD = {
    "format": "mastermind-certificate",
    "version": 1,
    "game": {"pegs": 2, "colours": 2, "variant": "classic"},
    "lower": 3,
    "upper": 3,
}
TREE = {
    "pegs": 2,
    "colours": 2,
    "variant": "classic",
    "tree": {
        "guess": "11",
        "children": {
            "1 0": {"guess": "12", "children": {"0 2": {"guess": "21"}}},
            "0 0": {"guess": "22"},
        },
    },
}


def lines(*records) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def write(tmp_path: Path, data: bytes, name: str = "f") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def refused(tmp_path: Path, data: bytes, words: str) -> None:
    with pytest.raises(MalformedFile, match=words):
        verify_file(write(tmp_path, data))


# ---------------------------------------------------------------------- sizes
@pytest.mark.parametrize("guesses", [10**12, 10**8, 10**5, 1e12, True, "3"])
def test_a_claim_of_absurd_guesses_is_refused_at_once(tmp_path, guesses):
    claim = {"claim": 0, "history": [], "guesses": guesses, "symmetries": [], "entries": []}
    refused(tmp_path, lines(HEAD, claim), "'guesses' must be a whole number from 0 to 100")


def feed_forever(path: Path, first: bytes, chunk: bytes, packed: bool) -> threading.Thread:
    """A writer into the FIFO ``path``: ``first``, then ``chunk`` again and again (gzip-
    compressed as one stream when ``packed``) until the reader goes (at most 4 GB)."""

    def run() -> None:
        pack = zlib.compressobj(9, zlib.DEFLATED, 31) if packed else None
        try:
            with open(path, "wb") as out:
                out.write(pack.compress(first) if pack else first)
                for _ in range(4096):
                    out.write(
                        pack.compress(chunk) + pack.flush(zlib.Z_SYNC_FLUSH) if pack else chunk
                    )
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=run, daemon=True)
    writer.start()
    return writer


@pytest.mark.parametrize("packed", [True, False], ids=["gzip", "plain"])
def test_endless_newlines_are_refused_at_the_second_line(tmp_path, packed):
    """A valid header then newlines without end (the 4.7 MB gzip of 1 GB of newlines
    was counted to its end first): refused at line 2, nothing more read."""
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    writer = feed_forever(fifo, lines(HEAD), b"\n" * (1 << 20), packed)
    with pytest.raises(MalformedFile, match="line 2 is not JSON"):
        verify_file(str(fifo), progress=lambda done, total: None)
    writer.join(60)
    assert not writer.is_alive()


@pytest.mark.parametrize("packed", [True, False], ids=["gzip", "plain"])
def test_endless_zeros_stop_at_the_line_cap(tmp_path, packed):
    """10 GB of zeros (a gzip bomb) ate memory until a ulimit stopped it: now the first
    line past MAX_LINE bytes is refused."""
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)
    writer = feed_forever(fifo, b"", b"\0" * (1 << 20), packed)
    with pytest.raises(MalformedFile, match=f"line 1 is longer than {MAX_LINE:,} bytes"):
        verify_file(str(fifo))
    writer.join(60)
    assert not writer.is_alive()


def test_deep_nesting_is_refused(tmp_path):
    deep = b"[" * 100_000 + b"]" * 100_000
    refused(tmp_path, b'{"format": "mastermind-certificate", "game": ' + deep + b"}\n", "nested")
    refused(tmp_path, b'{"tree": ' + deep + b"}", f"nested more than {MAX_DEPTH} deep")
    refused(tmp_path, b'{"a": "' + b"[" * 1000 + b'"}\n' + b"x", "not JSON")  # (in a string: flat)


def test_a_number_of_many_digits_is_refused(tmp_path):
    refused(tmp_path, b'{"format": 1' + b"0" * 5000 + b"}\n", "a number of 5,001 digits")
    refused(tmp_path, lines(dict(HEAD, lower=float("nan"))), "NaN is not a JSON number")


# ---------------------------------------------------------------------- damaged files
def test_damaged_gzip_streams_are_refused(tmp_path):
    good = gzip.compress(lines(HEAD, {"end": True, "claims": 0}), mtime=0)
    cases = {
        "cut": good[: len(good) // 2],
        "flipped": good[:-12] + bytes(b ^ 0xFF for b in good[-12:-8]) + good[-8:],
        "junk after": good + b"junk",
        "a stream started after": good + b"\x1f\x8b\x08",
    }
    for name, data in cases.items():
        with pytest.raises(MalformedFile, match="cannot be read to its end"):
            verify_file(write(tmp_path, data, name))


def _xz_asking_for(dict_code: int, data: bytes) -> bytes:
    """``data`` xz-compressed, its block header then made to ask the decoder for the
    dictionary of size code ``dict_code`` (40: 4 GiB), its checksum made right again."""
    packed = bytearray(lzma.compress(data, format=lzma.FORMAT_XZ))
    size = (packed[12] + 1) * 4  # (the block header follows the 12-byte stream header)
    at = packed.index(b"\x21\x01", 12, 12 + size) + 2  # (LZMA2: one property, the dictionary)
    packed[at] = dict_code
    packed[12 + size - 4 : 12 + size] = zlib.crc32(packed[12 : 12 + size - 4]).to_bytes(4, "little")
    return bytes(packed)


def test_damaged_xz_streams_are_refused(tmp_path):
    """An xz file is read as a gzip one is: cut, flipped, with bytes after its end, or
    asking for a 4 GiB dictionary (the decoder's memory is capped), it is refused."""
    text = lines(HEAD, {"end": True, "claims": 0})
    good = lzma.compress(text, format=lzma.FORMAT_XZ)
    assert list(read_records(write(tmp_path, good, "good"))) == [HEAD, {"end": True, "claims": 0}]
    assert lzma.decompress(_xz_asking_for(18, text)) == text  # (the header edit is sound)
    cases = {
        "cut": good[: len(good) // 2],
        "flipped": good[:30] + bytes(b ^ 0xFF for b in good[30:34]) + good[34:],
        "junk after": good + b"junk",
        "another stream after": good + good,
        "a 4 GiB dictionary": _xz_asking_for(40, text),
    }
    for name, data in cases.items():
        with pytest.raises(MalformedFile, match="cannot be read to its end"):
            verify_file(write(tmp_path, data, name))


def test_junk_after_the_stream_on_the_command_line_is_status_2_in_json(tmp_path, capsys):
    path = write(tmp_path, gzip.compress(lines(HEAD)) + b"junk")
    out = io.StringIO()
    assert main(["verify", "--json", path], out) == 2
    doc = json.loads(out.getvalue())
    assert doc["proved"] is False and doc["checked"] is False
    assert "cannot be read to its end" in doc["reason"]
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------- strict fields
CLAIM = {"claim": 0, "history": [], "guesses": 1, "symmetries": [], "entries": []}


@pytest.mark.parametrize(
    "record, words",
    [
        (dict(CLAIM, symmetries="x"), "'symmetries' must be a list"),
        (
            dict(CLAIM, symmetries=[[[True, False], [0, 1]]]),
            "not a colour and position permutation",
        ),
        (dict(CLAIM, symmetries=[[[0, "a"], [0, 1]]]), "not a colour and position permutation"),
        (dict(CLAIM, symmetries=[[[0, 1], [0, 1], [0]]]), "a symmetry is"),
        (dict(CLAIM, entries=5), "'entries' must be a list"),
        (dict(CLAIM, entries=[[1, "1 0", 0]]), "is not a score"),
        (dict(CLAIM, entries=[[True, [1, 0], 0]]), "is not a code"),
        (dict(CLAIM, history="x"), "a history must be a list"),
        (dict(CLAIM, history=[[1]]), "is not a \\[guess, score\\] pair"),
        (dict(CLAIM, claim=False), "numbered"),
        ({"end": True, "claims": "0"}, "the end record counts '0' claims"),
        ({"end": True, "claims": False}, "the end record counts false claims"),
        ({"witness": {"guess": "11"}}, "is not a code"),
        ({"witness": {"guess": 0, "children": []}}, "'children' must be a JSON object"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_wrong_types_in_a_certificate_are_malformed(tmp_path, record, words):
    refused(tmp_path, lines(HEAD, record), words)


@pytest.mark.parametrize(
    "head, words",
    [
        (dict(HEAD, game={"pegs": True, "colours": True}), "must be whole numbers"),
        (dict(HEAD, game={"pegs": "2", "colours": 2}), "must be whole numbers"),
        (dict(HEAD, game="[2,2]"), "'game' must be a JSON object"),
        (dict(HEAD, game={"pegs": 2, "colours": 2, "variant": 7}), "unknown variant 7"),
        (dict(HEAD, lower=True, upper=True), "whole numbers 1 <= lower <= upper"),
        (dict(HEAD, version=True), "certificate version true"),
    ],
)
def test_no_bool_is_a_number_and_no_text_a_count(tmp_path, head, words):
    """``true`` was taken for 1: "p(True,True) = 1: proved"."""
    refused(tmp_path, lines(head, {"end": True, "claims": 0}), words)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"distribution": {"2": "3"}}, "a count of the distribution"),
        ({"distribution": ["x"]}, "'distribution' must be a JSON object"),
        ({"distribution": {"two": 1}}, "no number of guesses"),
        ({"max_guesses": "3"}, "'max_guesses' must be a whole number"),
        ({"total": True}, "'total' must be a whole number"),
        ({"history": "x"}, "'history' must be a list"),
        ({"history": [["11"]]}, "a history step is"),
        ({"history": [["11", [1, 0]]]}, "a history step is"),
        ({"history": [["1¹", "1 0"]]}, "is not a code"),
        ({"pegs": "2"}, "must be whole numbers"),
        ({"tree": {"guess": "1¹"}}, "is not a code"),
        ({"tree": {"guess": 11}}, "is not a code"),
        ({"tree": "11"}, "not a tree node"),
    ],
)
def test_wrong_types_in_a_tree_are_malformed(change, words):
    with pytest.raises(MalformedFile, match=words):
        verify_strategy(dict(TREE, **change))


def test_a_tree_after_an_impossible_history_is_rejected():
    data = dict(TREE, history=[["11", "2 0"], ["12", "2 0"]])  # two different secrets
    with pytest.raises(VerifyError, match="leaves no secret") as e:
        verify_strategy(data)
    assert not isinstance(e.value, MalformedFile)


def test_a_tree_from_a_position_says_it_starts_after_that_history():
    data = dict(TREE, history=[["22", "0 0"]])
    data["tree"] = {"guess": "11"}
    verdict = verify_strategy(data)
    assert verdict.summary == (
        "[2,2] after 22 scored 0 0: the strategy finds all 1 secrets that history leaves, "
        "1 guesses in all after it, at most 1 more: checked"
    )


def test_a_custom_games_tree_is_refused_as_unsupported(tmp_path):
    from mastermind import analyze
    from mastermind.custom import two_d
    from mastermind.views.tree import to_json

    path = write(tmp_path, json.dumps(to_json(analyze(two_d(), "minmax", tree=True))).encode())
    out = io.StringIO()
    assert main(["verify", path], out) == 2
    text = out.getvalue()
    assert text.count("\n") == 1 and "CANNOT CHECK: a custom game's tree ('twoD 5x5')" in text


# ---------------------------------------------------------------------- the interfaces
def test_a_descriptor_number_is_no_file_name():
    """verify_file(3) read and closed file descriptor 3."""
    r, w = os.pipe()
    try:
        for bad in (r, 3.0, None, b"x", ""):
            with pytest.raises(MalformedFile, match="file is named by its path|empty file name"):
                verify_file(bad)
        os.fstat(r)  # still open
    finally:
        os.close(r)
        os.close(w)


def test_the_help_is_true_about_the_statuses(tmp_path, capsys):
    assert main(["verify", "--help"], io.StringIO()) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "Exit status 0 when the file proves what it says; 1 when it is read and a step fails"
        in text
    )
    assert "2 when it cannot be checked" in text
    missing, directory = str(tmp_path / "missing.gz"), str(tmp_path)
    for path in (missing, directory):
        out = io.StringIO()
        assert main(["verify", path], out) == 2
        assert out.getvalue().startswith(f"{path}: CANNOT CHECK: cannot be read")
        out = io.StringIO()
        assert main(["verify", "--json", path], out) == 2
        assert json.loads(out.getvalue())["checked"] is False
    rejected = write(tmp_path, lines(dict(HEAD, lower=1, upper=1), {"end": True, "claims": 0}))
    out = io.StringIO()
    assert main(["verify", "--json", rejected], out) == 1
    doc = json.loads(out.getvalue())
    assert doc["checked"] is True and doc["reason"] == "no witness tree for the upper bound"


# ---------------------------------------------------------------------- the fuzzer's findings
FOUND = (
    b'{"format": "mastermind-certificate", "version": 1, "game": {"pegs": 4, "colours": 10, '
    b'"variant": "classic"}, "lower": 7, "upper": 7, "producer": -1}\n'
    b'{"claim": 0, "history": [[0, [0, 0]]], "guesses": 4, "entries": %s}\n'
)


def test_an_entry_of_the_wrong_type_is_refused_before_the_work(tmp_path, monkeypatch):
    """The fuzzer's input: a claim on 6,561 secrets of [4,10] with no symmetry (65
    million scores) whose entries are not even a list: refused before any score."""
    from mastermind import verify

    def no_work(*args):
        raise AssertionError("scored")

    monkeypatch.setattr(verify.Rules, "part_sizes", no_work)
    refused(tmp_path, FOUND % b"0", "'entries' must be a list, not 0")


def test_the_parts_of_many_guesses_are_counted_in_bounded_blocks(monkeypatch):
    """The same claim with its entries took 2.8 GB (all 65 million scores at once, then
    their indices): the guesses are now scored a block at a time."""
    from mastermind import verify

    rules = verify.Rules(4, 8, "classic")
    seen = []
    scores = rules.scores

    def counted(guesses, secrets):
        out = scores(guesses, secrets)
        seen.append(out.size)
        return out

    monkeypatch.setattr(verify, "BLOCK", 1 << 16)
    monkeypatch.setattr(rules, "scores", counted)
    cands = rules.candidates([[0, [0, 0]]])
    sizes = rules.part_sizes(np.arange(4096), cands)
    assert sizes.sum() <= 4096 * cands.size and max(seen) <= 1 << 16 and len(seen) > 100


@pytest.mark.slow
def test_a_heavy_claim_stays_within_a_bounded_memory(tmp_path):
    import subprocess
    import sys

    path = write(tmp_path, FOUND % b"[]")
    probe = (
        "import resource, sys\n"
        "from mastermind.verify import VerifyError, verify_file\n"
        "try:\n    verify_file(sys.argv[1])\nexcept VerifyError as e:\n    print(e)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, path],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(Path(verify_file.__code__.co_filename).parents[1])),
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "the file ends before its end record (truncated?)", done.stderr
    assert int(lines[1]) < 1 << 20  # KB: under 1 GB (it took 2.8 GB)


# ---------------------------------------------------------------------- bombs
@pytest.fixture(scope="module")
def bombs():
    import fuzz_verify

    return fuzz_verify.bombs()


def peak_refusing(path: str) -> int:
    """The most bytes held at once while ``verify_file`` refuses ``path``, in a fresh
    interpreter."""
    refused = (
        f"try:\n    verify_file({path!r})\nexcept MalformedFile:\n    pass\n"
        "else:\n    raise SystemExit('accepted')"
    )
    setup = "from mastermind.verify import MalformedFile, verify_file"
    return peak_in_a_fresh_process(setup, refused)


@pytest.mark.parametrize("name", ["objects", "lists"])
def test_a_tree_file_of_empty_values_is_refused_before_it_is_built(tmp_path, bombs, name):
    """128 MB of {} (or []) on short lines, 130 KB compressed, beside a [2,2] tree: it
    took 3.8 GB (4.3 GB) as parsed JSON.  A document holds at most 8,192 JSON values and
    keys beside 32 per code of its game, counted on its bytes before anything is built."""
    path = write(tmp_path, bombs[name])
    assert os.path.getsize(path) < 200_000

    with pytest.raises(MalformedFile, match="JSON values and keys for its game"):
        verify_file(path)
    assert peak_refusing(path) < 320 << 20  # (the file's bytes, as read and joined)


def test_a_tree_within_its_games_items_is_checked(tmp_path):
    """The cap is in proportion to the game: [2,2]'s strategy with 8,000 items of junk
    beside it passes; 9,000 items of junk do not."""
    for junk, ok in ((2000, True), (2300, False)):
        data = json.dumps({**TREE, "junk": [{}, {}] * junk}).encode()
        if ok:
            assert verify_file(write(tmp_path, data)).upper == 3
        else:
            refused(tmp_path, data, "more than 8,320 JSON values and keys")


def test_a_big_games_header_alone_takes_little_memory(tmp_path, bombs):
    """A [5,20] header: its tables (3.2 million codes) took 1 GB; 8-bit now, and built a
    position at a time."""
    path = write(tmp_path, bombs["header"])
    with pytest.raises(MalformedFile, match="ends before its end record"):
        verify_file(path)
    assert peak_refusing(path) < 256 << 20


def test_a_claim_too_big_for_its_guesses_needs_no_score(tmp_path, bombs, monkeypatch):
    """[4,20] after one guess, within 1 guess (161 bytes): it scored 160,000 guesses on
    2,166 secrets, a minute; more secrets than d guesses can tell apart (counting, with
    the most parts any guess makes) is proved at once, and true."""
    from mastermind import verify

    def no_work(*args):
        raise AssertionError("scored")

    monkeypatch.setattr(verify.Rules, "part_sizes", no_work)
    verdict = verify_file(write(tmp_path, bombs["claim"]))
    assert verdict.summary.startswith("the 2,166 secrets of [4,20] after 1 1 1 1 = (2 0)")


def test_the_claims_of_a_certificate_share_one_cap_on_work(tmp_path, monkeypatch):
    """The same claim again and again cost a minute each, without end: the claims of a
    certificate together make at most MAX_TOTAL_WORK scores (here lowered to 33 million:
    [4,20]'s 160,000 guesses on 76 secrets, about 13 million a claim by the grouped
    scorer, its tables counted too, stop at the third)."""
    from mastermind import verify

    monkeypatch.setattr(verify, "MAX_TOTAL_WORK", 33_000_000)
    head = {**HEAD, "game": {"pegs": 4, "colours": 20}, "lower": 1, "upper": 1}
    claims = [{"claim": i, "history": [[0, [3, 0]]], "guesses": 4} for i in range(5)]
    with pytest.raises(MalformedFile, match="more than the 33,000,000 scores"):
        verify_file(write(tmp_path, lines(head, *claims)))
    monkeypatch.setattr(verify, "MAX_TOTAL_WORK", 45_000_000)  # (three claims pass)
    with pytest.raises(VerifyError, match="before its end record"):  # (not the cap)
        verify_file(write(tmp_path, lines(head, *claims[:3])))


@pytest.mark.parametrize(
    "data, where",
    [
        (b'{"format": "mastermind-certificate", "version": 1, "version": 2}\n', "header"),
        (lines(HEAD) + b'{"claim": 0, "claim": 0, "history": [], "guesses": 0}\n', "claim"),
        (b'{"pegs": 2, "pegs": 3, "colours": 2, "tree": {"guess": "11"}}\n', "tree"),
    ],
)
def test_a_key_given_twice_is_refused(tmp_path, data, where):
    """The parser kept the last of two keys, the file's writer may have meant the first."""
    refused(tmp_path, data, "a key is given twice in one object")


def test_a_part_of_one_secret_is_said_as_one(tmp_path):
    """A part certificate about one secret said "the 1 secrets ... cannot all be found
    within 1 more guesses" (its claim is false, and rejected, in words that fit)."""
    head = {**HEAD, "part": {"history": [[0, [1, 0]], [1, [0, 2]]], "guesses": 1}}
    del head["lower"], head["upper"]
    with pytest.raises(VerifyError) as said:
        verify_file(write(tmp_path, lines(head, {"end": True, "claims": 0})))
    assert "no claim that the 1 secret of [2,2] after" in str(said.value)
    assert str(said.value).endswith("cannot be found within 1 more guess")
