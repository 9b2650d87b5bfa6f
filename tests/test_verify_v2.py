"""Certificates of version 2 (docs/certificates.md): claims about sets given by their
codes, killer sets (an earlier claim whose set lies within the part a guess leaves),
the grouped scorer and the check split across processes. Sound against brute force on
tiny games, strict about every step."""

import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_verify import _brute, _transpositions

import mastermind.verify as verify_module
from mastermind.verify import Claims, Rules, VerifyError, orbits, verify_certificate, verify_file


# ---------------------------------------------------------------- the grouped scorer
@pytest.mark.parametrize(
    "n,k,variant",
    [
        (5, 8, "classic"),
        (4, 6, "black-peg"),
        (4, 6, "distinct"),
        (6, 4, "classic"),
        (3, 9, "classic"),
    ],
)
def test_grouped_scores_are_the_definition(n, k, variant):
    rules = Rules(n, k, variant)
    rng = np.random.default_rng(n * k)
    guesses = rng.choice(k**n, min(k**n, 3000), replace=False)
    for size in (1, 7, 40, 300):
        secrets = np.sort(rng.choice(k**n, min(size, k**n), replace=False))
        assert np.array_equal(
            rules.grouped_scores(guesses, secrets), rules.score_rows(guesses, secrets)
        )


# ---------------------------------------------------------------- soundness by brute force
def _v2_claims(rules, wc, cands, d, records, rng, lie):
    """Claims of version 2 for (cands, d), bottom-up, as a careless prover might make
    them: for each class of guesses a killer set drawn from one of its parts, a part
    truly unsolvable when there is one (else, with ``lie``, any part), then a random
    subset of it, which may well be solvable; killer sets reused where they lie within
    the set, sometimes one that does not."""
    syms = _transpositions(rules, cands) if rng.random() < 0.7 else []
    guesses = np.flatnonzero(rules.is_guess)
    label = orbits([rules.image(*s) for s in syms], rules.k**rules.n)[guesses]
    killers = []
    if d > 0:
        for rep in np.unique(label).tolist():
            row = rules.score_rows([rep], cands)[0]
            parts = [cands[row == s] for s in np.unique(row) if s != rules.win]
            bad = [p for p in parts if not wc.solvable(frozenset(p.tolist()), d - 1)]
            if not bad and not (lie and parts):
                continue
            part = rng.choice(bad or parts)
            keep = np.sort(rng.sample(part.tolist(), rng.randint(1, part.size)))
            inner = keep if rng.random() < 0.6 else part
            ref = _v2_claims(rules, wc, np.asarray(inner), d - 1, records, rng, False)
            killers.append(ref)
        if records and rng.random() < 0.3:  # any earlier claim, within the set or not
            killers.append(rng.randrange(len(records)))
    records.append(
        {
            "claim": len(records),
            "codes": cands.tolist(),
            "guesses": d,
            "symmetries": syms,
            "killers": killers,
        }
    )
    return len(records) - 1


@pytest.mark.parametrize(
    "n,k,variant",
    [(2, 3, "classic"), (3, 2, "classic"), (2, 4, "classic"), (2, 3, "black-peg")],
)
def test_every_accepted_claim_is_true(n, k, variant):
    rules, table, wc = _brute(n, k, variant)
    rng = random.Random(n * 1000 + k)
    secrets = np.flatnonzero(rules.is_secret)
    accepted = rejected = 0
    for _ in range(40):
        cands = np.sort(rng.sample(secrets.tolist(), rng.randint(1, secrets.size)))
        truth = wc.least(cands.tolist())
        d = rng.randint(max(truth - 1, 0), truth + 1)
        records: list = []
        _v2_claims(rules, wc, np.asarray(cands), d, records, rng, rng.random() < 0.5)
        checker = Claims(rules, 2)
        for record in records:
            try:
                checker.check(record)
            except VerifyError:
                rejected += 1
                break
            accepted += 1
            codes = frozenset(record["codes"])
            assert not wc.solvable(codes, record["guesses"]), record
    assert accepted > 0 and rejected > 0


