"""Certificates as the package writes them (mastermind.worstcase.certify, ``bound --certificate``)
and checks them (``mastermind verify``): every small game's certificate passes the
independent checker, through Python and through the command line."""

import gzip
import io
import json
import lzma
import os
import subprocess
import sys

import pytest
import reference
from conftest import RUN_THE_PROGRAM

import mastermind
from mastermind import cli
from mastermind.game import Game
from mastermind.verify import MalformedFile, VerifyError, verify_file
from mastermind.worstcase.bounds import worst_case
from mastermind.worstcase.certify import (
    CertificateError,
    write_certificate,
    write_part_certificate,
)
from mastermind.worstcase.search import SearchUnfinished

HERE = os.path.dirname(os.path.abspath(__file__))
CERTIFICATES = os.path.join(HERE, "..", "results", "certificates")


def _run(argv):
    out = io.StringIO()
    return cli.main(argv, out), out.getvalue()


# games of the worst-case table below [4,7] (which test_bound_then_verify makes), and
# the variants the checker knows
SMALL = [
    (2, 5, "classic"),
    (3, 3, "classic"),
    (3, 5, "classic"),
    (3, 7, "classic"),
    (4, 3, "classic"),
    (4, 4, "classic"),
    (4, 5, "classic"),
    (4, 6, "classic"),
    (5, 3, "classic"),
    (5, 4, "classic"),
    (6, 3, "classic"),
    (4, 6, "bulls-and-cows"),
    (4, 6, "distinct"),
    (3, 4, "black-peg"),
]


@pytest.mark.parametrize("n,k,variant", SMALL)
def test_small_games_certificates_pass_the_checker(n, k, variant, tmp_path):
    path = tmp_path / "c.gz"
    w = worst_case(Game(n, k, variant), certificate=str(path))
    assert w.exact and w.certificate is not None and w.certificate.size == path.stat().st_size
    verdict = verify_file(str(path))
    assert (verdict.lower, verdict.upper) == (w.lower, w.upper)
    assert verdict.claims == w.certificate.claims


def test_a_fresh_search_makes_a_certificate_too(tmp_path):
    """Without the memo of the search that proved the bounds, the builder searches again."""
    game = Game(4, 5)
    w = worst_case(game)
    stats = write_certificate(str(tmp_path / "c.gz"), game, w.lower, w.upper, w.witness)
    assert verify_file(stats.path).lower == 5


def test_what_cannot_be_certified(tmp_path):
    with pytest.raises(CertificateError, match="every code allowed"):
        worst_case(Game(3, 3), candidates_only=True, certificate=str(tmp_path / "c.gz"))
    with pytest.raises(CertificateError, match="permutation|every code"):
        worst_case(Game(3, 3, "permutation"), certificate=str(tmp_path / "c.gz"))
    with pytest.raises(CertificateError, match="path"):
        worst_case(Game(3, 3), certificate=3)
    assert not os.listdir(tmp_path)


def test_a_time_limit_writes_nothing(tmp_path):
    game = Game(4, 7)
    w = worst_case(game)
    with pytest.raises(SearchUnfinished):
        write_certificate(
            str(tmp_path / "c.gz"), game, w.lower, w.upper, w.witness, time_limit=1e-3
        )
    assert not os.listdir(tmp_path)


def test_ctrl_c_writes_nothing(tmp_path, ctrl_c_at_work):
    path = tmp_path / "c.gz"
    src = os.path.dirname(os.path.dirname(os.path.abspath(mastermind.__file__)))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            ctrl_c_at_work + RUN_THE_PROGRAM,
            "bound",
            "-n",
            "5",
            "-k",
            "6",
            "--certificate",
            str(path),
        ],
        env=dict(os.environ, PYTHONPATH=src),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and f"nothing written to {path}" in done.stderr
    assert not os.listdir(tmp_path)


# ---------------------------------------------------------------- the command line
def test_bound_then_verify(tmp_path):
    path = str(tmp_path / "p47.gz")
    code, text = _run(["bound", "-n", "4", "-k", "7", "--certificate", path])
    assert code == 0 and f"certificate: {path}" in text
    code, text = _run(["verify", path])
    assert code == 0
    assert text.startswith("p(4,7) >= 6 and <= 6: proved, so p(4,7) = 6")
    code, text = _run(["verify", path, "--json", "--jobs", "2"])
    doc = json.loads(text)
    assert code == 0 and doc["proved"] and (doc["lower"], doc["upper"]) == (6, 6)


