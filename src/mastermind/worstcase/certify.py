"""Worst-case certificates: what :mod:`mastermind.verify` needs to check p(n,k) without
trusting the search.

A certificate holds the witness tree (the upper bound) and, for the lower bound L, a list
of *claims*: "the secrets consistent with this history cannot all be found within d
guesses". Each claim names the colour and position transpositions that map its set onto
itself and, for every class of guesses that the checker cannot dismiss by counting, one
part of that guess which an earlier claim shows unsolvable with a guess fewer. The search
(:class:`~mastermind.worstcase.search.Search`, its memo shared by the whole build) only answers
which part fails; the claims are written bottom-up, so every reference points back.
The format and why its acceptance proves the bounds: docs/certificates.md.

>>> import os, tempfile
>>> from mastermind.game import Game
>>> from mastermind.verify import verify_file
>>> path = os.path.join(tempfile.mkdtemp(), "p33.gz")
>>> game = Game(3, 3)
>>> from mastermind.worstcase.search import Search
>>> search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 24)
>>> tree = search.witness(game.secrets, 4)
>>> write_certificate(path, game, 4, 4, tree).claims > 0
True
>>> print(verify_file(path).summary)
p(3,3) >= 4 and <= 4: proved, so p(3,3) = 4 (3 claims checked)
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from .. import checks
from ..errors import MastermindError
from ..files import Destination, check_output
from ..game import Game
from ..kernel import _core
from ..limits import DEFAULT_MEMORY
from ..rules import Variant
from ..stopping import new_flag
from ..strategy_tree import Node, split_by_score
from ..verify import FORMAT, VERSION
from ..version import __version__
from .search import REASONS, Search, SearchUnfinished, separable

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = ["CertificateError", "CertificateStats", "write_certificate", "write_part_certificate"]

# node budgets per round when looking for a part that fails (0: no limit)
ROUNDS = (1, 2_000, 20_000, 200_000, 2_000_000, 0)
DIRECT_BUDGET = 20_000  # rounds up to this many nodes run the kernel in this thread


class CertificateError(MastermindError):
    """A certificate that cannot be made for these arguments."""


@dataclass
class CertificateStats:
    """What a written certificate holds: its claims, their entries, its bytes, seconds."""

    path: str
    claims: int
    entries: int
    size: int
    seconds: float


class _Builder:
    """Writes the claims of one refutation, bottom-up, each set once (by its codes)."""

    def __init__(
        self,
        game: Game,
        search: Search,
        out: Any,
        until: Optional[float],
        progress: Optional[Callable[[int], None]],
        *,
        shrink: bool = False,
    ):
        self.game, self.search, self.out, self.progress = game, search, out, progress
        self.until = until
        self.flag = new_flag(None if until is None else max(until - time.monotonic(), 1e-3))
        self.n, self.k = game.n, game.k
        self.weights = game.k ** np.arange(game.n - 1, -1, -1, dtype=np.int64)
        self.claims: dict[bytes, tuple[int, int]] = {}  # a set's codes -> (claim, d)
        self.sets: list[np.ndarray] = []  # each claim's set
        self.library = _Library(game.k**game.n)  # every claim's set, to find those within
        self.shrink = shrink  # killer sets grown small (else whole failing parts)
        self._digit_table: Optional[np.ndarray] = None  # every guess's digits
        self._swaps: Optional[tuple[np.ndarray, np.ndarray]] = None  # the transpositions
        self.count = self.entries = 0
        self.win = game.win_slot

    # -- symmetry: the colour and position transpositions that fix a set
    def _digits(self, codes: np.ndarray) -> np.ndarray:
        return (codes[:, None].astype(np.int64) // self.weights) % self.k

    def _symmetries(self, cands: np.ndarray) -> list[tuple[list[int], list[int]]]:
        """The transpositions of two colours, then of two positions, that map ``cands``
        onto itself (every image worked out at once)."""
        if self._swaps is None:
            self._swaps = _transpositions(self.n, self.k)
        colour_maps, position_maps = self._swaps
        digits = self._digits(cands)
        images = np.concatenate(
            [
                colour_maps[:, digits] @ self.weights,
                digits[:, position_maps].transpose(1, 0, 2) @ self.weights,
            ]
        )
        images.sort(axis=1)
        fixes = np.flatnonzero((images == cands).all(axis=1)).tolist()
        ident_c, ident_p = list(range(self.k)), list(range(self.n))
        colours = len(colour_maps)
        return [
            (colour_maps[i].tolist(), ident_p)
            if i < colours
            else (ident_c, position_maps[i - colours].tolist())
            for i in fixes
        ]

    def _classes(self, syms: list[tuple[list[int], list[int]]]) -> np.ndarray:
        """The least guess of each class of the group the transpositions generate."""
        if not syms:
            return np.ascontiguousarray(self.game.guesses, dtype=np.int32)
        guesses = self.game.guesses.astype(np.int64)
        if self._digit_table is None:
            self._digit_table = self._digits(guesses)
        digits = self._digit_table
        images = []
        for cmap, pmap in syms:
            moved = np.empty_like(digits)
            moved[:, pmap] = np.asarray(cmap)[digits]
            images.append(np.searchsorted(guesses, moved @ self.weights))
        least = np.arange(guesses.size)
        changed = True
        while changed:
            before = least.copy()
            for img in images:
                least = np.minimum(least, least[img])
                least[img] = np.minimum(least[img], least)
            changed = not np.array_equal(least, before)
        return guesses[least == np.arange(guesses.size)].astype(np.int32)  # (the least)

    # -- the refutation
    def claim(self, cands: np.ndarray, d: int, history: Optional[list[list[Any]]] = None) -> int:
        """Write the claim "``cands`` cannot be solved within ``d``" (known to hold) and
        what it rests on, first; its number. The set is written by ``history``, or by its
        codes (a killer set) when there is none."""
        if self.until is not None and time.monotonic() > self.until:
            raise SearchUnfinished("time-limit", 0, 0.0)
        key = cands.tobytes()
        known = self.claims.get(key)
        if known is not None and known[1] >= d:
            return known[0]
        syms: list[tuple[list[int], list[int]]] = []
        killers: list[int] = []
        if d >= 1:
            syms = self._symmetries(cands)
            # (within 2, the checker's own separation test decides a true claim: no guess
            # puts each of its codes in a part of its own, so none is left to answer)
            left = self._open(self._classes(syms), cands, d) if d > 2 else np.empty(0, int)
            for ref, inner in self._known(cands, d - 1) if left.size else ():
                left = self._cover(left, inner, killers, ref)
            while left.size:  # a guess no killer set answers yet: find one in its parts
                g = int(left[0])
                slot, part, whole = self._failing_part(g, cands, d - 1, reuse=False)
                inner = self._killer(part, d - 1)
                steps = None  # (a whole part is written by its history, when there is one)
                if whole and inner is part and history is not None:
                    steps = history + [[g, [int(v) for v in self.game.slots[slot]]]]
                ref = self.claim(inner, d - 1, steps)
                left = self._cover(left, self.sets[ref], killers, ref)
        index = self.count
        record: dict[str, Any] = {"claim": index}
        if history is None:
            record["codes"] = cands.tolist()
        else:
            record["history"] = history
        record.update(guesses=d, symmetries=[list(s) for s in syms], killers=killers)
        self.out.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.count += 1
        self.entries += len(killers)
        self.claims[key] = (index, d)
        self.sets.append(cands)
        self.library.add(cands, d)
        if self.progress is not None:
            self.progress(self.count)
        return index

    def _open(self, reps: np.ndarray, cands: np.ndarray, d: int) -> np.ndarray:
        """The guesses of ``reps`` the checker does not dismiss by itself: not useless,
        no part too big for d - 1 guesses by counting (none when the whole set is)."""
        if separable((self.n + 1) * (self.n + 2) // 2 - 1, d) < cands.size:
            return reps[:0]  # (no guess makes more parts than the non-winning scores)
        hist = self.game.kernel.histograms(reps, cands).astype(np.int64)
        hist[:, self.win] = 0
        cap = separable(int((hist > 0).sum(1).max()), d - 1)
        largest = hist.max(1)
        return reps[(largest != cands.size) & (largest <= cap)]

    def _keeps(self, reps: np.ndarray, inner: np.ndarray) -> np.ndarray:
        """Which guesses keep every code of ``inner`` in one non-winning part."""
        hist = self.game.kernel.histograms(reps, inner)
        return (hist[:, self.win] == 0) & (hist.max(1) == inner.size)

    def _cover(
        self, left: np.ndarray, inner: np.ndarray, killers: list[int], ref: int
    ) -> np.ndarray:
        """``left`` without the guesses that keep claim ``ref``'s set together (listed as
        a killer set when it answers any)."""
        if not left.size:
            return left
        kept = self._keeps(left, inner)
        if kept.any():
            killers.append(ref)
        return left[~kept]

    def _known(self, cands: np.ndarray, d: int) -> list[tuple[int, np.ndarray]]:
        """The claims written so far about d guesses or more whose sets lie within
        ``cands`` (smallest first)."""
        return [(ref, self.sets[ref]) for ref in self.library.within(cands, d).tolist()]

    def _killer(self, part: np.ndarray, d: int) -> np.ndarray:
        """A small subset of ``part`` (which cannot be solved within d) that cannot be
        solved within d either: grown from two codes, by adding for the guess that
        solves it a killer set of one of that guess's failing parts (claimed first),
        until the search finds no guess; a known killer set when ``part`` holds one."""
        if not self.shrink:
            return part
        known = self._known(part, d)
        if known:
            return known[0][1]
        if d <= 1:
            return part[: d + 1]
        grown = part[:2]
        while True:
            solvable, g = self._run(grown, d)
            if not solvable:
                return grown
            _, sub, _ = self._failing_part(g, part, d - 1)
            # (below 2 guesses, two codes of the part fail within 1: the checker counts)
            sub = self.sets[self.claim(self._killer(sub, d - 1), d - 1)] if d > 2 else sub[:2]
            grown = np.union1d(grown, sub).astype(np.int32)

    def _run(self, cands: np.ndarray, d: int) -> tuple[bool, int]:
        return self.search.run(np.ascontiguousarray(cands, dtype=np.int32), d, self.until)

    def _solvable(self, cands: np.ndarray, d: int, budget: int) -> Optional[bool]:
        """The search's answer, or None when ``budget`` nodes were not enough.  Small
        budgets run the kernel in this thread (a thread per call would cost more than
        the call); the last, unbounded round runs stoppable by Ctrl-C."""
        if budget == 0 or budget > DIRECT_BUDGET:
            try:
                return self.search.run(cands, d, self.until, node_limit=budget)[0]
            except SearchUnfinished as e:
                if e.reason != "node-limit":
                    raise
                return None
        r, _ = self.search.core.run(cands, d, budget, self.flag)
        if r >= 0:
            return bool(r)
        why = self.search.core.aborted
        if why == _core.STOP_NODE_LIMIT:
            return None
        raise SearchUnfinished(REASONS.get(why, "interrupted"), 0, 0.0)

    def _failing_part(
        self, guess: int, cands: np.ndarray, d: int, *, reuse: bool = True
    ) -> tuple[int, np.ndarray, bool]:
        """A part of ``guess`` that cannot be solved within ``d`` (one must exist), or
        (``reuse``) a killer set already claimed within one: (slot, set, whether it is
        the whole part). Parts largest first, in rounds of growing node budgets, so that
        one hard part does not hold up an easy refutation of another."""
        open_parts = sorted(
            ((s, p) for s, p in split_by_score(self.game, guess, cands) if s != self.win),
            key=lambda sp: -sp[1].size,
        )
        for _, inner in self._known(cands, d) if reuse else ():  # a killer set claimed
            if self._keeps(np.array([guess], dtype=np.int32), inner)[0]:
                return int(self.game.kernel.slots(guess, inner[:1])[0]), inner, False
        for budget in ROUNDS:
            still = []
            for s, part in open_parts:
                solvable = self._solvable(part, d, budget)
                if solvable is None:
                    still.append((s, part))
                elif not solvable:
                    return s, part, True
            open_parts = still
            if not open_parts:
                break
        raise RuntimeError(
            f"guess {guess} has no part that fails: the refutation does not hold"
        )  # pragma: no cover - a search bug


def _transpositions(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The colour maps that swap two colours (a < b, in order) and the position maps
    that swap two positions (i < j, in order), as rows."""
    colours, positions = [], []
    for a in range(k):
        for b in range(a + 1, k):
            cmap = np.arange(k)
            cmap[[a, b]] = [b, a]
            colours.append(cmap)
    for i in range(n):
        for j in range(i + 1, n):
            pmap = np.arange(n)
            pmap[[i, j]] = [j, i]
            positions.append(pmap)
    return (
        np.array(colours, dtype=np.int64).reshape(-1, k),  # (none for one colour,
        np.array(positions, dtype=np.int64).reshape(-1, n),  # none for one position)
    )


