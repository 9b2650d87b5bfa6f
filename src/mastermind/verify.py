"""An independent checker of worst-case certificates and strategy trees.

This module trusts nothing but the rules of the game. It imports no other part of the
package (no kernel, no search, no memo): it scores codes with its own NumPy scorer,
works out the sets it is told about from their histories, applies every symmetry it is
given and checks that it maps the set onto itself. The format and the argument that
acceptance proves the claim are in docs/certificates.md.

Its files come from anyone, so every byte is hostile input: they are read as a stream
within caps checked as it reads (decompressed bytes, bytes a line, JSON nesting, digits
of a number, guesses, items of a list, the work of one claim), every field must have its
exact type (``true`` is no number, ``"3"`` no count), and what is wrong is one
:class:`MalformedFile` (the file cannot be checked) or :class:`VerifyError` (it proves
nothing: the first step that fails), never another exception.

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
import lzma
import os
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
    "MalformedFile",
    "Rules",
    "Verdict",
    "VerifyError",
    "read_records",
    "verify_certificate",
    "verify_file",
    "verify_strategy",
]

FORMAT = "mastermind-certificate"
VERSION = 2  # what the writer makes; this checker reads versions 1 and 2
VERSIONS = (1, 2)
TABLE_CODES = 20_000  # games up to this many codes score through a table of every pair
VARIANTS = ("classic", "distinct", "bulls-and-cows", "black-peg", "permutation")

# What a file may ask of the checker; past any of these it is refused as it is read.
MAX_BYTES = 8 << 30  # bytes of a file, decompressed
MAX_LINE = 32 << 20  # bytes of one record of a certificate (its witness is one line)
MAX_DOCUMENT = 128 << 20  # bytes of a strategy tree file (one JSON document)
MAX_ITEMS = 1 << 23  # JSON values and keys of one document (a tree file or a record),
ITEMS_PER_CODE = 32  # and at most 32 per code of its game and 8192 beside (a tree of
FREE_ITEMS = 1 << 13  # the package holds 7 to 15 per secret)
MAX_DEPTH = 256  # nesting of JSON arrays and objects
MAX_DIGITS = 20  # digits of a number
MAX_GUESSES = 100  # guesses a bound, a claim, a history or a line of a tree may count
MAX_CODES = 1 << 22  # codes of a game (k^n)
MAX_WORK = 1 << 30  # guess-secret pairs one claim may need scored (a minute or two)
MAX_TOTAL_WORK = 1 << 39  # and all the claims of one certificate together, a pair scored
# without the table counting 8 (about what it costs more): two hours at most; [4,9]'s
# certificate, the largest published, needs 1.8e11 (27 minutes)
MAX_IMAGES = 1 << 26  # codes moved by one claim's symmetries, all told (512 MB of them)
BLOCK = 1 << 22  # scores held at once while counting the parts of a claim's guesses
GROUP_ROWS = 4096  # rows of one table of the grouped scorer (positions or colours)
GROUPED_BYTES = 1 << 28  # bytes of the grouped scorer's tables for one set of secrets
MAX_JOBS = 64  # processes one check may split its claims across


class VerifyError(ValueError):
    """The file proves nothing: the first step that fails, in words."""


class MalformedFile(VerifyError):
    """The file cannot be checked: unreadable, not JSON, past one of the caps, a field of
    the wrong type, a game this checker does not handle (exit status 2 on the command
    line, where a proof that fails is 1)."""


@dataclass
class Verdict:
    """What a checked file proves."""

    summary: str
    lower: int | None = None
    upper: int | None = None
    claims: int = 0
    total: int | None = None
    distribution: dict[int, int] = field(default_factory=dict)


# ------------------------------------------------------------------ strict fields
def _brief(value: Any) -> str:
    """A value from the file, shown short (never its whole text, never recursing)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object of {len(value)} fields"
    return json.dumps(value) if value is None or isinstance(value, (bool, int, float)) else "?"


