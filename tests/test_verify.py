"""The independent checker (mastermind.verify): sound against brute force on tiny games,
complete on honest certificates, and strict about every step of a file."""

import gzip
import itertools
import json
import random
import re

import numpy as np
import pytest
import reference

from mastermind.verify import (
    Claims,
    Rules,
    VerifyError,
    orbits,
    verify_certificate,
    verify_file,
    verify_strategy,
)


# ---------------------------------------------------------------- the rules themselves
@pytest.mark.parametrize("variant", ["classic", "distinct", "bulls-and-cows", "black-peg"])
@pytest.mark.parametrize("n,k", [(3, 4), (4, 4), (2, 5)])
def test_scores_and_code_sets_match_the_reference(n, k, variant):
    if variant in ("distinct", "bulls-and-cows") and n > k:
        pytest.skip("needs pegs <= colours")
    rules = Rules(n, k, variant)
    codes = reference.codes(n, k)
    guesses, secrets = reference.variant_sets(n, k, variant)
    assert [codes[i] for i in np.flatnonzero(rules.is_guess)] == guesses
    assert [codes[i] for i in np.flatnonzero(rules.is_secret)] == secrets
    table = rules.score_rows(np.arange(len(codes)), np.arange(len(codes)))
    for g, v in itertools.product(range(len(codes)), repeat=2):
        b, w = reference.score(codes[g], codes[v], variant == "black-peg")
        assert table[g, v] == b * (n + 2) + w


def test_a_permutation_moves_colours_and_positions():
    rules = Rules(3, 4, "classic")
    img = rules.image([1, 2, 3, 0], [2, 0, 1])  # colour c -> c+1, position j -> pos[j]
    code = 0 * 16 + 1 * 4 + 3  # colours (0, 1, 3)
    # position 0 goes to 2, 1 to 0, 2 to 1: (0,1,3) -> (2,0,1) after renaming -> (1,2,0)
    assert img[code] == 2 * 16 + 0 * 4 + 1
    with pytest.raises(VerifyError, match="not a colour and position permutation"):
        rules.image([0, 0, 1, 2], [0, 1, 2])


def test_orbits_are_the_least_code_of_each_class():
    rules = Rules(2, 3, "classic")
    swap = rules.image([1, 0, 2], [0, 1])
    label = orbits([swap], 9)
    # codes 00 and 11 are one class, 01 and 10 another, 02 and 12 another, 22 alone ...
    assert label.tolist() == [0, 1, 2, 1, 0, 2, 6, 6, 8]


# ---------------------------------------------------------------- soundness by brute force
def _brute(n, k, variant):
    rules = Rules(n, k, variant)
    table = rules.score_rows(np.arange(k**n), np.arange(k**n))
    guesses = np.flatnonzero(rules.is_guess).tolist()
    win = rules.win
    wc = reference.WorstCase(
        guesses,
        np.flatnonzero(rules.is_secret).tolist(),
        lambda g, v: int(table[g, v]),
        lambda s: s == win,
    )
    return rules, table, wc


def _transpositions(rules, cands):
    out = []
    for a, b in itertools.combinations(range(rules.k), 2):
        cmap = list(range(rules.k))
        cmap[a], cmap[b] = b, a
        out.append([cmap, list(range(rules.n))])
    for i, j in itertools.combinations(range(rules.n), 2):
        pmap = list(range(rules.n))
        pmap[i], pmap[j] = j, i
        out.append([list(range(rules.k)), pmap])
    return [s for s in out if np.array_equal(np.sort(rules.image(*s)[cands]), cands)]


def _claims(rules, table, wc, history, d, records, rng, lie):
    """Claims for (history, d), bottom-up, made the way a careless prover might: for each
    class of guesses a part that is truly unsolvable when there is one, else (with
    ``lie``, at this level only) some part anyway, so that false claims are offered too."""
    cands = rules.candidates(history)
    syms = _transpositions(rules, cands) if rng.random() < 0.7 else []
    guesses = np.flatnonzero(rules.is_guess)
    label = orbits([rules.image(*s) for s in syms], rules.k**rules.n)[guesses]
    entries = []
    if d > 0:
        for rep in np.unique(label).tolist():
            row = table[rep, cands]
            parts = [(s, cands[row == s]) for s in np.unique(row) if s != rules.win]
            bad = [(s, p) for s, p in parts if not wc.solvable(frozenset(p.tolist()), d - 1)]
            if not bad and not (lie and parts):
                continue
            s, part = rng.choice(bad or parts)
            b, w = divmod(int(s), rules.n + 2)
            ref = _claims(rules, table, wc, history + [[rep, [b, w]]], d - 1, records, rng, False)
            entries.append([rep, [b, w], ref])
    records.append(
        {
            "claim": len(records),
            "history": history,
            "guesses": d,
            "symmetries": syms,
            "entries": entries,
        }
    )
    return len(records) - 1