@pytest.mark.parametrize("n,k,variant", [(2, 3, "classic"), (3, 2, "classic"), (2, 4, "black-peg")])
def test_a_claim_about_two_guesses_is_decided_exactly(n, k, variant):
    """Two guesses: the checker tells the guesses that separate the set a few codes at a
    time; it accepts the bare claim exactly when no strategy finds every code within 2
    (a true claim is never refused, a false one never accepted), with symmetries or not."""
    rules, table, wc = _brute(n, k, variant)
    rng = random.Random(7 * n + k)
    secrets = np.flatnonzero(rules.is_secret).tolist()
    seen = {True: 0, False: 0}
    for _ in range(150):
        cands = np.sort(rng.sample(secrets, rng.randint(1, min(len(secrets), 8))))
        syms = _transpositions(rules, cands) if rng.random() < 0.5 else []
        record = {"claim": 0, "codes": cands.tolist(), "guesses": 2, "symmetries": syms}
        try:
            Claims(rules, 2).check(record)
            accepted = True
        except VerifyError:
            accepted = False
        true = not wc.solvable(frozenset(cands.tolist()), 2)
        assert accepted == true, (cands.tolist(), syms)
        seen[true] += 1
    assert min(seen.values()) > 10  # (both kinds drawn)


# ---------------------------------------------------------------- the writer's files
def _records(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def _write(path, records):
    with gzip.open(path, "wt") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


@pytest.fixture(scope="module", params=[False, True], ids=["parts", "grown"])
def p35(tmp_path_factory, request):
    """p(3,5) = 5 by the writer: its killer sets the failing parts themselves, or grown
    small (claims given by their codes)."""
    from mastermind.game import Game
    from mastermind.worstcase.bounds import worst_case
    from mastermind.worstcase.certify import write_certificate

    path = tmp_path_factory.mktemp("cert") / "p35.gz"
    w = worst_case(Game(3, 5))
    stats = write_certificate(str(path), Game(3, 5), 5, 5, w.witness, shrink=request.param)
    assert (w.lower, w.upper) == (5, 5) and stats.claims > 3
    records = _records(path)
    assert records[0]["version"] == 2
    assert any(r.get("killers") for r in records)
    assert any("codes" in r for r in records) == request.param
    return records


def test_an_honest_certificate_passes(p35):
    verdict = verify_certificate(iter(p35))
    assert verdict.summary.startswith("p(3,5) >= 5 and <= 5: proved, so p(3,5) = 5")


def _sets(records):
    rules = Rules(3, 5, "classic")
    return [
        np.asarray(r["codes"]) if "codes" in r else rules.candidates(r["history"])
        for r in records
        if "claim" in r
    ]


def _mutants(records):
    """(what was done, the mutated records, the words the rejection must use)."""
    out = []
    rules, sets = Rules(3, 5, "classic"), _sets(records)
    i, outside = next(  # a claim with killer sets, and an earlier claim not within its set
        (i, j)
        for i in range(1, len(sets) + 1)
        if records[i].get("killers")
        for j in range(i - 1)
        if not np.isin(sets[j], sets[i - 1]).all()
    )
    mine = sets[i - 1]
    m = json.loads(json.dumps(records))
    m[i]["killers"][0] = outside
    out.append(("a killer set that is not within the set", m, "not within its set"))
    m = json.loads(json.dumps(records))
    m[i]["guesses"] += 1
    out.append(("a claim for one guess more", m, "fewer than|not shown to fail"))
    m = json.loads(json.dumps(records))
    m[i]["killers"][0] = i + 1
    out.append(("a killer set named before its claim", m, "earlier claim"))
    m = json.loads(json.dumps(records))
    m[i]["killers"][0] = i
    out.append(("a claim that rests on itself (a cycle)", m, "earlier claim"))
    m = json.loads(json.dumps(records))
    m[i]["killers"] = []
    out.append(("the killer sets dropped", m, "not shown to fail"))
    m = json.loads(json.dumps(records))
    forged = [[[1, 0, 2, 3, 4], [0, 1, 2]], [[0, 1, 2, 3, 4], [1, 0, 2]]]
    image = [rules.image(*s)[mine] for s in forged]
    m[i]["symmetries"] = [s for s, img in zip(forged, image) if not np.isin(img, mine).all()][:1]
    out.append(("a symmetry that does not fix the set", m, "does not map the set"))
    m = json.loads(json.dumps(records))
    if "codes" in m[i]:
        m[i]["codes"] = list(reversed(m[i]["codes"]))
        out.append(("codes out of order", m, "increasing order"))
    else:
        m[i]["history"] = []
        out.append(("another set (the whole game)", m, "not shown to fail|not within"))
    m = json.loads(json.dumps(records))
    m[0]["version"] = 1
    out.append(("killer sets in a file of version 1", m, "version 2"))
    return out


def test_every_mutation_is_rejected_with_its_step(p35):
    for what, records, words in _mutants(p35):
        with pytest.raises(VerifyError) as e:
            verify_certificate(iter(records))
        assert re.search(words, str(e.value)), (what, str(e.value))


def test_a_claim_given_by_codes_is_strict():
    rules = Rules(2, 3, "classic")
    for codes, words in [
        ([0, 0, 1], "increasing order"),
        ([0, True], "whole numbers"),
        ([0, 9], "outside"),
        ("01", "must be a list"),
    ]:
        with pytest.raises(VerifyError, match=words):
            Claims(rules, 2).check({"claim": 0, "codes": codes, "guesses": 0})
    with pytest.raises(VerifyError, match="not both"):
        Claims(rules, 2).check({"claim": 0, "codes": [1], "history": [], "guesses": 0})


# ---------------------------------------------------------------- split across processes
def test_jobs_give_the_same_verdict(p35, tmp_path):
    good = tmp_path / "good.gz"
    _write(good, p35)
    one, two = verify_file(str(good)), verify_file(str(good), jobs=3)
    assert (one.summary, one.claims) == (two.summary, two.claims)
    for what, records, _ in _mutants(p35)[:4]:
        bad = tmp_path / "bad.gz"
        _write(bad, records)
        reasons = []
        for jobs in (1, 2):
            with pytest.raises(VerifyError) as e:
                verify_file(str(bad), jobs=jobs)
            reasons.append(str(e.value))
        assert reasons[0] == reasons[1], what
    for jobs in (0, 65, "2", True):
        with pytest.raises(VerifyError, match="jobs"):
            verify_file(str(good), jobs=jobs)


def test_the_checker_runs_alone_as_a_script(p35, tmp_path):
    good, bad = tmp_path / "good.gz", tmp_path / "bad.gz"
    _write(good, p35)
    _write(bad, _mutants(p35)[0][1])
    alone = tmp_path / "alone"  # the file by itself, away from the package
    alone.mkdir()
    script = alone / "verify.py"
    script.write_bytes(Path(verify_module.__file__).read_bytes())

    def run(*args):
        return subprocess.run(
            [sys.executable, str(script), *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=alone,
        )

    done = run(str(good), "--jobs", "2")
    assert done.returncode == 0 and "proved, so p(3,5) = 5" in done.stdout, done.stderr
    done = run(str(bad), "--jobs", "2", "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["proved"] is False
    done = run(str(tmp_path / "missing.gz"))
    assert done.returncode == 2 and "CANNOT CHECK" in done.stdout


def test_killer_sets_are_strict_fields():
    """Hostile killer lists end in a refusal that says what is wrong, never a traceback."""
    rules = Rules(2, 3, "classic")
    for killers, words in [
        ("0", "must be a list"),
        ([True], "whole number"),
        ([-1], "earlier claim"),
        ([10**30], "whole number|digits"),
        ([0, 0, 0], "holds 3 items"),
        ([{"claim": 0}], "whole number"),
    ]:
        checker = Claims(rules, 2)
        checker.check({"claim": 0, "codes": [0, 1], "guesses": 1})
        with pytest.raises(VerifyError, match=words):
            checker.check({"claim": 1, "codes": [0, 1, 2], "guesses": 2, "killers": killers})
    with pytest.raises(VerifyError, match="holds 10 items"):
        Claims(rules, 2).check({"claim": 0, "codes": list(range(10)), "guesses": 0})


def test_the_scripts_command_line_is_read_strictly():
    from mastermind.verify import _arguments, main

    assert _arguments(["f.gz"]) == ("f.gz", 1, False)
    assert _arguments(["--jobs", "3", "f.gz", "--json"]) == ("f.gz", 3, True)
    assert _arguments(["-j", "2", "f.gz"]) == ("f.gz", 2, False)
    assert _arguments(["--jobs=4", "f.gz"]) == ("f.gz", 4, False)
    for argv in ([], ["a", "b"], ["--jobs"], ["--jobs", "x", "f"], ["--fast", "f"]):
        with pytest.raises(ValueError):
            _arguments(argv)
        assert main(argv) == 2
