"""Custom games, the general framework of Mastermind-like games: a guess set G, a secret
set V, a score function and the end scores, played with the same strategies, analysis and
bounds as the built-in games.

The score function is called once per (guess, secret) pair when the game is built; the
distinct score values become the game's *slots* and the answers are memoised in a table,
so the strategy scan and the exhaustive walk run in the kernel (:mod:`mastermind.kernel._core`,
table mode) without calling Python per pair.

The framework's small example, "twoD" (guess a pair of digits; each answer compares
the guess with the secret coordinate by coordinate), is shipped as :func:`two_d`:

>>> game = two_d()
>>> game.size, game.nslots, game.format_code(7)
(25, 4, '12')
>>> from mastermind.analysis.exhaustive import analyze
>>> analyze(game, "entropy").max
5

Rules a custom game must follow (checked when it is built, with a :class:`GameError`):

* every secret is also a guess (to finish, the secret has to be played), so the code
  universe is G itself and ``secrets_are_guesses`` holds;
* an end score is given exactly when the guess is the secret: ``score(v, v)`` is an end
  score for every secret v, and ``score(g, v)`` is not when g != v.  Several end scores
  are allowed; as each of them ends the game they share the kernel's one winning slot,
  shown as the first of them;
* at most :data:`~mastermind.limits.MAX_CUSTOM_CODES` codes and :data:`MAX_SLOTS` distinct scores.
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections import namedtuple
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

from .game import CodeError, CodeSets, GameError, ScoreError, game_of, shown
from .kernel import _core
from .limits import MAX_CUSTOM_CODES

MAX_SLOTS = int(_core.SLOTS_CAPACITY)
_CHECKED_PAIRS = 1 << 16  # games with at most this many pairs are scored twice (checked)

Formatter = Callable[[Any], str]


class CustomKind(str, enum.Enum):
    """The ``variant`` of every custom game (``game.variant.value == "custom"``)."""

    CUSTOM = "custom"

    def __str__(self) -> str:
        return self.value


def _sorted_or_listed(items: list) -> list:
    try:
        return sorted(items)
    except TypeError:
        return items


def _normal(text: str) -> str:
    """A code's text without blanks, commas and brackets: ``"(0, 3)"`` -> ``"03"``."""
    return re.sub(r"[\s,;()\[\]]+", "", str(text))