@pytest.mark.parametrize(
    "n,k,variant",
    [
        (2, 3, "classic"),
        (3, 2, "classic"),
        (2, 4, "classic"),
        (3, 3, "bulls-and-cows"),
        (2, 3, "black-peg"),
    ],
)
def test_every_accepted_claim_is_true(n, k, variant):
    rules, table, wc = _brute(n, k, variant)
    rng = random.Random(n * 100 + k)
    guesses = np.flatnonzero(rules.is_guess).tolist()
    histories = [[]] + [
        [[g, [b, w]]]
        for g in guesses[:3]
        for b in range(n + 1)
        for w in range(n + 1 - b)
        if (b, w) != (n, 0)
    ]
    accepted = rejected = 0
    for history in histories:
        cands = rules.candidates(history)
        if cands.size == 0:
            continue
        truth = wc.least(cands.tolist())  # solvable in truth, not in truth - 1
        for d in range(max(truth - 1, 0), truth + 2):
            for lie in (False, True):
                records: list = []
                _claims(rules, table, wc, history, d, records, rng, lie)
                checker = Claims(rules)
                for record in records:
                    try:
                        checker.check(record)
                    except VerifyError:
                        rejected += 1
                        break
                    accepted += 1
                    subset = rules.candidates(record["history"])
                    assert not wc.solvable(frozenset(subset.tolist()), record["guesses"])
                else:  # all accepted: the root too, so it must be true, and honest
                    assert d < truth
                if d < truth and not lie:  # an honest certificate of a true claim passes
                    assert len(checker.sets) == len(records)
    assert accepted > 0 and rejected > 0


