"""Game definitions: the code space, the guess and secret sets, scores and their slots.

A :class:`Game` is [n,k]-Mastermind (or one of its variants): codes are indices in
lexicographic order (``"1111"`` is 0, ``"1112"`` is 1...), people see ``"1122"``.  Everything that reaches the
kernel (:mod:`mastermind.kernel._core`) is prepared and validated here.

Codes have two forms, and the API keeps them apart: what people write (``"1122"``,
``"1 10 3 2"``, ``(1, 1, 2, 2)``) and the *index* an analysis returns (an ``int``: the
code's rank in lexicographic order).  Methods that take a code take either; ``score``
takes only written codes (``score(1122, 1213)`` reads like codes but would be indices),
and :meth:`Game.score_index` takes indices.

>>> g = Game(4, 6)
>>> g.size, g.nslots, g.format_code(0), g.format_code(1295)
(1296, 14, '1111', '6666')
>>> str(g.score("1122", "1213")), g.score_index(g.code("1122"), 0)
('1 2', Score(black=2, white=0))
>>> g.partition("1122").tolist()
[256, 256, 96, 16, 1, 256, 208, 36, 0, 114, 32, 4, 20, 1]
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Union

import numpy as np

from .checks import GameCore, GameLike, history_pairs
from .errors import GameError, MastermindError, shown
from .kernel import _core
from .limits import MAX_CODES, MAX_COLOURS, MAX_PEGS
from .rules import Score, Variant, reference_score, score_slots

__all__ = [
    "CodeError",
    "CodeLike",
    "CodeSets",
    "Game",
    "GameCore",
    "GameError",
    "GameLike",
    "GameSpec",
    "Score",
    "ScoreError",
    "Variant",
    "MAX_CODES",
    "MAX_COLOURS",
    "MAX_PEGS",
    "build_cost",
    "game_of",
    "reference_score",
    "score_slots",
    "shown",
]


CodeLike = Union[int, str, Sequence[int]]


class CodeError(MastermindError):
    """A code that is not a code of the game."""


class ScoreError(MastermindError):
    """A score that cannot be a score of the game."""


def build_cost(n: int, k: int, variant: Union[str, Variant] = Variant.CLASSIC) -> tuple[int, int]:
    """(codes the kernel holds, bytes its tables take) for ``Game(n, k, variant)``,
    without building it: what the command line warns about before a big build.

    >>> build_cost(4, 6), build_cost(8, 8, "permutation")[0]
    ((1296, 93312), 40320)
    """
    from math import perm

    n, k, variant = _checked_game(n, k, variant)
    held = perm(k, n) if variant in (Variant.BULLS_AND_COWS, Variant.PERMUTATION) else k**n
    words = 2 if n * k <= 64 else 4
    byte_forms = (2 if k <= 8 else 3) if words == 2 and n <= 7 else 0
    # digits + encoding + byte forms + colour masks + multiset ids + xlogx and its steps
    # + the guess and secret arrays + temporaries while building
    per_code = n + 8 * (words + byte_forms) + 4 + 4 + 16 + 4 + 8
    return held, held * per_code


def check_game(n: object, k: object, variant: object = "classic") -> tuple[int, int, Variant]:
    """``(n, k, variant)`` checked as :class:`Game` checks them, without building it (a
    file that names a game is checked before a gigabyte is spent on [8,8]).

    >>> check_game(4, 6)
    (4, 6, <Variant.CLASSIC: 'classic'>)
    """
    return _checked_game(n, k, variant)


def _checked_game(n: object, k: object, variant: object) -> tuple[int, int, Variant]:
    """:func:`_checked_size`, then what a game of that size and variant must be: at most
    ``MAX_CODES`` codes, pegs and colours as the variant wants them.  Everything that
    refuses a game, done before anything is built or announced."""
    n, k, variant = _checked_size(n, k, variant)
    if k**n > MAX_CODES:
        raise GameError(f"[{n},{k}] has {k**n:,} codes; this package handles at most {MAX_CODES:,}")
    if variant in (Variant.DISTINCT, Variant.BULLS_AND_COWS) and n > k:
        raise GameError(f"{variant} needs pegs <= colours (no repeated colour), got [{n},{k}]")
    if variant is Variant.PERMUTATION and n != k:
        raise GameError(f"permutation needs pegs == colours, got [{n},{k}]")
    return n, k, variant


def _checked_size(n: object, k: object, variant: object) -> tuple[int, int, Variant]:
    """``(n, k, variant)`` checked: integers within the package's limits, a known variant
    (before anything is computed from them: ``k**n`` with a huge ``n`` never ends)."""
    try:
        variant = Variant(variant)
    except ValueError:
        names = ", ".join(v.value for v in Variant)
        raise GameError(f"unknown variant {shown(variant)}; choose one of {names}") from None
    for name, value, top in (("pegs", n, MAX_PEGS), ("colours", k, MAX_COLOURS)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise GameError(f"{name} must be an integer, not {value!r}")
        if not 1 <= value <= top:
            raise GameError(f"{name} must be between 1 and {top}, not {value}")
    return int(n), int(k), variant  # type: ignore[call-overload]


class CodeSets:
    """What :class:`Game` and :class:`mastermind.custom.CustomGame` share: index arrays
    checked for the kernel, and the candidates left by a history.  Needs ``size``,
    ``secrets``, ``code``, ``slot`` and ``kernel``."""

    if TYPE_CHECKING:  # what the classes that use it provide
        size: int
        secrets: np.ndarray
        guesses: np.ndarray
        kernel: _core.Kernel
        name: str

        def code(self, value: CodeLike) -> int: ...
        def guess(self, value: CodeLike) -> int: ...
        def slot(self, score: Union[Score, tuple[int, int], str]) -> int: ...
        def format_code(self, index: int) -> str: ...

    def as_indices(
        self,
        codes: Iterable[CodeLike] | np.ndarray | None,
        default: np.ndarray | None = None,
        what: str = "codes",
    ) -> np.ndarray:
        """A sorted, duplicate-free, range-checked int32 array (the kernel's contract)."""
        if codes is None:
            assert default is not None
            return default
        if isinstance(codes, np.ndarray) and codes.dtype.kind in "iu":
            arr = codes.astype(np.int64, copy=False).ravel()
            if arr.size and (arr.min() < 0 or arr.max() >= self.size):
                raise CodeError(f"{what}: code index out of range 0..{self.size - 1}")
        elif isinstance(codes, (str, bytes)) or not isinstance(codes, Iterable):
            raise CodeError(f"{what} must be a collection of codes, not {shown(codes)}")
        else:
            arr = np.array([self.code(c) for c in codes], dtype=np.int64)
        out = np.ascontiguousarray(np.unique(arr).astype(np.int32))
        if not self.kernel.holds(out):  # a variant's kernel holds only its playable codes
            bad = int(out[np.flatnonzero(~np.isin(out, self.guesses))[0]])
            raise CodeError(f"{what}: {self.format_code(bad)} cannot be played in {self.name}")
        return out

    def candidates(
        self, history: Iterable[tuple[CodeLike, Union[Score, tuple[int, int], str]]] = ()
    ) -> np.ndarray:
        """The secrets consistent with every (guess, score) of ``history``
        (:class:`HistoryError` when it is not a sequence of such pairs)."""
        cands = self.secrets
        for guess, score in history_pairs(history):
            cands = self.kernel.filter(self.guess(guess), self.slot(score), cands)
        return cands


class Game(CodeSets):
    """[n,k]-Mastermind or a variant.

    Parameters
    ----------
    n, k : int
        Positions (1..8) and colours (1..16); at most 2**24 codes.
    variant : str or Variant
        ``classic`` (default), ``distinct``, ``bulls-and-cows``, ``black-peg`` or
        ``permutation``.

    Attributes
    ----------
    guesses, secrets : numpy int32 arrays
        Sorted indices of the codes that may be played and that may be secret.
    slots : tuple of Score
        The score slots; ``win_slot`` is the index of (n, 0).

    >>> Game(4, 6, "distinct").secrets.size, Game(3, 3, "permutation").guesses.size
    (360, 6)
    """

    #: guess and secret sets closed under colour and position permutations (the analyses
    #: then scan one guess per symmetry class)
    symmetric = True

    def __init__(self, n: int = 4, k: int = 6, variant: Union[str, Variant] = Variant.CLASSIC):
        n, k, variant = _checked_game(n, k, variant)
        self.n = n
        self.k = k
        self.variant = variant
        self.size = k**n
        self.slots = score_slots(n, variant is Variant.BLACK_PEG)
        self.nslots = len(self.slots)
        self.win_slot = self.slots.index(Score(n, 0))
        self._slot_of = {s: i for i, s in enumerate(self.slots)}
        all_codes = np.arange(self.size, dtype=np.int32)
        distinct = (
            _core.distinct_codes(n, k)
            if variant in (Variant.DISTINCT, Variant.BULLS_AND_COWS, Variant.PERMUTATION)
            else all_codes
        )
        self.guesses = (
            all_codes
            if variant in (Variant.CLASSIC, Variant.BLACK_PEG, Variant.DISTINCT)
            else distinct
        )
        self.secrets = distinct if variant is not Variant.BLACK_PEG else all_codes
        # every built-in secret set lies inside its guess set
        self.secrets_are_guesses = True
        #: the codes the kernel holds, when not all (bulls-and-cows, permutation: only the
        #: playable ones, e.g. 40,320 of [8,8]'s 16.7 million); None: every code
        self.universe = None if self.guesses.size == self.size else self.guesses
        #: digits[r] = colours (0-based) of the kernel's row r: code r, or universe[r]
        self.digits = _core.code_digits(n, k, self.universe)
        self._xlogx, self.entropy_scale = _core.build_xlogx(int(self.secrets.size))
        self.kernel = _core.Kernel.from_codes(
            _core.encode_codes(self.digits, k),
            self.digits,
            k,
            self._slot_table(),
            self.nslots,
            self.win_slot,
            self._xlogx,
            self.universe,
        )

    # ------------------------------------------------------------------ construction

    def _slot_table(self) -> np.ndarray:
        """slot_tab[(b << 4) | (b + w)] = slot of (b, w); 255 where no score exists."""
        tab = np.full(256, 255, dtype=np.uint8)
        for b in range(self.n + 1):
            for m in range(b, self.n + 1):
                key = Score(b, 0) if self.variant is Variant.BLACK_PEG else Score(b, m - b)
                if key in self._slot_of:
                    tab[(b << 4) | m] = self._slot_of[key]
        return tab

    # ------------------------------------------------------------------ codes
    def __repr__(self) -> str:
        extra = "" if self.variant is Variant.CLASSIC else f", {self.variant.value!r}"
        return f"Game({self.n}, {self.k}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.n, self.k, self.variant) == (
            other.n,
            other.k,
            other.variant,
        )

    def __hash__(self) -> int:
        return hash((self.n, self.k, self.variant))

    def spec(self) -> GameSpec:
        """The game's wire form, all a worker needs to rebuild it: ``(n, k, variant)``."""
        return GameSpec(self.n, self.k, self.variant.value)

    @property
    def name(self) -> str:  # type: ignore[override]  # CustomGame's is an attribute
        base = f"[{self.n},{self.k}]"
        return base if self.variant is Variant.CLASSIC else f"{base} {self.variant.value}"

    def _checked_index(self, index: object) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise CodeError(f"a code index is an integer, not {shown(index)}")
        if not 0 <= index < self.size:
            raise CodeError(
                f"code index {index} is out of range 0..{self.size - 1} "
                f"(game.code({self._example()[5:]}) gives a code's index)"
            )
        return int(index)

    def colours(self, index: int) -> tuple[int, ...]:
        """The colours (1..k) of a code index."""
        i = self._checked_index(index)
        out = []
        for _ in range(self.n):
            i, c = divmod(i, self.k)
            out.append(c + 1)
        return tuple(reversed(out))

    def index(self, colours: Sequence[int]) -> int:
        """The index of a sequence of colours 1..k."""
        colours = list(colours)
        if len(colours) != self.n:
            raise CodeError(f"a code has {self.n} colours, got {len(colours)}")
        value = 0
        for c in colours:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 1 <= c <= self.k:
                raise CodeError(f"colours are 1..{self.k}, got {shown(c)}")
            value = value * self.k + int(c) - 1
        return value

    def format_code(self, index: int) -> str:
        """``"1122"`` when k <= 9, else colours separated by spaces (``"1 10 3 2"``)."""
        cols = self.colours(index)
        return "".join(map(str, cols)) if self.k <= 9 else " ".join(map(str, cols))

    def parse_code(self, text: str) -> int:
        """The index of a code written as ``"1122"`` (one digit per colour) or
        ``"1 10 3 2"`` / ``"1,10,3,2"``; raises :class:`CodeError` with the reason.

        Colours are written with the digits 0-9 only (no other script's digits), and
        separated by blanks, commas, semicolons or hyphens; a separator at the start or
        the end, or two in a row (an empty field, ``"6,,5"``), is refused.

        >>> g = Game(4, 6)
        >>> g.parse_code("1122") == g.parse_code("1, 1, 2, 2") == g.parse_code("1-1-2-2")
        True
        >>> g.parse_code("1²34")
        Traceback (most recent call last):
        ...
        mastermind.game.CodeError: '1²34' is not a code: '²' is not a digit 0-9 (e.g. '1234')
        """
        if not isinstance(text, str):
            raise CodeError(
                f"not a code: {shown(text)} (write a code as a string, {self._example()})"
            )
        s = text.strip()
        if not s:
            raise CodeError("empty code")
        odd = next((ch for ch in s if ch not in "0123456789,;- \t"), None)
        if odd is not None:
            raise CodeError(
                f"{shown(text)} is not a code: {odd!r} is not a digit 0-9 ({self._example()})"
            )
        parts = _SEPARATOR.split(s)
        if "" in parts:
            raise CodeError(
                f"{shown(text)} has an empty field (a separator at the start, at "
                f"the end or two in a row; {self._example()})"
            )
        if len(parts) == 1 and len(parts[0]) == self.n and self.n > 1:
            parts = list(parts[0])  # compact form: one digit per colour (also when k >= 10)
        if len(parts) != self.n:
            if len(parts) == 1 and self.k <= 9:
                got = f"{len(parts[0])} digit{'s' if len(parts[0]) != 1 else ''}"
            elif len(parts) == 1:
                got = "no separators (with 10 or more colours write them apart)"
            else:
                got = f"{len(parts)} colours"
            raise CodeError(
                f"{shown(text)} has {got}; a code has {self.n} colours ({self._example()})"
            )
        return self.index([int(p) for p in parts])

    def _example(self) -> str:
        ex = [(i % self.k) + 1 for i in range(self.n)]
        sep = "" if self.k <= 9 else " "
        return "e.g. " + repr(sep.join(map(str, ex)))

    def code(self, value: CodeLike) -> int:
        """Any code form to a validated index: a string (:meth:`parse_code`), a sequence
        of colours 1..k (list, tuple, 1-D array), or an index (an int, as the analyses
        return)."""
        if isinstance(value, str):
            return self.parse_code(value)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return self._checked_index(value)
        if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1):
            return self.index(list(value))
        if isinstance(value, (bytes, bytearray)):
            raise CodeError(f"not a code: {shown(value)} (write it as a string, {self._example()})")
        kind = (
            "a set (unordered)"
            if isinstance(value, (set, frozenset))
            else "a mapping"
            if isinstance(value, Mapping)
            else shown(value)
        )
        raise CodeError(
            f"not a code: {kind}; a code is a string such as "
            f"{self._example()[5:]}, a list of colours or an index"
        )

    def is_guess(self, index: int) -> bool:
        return _contains(self.guesses, index)

    def is_secret(self, index: int) -> bool:
        return _contains(self.secrets, index)

    def guess(self, value: CodeLike) -> int:
        """A validated index of a code that may be played in this game."""
        i = self.code(value)
        if not self.is_guess(i):
            raise CodeError(f"{self.format_code(i)} cannot be played in {self.name}")
        return i

    def secret(self, value: CodeLike) -> int:
        """A validated index of a code that may be the secret in this game."""
        i = self.code(value)
        if not self.is_secret(i):
            raise CodeError(f"{self.format_code(i)} cannot be a secret in {self.name}")
        return i

    # ------------------------------------------------------------------ scores
    def score(self, guess: CodeLike, secret: CodeLike) -> Score:
        """The score of ``guess`` against ``secret``, both written codes (``"1122"`` or
        colour sequences; any two codes of the space).  Integers are refused, since
        ``score(1122, 1213)`` would silently mean indices: see :meth:`score_index`."""
        for value in (guess, secret):
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                raise CodeError(
                    f"score() takes written codes such as "
                    f"{self._example()[5:]}, not the integer {value}; for code "
                    "indices use game.score_index(i, j)"
                )
        return self.score_index(self.code(guess), self.code(secret))

    def score_index(self, guess: int, secret: int) -> Score:
        """The score of the code with index ``guess`` against the one with index
        ``secret``."""
        u, v = self._checked_index(guess), self._checked_index(secret)
        if self.universe is not None and not (self.is_guess(u) and self.is_guess(v)):
            s = reference_score(self.colours(u), self.colours(v))  # not in the kernel
            return Score(s.black, 0) if self.variant is Variant.BLACK_PEG else s
        return self.slots[self.kernel.slot(u, v)]

    def slot(self, score: Union[Score, tuple[int, int], str]) -> int:
        """The slot number of a score (a pair of integers, or a string)."""
        if isinstance(score, str):
            s = self.parse_score(score)
        elif (
            isinstance(score, (tuple, list))
            and len(score) == 2
            and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in score)
        ):
            s = Score(int(score[0]), int(score[1]))
        else:
            raise ScoreError(
                f"not a score: {shown(score)} (a score is a pair of integers "
                "such as (2, 1), or text such as '2 1')"
            )
        if s not in self._slot_of:
            raise ScoreError(f"{s.black} {s.white} is not a possible score for {self.n} positions")
        return self._slot_of[s]

    def format_score(self, score: Score, *, pegs: bool = False) -> str:
        """A score as people read it: ``"2 1"`` (blacks, whites), or the blacks alone
        (``"2"``) in the black-peg variant, which never tells whites; ``pegs``: followed
        by its pegs, ``"2 1 (BBW)"`` (a black-peg score stays ``"2"``).
        :meth:`parse_score` reads back what it writes without pegs.

        >>> Game(4, 6).format_score(Score(2, 1)), Game(4, 6).format_score(Score(0, 0), pegs=True)
        ('2 1', '0 0 (-)')
        >>> Game(4, 6, "black-peg").format_score(Score(2, 0), pegs=True)
        '2'
        """
        if self.variant is Variant.BLACK_PEG:
            return str(score.black)
        return f"{score} ({score.pegs()})" if pegs else str(score)

    def score_forms(self) -> str:
        """How a score may be written, with an example this game can give:
        ``"'2 1', '2,1', '21' or pegs 'BBW' ('-' for none)"``."""
        if self.variant is Variant.BLACK_PEG:
            b = min(2, self.n)
            return f"the number of blacks, e.g. '{b}', or pegs '{'B' * b}' ('-' for none)"
        ex = next(
            s for s in (Score(2, 1), Score(1, 1), Score(0, 2), Score(1, 0)) if s in self._slot_of
        )
        compact = f", '{ex.black}{ex.white}'" if self.n < 10 else ""
        return (
            f"'{ex.black} {ex.white}', '{ex.black},{ex.white}'{compact} or pegs "
            f"'{ex.pegs()}' ('-' for none)"
        )

    def parse_score(self, text: str) -> Score:
        """Strict score parsing: ``"2 1"``, ``"2,1"``, ``"21"`` (n < 10), ``"BBW"`` pegs
        (``"-"`` for none); ``"2"`` alone in the black-peg variant."""
        if not isinstance(text, str):
            raise ScoreError(f"not a score: {shown(text)}")
        s = text.strip()
        forms = self.score_forms()
        m = re.fullmatch(r"([0-9]+)\s*[\s,/]\s*([0-9]+)", s)
        if m:
            b, w = int(m.group(1)), int(m.group(2))
        elif re.fullmatch(r"[0-9]", s) and self.variant is Variant.BLACK_PEG:
            b, w = int(s), 0
        elif (
            re.fullmatch(r"[0-9][0-9]", s) and self.n < 10 and self.variant is not Variant.BLACK_PEG
        ):
            b, w = int(s[0]), int(s[1])
        elif re.fullmatch(r"[BbWw]+|-", s):
            up = s.upper()
            if "B" in up and "W" in up and up.rindex("B") > up.index("W"):
                raise ScoreError(f"{shown(text)}: write the blacks first, e.g. 'BBW'")
            b, w = up.count("B"), up.count("W")
        else:
            raise ScoreError(f"{shown(text)} is not a score; write {forms}")
        score = Score(b, w)
        if score not in self._slot_of:
            why = (
                "a black-peg score has no whites"
                if self.variant is Variant.BLACK_PEG and w
                else f"blacks + whites is at most {self.n}"
                if b + w > self.n
                else f"{self.n - 1} blacks and 1 white cannot happen"
            )
            raise ScoreError(f"{shown(text)} is not a possible score: {why}")
        return score

    # ------------------------------------------------------------------ sets
    def partition(
        self, guess: CodeLike, candidates: Iterable[CodeLike] | np.ndarray | None = None
    ) -> np.ndarray:
        """The partition table of ``guess`` over ``candidates`` (default: all secrets)."""
        cands = self.as_indices(candidates, self.secrets, "candidates")
        return self.kernel.histogram(self.guess(guess), cands)

    def filter(
        self, candidates: np.ndarray, guess: CodeLike, score: Union[Score, tuple[int, int], str]
    ) -> np.ndarray:
        """The candidates that give ``score`` to ``guess``."""
        cands = self.as_indices(candidates, self.secrets, "candidates")
        return self.kernel.filter(self.guess(guess), self.slot(score), cands)