class _Library:
    """The claims' sets side by side (their codes in one array, each set's start, size,
    least code and guesses), so that those within a set are found by array operations:
    the writer asks once a claim, over hundreds of thousands of sets."""

    def __init__(self, codes: int):
        self.count, self.used = 0, 0
        self.codes = np.empty(1 << 16, dtype=np.int32)
        self.rows = np.empty((4, 1 << 10), dtype=np.int64)  # start, size, least, guesses
        self.mask = np.zeros(codes, dtype=bool)  # (the set asked about, while asked)

    def add(self, cands: np.ndarray, d: int) -> None:
        """The next claim's set (sorted codes) and its guesses."""
        while self.used + cands.size > self.codes.size:
            self.codes = np.concatenate([self.codes, np.empty_like(self.codes)])
        if self.count == self.rows.shape[1]:
            self.rows = np.concatenate([self.rows, np.empty_like(self.rows)], axis=1)
        self.codes[self.used : self.used + cands.size] = cands
        self.rows[:, self.count] = (self.used, cands.size, cands[0], d)
        self.used += cands.size
        self.count += 1

    def within(self, cands: np.ndarray, d: int) -> np.ndarray:
        """The claims about d guesses or more whose sets lie within ``cands`` (sorted
        codes), smallest first (then by least code, then by number)."""
        start, size, least, depth = self.rows[:, : self.count]
        self.mask[cands] = True
        try:
            maybe = self.mask[least] & (depth >= d) & (size <= cands.size)
            refs = np.flatnonzero(maybe)
            if not refs.size:
                return refs
            sizes = size[refs]
            offsets = np.cumsum(sizes) - sizes
            at = np.arange(int(sizes.sum())) + np.repeat(start[refs] - offsets, sizes)
            inside = np.logical_and.reduceat(self.mask[self.codes[at]], offsets)
        finally:
            self.mask[cands] = False
        refs = refs[inside]
        return refs[np.lexsort((refs, least[refs], size[refs]))]