class CustomGame(CodeSets):
    """A game from Python objects: guesses, secrets, a score function and end scores.

    Parameters
    ----------
    guesses, secrets : iterables of hashable objects
        G and V (duplicates are ignored).  Every secret must also be a guess.
    score : callable
        ``score(guess, secret)`` returns a hashable score.
    end_scores : a score, or a collection of scores
        The scores that end the game (the framework's ``endstates``).  A value that the score
        function returns is taken as one end score, anything else as a collection.
    name : str
        Shown in reports.
    format_code, format_score : callables, optional
        How people see a code and a score (default ``str``).  Codes are parsed back by
        matching these texts, blanks, commas and brackets ignored.
    sort : bool
        Index the codes in sorted order (default, when the objects can be compared);
        otherwise in the order the guesses are listed.  Ties between equally good guesses
        go to the smallest index, as in the built-in games.

    Attributes
    ----------
    codes : tuple
        The code objects; a code's index is its position here.
    guesses, secrets : numpy int32 arrays
        Sorted indices, as in :class:`mastermind.game.Game`.
    slots : tuple
        The distinct scores in sorted (else first-seen) order; ``win_slot`` holds the end
        scores.

    Examples
    --------
    Classic [2,3]-Mastermind written by hand:

    >>> from itertools import product
    >>> def pegs(u, v):
    ...     b = sum(x == y for x, y in zip(u, v))
    ...     return (b, sum(min(u.count(c), v.count(c)) for c in set(u)) - b)
    >>> codes = list(product((1, 2, 3), repeat=2))
    >>> g = CustomGame(codes, codes, pegs, (2, 0), name="[2,3] by hand")
    >>> g.size, g.nslots, g.slots[g.win_slot], g.format_code(5)
    (9, 5, (2, 0), '(2, 3)')
    >>> g.partition("1 1").tolist()
    [4, 0, 0, 4, 1]
    """

    symmetric = False  # no colour/position symmetry: first guesses need a full scan
    n: Optional[int] = None  # not an [n,k] game
    k: Optional[int] = None

    def __init__(
        self,
        guesses: Iterable[Hashable],
        secrets: Iterable[Hashable],
        score: Callable[[Any, Any], Hashable],
        end_scores: Any,
        *,
        name: str = "custom",
        format_code: Optional[Formatter] = None,
        format_score: Optional[Formatter] = None,
        sort: bool = True,
    ):
        if not callable(score):
            raise GameError(f"score must be a function of (guess, secret), not {shown(score)}")
        g_list = self._unique(guesses, "guesses")
        v_list = self._unique(secrets, "secrets")
        known = set(g_list)
        missing = [v for v in v_list if v not in known]
        if missing:
            raise GameError(
                f"{len(missing)} secret(s) cannot be guessed, e.g. {missing[0]!r}: "
                "every secret must also be a guess (the game ends on playing it)"
            )
        if len(g_list) > MAX_CUSTOM_CODES:
            raise GameError(
                f"{len(g_list):,} codes; a custom game has at most {MAX_CUSTOM_CODES:,} "
                "(the score table is codes x codes bytes)"
            )
        self.codes: tuple = tuple(_sorted_or_listed(g_list) if sort else g_list)
        self.size = len(self.codes)
        self._index = {c: i for i, c in enumerate(self.codes)}
        self.name = name
        self.variant = CustomKind.CUSTOM
        self.score_function = score
        self._fmt_code = format_code or str
        self._fmt_score = format_score or str
        self.guesses = np.arange(self.size, dtype=np.int32)
        self.secrets = np.array(sorted(self._index[v] for v in v_list), dtype=np.int32)
        self.secrets_are_guesses = True
        self._build_table(end_scores)
        self._xlogx, self.entropy_scale = _core.build_xlogx(int(self.secrets.size))
        self.kernel = _core.Kernel.from_table(self.table, self.nslots, self.win_slot, self._xlogx)
        self._texts = self._text_index()

    @classmethod
    def from_definition(
        cls,
        G: Iterable[Hashable],
        V: Iterable[Hashable],
        score: Callable,
        endstates: Any,
        **options: Any,
    ) -> "CustomGame":
        """The game from its definition with the framework's own names: ``G`` the
        guesses, ``V`` the secrets, ``score`` and ``endstates`` (the end scores), as in
        ``CustomGame.from_definition(**definition)`` with a dictionary of those four keys;
        ``options`` are the constructor's (``name``, ``format_code``...).

        >>> g = CustomGame.from_definition(G=[1, 2, 3], V=[1, 2, 3], endstates="=",
        ...                                score=lambda a, b: "<" if a < b else
        ...                                ">" if a > b else "=")
        >>> g.size, g.nslots
        (3, 3)
        """
        return cls(G, V, score, endstates, **options)

    from_seed = from_definition  # the name it first had

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _unique(items: Iterable[Hashable], what: str) -> list:
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise GameError(f"{what} must be a collection of codes, not {shown(items)}")
        out: dict = {}
        for x in items:
            try:
                out.setdefault(x, None)
            except TypeError:
                raise GameError(f"{what}: codes must be hashable, got {shown(x)}") from None
            if len(out) > MAX_CUSTOM_CODES:
                raise GameError(
                    f"more than {MAX_CUSTOM_CODES:,} {what}; a custom game has at most {MAX_CUSTOM_CODES:,} codes"
                )
        if not out:
            raise GameError(f"no {what}")
        return list(out)

    def _build_table(self, end_scores: Any) -> None:
        """Call the score function on every (guess, secret) pair once (twice on small
        games, to check that it is deterministic); number the scores."""
        raw, ids = self._raw_scores()
        values = list(ids)
        ends = self._end_set(end_scores, values)
        self._check_ends(raw, ids, values, ends, end_scores)
        # Slots: the scores in sorted (else first-seen) order, end scores merged into one.
        labels: list = []
        slot_of_id = np.empty(len(values), dtype=np.uint8)
        win = -1
        for s in _sorted_or_listed(values):
            if s in ends:
                if win < 0:
                    win = len(labels)
                    labels.append(s)
                slot_of_id[ids[s]] = win
            else:
                slot_of_id[ids[s]] = len(labels)
                labels.append(s)
        if len(labels) > MAX_SLOTS:
            raise GameError(
                f"{len(labels)} distinct scores; the kernel handles at most {MAX_SLOTS}"
            )
        self.slots: tuple = tuple(labels)
        self.nslots = len(labels)
        self.win_slot = win
        self.end_scores = frozenset(s for s in values if s in ends)
        self._slot_of = {s: int(slot_of_id[ids[s]]) for s in values}
        table = np.zeros((self.size, self.size), dtype=np.uint8)
        table[:, self.secrets] = slot_of_id[raw]
        self.table = table

    def _raw_scores(self) -> tuple[np.ndarray, dict]:
        """Every (guess, secret) pair's score, numbered in the order first met: the
        numbers (guesses x secrets) and the scores by number."""
        ids: dict = {}
        raw = np.empty((self.size, self.secrets.size), dtype=np.int32)
        secret_objs = [self.codes[i] for i in self.secrets]
        twice = self.size * len(secret_objs) <= _CHECKED_PAIRS
        for i, g in enumerate(self.codes):
            try:
                row = [ids.setdefault(self.score_function(g, v), len(ids)) for v in secret_objs]
                if len(ids) > MAX_SLOTS + 1 or twice:
                    self._check_scores(g, secret_objs, row, ids, twice=twice)
            except GameError:
                raise
            except Exception as e:
                raise GameError(self._score_failure(g, secret_objs, e)) from e
            raw[i] = row
        return raw, ids

    def _check_ends(
        self, raw: np.ndarray, ids: dict, values: list, ends: Any, end_scores: Any
    ) -> None:
        """That the game ends exactly when the guess is the secret: some end score
        occurs, every secret scores one against itself, and no other pair does."""
        end_ids = [ids[s] for s in values if s in ends]
        if not end_ids:
            raise GameError(
                f"no end score occurs (end scores: {shown(end_scores)}); "
                f"score(v, v) gives {values[raw[self.secrets[0], 0]]!r}"
            )
        is_end = np.isin(raw, end_ids)
        diag = is_end[self.secrets, np.arange(self.secrets.size)]
        if not diag.all():
            v = self.codes[self.secrets[int(np.argmin(diag))]]
            raise GameError(
                f"score({v!r}, {v!r}) = {self.score_function(v, v)!r} is not an "
                "end score: the game could not end on the secret"
            )
        if int(is_end.sum()) != self.secrets.size:
            is_end[self.secrets, np.arange(self.secrets.size)] = False
            gi, vi = (int(x[0]) for x in np.nonzero(is_end))
            g, v = self.codes[gi], self.codes[self.secrets[vi]]
            raise GameError(
                f"score({g!r}, {v!r}) = {self.score_function(g, v)!r} is an end "
                "score although the guess is not the secret"
            )

    def _check_scores(self, g: Any, secrets: list, row: list, ids: dict, *, twice: bool) -> None:
        """Refuse scores that are not equal to themselves (NaN: each would count as a
        score of its own), a score function that answers differently when asked again,
        and more distinct scores than the kernel holds."""
        for v, sid in zip(secrets, row):
            value = self.score_function(g, v) if twice else None
            if twice and ids.get(value, -1) != sid:
                first = next(s for s, i in ids.items() if i == sid)
                why = (
                    "returns a value not equal to itself (NaN?)"
                    if value != value or first != first or repr(first) == repr(value)
                    else "is not deterministic"
                )
                raise GameError(
                    f"the score function {why}: score({shown(g)}, {shown(v)}) "
                    f"gave {shown(first)}, then {shown(value)}"
                )
        if len(ids) > MAX_SLOTS + 1:
            bad = next((s for s in ids if s != s), None)
            if bad is not None:
                raise GameError(
                    f"the score function returns {shown(bad)}, which is not "
                    "equal to itself (NaN?): every such value counts as a new score"
                )
            raise GameError(
                f"the score function gives more than {MAX_SLOTS} distinct "
                "scores; the kernel handles at most that many"
            )

    def _score_failure(self, g: Any, secrets: list, error: Exception) -> str:
        for v in secrets:
            try:
                hash(self.score_function(g, v))
            except Exception as e:
                return f"score({g!r}, {v!r}) failed: {type(e).__name__}: {e}"
        return f"the score function failed: {type(error).__name__}: {error}"  # pragma: no cover

    @staticmethod
    def _end_set(end_scores: Any, observed: list) -> frozenset:
        try:
            if end_scores in observed:
                return frozenset([end_scores])
        except TypeError:
            pass
        if isinstance(end_scores, (str, bytes)) or not isinstance(end_scores, Iterable):
            return frozenset([end_scores])
        try:
            return frozenset(end_scores)
        except TypeError:
            raise GameError(f"end scores must be hashable, got {shown(end_scores)}") from None

    def _text_index(self) -> dict[str, int]:
        texts: dict[str, int] = {}
        clash: set[str] = set()
        for i, c in enumerate(self.codes):
            for t in {self._fmt_code(c), _normal(self._fmt_code(c))}:
                if t in texts and texts[t] != i:
                    clash.add(t)
                texts.setdefault(t, i)
        for t in clash:
            del texts[t]
        return texts

    def spec(self) -> TableSpec:
        """The game's wire form, all a worker needs to run its units: the score table,
        the secrets, named by their digest (no score function, no code objects: they
        need not pickle)."""
        table = np.ascontiguousarray(self.table)
        secrets = np.ascontiguousarray(self.secrets, dtype=np.int32)
        nslots, win_slot = int(self.nslots), int(self.win_slot)
        h = hashlib.sha256()
        for part in (table.tobytes(), secrets.tobytes(), str((nslots, win_slot)).encode()):
            h.update(part)
        token = f"table/{h.hexdigest()}"
        return TableSpec(table, nslots, win_slot, secrets, str(self.name), token)

    # ------------------------------------------------------------------ codes
    def __repr__(self) -> str:
        return (
            f"<CustomGame {self.name!r}: {self.size} codes, {self.secrets.size} secrets, "
            f"{self.nslots} scores>"
        )

    def index(self, code: Hashable) -> int:
        """The index of a code object."""
        try:
            return self._index[code]
        except (KeyError, TypeError):
            raise CodeError(f"{shown(code)} is not a code of {self.name}") from None

    def format_code(self, index: int) -> str:
        return self._fmt_code(self.codes[index])

    def format_score(self, score: Any) -> str:
        return self._fmt_score(score)

    def parse_code(self, text: str) -> int:
        """The index of a code written as ``format_code`` writes it (blanks, commas and
        brackets ignored)."""
        s = str(text).strip()
        for t in (s, _normal(s)):
            if t in self._texts:
                return self._texts[t]
        examples = ", ".join(repr(self.format_code(i)) for i in range(min(3, self.size)))
        raise CodeError(f"{shown(text)} is not a code of {self.name} (codes look like {examples})")

    def code(self, value: Any) -> int:
        """A validated index: integers are indices (as in :class:`Game`), strings are parsed,
        any other object is looked up among the codes."""
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            if not 0 <= value < self.size:
                raise CodeError(f"code index {value} out of range 0..{self.size - 1}")
            return int(value)
        if isinstance(value, str) and value not in self._index:
            return self.parse_code(value)
        return self.index(value)

    def is_guess(self, index: int) -> bool:
        return 0 <= index < self.size

    def is_secret(self, index: int) -> bool:
        i = int(np.searchsorted(self.secrets, index))
        return i < self.secrets.size and int(self.secrets[i]) == index

    def guess(self, value: Any) -> int:
        return self.code(value)

    def secret(self, value: Any) -> int:
        i = self.code(value)
        if not self.is_secret(i):
            raise CodeError(f"{self.format_code(i)} cannot be a secret in {self.name}")
        return i

    # ------------------------------------------------------------------ scores
    def score(self, guess: Any, secret: Any) -> Any:
        """The score of ``guess`` against ``secret`` (a secret of the game); the shared
        winning score when the guess is the secret."""
        return self.slots[self.kernel.slot(self.guess(guess), self.secret(secret))]

    def score_index(self, guess: int, secret: int) -> Any:
        """The score of the code with index ``guess`` against the secret with index
        ``secret`` (as :meth:`mastermind.game.Game.score_index`)."""
        return self.slots[self.kernel.slot(self.code(int(guess)), self.secret(int(secret)))]

    def slot(self, score: Any) -> int:
        """The slot of a score: a value of the score function, or its text."""
        try:
            if score in self._slot_of:
                return self._slot_of[score]
        except TypeError:
            pass
        if isinstance(score, str):
            return self.slot(self.parse_score(score))
        raise ScoreError(f"{shown(score)} is not a score of {self.name}")

    def parse_score(self, text: str) -> Any:
        """The score written as ``format_score`` writes it."""
        s = str(text).strip()
        for value in self._slot_of:
            if s in (self.format_score(value), _normal(self.format_score(value))):
                return value
        forms = ", ".join(repr(self.format_score(v)) for v in self.slots)
        raise ScoreError(f"{shown(text)} is not a score of {self.name}; scores are {forms}")

    # ------------------------------------------------------------------ sets
    def partition(
        self, guess: Any, candidates: Union[Iterable[Any], np.ndarray, None] = None
    ) -> np.ndarray:
        """The partition table of ``guess`` over ``candidates`` (default: all secrets)."""
        cands = self._candidates(candidates)
        return self.kernel.histogram(self.guess(guess), cands)

    def filter(
        self, candidates: Union[Iterable[Any], np.ndarray, None], guess: Any, score: Any
    ) -> np.ndarray:
        """The candidates that give ``score`` to ``guess``."""
        cands = self._candidates(candidates)
        return self.kernel.filter(self.guess(guess), self.slot(score), cands)

    def _candidates(self, candidates: Union[Iterable[Any], np.ndarray, None]) -> np.ndarray:
        cands = self.as_indices(candidates, self.secrets, "candidates")
        if not np.isin(cands, self.secrets).all():
            raise CodeError("candidates must be secrets of the game")
        return cands