class WireForm(Protocol):
    """A game's wire form (:class:`GameSpec`, :class:`~mastermind.custom.TableSpec`):
    what names it in this process (``token``) and what it rebuilds."""

    @property
    def token(self) -> str: ...

    def build(self) -> Any: ...


@dataclass(frozen=True)
class GameSpec:
    """A :class:`Game` as a worker receives it (:meth:`Game.spec`): its ``n``, ``k`` and
    variant, from which the worker builds the game again, once per process (:meth:`game`),
    so that no kernel object is ever pickled."""

    n: int
    k: int
    variant: str

    #: small enough to travel with every unit (a custom game's table goes to each worker once)
    heavy = False

    @property
    def token(self) -> str:
        return f"game/{self.n}/{self.k}/{self.variant}"

    def definition(self) -> dict[str, Any]:
        """The game as a checkpoint's header records it."""
        return {"type": "game", "n": self.n, "k": self.k, "variant": self.variant}

    def build(self) -> Game:
        return Game(self.n, self.k, self.variant)

    def game(self) -> Game:
        """The game, built once per process (:func:`game_of`)."""
        return game_of(self)


_GAMES: dict[str, Any] = {}
_GAMES_LOCK = threading.Lock()


def game_of(spec: WireForm) -> Any:
    """The game ``spec`` defines, built once per process: a worker builds it for the
    first unit it runs, not for every unit."""
    with _GAMES_LOCK:
        game = _GAMES.get(spec.token)
        if game is None:
            game = spec.build()
            if len(_GAMES) >= 2:  # a worker rarely serves more than one game at a time
                _GAMES.clear()
            _GAMES[spec.token] = game
        return game


_SEPARATOR = re.compile(r"\s*[,;-]\s*|\s+")


def _contains(sorted_arr: np.ndarray, value: int) -> bool:
    i = int(np.searchsorted(sorted_arr, value))
    return i < sorted_arr.size and int(sorted_arr[i]) == value