def _head(game: Game, **proves: Any) -> dict[str, Any]:
    """A certificate's first record: the format, the game and what the file proves."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": {"pegs": game.n, "colours": game.k, "variant": game.variant.value},
        **proves,
        "producer": f"mastermind {__version__}",
    }


def _witness(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {"guess": int(node.guess)}
    if node.children:
        out["children"] = {f"{s[0]} {s[1]}": _witness(c) for s, c in node.children.items()}
    return out


def check_certifiable(game: GameLike, *, candidates_only: bool, path: Any) -> None:
    """Raise :class:`CertificateError` unless a certificate can be made for ``game``, and
    :class:`~mastermind.files.FileError` unless it can be written to ``path`` (an empty
    name, a folder that does not exist, a directory): before any search."""
    if not isinstance(path, (str, os.PathLike)):
        raise CertificateError(f"a certificate is written to a path, not {path!r}")
    check_output(path, "the certificate")
    if not isinstance(game, Game) or game.variant is Variant.PERMUTATION or candidates_only:
        raise CertificateError(
            "certificates are made for the classic game and the "
            "distinct, bulls-and-cows and black-peg variants, every "
            "code allowed as a guess"
        )


def write_certificate(
    path: str,
    game: Game,
    lower: int,
    upper: int,
    witness: Node,
    *,
    search: Optional[Search] = None,
    memory: int = DEFAULT_MEMORY,
    time_limit: Optional[float] = None,
    progress: Optional[Callable[[int], None]] = None,
    shrink: bool = False,
) -> CertificateStats:
    """Write the certificate of ``lower <= p <= upper`` for ``game`` to ``path``
    (gzip-compressed JSON lines): the claims refuting ``lower - 1`` guesses, found again
    with an exact search, and the ``witness`` tree reaching ``upper``.

    The file appears whole or not at all, written as every output of the package is
    (:class:`mastermind.files.Destination`: a temporary file beside ``path`` renamed onto
    it, a symbolic link followed, the permissions kept; a device or ``-`` written in
    place); :class:`~mastermind.files.OutputError` naming it when the disk is full.
    Raises :class:`~mastermind.worstcase.search.SearchUnfinished` when ``time_limit`` or Ctrl-C
    stops the search, :class:`CertificateError` for a game it cannot certify. ``search``
    may be the search that proved the bounds (its memo then answers at once); it must
    allow every code as a guess and use symmetry.
    """
    check_certifiable(game, candidates_only=False, path=path)
    if not isinstance(witness, Node):
        raise CertificateError("the upper bound needs its witness tree")
    memory = checks.memory(memory)
    limit = checks.time_limit(time_limit)
    start = time.monotonic()
    if search is None:
        search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory)
    witness_line = json.dumps({"witness": _witness(witness)}, separators=(",", ":"))

    def body(builder: _Builder) -> None:
        if lower >= 2:
            builder.claim(np.ascontiguousarray(game.secrets), lower - 1, [])
        builder.out.write(witness_line + "\n")

    until = None if limit is None else start + limit
    head = _head(game, lower=int(lower), upper=int(upper))
    builder = _Builder(game, search, None, until, progress, shrink=shrink)
    return _write(path, builder, head, body, start)


def write_part_certificate(
    path: str,
    game: Game,
    history: list[tuple[Any, Any]],
    guesses: int,
    *,
    search: Optional[Search] = None,
    memory: int = DEFAULT_MEMORY,
    time_limit: Optional[float] = None,
    progress: Optional[Callable[[int], None]] = None,
    shrink: bool = False,
) -> CertificateStats:
    """Write the certificate that the secrets consistent with ``history`` (pairs of a
    guess and its score, as :meth:`~mastermind.game.Game.filter` takes them: ``("11234",
    "1 2")``) cannot all be found within ``guesses`` more guesses: the claims of that
    refutation and no witness; ``mastermind verify`` checks it as it checks a whole
    game's (docs/certificates.md, "Part certificates").  For a bound too large to
    certify whole, each refuted part that fits.  Raises :class:`CertificateError` when
    the part can be solved within ``guesses``,
    :class:`~mastermind.checks.ArgumentError` for a history no secret fits; otherwise
    as :func:`write_certificate`."""
    check_certifiable(game, candidates_only=False, path=path)
    memory = checks.memory(memory)
    limit = checks.time_limit(time_limit)
    guesses = checks.max_guesses(guesses, 1)
    start = time.monotonic()
    played, cands = checks.history(game, history, "refute")
    steps = [[int(g), [int(v) for v in game.slots[slot]]] for g, slot in played]
    cands = np.ascontiguousarray(cands, dtype=np.int32)
    if search is None:
        search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory)
    until = None if limit is None else start + limit
    if search.run(cands, guesses, until)[0]:
        raise CertificateError(f"those {cands.size:,} secrets can be found within {guesses}")
    head = _head(game, part={"history": steps, "guesses": int(guesses)})
    builder = _Builder(game, search, None, until, progress, shrink=shrink)
    return _write(path, builder, head, lambda b: b.claim(cands, int(guesses), steps), start)


def _write(
    path: str,
    builder: _Builder,
    head: dict[str, Any],
    body: Callable[[_Builder], Any],
    start: float,
) -> CertificateStats:
    """Write a certificate whole or not at all: ``head``, what ``body`` writes with
    ``builder`` (given its compressed stream of lines), the end line with the claims'
    count.  A path ending ``.xz`` is xz-compressed (about half gzip's size on the large
    part certificates, and slower to write), any other gzip-compressed."""
    path = check_output(path, "the certificate")
    with Destination(path, "the certificate") as dest:
        with _compressed(path, dest) as out:
            builder.out = _Lines(out)
            builder.out.write(json.dumps(head) + "\n")
            body(builder)
            builder.out.write(json.dumps({"end": True, "claims": builder.count}) + "\n")
        size = dest.file.tell()
    return CertificateStats(path, builder.count, builder.entries, size, time.monotonic() - start)


def _compressed(path: str, dest: Any) -> Any:
    """The compressed stream into ``dest``: xz for a path ending ``.xz``, else gzip
    (both byte for byte the same for the same lines)."""
    if path.endswith(".xz"):
        return lzma.LZMAFile(dest, mode="wb", preset=6 | lzma.PRESET_EXTREME)
    return gzip.GzipFile(filename="", mode="wb", fileobj=dest, compresslevel=9, mtime=0)


class _Lines:
    """The certificate's text lines, written UTF-8 into its compressed stream."""

    def __init__(self, out: Any):
        self.out = out

    def write(self, text: str) -> None:
        self.out.write(text.encode("utf-8"))