# ---------------------------------------------------------------------- on a worker
@dataclass(frozen=True, eq=False)
class TableSpec:
    """A :class:`CustomGame` as a worker receives it (:meth:`CustomGame.spec`): its score
    table (its slots, its winning slot), its secrets and its name, the table named by its
    digest (``token``).  The worker builds a :class:`TableGame` from it, once per
    process (:meth:`game`)."""

    table: np.ndarray
    nslots: int
    win_slot: int
    secrets: np.ndarray
    name: str
    token: str

    #: too big to travel with every unit: sent to each worker once
    heavy = True

    def definition(self) -> dict[str, Any]:
        """The game as a checkpoint's header records it (the table by its digest)."""
        return {
            "type": "custom",
            "name": self.name,
            "codes": int(self.table.shape[0]),
            "secrets": int(self.secrets.size),
            "table": self.token,
        }

    def build(self) -> TableGame:
        return TableGame(self)

    def game(self) -> TableGame:
        """The game, built once per process (:func:`~mastermind.game.game_of`)."""
        return game_of(self)


class TableGame:
    """A custom game as a worker sees it: the kernel on the score table, the guess and
    secret sets; no score function, no code objects (they need not pickle)."""

    symmetric = False
    n = None
    secrets_are_guesses = True

    def __init__(self, spec: TableSpec):
        self.size = int(spec.table.shape[0])
        self.nslots = spec.nslots
        self.win_slot = spec.win_slot
        self.guesses = np.arange(self.size, dtype=np.int32)
        self.secrets = spec.secrets
        xlogx, _ = _core.build_xlogx(int(self.secrets.size))
        self.kernel = _core.Kernel.from_table(spec.table, spec.nslots, spec.win_slot, xlogx)