def test_verify_rejects_a_mutated_file_with_its_step(tmp_path):
    path = tmp_path / "p35.gz"
    assert _run(["bound", "-n", "3", "-k", "5", "--certificate", str(path)])[0] == 0
    with gzip.open(path, "rt") as f:
        records = [json.loads(line) for line in f]
    claim = next(r for r in records if r.get("killers"))
    claim["killers"] = claim["killers"][1:]  # a guess it answered is answered no more
    with gzip.open(path, "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    code, text = _run(["verify", str(path)])
    assert code == 1 and "REJECTED" in text and f"claim {claim['claim']}" in text
    code, text = _run(["verify", str(path), "--json"])
    assert code == 1 and json.loads(text)["proved"] is False


def test_verify_strategy_files(tmp_path):
    witness = tmp_path / "w.json"
    assert _run(["bound", "-n", "3", "-k", "5", "--witness", str(witness)])[0] == 0
    code, text = _run(["verify", str(witness)])
    assert code == 0 and "finds all 125 secrets" in text and "at most 5" in text
    tree = tmp_path / "t.json"
    assert _run(["optimal", "-n", "3", "-k", "3", "--tree", str(tree)])[0] == 0
    code, text = _run(["verify", str(tree), "--json"])
    doc = json.loads(text)
    assert code == 0 and doc["total"] == json.loads(tree.read_text())["total"]


def test_verify_bad_input(tmp_path):
    assert _run(["verify", str(tmp_path / "missing.gz")])[0] == 2
    assert _run(["verify", str(tmp_path)])[0] == 2
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x01 not json")
    code, text = _run(["verify", str(junk)])
    assert code == 2 and "CANNOT CHECK" in text  # malformed: not a proof that fails
    code, _ = _run(["bound", "-n", "3", "-k", "3", "--certificate", str(tmp_path)])
    assert code == 2
    code, _ = _run(
        [
            "bound",
            "-n",
            "3",
            "-k",
            "3",
            "--candidates-only",
            "--certificate",
            str(tmp_path / "c.gz"),
        ]
    )
    assert code == 2


# ---------------------------------------------------------------- the published ones
def _shipped():
    index = os.path.join(CERTIFICATES, "index.json")
    if not os.path.exists(index):
        return []
    with open(index) as f:
        return sorted(json.load(f).items())


@pytest.mark.slow
@pytest.mark.parametrize("name,entry", _shipped())
def test_shipped_certificates_verify(name, entry):
    verdict = verify_file(os.path.join(CERTIFICATES, name))
    assert (verdict.lower, verdict.upper) == (entry["lower"], entry["upper"])
    assert verdict.summary == entry["verdict"]


def test_small_shipped_certificates_verify():
    """The shipped certificates of the games up to [4,7] also verify in the default run."""
    small = [(n, e) for n, e in _shipped() if e["claims"] <= 1000 and e["bytes"] < 100_000]
    assert small, "results/certificates/ holds the small games' certificates"
    for name, entry in small:
        verdict = verify_file(os.path.join(CERTIFICATES, name))
        assert verdict.summary == entry["verdict"]


# ---------------------------------------------------------------- part certificates
def _brute_solvable(game, d):
    """Whether a set can be solved within d guesses, by the plain exhaustive search
    (the reference scorer on the codes' colours)."""
    wc = reference.WorstCase(*reference.game_rules(game))
    return lambda cands: wc.solvable(frozenset(int(c) for c in cands), d)


@pytest.mark.parametrize("n,k,d", [(3, 4, 2), (4, 3, 2), (3, 5, 3)])
def test_part_certificates_hold_every_refuted_part(n, k, d, tmp_path):
    """After each of a few openings, every part the plain exhaustive search finds
    unsolvable within d gets a part certificate the checker accepts, naming its set and
    d; every part it finds solvable is refused."""
    game = Game(n, k)
    solvable = _brute_solvable(game, d)
    refuted = kept = 0
    for opening in ("1" * n, "1" * (n - 1) + "2", "123"[:n] + "1" * max(0, n - 3)):
        g = game.code(opening)
        for score in sorted({tuple(game.score_index(g, int(v))) for v in game.secrets}):
            if tuple(score) == (n, 0):
                continue
            part = game.filter(game.secrets, opening, score)
            path = tmp_path / f"{opening}-{score[0]}{score[1]}.gz"
            history = [(opening, f"{score[0]} {score[1]}")]
            if solvable(part):
                with pytest.raises(CertificateError, match="can be found within"):
                    write_part_certificate(str(path), game, history, d)
                assert not path.exists()
                kept += 1
                continue
            stats = write_part_certificate(str(path), game, history, d)
            verdict = verify_file(str(path))
            assert verdict.claims == stats.claims >= 1
            assert verdict.summary.startswith(f"the {len(part):,} secrets of [{n},{k}] after")
            assert f"within {d} more guesses: proved" in verdict.summary
            refuted += 1
    assert refuted > 0 and kept > 0


def _records(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def _rewrite(path, records):
    with gzip.open(path, "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))


def test_a_part_certificate_proves_its_own_claim_only(tmp_path):
    """The header's claim must be one the file's claims prove: a guess more, another
    score, a history no secret fits, bounds beside the part: each is rejected; the
    command line says what is proved."""
    game, path = Game(4, 6), tmp_path / "part.gz"
    write_part_certificate(str(path), game, [("1122", "0 0")], 3)
    code, text = _run(["verify", str(path)])
    assert code == 0 and "the 256 secrets of [4,6] after 1122 = (0 0)" in text
    good = _records(path)
    for change, error, words in [
        (lambda h: h["part"].update(guesses=4), VerifyError, "no claim that"),
        (lambda h: h["part"]["history"][0].__setitem__(1, [0, 1]), VerifyError, "no claim"),
        (lambda h: h["part"]["history"][0].__setitem__(1, [3, 1]), VerifyError, "no secret"),
        (lambda h: h["part"]["history"][0].__setitem__(1, [5, 0]), MalformedFile, "score"),
        (lambda h: h.update(lower=5), MalformedFile, "no bounds"),
        (lambda h: h["part"].update(guesses=0), MalformedFile, "guesses"),
    ]:
        records = json.loads(json.dumps(good))
        change(records[0])
        _rewrite(path, records)
        with pytest.raises(error, match=words):
            verify_file(str(path))
    _rewrite(path, good)
    assert verify_file(str(path)).claims == len(good) - 2


def test_an_xz_certificate_holds_the_same_lines_as_a_gzip_one(tmp_path):
    """A path ending .xz gets an xz file: the checker reads it, and its lines are those
    of the gzip file made for the same part."""
    game, history = Game(4, 6), [("1123", "0 1")]
    for name in ("part.cert.gz", "part.cert.xz"):
        write_part_certificate(str(tmp_path / name), game, history, 3)
    xz, gz = tmp_path / "part.cert.xz", tmp_path / "part.cert.gz"
    assert xz.read_bytes()[:6] == b"\xfd7zXZ\x00"
    assert lzma.decompress(xz.read_bytes()) == gzip.decompress(gz.read_bytes())
    verdict = verify_file(str(xz))
    assert verdict.summary == verify_file(str(gz)).summary and verdict.claims >= 1
    assert "after 1123 = (0 1) cannot all be found within 3 more guesses: proved" in verdict.summary


RESULTS = os.path.join(HERE, "..", "results")


def _campaign_parts():
    """(folder, part, its index row) of every campaign's part certificates."""
    out = []
    for name in ("p58", "p74"):
        index = os.path.join(RESULTS, name, "certificates", "index.json")
        if not os.path.exists(index):
            continue
        with open(index) as f:
            rows = sorted(json.load(f).items())
        out += [
            pytest.param(
                name, part, row, marks=() if row["checked_seconds"] <= 30 else pytest.mark.slow
            )
            for part, row in rows
        ]
    return out


@pytest.mark.parametrize("name,part,row", _campaign_parts())
def test_the_campaigns_part_certificates_verify(name, part, row):
    """The refuted parts of the worst-case campaigns (p(5,8), p(7,4)) that are certified:
    each file proves what its index says (the quick ones in the default run, every one
    with -m slow)."""
    folder = os.path.join(RESULTS, name)
    with open(os.path.join(folder, "campaign.json")) as f:
        d = json.load(f)["guesses"] - 1
    verdict = verify_file(os.path.join(folder, "certificates", row["file"]))
    assert verdict.summary == row["summary"] and verdict.claims == row["claims"]
    assert f"after {part} cannot all be found within {d} more guesses: proved" in verdict.summary
