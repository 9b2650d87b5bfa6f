"""An independent checker of worst-case certificates and strategy trees.

This module trusts nothing but the rules of the game. It imports no other part of the
package (no kernel, no search, no memo): it scores codes with its own NumPy scorer,
works out the sets it is told about from their histories, applies every symmetry it is
given and checks that it maps the set onto itself. The format and the argument that
acceptance proves the claim are in docs/certificates.md.

>>> import io, json
>>> tree = {"pegs": 2, "colours": 2, "variant": "classic", "tree": {"guess": "11",
...         "children": {"1 0": {"guess": "12", "children": {"0 2": {"guess": "21"}}},
...                      "0 0": {"guess": "22"}}}}
>>> print(verify_strategy(tree).summary)
[2,2]: the strategy finds all 4 secrets, 8 guesses in all, at most 3: checked
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "FORMAT",
    "VERSION",
    "Claims",
    "Rules",
    "Verdict",
    "VerifyError",
    "read_records",
    "verify_certificate",
    "verify_file",
    "verify_strategy",
]

FORMAT = "mastermind-certificate"
VERSION = 1
TABLE_CODES = 20_000  # games up to this many codes score through a table of every pair
VARIANTS = ("classic", "distinct", "bulls-and-cows", "black-peg", "permutation")


class VerifyError(ValueError):
    """The file proves nothing: the first step that fails, in words."""


@dataclass
class Verdict:
    """What a checked file proves."""

    summary: str
    lower: int | None = None
    upper: int | None = None
    claims: int = 0
    total: int | None = None
    distribution: dict[int, int] = field(default_factory=dict)


# ------------------------------------------------------------------ the rules of the game
class Rules:
    """Codes of [n,k] as ranks 0..k^n-1 (base k, first position most significant, colours
    0..k-1), the secrets and guesses a variant allows, and the score of any guess."""

    def __init__(self, n: Any, k: Any, variant: Any):
        if variant not in VARIANTS:
            raise VerifyError(f"unknown variant {variant!r}")
        if not (
            isinstance(n, int)
            and isinstance(k, int)
            and 1 <= n <= 10
            and 1 <= k <= 20
            and k**n <= 1 << 22
        ):
            raise VerifyError(f"game [{n},{k}] is outside what this checker handles")
        self.n, self.k, self.variant = n, k, variant
        ranks = np.arange(k**n, dtype=np.int64)
        self.digits = np.stack([(ranks // k ** (n - 1 - j)) % k for j in range(n)], 1).astype(
            np.int8
        )
        distinct = np.array([len(set(row)) == n for row in self.digits.tolist()])
        if variant == "permutation" and n != k:
            raise VerifyError("the permutation variant needs as many pegs as colours")
        all_codes = np.ones(k**n, dtype=bool)
        self.is_secret = (
            distinct if variant in ("distinct", "bulls-and-cows", "permutation") else all_codes
        )
        self.is_guess = distinct if variant in ("bulls-and-cows", "permutation") else all_codes
        if variant in ("distinct", "bulls-and-cows") and n > k:
            raise VerifyError(f"{variant} needs pegs <= colours")
        self.counts = np.stack([(self.digits == c).sum(1) for c in range(k)], 1).astype(np.int8)
        self.win = self.n * (self.n + 2)  # the slot of score (n, 0)
        self.table: np.ndarray | None = None

    def score_rows(self, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """Slot b*(n+2)+w of every guess (rows) against every secret (columns), from the
        definition: b = positions alike, b + w = colours in common counted with
        multiplicity (black-peg: w is not told)."""
        g, s = np.asarray(guesses, np.int64), np.asarray(secrets, np.int64)
        black = (self.digits[g][:, None, :] == self.digits[s][None, :, :]).sum(2, np.int32)
        if self.variant == "black-peg":
            return black * (self.n + 2)
        common = np.minimum(self.counts[g][:, None, :], self.counts[s][None, :, :]).sum(2, np.int32)
        return black * (self.n + 2) + (common - black)

    def _table(self) -> np.ndarray | None:
        """Every pair's slot, for games of up to ``TABLE_CODES`` codes: built once, block
        by block, from :meth:`score_rows`, and checked symmetric (the score of g against
        x is the score of x against g), so that a secret's row holds its column too."""
        size = self.k**self.n
        if self.table is None and size <= TABLE_CODES:
            table = np.empty((size, size), dtype=np.uint8)
            step = max(1, (1 << 22) // (size * self.n))
            every = np.arange(size)
            for start in range(0, size, step):
                rows = every[start : start + step]
                table[start : start + rows.size] = self.score_rows(rows, every)
            if not np.array_equal(table, table.T):  # pragma: no cover - the rules are
                raise VerifyError("the score is not symmetric")  # symmetric
            self.table = table
        return self.table

    def scores(self, guesses: Any, secrets: Any) -> np.ndarray:
        """:meth:`score_rows` (len(guesses), len(secrets)), through the table when
        there is one."""
        table = self._table()
        g, s = np.asarray(guesses, np.int64), np.asarray(secrets, np.int64)
        if table is not None:  # gather the fewer rows
            return table[g][:, s] if g.size <= s.size else table[s][:, g].T
        out = np.empty((g.size, s.size), dtype=np.uint8)
        step = max(1, (1 << 22) // max(1, s.size * self.n))
        for start in range(0, g.size, step):
            out[start : start + step] = self.score_rows(g[start : start + step], s)
        return out

    def part_sizes(self, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """(len(guesses), win) array: how many secrets each guess puts in each
        non-winning slot."""
        table = self._table()
        width = self.win + 1
        if table is not None:  # secrets by guesses, read row by row
            rows = table[np.asarray(secrets, np.int64)]
            if len(guesses) != rows.shape[1]:
                rows = rows[:, guesses]
            index = rows.astype(np.int32)
            index += np.arange(len(guesses), dtype=np.int32) * width
        else:
            index = self.scores(guesses, secrets).T.astype(np.int64)
            index += np.arange(len(guesses), dtype=np.int64) * width
        sizes = np.bincount(index.ravel(), minlength=len(guesses) * width)
        return sizes.reshape(len(guesses), width)[:, : self.win]

    def slot(self, score: Any) -> int:
        if (
            not isinstance(score, list)
            or len(score) != 2
            or not all(isinstance(v, int) and v >= 0 for v in score)
            or score[0] + score[1] > self.n
        ):
            raise VerifyError(f"{score!r} is not a score of [{self.n},{self.k}]")
        return score[0] * (self.n + 2) + score[1]

    def code(self, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < self.k**self.n:
            raise VerifyError(f"{value!r} is not a code of [{self.n},{self.k}]")
        return value

    def guess(self, value: Any) -> int:
        g = self.code(value)
        if not self.is_guess[g]:
            raise VerifyError(f"code {g} may not be guessed in {self.variant}")
        return g

    def candidates(self, history: Any) -> np.ndarray:
        """The secrets consistent with every (guess, score) of ``history``."""
        if not isinstance(history, list):
            raise VerifyError("a history is a list of [guess, [black, white]]")
        keep = self.is_secret.copy()
        everything = np.arange(self.k**self.n)
        for step in history:
            if not isinstance(step, list) or len(step) != 2:
                raise VerifyError(f"{step!r} is not a [guess, score] pair")
            g = self.guess(step[0])
            keep &= self.scores([g], everything)[0] == self.slot(step[1])
        return np.flatnonzero(keep)

    def image(self, colours: Any, positions: Any) -> np.ndarray:
        """The permutation of all codes that renames colour c as colours[c] and moves
        position j to positions[j]; refuses anything that is not such a permutation."""
        if (
            not isinstance(colours, list)
            or sorted(colours) != list(range(self.k))
            or not isinstance(positions, list)
            or sorted(positions) != list(range(self.n))
        ):
            raise VerifyError(f"{[colours, positions]!r} is not a colour and position permutation")
        moved = np.empty(self.digits.shape, dtype=np.int64)
        moved[:, positions] = np.asarray(colours)[self.digits]
        return moved @ (self.k ** np.arange(self.n - 1, -1, -1, dtype=np.int64))


def orbits(images: list[np.ndarray], size: int) -> np.ndarray:
    """For every code, the least code of its orbit under the group the permutations
    ``images`` generate (connected components of x -- image(x))."""
    label = np.arange(size)
    while True:
        before = label.copy()
        for img in images:
            np.minimum(label, label[img], out=label)
            label[img] = np.minimum(label[img], label)
        label = label[label]
        if np.array_equal(label, before):
            return label


def separable(p: int, d: int) -> int:
    """The most codes d guesses can tell apart when no guess makes more than p parts
    besides the winning one: 1 + p + ... + p^(d-1)."""
    return sum(p**i for i in range(max(d, 0)))


# ------------------------------------------------------------------ certificates
def _open(path: str) -> Any:
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8") if gzipped else open(path, encoding="utf-8")


def read_records(path: str) -> Iterator[dict[str, Any]]:
    """The JSON records of a certificate (gzip-compressed JSON lines, or plain)."""
    try:
        with _open(path) as f:
            for number, line in enumerate(f, 1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise VerifyError(f"line {number} is not JSON ({e.msg})") from None
                if not isinstance(record, dict):
                    raise VerifyError(f"line {number} is not a JSON object")
                yield record
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError, OSError) as e:
        raise VerifyError(f"the file cannot be read to its end: {e}") from None


class Claims:
    """The claims checked so far: each one's set (sorted codes) and guesses."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.sets: list[np.ndarray] = []
        self.depths: list[int] = []

    def check(self, record: dict[str, Any]) -> None:
        """Accept the next claim ("the set written by this history cannot be solved
        within d guesses") or raise with the reason."""
        rules, index = self.rules, len(self.sets)
        if record.get("claim") != index:
            raise VerifyError(f"claim {index}: claims must be numbered 0, 1, 2, ... in order")
        where = f"claim {index}"
        cands = rules.candidates(record.get("history"))
        d = record.get("guesses")
        if not isinstance(d, int) or isinstance(d, bool) or d < 0:
            raise VerifyError(f"{where}: 'guesses' must be a whole number")
        if cands.size == 0:
            raise VerifyError(f"{where}: no secret fits its history (an empty set is solved)")
        if d > 0:
            self._rests_on(record, cands, d, where, index)
        self.sets.append(cands)  # accepted
        self.depths.append(d)

    def _rests_on(
        self, record: dict[str, Any], cands: np.ndarray, d: int, where: str, index: int
    ) -> None:
        """Check that every guess fails within d (d >= 1): each class of guesses is
        dismissed (it keeps the set whole, or it leaves a part too big for d - 1 guesses)
        or has an entry naming one of its parts an earlier claim proves unsolvable in
        d - 1."""
        rules = self.rules
        guesses = np.flatnonzero(rules.is_guess)
        images = []
        for sym in record.get("symmetries", []):
            if not isinstance(sym, list) or len(sym) != 2:
                raise VerifyError(f"{where}: a symmetry is [colour map, position map]")
            img = rules.image(sym[0], sym[1])
            if not np.array_equal(np.sort(img[cands]), cands):
                raise VerifyError(f"{where}: symmetry {sym!r} does not map the set onto itself")
            images.append(img)
        label = orbits(images, rules.k**rules.n)[guesses]
        if not np.all(rules.is_guess[label]):  # pragma: no cover - a guess set is closed
            raise VerifyError(f"{where}: a symmetry leaves the guess set")
        reps = np.unique(label)
        sizes = rules.part_sizes(reps, cands)
        most = int((sizes > 0).sum(1).max())  # no guess makes more parts on a subset
        largest = sizes.max(1)
        # dismissed: a guess that leaves the set whole (never in a shortest strategy), or
        # one with a part too big for d - 1 guesses (counting)
        covered = set(reps[(largest == cands.size) | (largest > separable(most, d - 1))].tolist())
        for entry in record.get("entries", []):
            if not isinstance(entry, list) or len(entry) != 3:
                raise VerifyError(f"{where}: an entry is [guess, score, claim]")
            g, slot, ref = rules.guess(entry[0]), rules.slot(entry[1]), entry[2]
            if slot == rules.win:
                raise VerifyError(f"{where}: entry {entry!r} names the winning score")
            if not isinstance(ref, int) or not 0 <= ref < index:
                raise VerifyError(f"{where}: entry {entry!r} must name an earlier claim")
            part = cands[rules.scores([g], cands)[0] == slot]
            if not np.array_equal(part, self.sets[ref]):
                raise VerifyError(
                    f"{where}: entry {entry!r}: the part of guess {g} with "
                    f"that score is not the set of claim {ref}"
                )
            if self.depths[ref] < d - 1:
                raise VerifyError(
                    f"{where}: entry {entry!r}: claim {ref} is about "
                    f"{self.depths[ref]} guesses, fewer than {d - 1}"
                )
            covered.add(int(label[np.searchsorted(guesses, g)]))
        missing = [r for r in reps.tolist() if r not in covered]
        if missing:
            raise VerifyError(
                f"{where}: guess {missing[0]} (and {len(missing) - 1} other "
                f"classes) is not shown to fail within {d} guesses"
            )


def _replay(rules: Rules, tree: Any, secrets: np.ndarray, decode: Any) -> np.ndarray:
    """Guesses each secret needs under ``tree`` ({"guess", "children": {"b w": node}}),
    after checking that every move is allowed and every secret is found."""
    need = np.zeros(secrets.size, dtype=np.int64)
    stack = [(tree, np.arange(secrets.size), 1, "the root")]
    while stack:
        node, at, depth, where = stack.pop()
        if not isinstance(node, dict) or "guess" not in node:
            raise VerifyError(f"{where}: not a tree node")
        g = rules.guess(decode(node["guess"]))
        slots = rules.scores([g], secrets[at])[0]
        need[at[slots == rules.win]] = depth
        children = node.get("children", {})
        if not isinstance(children, dict):
            raise VerifyError(f"{where}: 'children' must map scores to nodes")
        for slot in np.unique(slots[slots != rules.win]).tolist():
            b, w = divmod(slot, rules.n + 2)
            key = f"{b} {w}"
            if key not in children:
                raise VerifyError(
                    f"{where}: after {g} the score {key} has no next move "
                    f"({int((slots == slot).sum())} secrets left)"
                )
            stack.append((children[key], at[slots == slot], depth + 1, f"after {key} at {where}"))
    return need


def _witness_upper(rules: Rules, record: dict[str, Any], upper: int) -> None:
    secrets = np.flatnonzero(rules.is_secret)
    need = _replay(rules, record.get("witness"), secrets, rules.code)
    if need.max() > upper:
        raise VerifyError(f"the witness needs {int(need.max())} guesses, more than {upper}")


def _claims(count: int) -> str:
    return f"{count:,} claim" + ("" if count == 1 else "s")


def verify_certificate(
    records: Iterator[dict[str, Any]],
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
) -> Verdict:
    """Check a certificate record by record; the verdict, or :class:`VerifyError`.
    ``progress(claims checked, total)`` is called as it goes (``total``: the claims the
    file holds, if known)."""
    head = next(records, None)
    if head is None or head.get("format") != FORMAT:
        raise VerifyError(f"not a certificate (the first record must have format {FORMAT!r})")
    if head.get("version") != VERSION:
        raise VerifyError(
            f"certificate version {head.get('version')!r}; this checker reads version {VERSION}"
        )
    game = head.get("game", {})
    rules = Rules(game.get("pegs"), game.get("colours"), game.get("variant", "classic"))
    lower, upper = head.get("lower"), head.get("upper")
    if not (isinstance(lower, int) and isinstance(upper, int) and 1 <= lower <= upper):
        raise VerifyError("the header needs whole numbers 1 <= lower <= upper")
    claims, root, witnessed, ended = Claims(rules), None, False, False
    for record in records:
        if ended:
            raise VerifyError("records after the end record")
        if "claim" in record:
            claims.check(record)
            if progress is not None:
                progress(len(claims.sets), max(total, len(claims.sets)))
            if record.get("history") == []:
                root = max(root or 0, record["guesses"])
        elif "witness" in record:
            _witness_upper(rules, record, upper)
            witnessed = True
        elif record.get("end") is True:
            if record.get("claims") != len(claims.sets):
                raise VerifyError(
                    f"the end record counts {record.get('claims')} claims, "
                    f"the file has {len(claims.sets)}"
                )
            ended = True
        else:
            raise VerifyError(f"a record of unknown kind: {sorted(record)!r}")
    if not ended:
        raise VerifyError("the file ends before its end record (truncated?)")
    if lower > 1 and (root is None or root < lower - 1):
        raise VerifyError(f"no claim that the whole game cannot be solved in {lower - 1}")
    if not witnessed:
        raise VerifyError("no witness tree for the upper bound")
    name = f"p({rules.n},{rules.k})" + ("" if rules.variant == "classic" else f" {rules.variant}")
    exact = f", so {name} = {lower}" if lower == upper else ""
    return Verdict(
        f"{name} >= {lower} and <= {upper}: proved{exact} ({_claims(len(claims.sets))} checked)",
        lower,
        upper,
        len(claims.sets),
    )


# ------------------------------------------------------------------ strategy trees
_SEPARATOR = re.compile(r"[\s,;-]+")


def verify_strategy(data: Any) -> Verdict:
    """Replay an exported strategy tree against every secret: the total, the largest
    number of guesses and the distribution it achieves (checked against what the file
    states, if it states them)."""
    if not isinstance(data, dict) or "tree" not in data:
        raise VerifyError("not a strategy tree (no 'tree' field)")
    rules = Rules(data.get("pegs"), data.get("colours"), data.get("variant", "classic"))
    n, k = rules.n, rules.k

    def decode(text: Any) -> int:
        parts = _SEPARATOR.split(text.strip()) if isinstance(text, str) else []
        if len(parts) == 1 and len(parts[0]) == n:
            parts = list(parts[0])
        if len(parts) != n or not all(p.isdigit() and 1 <= int(p) <= k for p in parts):
            raise VerifyError(f"{text!r} is not a code of [{n},{k}]")
        return sum((int(p) - 1) * k ** (n - 1 - j) for j, p in enumerate(parts))

    history = data.get("history", [])
    secrets = np.flatnonzero(rules.is_secret)
    for guess, score in history:
        g = rules.guess(decode(guess))
        b, w = (int(v) for v in str(score).split())
        secrets = secrets[rules.scores([g], secrets)[0] == rules.slot([b, w])]
    need = _replay(rules, data["tree"], secrets, decode)
    counts = np.bincount(need)
    dist = {d: int(c) for d, c in enumerate(counts.tolist()) if c}
    total, most = int(need.sum()), int(need.max())
    stated = [
        ("total", data.get("total"), total),
        ("max", data.get("max"), most),
        ("max_guesses", data.get("max_guesses"), most),
    ]
    for key, said, got in stated:
        if said is not None and (said < got if key == "max_guesses" else said != got):
            raise VerifyError(f"the file says {key} {said}, the tree gives {got}")
    said = data.get("distribution")
    if said is not None and {int(d): c for d, c in said.items()} != dist:
        raise VerifyError(f"the file's distribution {said} is not the tree's {dist}")
    name = f"[{n},{k}]" + ("" if rules.variant == "classic" else f" {rules.variant}")
    return Verdict(
        f"{name}: the strategy finds all {secrets.size:,} secrets, {total:,} "
        f"guesses in all, at most {most}: checked",
        upper=most,
        total=total,
        distribution=dist,
    )


def verify_file(path: str, progress: Callable[[int, int], None] | None = None) -> Verdict:
    """Check a certificate (``bound --certificate``) or a strategy tree file (JSON, maybe
    gzip-compressed: ``--witness``, ``--tree``); ``progress`` as for
    :func:`verify_certificate`."""
    try:
        with _open(path) as f:
            head = f.readline()
            if FORMAT not in head:
                data = json.loads(head + f.read())
                return verify_strategy(data)
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as e:
        raise VerifyError(f"the file cannot be read to its end: {e}") from None
    except json.JSONDecodeError as e:
        raise VerifyError(
            f"neither a certificate nor a strategy tree: not JSON ({e.msg}, line {e.lineno})"
        ) from None
    total = 0
    if progress is not None:  # the claims to check: one line each (a quick first pass)
        with _open(path) as f:
            total = max(sum(1 for _ in f) - 3, 0)
    return verify_certificate(read_records(path), progress, total)