# ---------------------------------------------------------------------- twoD
Comparison = namedtuple("Comparison", "less greater equal")


def two_d_score(x: tuple[int, int], y: tuple[int, int]) -> Comparison:
    """twoD's score: is the guess <= the secret in every coordinate, >= in every
    coordinate, equal?

    >>> two_d_score((1, 3), (2, 3)), two_d_score((2, 0), (0, 4)).less
    (Comparison(less=True, greater=False, equal=False), False)
    """
    return Comparison(all(a <= b for a, b in zip(x, y)), all(a >= b for a, b in zip(x, y)), x == y)


def two_d(size: int = 5) -> CustomGame:
    """ "twoD": guess a pair of digits 0..size-1; each answer tells whether the guess is
    coordinate-wise <= the secret, >= it, and equal to it.

    The framework's original write-up of this game gives its end states as
    ``set(Comparison(True, True, True))``, which is ``{True}`` and ends nothing; the
    intended end score, used here, is ``Comparison(True, True, True)``.
    Codes are written ``"03"`` (first digit, second digit); scores as ``<=``, ``>=``,
    ``=`` and ``none`` (neither).

    >>> g = two_d()
    >>> [g.format_score(s) for s in g.slots], g.format_score(g.slots[g.win_slot])
    (['none', '>=', '<=', '='], '=')
    """
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 141:
        raise GameError(f"twoD size must be an integer 1..141, not {size!r}")
    codes = [(a, b) for a in range(size) for b in range(size)]
    width = len(str(size - 1))
    sep = "" if width == 1 else " "
    return CustomGame(
        codes,
        codes,
        two_d_score,
        Comparison(True, True, True),
        name=f"twoD {size}x{size}",
        format_code=lambda c: f"{c[0]}{sep}{c[1]}",
        format_score=_two_d_text,
    )


def _two_d_text(s: Comparison) -> str:
    if s.equal:
        return "="
    return "<=" if s.less else ">=" if s.greater else "none"


EXAMPLES: Mapping[str, Callable[[], CustomGame]] = {"twoD": two_d}
"""Custom games the command line can name (``mastermind tree --game twoD``)."""