def _whole(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` when it is a whole number (not a bool, not a text) in lo..hi."""
    if type(value) is not int or not lo <= value <= hi:
        raise MalformedFile(f"{what} must be a whole number from {lo} to {hi}, not {_brief(value)}")
    return value


def _items(value: Any, what: str, most: int) -> list[Any]:
    """``value`` when it is a list of at most ``most`` items."""
    if type(value) is not list:
        raise MalformedFile(f"{what} must be a list, not {_brief(value)}")
    if len(value) > most:
        raise MalformedFile(f"{what} holds {len(value):,} items, more than {most:,}")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise MalformedFile(f"{what} must be a JSON object, not {_brief(value)}")
    return value


# ------------------------------------------------------------------ the rules of the game
class Rules:
    """Codes of [n,k] as ranks 0..k^n-1 (base k, first position most significant, colours
    0..k-1), the secrets and guesses a variant allows, and the score of any guess."""

    def __init__(self, n: Any, k: Any, variant: Any):
        if type(variant) is not str or variant not in VARIANTS:
            words = "a custom game" if variant == "custom" else f"unknown variant {_brief(variant)}"
            raise MalformedFile(
                f"{words}: this checker knows Mastermind's rules and its variants "
                f"({', '.join(VARIANTS)}); a custom game's rules are not in its file"
            )
        if type(n) is not int or type(k) is not int:
            raise MalformedFile(
                f"pegs and colours must be whole numbers, not {_brief(n)}, {_brief(k)}"
            )
        if not (1 <= n <= 10 and 1 <= k <= 20 and k**n <= MAX_CODES):
            raise MalformedFile(f"game [{n},{k}] is outside what this checker handles")
        if variant == "permutation" and n != k:
            raise MalformedFile("the permutation variant needs as many pegs as colours")
        if variant in ("distinct", "bulls-and-cows") and n > k:
            raise MalformedFile(f"{variant} needs pegs <= colours")
        self.n, self.k, self.variant = n, k, variant
        self.digits, self.counts = _tables(n, k)
        distinct = self.counts.max(1) <= 1
        all_codes = np.ones(k**n, dtype=bool)
        self.is_secret = (
            distinct if variant in ("distinct", "bulls-and-cows", "permutation") else all_codes
        )
        self.is_guess = distinct if variant in ("bulls-and-cows", "permutation") else all_codes
        self.win = self.n * (self.n + 2)  # the slot of score (n, 0)
        self.table: np.ndarray | None = None
        self.positions = _groups(n, k)  # the grouped scorer's groups of positions
        self.colours = [] if variant == "black-peg" else _groups(k, n + 1)  # and colours
        self.rows = sum(k ** len(p) for p in self.positions)
        self.rows += sum((n + 1) ** len(c) for c in self.colours)
        self.grouped: tuple[np.ndarray, list[np.ndarray]] | None = None  # (secrets, tables)
        self.index: np.ndarray | None = None  # every code's row in each group's table
        self.work = 0  # pairs scored one by one (the table pays once they are many)
        self.scored = 0  # pairs scored all told, one by one counting 8 (MAX_TOTAL_WORK)

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
        """Every pair's slot, for games of up to ``TABLE_CODES`` codes, once the pairs
        scored one by one add up to a quarter of it (a file that asks little costs
        little): built block by block from :meth:`score_rows`, and checked symmetric
        (the score of g against x is the score of x against g), so that a secret's row
        holds its column too."""
        size = self.k**self.n
        if self.table is None and size <= TABLE_CODES and 4 * self.work >= size * size:
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
        grouped = table is None and 8 * g.size >= self.rows
        grouped = grouped and s.size * self.rows <= GROUPED_BYTES
        self.work += 0 if table is not None else g.size * s.size
        # (a pair through the table or grouped counts 1, and the groups' tables too)
        self.scored += g.size * s.size * (1 if table is not None or grouped else 8)
        fresh = self.grouped is None or not np.array_equal(self.grouped[0], s)
        self.scored += self.rows * s.size if grouped and fresh else 0
        if self.scored > MAX_TOTAL_WORK:  # (a certificate's claims together)
            raise MalformedFile(
                f"more than the {MAX_TOTAL_WORK:,} scores this checker makes in all"
            )
        if table is not None:  # gather the fewer rows
            return table[g][:, s] if g.size <= s.size else table[s][:, g].T
        if grouped:
            return self.grouped_scores(g, s)
        out = np.empty((g.size, s.size), dtype=np.uint8)
        step = max(1, (1 << 22) // max(1, s.size * self.n))
        for start in range(0, g.size, step):
            out[start : start + step] = self.score_rows(g[start : start + step], s)
        return out

    def _group_tables(self, secrets: np.ndarray) -> list[np.ndarray]:
        """For each group of positions, table[u, x]: (n + 1) times the positions of the
        group where the guess's digits u (the group's digits read in base k) and secret
        x agree; for each group of colours, table[u, x]: the sum over the group's colours
        of min(u's count, x's count) (u: the group's counts read in base n + 1).
        (black-peg: n + 2 times the positions, no colours.)"""
        if self.grouped is not None and np.array_equal(self.grouped[0], secrets):
            return self.grouped[1]
        digits, counts, n, k = self.digits[secrets], self.counts[secrets], self.n, self.k
        weight = np.uint8(n + 2 if self.variant == "black-peg" else n + 1)
        tables = []
        for group in self.positions:
            u = np.arange(k ** len(group))
            table = np.zeros((u.size, secrets.size), np.uint8)
            for i, p in enumerate(group):
                table += (u // k ** (len(group) - 1 - i) % k)[:, None] == digits[None, :, p]
            tables.append(table * weight)
        for group in self.colours:
            u = np.arange((n + 1) ** len(group))
            table = np.zeros((u.size, secrets.size), np.uint8)
            for i, c in enumerate(group):
                mine = u // (n + 1) ** (len(group) - 1 - i) % (n + 1)
                table += np.minimum(mine[:, None], counts[None, :, c]).astype(np.uint8)
            tables.append(table)
        self.grouped = (secrets.copy(), tables)
        return tables

    def _group_index(self) -> np.ndarray:
        """(k^n, groups): the row of every code in each group's table (its digits, or
        counts, of the group read in base k, or n + 1), made once."""
        if self.index is None:
            columns = []
            for groups, of, radix in (
                (self.positions, self.digits, self.k),
                (self.colours, self.counts, self.n + 1),
            ):
                for group in groups:
                    index = np.zeros(of.shape[0], dtype=np.int32)
                    for c in group:
                        index = index * radix + of[:, c]
                    columns.append(index.astype(np.int16))  # (rows <= GROUP_ROWS)
            self.index = np.stack(columns, 1)
        return self.index

    def grouped_scores(self, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """:meth:`score_rows` by the sum of one row of each group's table: slot b*(n+2) +
        w = b*(n+1) + (b + w), where b adds up over groups of positions and b + w over
        groups of colours. The same numbers as :meth:`score_rows`, fewer operations."""
        tables = self._group_tables(secrets)
        rows = self._group_index()[guesses]
        if secrets.size <= 32:  # a few secrets: one column of each table at a time
            out = np.zeros((secrets.size, guesses.size), dtype=np.uint8)
            for j, table in enumerate(tables):
                column, at = np.ascontiguousarray(table.T), rows[:, j].astype(np.intp)
                for x in range(secrets.size):
                    out[x] += column[x][at]
            return out.T
        out = np.empty((guesses.size, secrets.size), dtype=np.uint8)
        step = max(1, (1 << 22) // max(1, secrets.size))
        for start in range(0, guesses.size, step):
            block = rows[start : start + step]
            acc = tables[0][block[:, 0]]
            for j in range(1, len(tables)):
                acc += tables[j][block[:, j]]
            out[start : start + block.shape[0]] = acc
        return out

    def part_sizes(self, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """(len(guesses), win) array: how many secrets each guess puts in each
        non-winning slot; the guesses taken in blocks, so that no more than
        :data:`BLOCK` scores are held at once."""
        guesses = np.asarray(guesses, np.int64)
        width = self.win + 1
        out = np.empty((guesses.size, self.win), dtype=np.int64)
        step = max(1, BLOCK // max(1, len(secrets)))
        for start in range(0, guesses.size, step):
            block = guesses[start : start + step]
            offsets = np.arange(block.size, dtype=np.int32)[:, None] * np.int32(width)
            index = np.add(self.scores(block, secrets), offsets, dtype=np.int32)
            sizes = np.bincount(index.ravel(), minlength=block.size * width)
            out[start : start + block.size] = sizes.reshape(block.size, width)[:, : self.win]
        return out

    def slot(self, score: Any) -> int:
        if (
            type(score) is not list
            or len(score) != 2
            or not all(type(v) is int and 0 <= v <= self.n for v in score)
            or score[0] + score[1] > self.n
        ):
            raise MalformedFile(
                f"{_brief(score)} is not a score [black, white] of [{self.n},{self.k}]"
            )
        return score[0] * (self.n + 2) + score[1]

    def code(self, value: Any) -> int:
        if type(value) is not int or not 0 <= value < self.k**self.n:
            raise MalformedFile(f"{_brief(value)} is not a code of [{self.n},{self.k}]")
        return value

    def guess(self, value: Any) -> int:
        g = self.code(value)
        if not self.is_guess[g]:
            raise VerifyError(f"code {g} may not be guessed in {self.variant}")
        return g

    def candidates(self, history: Any) -> np.ndarray:
        """The secrets consistent with every (guess, score) of ``history`` (each step
        scored against the secrets the steps before it left)."""
        cands = np.flatnonzero(self.is_secret)
        for step in _items(history, "a history", MAX_GUESSES):
            cands = self.narrow(cands, step)
        return cands

    def narrow(self, cands: np.ndarray, step: Any) -> np.ndarray:
        """The codes of ``cands`` consistent with one step [guess, score] of a history."""
        if type(step) is not list or len(step) != 2:
            raise MalformedFile(f"{_brief(step)} is not a [guess, score] pair")
        g = self.guess(step[0])
        return cands[self.scores([g], cands)[0] == self.slot(step[1])]

    def image(self, colours: Any, positions: Any) -> np.ndarray:
        """The permutation of all codes that renames colour c as colours[c] and moves
        position j to positions[j]; refuses anything that is not such a permutation."""
        if not (_permutation(colours, self.k) and _permutation(positions, self.n)):
            raise MalformedFile(
                f"[{_brief(colours)}, {_brief(positions)}] is not a colour and position permutation"
            )
        image = np.zeros(self.k**self.n, dtype=np.int32)  # (k^n <= 2^22: int32 holds it)
        colour = np.asarray(colours, dtype=np.int32)
        for j in range(self.n):  # digit j goes to position positions[j], renamed
            image += colour[self.digits[:, j]] * np.int32(self.k ** (self.n - 1 - positions[j]))
        return image


def _groups(count: int, radix: int) -> list[list[int]]:
    """0..count-1 cut into runs of consecutive items, each with radix^len <= GROUP_ROWS."""
    out: list[list[int]] = [[]]
    for i in range(count):
        if out[-1] and radix ** (len(out[-1]) + 1) > GROUP_ROWS:
            out.append([])
        out[-1].append(i)
    return out


def _tables(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every code's digits (k^n, n) and colour counts (k^n, k), 8-bit, a position at a time."""
    rest, rows = np.arange(k**n, dtype=np.int32), np.arange(k**n, dtype=np.int32)
    digits, counts = np.empty((k**n, n), np.int8), np.zeros((k**n, k), np.int8)
    for j in range(n - 1, -1, -1):
        digits[:, j], rest = rest % k, rest // k
        counts[rows, digits[:, j]] += 1  # (each row once per position)
    return digits, counts


def _permutation(value: Any, size: int) -> bool:
    """Whether ``value`` lists 0..size-1 in some order (whole numbers, no bools)."""
    return (
        type(value) is list
        and len(value) == size
        and all(type(v) is int for v in value)
        and sorted(value) == list(range(size))
    )


def orbits(images: list[np.ndarray], size: int) -> np.ndarray:
    """For every code, the least code of its orbit under the group the permutations
    ``images`` generate (connected components of x -- image(x))."""
    label = np.arange(size, dtype=np.int32)
    while True:
        before = label.copy()
        for img in images:
            np.minimum(label, label[img], out=label)
            label[img] = np.minimum(label[img], label)
        label = label[label]
        if np.array_equal(label, before):
            return label


def separable(p: int, d: int, cap: int | None = None) -> int:
    """The most codes d guesses can tell apart when no guess makes more than p parts
    besides the winning one: 1 + p + ... + p^(d-1) (or ``cap`` + 1, once past ``cap``)."""
    total, term = 0, 1
    for _ in range(max(d, 0)):
        total += term
        if cap is not None and total > cap:
            return cap + 1
        term *= p
    return total


# ------------------------------------------------------------------ reading a file
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def _number(text: str) -> int:
    if len(text) > MAX_DIGITS + 1:
        raise MalformedFile(f"a number of {len(text):,} digits (at most {MAX_DIGITS})")
    return int(text)


def _decimal(text: str) -> float:
    if len(text) > 2 * MAX_DIGITS:
        raise MalformedFile(f"a number of {len(text):,} characters")
    return float(text)


def _constant(text: str) -> Any:
    raise MalformedFile(f"{text} is not a JSON number")


def _most_items(data: bytes) -> int:
    """The JSON items (values and keys) a document may hold: in proportion to the codes of
    the largest game its bytes name ("pegs" and "colours", read before any parsing)."""
    said = [
        [int(v) for v in re.findall(rb'"%s"\s*:\s*([0-9]{1,2})\b' % name, data) if int(v) <= top]
        for name, top in ((b"pegs", 10), (b"colours", 20))
    ]
    codes = min(max(said[1], default=20) ** max(said[0], default=10), MAX_CODES)
    return min(MAX_ITEMS, FREE_ITEMS + ITEMS_PER_CODE * codes)


def _unique(members: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members; a key given twice is refused (which one counts would be the
    parser's choice, not the file's)."""
    if len({key for key, _ in members}) < len(members):
        raise MalformedFile("a key is given twice in one object")
    return dict(members)


_HOOKS: dict[str, Any] = {"parse_int": _number, "parse_float": _decimal}


def _parse(data: bytes, where: str, most: int = MAX_ITEMS) -> Any:
    """The JSON value ``data`` holds, within the caps (``most`` JSON items, counted on its
    bytes before anything is built: every item but the first follows one of , : [ {,
    and one in a string counts too); :class:`MalformedFile` naming ``where`` and what is
    wrong."""
    if len(data) >= most and 1 + sum(map(data.count, (b",", b":", b"[", b"{"))) > most:
        raise MalformedFile(f"{where}: more than {most:,} JSON values and keys for its game")
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH:  # (else it cannot be that deep)
        depth = np.frombuffer(_STRINGS.sub(b'""', data), dtype=np.uint8).astype(np.int8)
        step = (depth == 91).astype(np.int32) + (depth == 123) - (depth == 93) - (depth == 125)
        if int(np.cumsum(step).max(initial=0)) > MAX_DEPTH:
            raise MalformedFile(f"{where}: JSON nested more than {MAX_DEPTH} deep")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedFile(f"{where} is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_constant, object_pairs_hook=_unique, **_HOOKS)
    except json.JSONDecodeError as e:
        raise MalformedFile(f"{where} is not JSON ({e.msg})") from None
    except RecursionError:  # pragma: no cover - the depth is checked above
        raise MalformedFile(f"{where}: JSON nested too deep") from None


_XZ_MAGIC = b"\xfd7zXZ\x00"  # (the xz container's first six bytes)
_XZ_MEMORY = 1 << 29  # (the decoder's memory: xz -9 needs 65 MiB; a forged header more)


class _Xz:
    """An xz stream read in chunks by a decoder whose memory is capped (a header may
    ask for a dictionary of gigabytes); bytes after the stream's end are refused."""

    def __init__(self, raw: Any):
        self.raw, self.decoder = raw, lzma.LZMADecompressor(lzma.FORMAT_XZ, _XZ_MEMORY)

    def read(self, size: int) -> bytes:
        while not self.decoder.eof:
            chunk = self.raw.read(1 << 16) if self.decoder.needs_input else b""
            if self.decoder.needs_input and not chunk:
                raise EOFError("the xz stream is cut short")
            out = self.decoder.decompress(chunk, max_length=size)
            if out:
                return out
        if self.decoder.unused_data or self.raw.read(1):
            raise ValueError("bytes after the end of the xz stream")
        return b""

    def close(self) -> None:
        pass


class _Source:
    """A file's bytes (gzip- or xz-compressed, or plain), read in chunks, line by line,
    within the caps: nothing is read past what the next step needs."""

    def __init__(self, path: str):
        try:
            self.raw = open(path, "rb")  # noqa: SIM115 (closed by close())
        except OSError as e:
            raise MalformedFile(f"cannot be read ({e.strerror or e})") from None
        try:
            self.size = os.fstat(self.raw.fileno()).st_size
            magic = self.raw.peek(6)[:6]
        except OSError as e:
            self.raw.close()
            raise MalformedFile(f"cannot be read ({e.strerror or e})") from None
        self.stream: Any = self.raw
        if magic[:2] == b"\x1f\x8b":
            self.stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
        elif magic == _XZ_MAGIC:
            self.stream = _Xz(self.raw)
        self.buffer, self.at, self.read, self.lines, self.ended = b"", 0, 0, 0, False

    def _more(self) -> bool:
        """Read the next chunk into the buffer; False at the end of the file."""
        try:
            chunk = self.stream.read(1 << 20)
        except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as e:
            raise MalformedFile(f"the file cannot be read to its end: {e}") from None
        if not chunk:
            self.ended = True
            return False
        self.read += len(chunk)
        if self.read > MAX_BYTES:
            raise MalformedFile(f"more than {MAX_BYTES:,} bytes (decompressed)")
        self.buffer = self.buffer[self.at :] + chunk
        self.at = 0
        return True

    def line(self) -> bytes | None:
        """The next line (without its end), or None at the end of the file."""
        searched = self.at
        while True:
            end = self.buffer.find(b"\n", searched)
            if end >= 0:
                line, self.at = self.buffer[self.at : end], end + 1
                self.lines += 1
                return line
            pending = len(self.buffer) - self.at
            if pending > MAX_LINE:
                raise MalformedFile(f"line {self.lines + 1} is longer than {MAX_LINE:,} bytes")
            if not self._more():
                line, self.buffer, self.at = self.buffer[self.at :], b"", 0
                if not line:
                    return None
                self.lines += 1
                return line
            searched = pending  # (the buffer now starts with the line so far)

    def rest(self, before: bytes = b"") -> bytes:
        """``before`` and everything left, within :data:`MAX_DOCUMENT` bytes in all
        (joined once)."""
        parts, self.buffer, self.at = [before, self.buffer[self.at :]], b"", 0
        while self._more():
            parts.append(self.buffer)
            self.buffer = b""
            if sum(map(len, parts)) > MAX_DOCUMENT:
                raise MalformedFile(f"a tree file of more than {MAX_DOCUMENT:,} bytes")
        return b"".join(parts)

    def position(self) -> int:
        try:
            return self.raw.tell()
        except OSError:  # pragma: no cover - a pipe
            return 0

    def close(self) -> None:
        try:
            if self.stream is not self.raw:
                self.stream.close()
        finally:
            self.raw.close()


def _path(path: Any) -> str:
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if type(path) is not str:
        raise MalformedFile(f"a file is named by its path, not by a {type(path).__name__}")
    if not path:
        raise MalformedFile("an empty file name")
    return path


def _records(source: _Source, first: Any, most: int = MAX_ITEMS) -> Iterator[Any]:
    """The records of a certificate: ``first`` (line 1, parsed), then each line's (each
    of at most ``most`` JSON items)."""
    yield first
    while True:
        line = source.line()
        if line is None:
            return
        yield _parse(line, f"line {source.lines}", most)


def read_records(path: Any) -> Iterator[Any]:
    """The JSON records of a certificate (gzip- or xz-compressed JSON lines, or plain),
    read as a stream within the caps."""
    source = _Source(_path(path))
    try:
        first = source.line()
        if first is not None:
            most = _most_items(first)
            yield from _records(source, _parse(first, "line 1", most), most)
    finally:
        source.close()


# ------------------------------------------------------------------ certificates
class Claims:
    """The claims checked so far: each one's set (sorted codes) and guesses. ``share``
    (w, jobs): check in full only the claims whose number is w modulo jobs (the others'
    sets are worked out all the same, for the entries that name them)."""

    def __init__(self, rules: Rules, version: int = VERSION, share: tuple[int, int] = (0, 1)):
        self.rules, self.version, self.share = rules, version, share
        self.sets: list[np.ndarray] = []
        self.depths: list[int] = []
        self.path: list[tuple[Any, np.ndarray]] = []  # the last history's steps, each's set

    def check(self, record: dict[str, Any]) -> None:
        """Accept the next claim ("the set written by this history, or of these codes,
        cannot be solved within d guesses") or raise with the reason."""
        index = len(self.sets)
        if type(record.get("claim")) is not int or record["claim"] != index:
            raise MalformedFile(f"claim {index}: claims must be numbered 0, 1, 2, ... in order")
        where = f"claim {index}"
        cands = self._set(record, where)
        d = _whole(record.get("guesses"), f"{where}: 'guesses'", 0, MAX_GUESSES)
        if cands.size == 0:
            raise VerifyError(f"{where}: no secret fits its history (an empty set is solved)")
        if d > 0 and index % self.share[1] == self.share[0]:
            start = self.rules.scored
            self._rests_on(record, cands, d, where, index, start)
        self.sets.append(cands)  # accepted
        self.depths.append(d)

    def _set(self, record: dict[str, Any], where: str) -> np.ndarray:
        """The claim's set: the secrets its history leaves (the steps it shares with the
        history before it taken from there), or (version 2) its codes, listed."""
        if "codes" in record:
            if self.version < 2:
                raise MalformedFile(f"{where}: a set given by its codes is a field of version 2")
            if "history" in record:
                raise MalformedFile(f"{where}: a set is given by a history or by codes, not both")
            return self._codes(record["codes"], where)
        rules, steps = self.rules, _items(record.get("history"), "a history", MAX_GUESSES)
        same = 0
        texts = [json.dumps(step) for step in steps]  # (compared as written: true is not 1)
        while same < min(len(steps), len(self.path)) and texts[same] == self.path[same][0]:
            same += 1
        del self.path[same:]
        cands = self.path[-1][1] if self.path else np.flatnonzero(rules.is_secret)
        for step, text in zip(steps[same:], texts[same:]):
            cands = rules.narrow(cands, step)
            self.path.append((text, cands))
        return cands

    def _codes(self, value: Any, where: str) -> np.ndarray:
        rules = self.rules
        codes = _items(value, f"{where}: 'codes'", int(rules.is_secret.sum()))
        if not all(type(c) is int for c in codes):
            raise MalformedFile(f"{where}: 'codes' must list whole numbers")
        out = np.asarray(codes, dtype=np.int64)
        if out.size and (out.min() < 0 or out.max() >= rules.k**rules.n):
            raise MalformedFile(f"{where}: 'codes' names a code outside [{rules.n},{rules.k}]")
        if np.any(np.diff(out) <= 0):
            raise MalformedFile(f"{where}: 'codes' must be in increasing order")
        if not np.all(rules.is_secret[out]):
            raise VerifyError(f"{where}: 'codes' names a code that is no secret of the game")
        return out

    def _classes(self, record: dict[str, Any], cands: np.ndarray, where: str) -> np.ndarray:
        """The class of every guess under the claim's symmetries, each checked to map the
        set onto itself (the least guess of its class)."""
        rules = self.rules
        images = []
        codes = rules.k**rules.n
        most = min(rules.k * rules.k + rules.n * rules.n, max(1, MAX_IMAGES // codes))
        for sym in _items(record.get("symmetries", []), f"{where}: 'symmetries'", most):
            if type(sym) is not list or len(sym) != 2:
                raise MalformedFile(f"{where}: a symmetry is [colour map, position map]")
            img = rules.image(sym[0], sym[1])
            if not np.array_equal(np.sort(img[cands]), cands):
                raise VerifyError(f"{where}: symmetry {sym!r} does not map the set onto itself")
            images.append(img)
        label = orbits(images, codes)[np.flatnonzero(rules.is_guess)]
        if not np.all(rules.is_guess[label]):  # pragma: no cover - a guess set is closed
            raise VerifyError(f"{where}: a symmetry leaves the guess set")
        return label

    def _rests_on(
        self, record: dict[str, Any], cands: np.ndarray, d: int, where: str, index: int, start: int
    ) -> None:
        """Check that every guess fails within d (d >= 1): the set is too big for d
        guesses by counting alone, or each class of guesses is dismissed (it keeps the
        set whole, or it leaves a part too big for d - 1 guesses), or has an entry naming
        one of its parts that fails within d - 1, or keeps one of the claim's killer
        sets together in a non-winning part (every entry and killer set is checked)."""
        rules = self.rules
        guesses = np.flatnonzero(rules.is_guess)
        label = self._classes(record, cands, where)
        reps = guesses[label == guesses]  # (the least guess of each class: its label)
        if reps.size * cands.size > MAX_WORK:
            raise MalformedFile(
                f"{where}: {reps.size:,} classes of guesses on {cands.size:,} secrets, more "
                f"than the {MAX_WORK:,} scores this checker makes for one claim"
            )
        covered = np.zeros(reps.size, dtype=bool)
        for entry, g, slot, ref in self._entries(record, int(reps.size), where, index):
            self._entry(entry, g, slot, ref, cands, d, where)
            covered[np.searchsorted(reps, label[np.searchsorted(guesses, g)])] = True
        for inner in self._killers(record, cands, d, where, index):
            if covered.all():
                break
            covered[self._together(reps, np.flatnonzero(~covered), inner)] = True
            if rules.scored - start > 8 * MAX_WORK:
                raise MalformedFile(
                    f"{where}: more than the {8 * MAX_WORK:,} scores this checker makes for one claim"
                )
        parts = (rules.n + 1) * (rules.n + 2) // 2 - 1  # (no guess makes more parts)
        if separable(parts, d, cap=int(cands.size)) < cands.size:
            return  # more secrets than d guesses can tell apart: every guess fails
        left = reps[~covered]
        most = separable(parts, d - 1, cap=cands.size)  # (no part holds more than the set)
        if left.size and most < cands.size:  # first with the parts any guess may make
            if most == 1:  # (early out: most guesses fail within the first few codes)
                left = left[self._separating(left, cands)]
            else:
                left = left[self._within(left, cands, most)]
        if left.size:  # then with the most a guess of the set makes
            every = rules.part_sizes(reps, cands)
            most = int((every > 0).sum(1).max())
            mine = every[np.searchsorted(reps, left)]
            left = left[~self._dismissed(mine, cands.size, most, d)]
        if left.size:
            raise VerifyError(
                f"{where}: guess {int(left[0])} (and {left.size - 1} other "
                f"classes) is not shown to fail within {d} guesses"
            )

    def _together(self, reps: np.ndarray, at: np.ndarray, inner: np.ndarray) -> np.ndarray:
        """Which of the guesses ``reps[at]`` keep every code of ``inner`` in one
        non-winning part: scored against its first code, then against the next 1, 2, 4,
        ... codes only those whose scores still agree (most fall at once)."""
        first = self.rules.scores(reps[at], inner[:1])[:, 0]
        keep = first != self.rules.win
        at, first = at[keep], first[keep]
        done, step = 1, 1
        while at.size and done < inner.size:
            slots = self.rules.scores(reps[at], inner[done : done + step])
            keep = np.all(slots == first[:, None], axis=1)
            at, first = at[keep], first[keep]
            done, step = done + step, 2 * step
        return at

    def _separating(self, guesses: np.ndarray, cands: np.ndarray) -> np.ndarray:
        """:meth:`_within` for parts of one code: the guesses dropped at the first two
        codes of ``cands`` with one non-winning score (eight codes scored at a time)."""
        rules = self.rules
        alive = np.arange(guesses.size)
        used = np.zeros((guesses.size, rules.win + 1), dtype=bool)
        for start in range(0, cands.size, 8):
            slots = rules.scores(guesses[alive], cands[start : start + 8])
            for j in range(slots.shape[1]):
                column = slots[:, j]
                keep = ~used[alive, column]  # (the winning slot: one code at most)
                used[alive, column] = True
                alive, slots = alive[keep], slots[keep]
            if not alive.size:
                break
        return alive

    def _within(self, guesses: np.ndarray, cands: np.ndarray, most: int) -> np.ndarray:
        """The indices of the ``guesses`` whose non-winning parts of ``cands`` all hold
        at most ``most`` codes: the codes scored a block at a time (32, 64, 128, ...), each
        block only against the guesses none of whose parts has overflowed yet (most
        drop out early: a part of the codes scored so far lies within a part of the set)."""
        rules, width = self.rules, self.rules.win + 1
        alive = np.arange(guesses.size)
        counts = np.zeros((guesses.size, width), dtype=np.int32)  # (alive's rows)
        start, step = 0, 32
        while alive.size and start < cands.size:
            slots = rules.scores(guesses[alive], cands[start : start + step])
            index = np.add(slots, np.arange(alive.size, dtype=np.int32)[:, None] * width)
            counts += np.bincount(index.ravel(), minlength=counts.size).reshape(counts.shape)
            keep = counts[:, : rules.win].max(1) <= most
            alive, counts = alive[keep], counts[keep]
            start, step = start + step, 2 * step
        return alive

    @staticmethod
    def _dismissed(sizes: np.ndarray, size: int, most: int, d: int) -> np.ndarray:
        """Which guesses (their part ``sizes`` on a set of ``size``) keep the set whole
        (never in a shortest strategy) or leave a part too big for d - 1 guesses when no
        guess makes more than ``most`` parts of a subset of the set (counting)."""
        largest = sizes.max(1)
        return (largest == size) | (largest > separable(most, d - 1, cap=size))

    def _entry(
        self, entry: Any, g: int, slot: int, ref: int, cands: np.ndarray, d: int, where: str
    ) -> None:
        """Check one entry: the part of guess g with that score fails within d - 1, as
        claim ``ref`` shows (version 1: the part is its set; 2: the part holds its set)."""
        rules = self.rules
        if self.version == 1:
            part = cands[rules.scores([g], cands)[0] == slot]
            if not np.array_equal(part, self.sets[ref]):
                raise VerifyError(
                    f"{where}: entry {entry!r}: the part of guess {g} with "
                    f"that score is not the set of claim {ref}"
                )
        else:
            inner = self.sets[ref]
            at = np.minimum(np.searchsorted(cands, inner), cands.size - 1)
            if not (np.array_equal(cands[at], inner) and np.all(rules.scores([g], inner) == slot)):
                raise VerifyError(
                    f"{where}: entry {entry!r}: the set of claim {ref} is not within "
                    f"the part of guess {g} with that score"
                )
        if self.depths[ref] < d - 1:
            raise VerifyError(
                f"{where}: entry {entry!r}: claim {ref} is about "
                f"{self.depths[ref]} guesses, fewer than {d - 1}"
            )

    def _entries(
        self, record: dict[str, Any], classes: int, where: str, index: int
    ) -> list[tuple[Any, int, int, int]]:
        """A claim's entries, each read and checked alone: (entry, guess, slot, claim)."""
        out = []
        for entry in _items(record.get("entries", []), f"{where}: 'entries'", classes):
            if type(entry) is not list or len(entry) != 3:
                raise MalformedFile(f"{where}: an entry is [guess, score, claim]")
            g, slot = self.rules.guess(entry[0]), self.rules.slot(entry[1])
            ref = _whole(entry[2], f"{where}: an entry's claim", -(1 << 62), 1 << 62)
            if slot == self.rules.win:
                raise VerifyError(f"{where}: entry {entry!r} names the winning score")
            if not 0 <= ref < index:
                raise VerifyError(f"{where}: entry {entry!r} must name an earlier claim")
            out.append((entry, g, slot, ref))
        return out

    def _killers(
        self, record: dict[str, Any], cands: np.ndarray, d: int, where: str, index: int
    ) -> list[np.ndarray]:
        """(version 2) The sets of the claims a claim lists as its killer sets, each
        checked: an earlier claim, about d - 1 guesses or more, its set within the set."""
        if "killers" in record and self.version < 2:
            raise MalformedFile(f"{where}: killer sets are a field of version 2")
        out = []
        for ref in _items(record.get("killers", []), f"{where}: 'killers'", len(self.sets)):
            ref = _whole(ref, f"{where}: a killer set's claim", -(1 << 62), 1 << 62)
            if not 0 <= ref < index:
                raise VerifyError(f"{where}: killer set {ref} must name an earlier claim")
            if self.depths[ref] < d - 1:
                raise VerifyError(
                    f"{where}: killer set {ref} is about {self.depths[ref]} guesses, "
                    f"fewer than {d - 1}"
                )
            inner = self.sets[ref]
            at = np.minimum(np.searchsorted(cands, inner), cands.size - 1)
            if not np.array_equal(cands[at], inner):
                raise VerifyError(f"{where}: the set of claim {ref} is not within its set")
            out.append(inner)
        return out


def _replay(rules: Rules, tree: Any, secrets: np.ndarray, decode: Any) -> np.ndarray:
    """Guesses each secret needs under ``tree`` ({"guess", "children": {"b w": node}}),
    after checking that every move is allowed and every secret is found."""
    need = np.zeros(secrets.size, dtype=np.int64)
    stack = [(tree, np.arange(secrets.size), 1, "the root")]
    while stack:
        node, at, depth, where = stack.pop()
        if type(node) is not dict or "guess" not in node:
            raise MalformedFile(f"{where}: not a tree node")
        if depth > MAX_GUESSES:
            raise MalformedFile(f"{where}: a line of play longer than {MAX_GUESSES} guesses")
        g = rules.guess(decode(node["guess"]))
        slots = rules.scores([g], secrets[at])[0]
        need[at[slots == rules.win]] = depth
        children = _object(node.get("children", {}), f"{where}: 'children'")
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


def _header(head: Any) -> tuple[Rules, int, int, dict[str, Any] | None, int]:
    """The rules and what a certificate's first record says it proves, checked: the
    bounds (lower, upper), or for a part certificate the claim it proves ("part": a
    history and a number of guesses; lower = upper = 0 then)."""
    if type(head) is not dict or head.get("format") != FORMAT:
        raise MalformedFile(f"not a certificate (the first record must have format {FORMAT!r})")
    version = head.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise MalformedFile(
            f"certificate version {_brief(version)}; this checker reads versions "
            + " and ".join(map(str, VERSIONS))
        )
    game = _object(head.get("game", {}), "the header's 'game'")
    rules = Rules(game.get("pegs"), game.get("colours"), game.get("variant", "classic"))
    if "part" in head:
        if "lower" in head or "upper" in head:
            raise MalformedFile("a part certificate states no bounds of the whole game")
        part = _object(head["part"], "the header's 'part'")
        _whole(part.get("guesses"), "the part's 'guesses'", 1, MAX_GUESSES)
        if rules.candidates(part.get("history")).size == 0:
            raise VerifyError("no secret fits the part's history (an empty set is solved)")
        return rules, 0, 0, part, version
    lower, upper = head.get("lower"), head.get("upper")
    if not (type(lower) is int and type(upper) is int and 1 <= lower <= upper <= MAX_GUESSES):
        raise MalformedFile(f"the header needs whole numbers 1 <= lower <= upper <= {MAX_GUESSES}")
    return rules, lower, upper, None, version


def _written(rules: Rules, code: int) -> str:
    """A code as players write it: its colours 1..k, first position first."""
    digits = [(code // rules.k**p) % rules.k + 1 for p in range(rules.n - 1, -1, -1)]
    return ("" if rules.k < 10 else " ").join(map(str, digits))


def _part_verdict(rules: Rules, part: dict[str, Any], *, proved: bool, claims: int) -> Verdict:
    """What a part certificate proves once every claim is accepted: its claim, when a
    claim of the file has exactly its history and at least its guesses."""
    size = rules.candidates(part["history"]).size  # (checked: a list of [guess, score])
    history = " then ".join(
        f"{_written(rules, rules.code(g))} = ({score[0]} {score[1]})"
        for g, score in part["history"]
    )
    what = (  # ("the 1 secret ... cannot be found within 1 more guess")
        f"the {size:,} secret{'s' * (size != 1)} of [{rules.n},{rules.k}] after "
        f"{history or 'no guess'} cannot{' all' * (size != 1)} be found within "
        f"{part['guesses']} more guess{'es' * (part['guesses'] != 1)}"
    )
    if not proved:
        raise VerifyError(f"no claim that {what}")
    return Verdict(f"{what}: proved ({_claims(claims)} checked)", claims=claims)


def verify_certificate(
    records: Iterator[Any],
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
    share: tuple[int, int] = (0, 1),
) -> Verdict:
    """Check a certificate record by record; the verdict, or :class:`VerifyError`.
    ``progress(claims checked, total)`` is called as it goes (``total``: the claims the
    file holds, if known). ``share`` (w, jobs): check only the claims numbered w modulo
    jobs, and the witness when w = 0 (the verdict holds once every share passes)."""
    held: list[Claims] = []
    try:
        return _certificate(records, progress, total, share, held.append)
    except VerifyError as e:
        e.at = len(held[0].sets) if held else -1  # type: ignore[attr-defined]
        raise


def _certificate(
    records: Iterator[Any],
    progress: Callable[[int, int], None] | None,
    total: int,
    share: tuple[int, int],
    seen: Callable[[Claims], None],
) -> Verdict:
    rules, lower, upper, part, version = _header(next(records, None))
    claims, root, witnessed, ended, proved = Claims(rules, version, share), -1, False, False, False
    seen(claims)
    for record in records:
        if ended:
            raise MalformedFile("records after the end record")
        record = _object(record, f"record {len(claims.sets) + 2}")
        if "claim" in record:
            claims.check(record)
            if progress is not None:
                progress(len(claims.sets), max(total, len(claims.sets)))
            if record.get("history") == []:
                root = max(root, record["guesses"])
            if part is not None and record.get("history") == part.get("history"):
                proved = proved or record["guesses"] >= part["guesses"]
        elif "witness" in record and part is None:
            if witnessed:
                raise MalformedFile("a second witness")
            if share[0] == 0:
                _witness_upper(rules, record, upper)
            witnessed = True
        elif record.get("end") is True:
            if type(record.get("claims")) is not int or record["claims"] != len(claims.sets):
                raise MalformedFile(
                    f"the end record counts {_brief(record.get('claims'))} claims, "
                    f"the file has {len(claims.sets)}"
                )
            ended = True
        else:
            fields = ", ".join(_brief(name) for name in sorted(record)[:5])
            raise MalformedFile(f"a record of unknown kind (fields {fields})")
    if not ended:
        raise MalformedFile("the file ends before its end record (truncated?)")
    if part is not None:
        return _part_verdict(rules, part, proved=proved, claims=len(claims.sets))
    if lower > 1 and root < lower - 1:
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
_SCORE = re.compile(r"([0-9]{1,2}) ([0-9]{1,2})")


def _decoder(n: int, k: int) -> Callable[[Any], int]:
    """A tree's code text (``"1122"``, ``"1 10 3 2"``) as a rank."""

    def decode(text: Any) -> int:
        parts = _SEPARATOR.split(text.strip()) if type(text) is str and len(text) < 100 else []
        if len(parts) == 1 and len(parts[0]) == n:
            parts = list(parts[0])
        if len(parts) != n or not all(re.fullmatch(r"[0-9]{1,2}", p) for p in parts):
            raise MalformedFile(f"{_brief(text)} is not a code of [{n},{k}]")
        if not all(1 <= int(p) <= k for p in parts):
            raise MalformedFile(f"{_brief(text)} is not a code of [{n},{k}]")
        return sum((int(p) - 1) * k ** (n - 1 - j) for j, p in enumerate(parts))

    return decode


def _after(rules: Rules, data: dict[str, Any], decode: Any) -> tuple[np.ndarray, str]:
    """The secrets a tree's ``history`` leaves, and that history in words ("" without)."""
    secrets = np.flatnonzero(rules.is_secret)
    steps = []
    for step in _items(data.get("history", []), "the tree's 'history'", MAX_GUESSES):
        if type(step) is not list or len(step) != 2 or type(step[1]) is not str:
            raise MalformedFile('a history step is [guess, "black white"]')
        match = _SCORE.fullmatch(step[1].strip())
        if match is None:
            raise MalformedFile(f'{_brief(step[1])} is not a score "black white"')
        g = rules.guess(decode(step[0]))
        score = [int(match[1]), int(match[2])]
        secrets = secrets[rules.scores([g], secrets)[0] == rules.slot(score)]
        steps.append(f"{step[0].strip()} scored {score[0]} {score[1]}")
    if secrets.size == 0:
        raise VerifyError("the tree's history leaves no secret (its scores contradict each other)")
    return secrets, ", ".join(steps)


def _stated(data: dict[str, Any], total: int, most: int, dist: dict[int, int]) -> None:
    """The totals the file states, checked against the tree's."""
    for key, got in (("total", total), ("max", most), ("max_guesses", most)):
        said = data.get(key)
        if said is None:
            continue
        said = _whole(said, f"the file's {key!r}", 0, 1 << 62)
        if said < got if key == "max_guesses" else said != got:
            raise VerifyError(f"the file says {key} {said}, the tree gives {got}")
    said = data.get("distribution")
    if said is None:
        return
    stated = {}
    for d, c in _object(said, "the file's 'distribution'").items():
        if not re.fullmatch(r"[0-9]{1,3}", d):
            raise MalformedFile(f"the distribution's key {_brief(d)} is no number of guesses")
        stated[int(d)] = _whole(c, "a count of the distribution", 0, 1 << 62)
    if stated != dist:
        raise VerifyError(f"the file's distribution {stated} is not the tree's {dist}")


def verify_strategy(data: Any) -> Verdict:
    """Replay an exported strategy tree against every secret (every secret its
    ``history`` leaves, for a strategy from a position): the total, the largest number
    of guesses and the distribution it achieves (checked against what the file states,
    if it states them)."""
    if type(data) is not dict or "tree" not in data:
        raise MalformedFile("not a strategy tree (no 'tree' field)")
    if data.get("variant") == "custom":
        raise MalformedFile(
            f"a custom game's tree ({_brief(data.get('game'))}): its rules are not in the "
            "file, so this checker cannot replay it (it knows Mastermind and its variants)"
        )
    rules = Rules(data.get("pegs"), data.get("colours"), data.get("variant", "classic"))
    n, k = rules.n, rules.k
    decode = _decoder(n, k)
    secrets, history = _after(rules, data, decode)
    need = _replay(rules, data["tree"], secrets, decode)
    counts = np.bincount(need)
    dist = {d: int(c) for d, c in enumerate(counts.tolist()) if c}
    total, most = int(need.sum()), int(need.max())
    _stated(data, total, most, dist)
    name = f"[{n},{k}]" + ("" if rules.variant == "classic" else f" {rules.variant}")
    if history:
        summary = (
            f"{name} after {history}: the strategy finds all {secrets.size:,} secrets that "
            f"history leaves, {total:,} guesses in all after it, at most {most} more: checked"
        )
    else:
        summary = (
            f"{name}: the strategy finds all {secrets.size:,} secrets, {total:,} "
            f"guesses in all, at most {most}: checked"
        )
    return Verdict(summary, upper=most, total=total, distribution=dist)


def _ticks(
    source: _Source, progress: Callable[[int, int], None] | None
) -> Callable[[int, int], None] | None:
    """``progress`` told the bytes read of the file as the claims are checked."""
    if progress is None:
        return None

    def tick(done: int, total: int) -> None:
        at = source.position()
        progress(at, max(source.size, at))

    return tick


def verify_file(
    path: Any, progress: Callable[[int, int], None] | None = None, jobs: Any = 1
) -> Verdict:
    """Check a certificate (``bound --certificate``) or a strategy tree file (JSON, maybe
    gzip-compressed: ``--witness``, ``--tree``), read as a stream within the caps;
    ``progress(bytes read, bytes of the file)`` is called as the claims are checked.
    ``jobs``: processes to split a certificate's claims across (each reads the file and
    works out every claim's set, and checks in full the claims numbered its share).
    :class:`MalformedFile` when it cannot be checked, :class:`VerifyError` when it proves
    nothing."""
    if type(jobs) is not int or not 1 <= jobs <= MAX_JOBS:
        raise MalformedFile(f"jobs must be a whole number from 1 to {MAX_JOBS}, not {_brief(jobs)}")
    return _verify_path(path, progress, jobs, (0, 1))


def _verify_path(
    path: Any, progress: Callable[[int, int], None] | None, jobs: int, share: tuple[int, int]
) -> Verdict:
    """:func:`verify_file`, the claims numbered w modulo n only when ``share`` is (w, n)."""
    source = _Source(_path(path))
    try:
        first = source.line()
        if first is None:
            raise MalformedFile("the file is empty")
        head, most = None, _most_items(first)
        if first.lstrip()[:1] == b"{" and first.rstrip()[-1:] == b"}":
            head = _parse(first, "line 1", most)
        if type(head) is dict and "format" in head and "tree" not in head:
            if jobs > 1:
                return _in_parallel(path, jobs)
            records = _records(source, head, most)
            return verify_certificate(records, _ticks(source, progress), share=share)
        document = source.rest(first + b"\n")
        if head is None or re.compile(rb"\S").search(document, len(first) + 1):
            head = _parse(document, "the file", _most_items(document))
        return verify_strategy(head)
    finally:
        source.close()


def _check_share(path: str, share: tuple[int, int]) -> tuple[str, Any, int]:
    """One process's share of a check: ("proved", verdict, 0), or (kind, reason, the
    claims read when it failed)."""
    try:
        return "proved", _verify_path(path, None, 1, share), 0
    except MalformedFile as e:
        return "malformed", str(e), getattr(e, "at", -1)
    except VerifyError as e:
        return "rejected", str(e), getattr(e, "at", -1)


def _in_parallel(path: Any, jobs: int) -> Verdict:
    """A certificate checked by ``jobs`` processes, each its share of the claims: the
    verdict when every share passes, else the failure met first in the file."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    try:
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [pool.submit(_check_share, _path(path), (w, jobs)) for w in range(jobs)]
            results = [f.result() for f in futures]
    except (OSError, RuntimeError, MemoryError) as e:  # (a process that died, a full system)
        raise MalformedFile(f"the checking processes did not all finish: {e}") from None
    failed = [r for r in results if r[0] != "proved"]
    if not failed:
        return results[0][1]
    kind, reason, _ = min(failed, key=lambda r: r[2])
    raise (MalformedFile if kind == "malformed" else VerifyError)(reason)


USAGE = "usage: python verify.py FILE [--jobs N] [--json]"


def _arguments(argv: list[str]) -> tuple[str, int, bool]:
    """FILE, --jobs N (or -j N, --jobs=N) and --json, read by hand (the checker stays
    free of the command line's modules); :class:`ValueError` with the usage."""
    files, jobs, as_json, rest = [], 1, False, list(argv)
    while rest:
        word = rest.pop(0)
        if word == "--json":
            as_json = True
        elif word in ("-j", "--jobs") or word.startswith("--jobs="):
            value = word.partition("=")[2] if "=" in word else (rest.pop(0) if rest else "")
            if not re.fullmatch(r"[0-9]{1,3}", value):
                raise ValueError(f"--jobs needs a whole number, not {value!r}")
            jobs = int(value)
        elif word.startswith("-") and word != "-":
            raise ValueError(f"unknown option {word!r}")
        else:
            files.append(word)
    if len(files) != 1:
        raise ValueError("one FILE to check")
    return files[0], jobs, as_json


def main(argv: list[str] | None = None) -> int:
    """``python verify.py FILE [--jobs N] [--json]``: this checker alone, as a script.
    Exit status 0 proved, 1 rejected, 2 cannot check (or a wrong command line)."""
    import sys
    import time

    try:
        path, jobs, as_json = _arguments(sys.argv[1:] if argv is None else argv)
    except ValueError as e:
        print(f"{e}\n{USAGE}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        verdict = verify_file(path, jobs=jobs)
    except VerifyError as e:
        checked = not isinstance(e, MalformedFile)
        reason = " ".join(str(e).split())
        if as_json:
            print(json.dumps({"file": path, "proved": False, "checked": checked, "reason": reason}))
        else:
            print(f"{path}: {'REJECTED' if checked else 'CANNOT CHECK'}: {reason}")
        return 1 if checked else 2
    seconds = time.monotonic() - start
    if as_json:
        doc = {"file": path, "proved": True, "checked": True, "summary": verdict.summary}
        doc.update(lower=verdict.lower, upper=verdict.upper, claims=verdict.claims)
        print(json.dumps({**doc, "seconds": round(seconds, 3)}))
    else:
        print(f"{verdict.summary}\nchecked in {seconds:.1f} s by the independent checker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