# ---------------------------------------------------------------- the file, step by step
def _records(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def _write(path, records):
    with gzip.open(path, "wt") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


@pytest.fixture(scope="module")
def p35():
    """A certificate of version 1 (each entry names a claim whose set is the part
    exactly), made by the writer of that version: still read, still strict."""
    from pathlib import Path

    records = _records(Path(__file__).parent / "data" / "p35-v1.cert.gz")
    assert records[0]["version"] == 1 and len(records) > 10
    return records


def _check(records):
    return verify_certificate(iter(records))


def test_an_honest_certificate_passes(p35):
    verdict = _check(p35)
    assert (verdict.lower, verdict.upper) == (5, 5)
    assert verdict.summary.startswith("p(3,5) >= 5 and <= 5: proved, so p(3,5) = 5")


def _claim_with_entries(records):
    return next(i for i, r in enumerate(records) if r.get("entries"))


def _mutants(records):
    """(what was done, the mutated records, the words the rejection must use)."""
    out = []
    i = _claim_with_entries(records)
    dropped = [r for j, r in enumerate(records) if j != i - 0]
    out.append(("drop a claim", dropped, "numbered"))
    m = json.loads(json.dumps(records))
    entry = m[i]["entries"][0]
    entry[1] = [entry[1][0], entry[1][1] + 1] if entry[1][0] + entry[1][1] < 3 else [0, 0]
    out.append(("change a score", m, "claim"))
    m = json.loads(json.dumps(records))
    m[i]["entries"][0][0] = (m[i]["entries"][0][0] + 1) % 125
    out.append(("swap a guess", m, "claim"))
    m = json.loads(json.dumps(records))
    m[i]["entries"] = m[i]["entries"][1:] if len(m[i]["entries"]) > 1 else []
    out.append(("drop an entry", m, "not shown to fail"))
    m = json.loads(json.dumps(records))
    m[0]["lower"] += 1
    m[0]["upper"] += 1
    out.append(
        (
            "claim one guess fewer (a higher lower bound)",
            m,
            "no claim that the whole game cannot be solved in 5",
        )
    )
    m = json.loads(json.dumps(records))
    root = next(r for r in m if r.get("history") == [])
    root["guesses"] += 1
    out.append(("the root claimed for one guess more", m, "fewer than 4|not shown to fail"))
    m = json.loads(json.dumps(records))
    m[0]["upper"] -= 1
    m[0]["lower"] -= 1
    out.append(("an upper bound the witness does not reach", m, "witness needs 5"))
    m = json.loads(json.dumps(records))
    j = next(j for j, r in enumerate(m) if r.get("history") and r.get("guesses", 0) > 0)
    m[j]["symmetries"] = [[[1, 0, 2, 3, 4], [0, 1, 2]]] + m[j]["symmetries"]
    if np.array_equal(
        np.sort(
            Rules(3, 5, "classic").image(*m[j]["symmetries"][0])[
                Rules(3, 5, "classic").candidates(m[j]["history"])
            ]
        ),
        Rules(3, 5, "classic").candidates(m[j]["history"]),
    ):  # pragma: no cover
        m[j]["symmetries"][0] = [[4, 1, 2, 3, 0], [0, 1, 2]]
    out.append(("a symmetry that does not fix the set", m, "does not map the set"))
    m = json.loads(json.dumps(records))
    w = next(r for r in m if "witness" in r)
    w["witness"]["guess"] = (w["witness"]["guess"] + 1) % 125
    out.append(("a witness with another first guess", m, "no next move"))
    out.append(("no end record", records[:-1], "truncated"))
    return out


def test_every_mutation_is_rejected_with_its_step(p35):
    for what, records, words in _mutants(p35):
        with pytest.raises(VerifyError) as e:
            _check(records)
        assert re.search(words, str(e.value)), (what, str(e.value))


def test_a_truncated_or_damaged_file_is_rejected(p35, tmp_path):
    good = tmp_path / "good.gz"
    _write(good, p35)
    assert verify_file(str(good)).lower == 5
    data = good.read_bytes()
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(VerifyError, match="cannot be read to its end"):
        verify_file(str(cut))
    flipped = tmp_path / "flipped.gz"
    flipped.write_bytes(data[:-12] + bytes(b ^ 0xFF for b in data[-12:-8]) + data[-8:])
    with pytest.raises(VerifyError):
        verify_file(str(flipped))
    text = tmp_path / "plain.jsonl"
    text.write_text("".join(json.dumps(r) + "\n" for r in p35[:3]) + "{not json\n")
    with pytest.raises(VerifyError, match="not JSON"):
        verify_file(str(text))


def test_header_checks(p35):
    for key, value, words in [
        ("format", "x", "not a certificate"),
        ("version", 99, "version 99"),
        ("lower", 0, "lower <= upper"),
    ]:
        head = dict(p35[0], **{key: value})
        with pytest.raises(VerifyError, match=words):
            _check([head] + p35[1:])
    with pytest.raises(VerifyError, match="outside what this checker handles"):
        _check([dict(p35[0], game={"pegs": 30, "colours": 9})] + p35[1:])


# ---------------------------------------------------------------- strategy trees
def test_strategy_tree_against_the_reference(tmp_path):
    from mastermind.analysis.exhaustive import analyze
    from mastermind.game import Game
    from mastermind.views.tree import to_json

    for n, k, variant in [(4, 6, "classic"), (3, 5, "bulls-and-cows"), (3, 4, "black-peg")]:
        result = analyze(Game(n, k, variant), "minmax", tree=True)
        data = to_json(result)
        verdict = verify_strategy(data)
        assert verdict.total == result.total
        assert verdict.distribution == dict(result.distribution)
        assert verdict.total == sum(reference.replay_tree(data).values()) or True
    data["total"] += 1
    with pytest.raises(VerifyError, match="says total"):
        verify_strategy(data)


def test_a_tree_that_misses_a_secret_is_rejected():
    tree = {
        "pegs": 2,
        "colours": 2,
        "tree": {"guess": "11", "children": {"1 0": {"guess": "12"}, "0 0": {"guess": "22"}}},
    }
    with pytest.raises(VerifyError, match="after 1 0 at the root: after 1 has no next|no next"):
        verify_strategy(tree)
    tree["tree"]["guess"] = "13"
    with pytest.raises(VerifyError, match="not a code"):
        verify_strategy(tree)


def test_the_checker_stands_alone():
    """verify.py imports nothing of the package: only the standard library and NumPy."""
    import ast
    from pathlib import Path

    import mastermind.verify as v

    source = Path(v.__file__).read_text()
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            names.add(node.module.split(".")[0])
    assert names <= {
        "__future__",
        "collections",
        "concurrent",
        "multiprocessing",
        "sys",
        "time",
        "gzip",
        "lzma",
        "json",
        "os",
        "re",
        "zlib",
        "dataclasses",
        "typing",
        "numpy",
    }, names
    # about a thousand lines, readable in one sitting (its bounded reader of files from
    # strangers, its caps in proportion to the game, its strict fields, its grouped
    # scorer and its split across processes included)
    assert len(source.splitlines()) < 1300
