"""Playing a game: the computer breaks your code, you break the computer's.

The game model behind ``mastermind play`` (whose terminal dialogue is in
:mod:`mastermind.cli.dialogue`), usable from Python:

* :class:`Session`: a game in progress seen from the codebreaker's side: the (guess,
  score) rows, the candidates, the strategy's next guess, ``undo`` and ``fix``; answers that
  no secret can give raise :class:`InconsistentAnswers`, naming a smallest set of rows that
  cannot all be true.
* Codemakers: :class:`SecretCodemaker` scores against a secret (given, or picked with a
  seeded random choice); :class:`Adversary` keeps no secret and gives each guess the score
  that leaves the most candidates, so the game lasts as long as possible.

>>> from mastermind.game import Game
>>> game = Game(4, 6)
>>> s = Session(game, "minmax")
>>> game.format_code(s.suggest())
'1122'
>>> s.record("1111", "1 0"), s.record("2222", "0 0")
(500, 256)
>>> s.record("1234", "0 0")
Traceback (most recent call last):
...
mastermind.apps.play.InconsistentAnswers: rows 1 and 3 cannot all be true: no secret gives every answer
>>> s.fix(3, "0 1")
24
>>> game.format_code(s.undo().guess), s.remaining
('1234', 256)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional, Protocol, Union

import numpy as np

from .. import checks
from ..analysis.strategies import Choice, Strategy, first_guess, next_guess
from ..errors import MastermindError
from ..game import CodeLike, Game, Score, ScoreError

__all__ = [
    "Adversary",
    "Codemaker",
    "InconsistentAnswers",
    "PlayError",
    "Row",
    "SecretCodemaker",
    "Session",
    "cannot_be_true",
    "minimal_conflict",
    "rows_text",
    "to_score",
]

ScoreLike = Union[Score, tuple[int, int], str]


# ---------------------------------------------------------------------- errors and rows
class PlayError(MastermindError):
    """A move that the game does not allow: nothing to undo, no such row, game over."""


class InconsistentAnswers(PlayError):
    """The recorded answers cannot all be true: no secret gives every one of them.

    ``rows`` holds the 1-based numbers of a smallest set of rows that already conflict.
    """

    def __init__(self, rows: Iterable[int], message: Optional[str] = None):
        self.rows = tuple(rows)
        super().__init__(
            message
            or f"{cannot_be_true(self.rows)}: no secret gives "
            f"{'that answer' if len(self.rows) == 1 else 'every answer'}"
        )


def cannot_be_true(rows: tuple[int, ...]) -> str:
    """``"row 2 cannot be true"``, ``"rows 1 and 3 cannot all be true"``."""
    return f"{rows_text(rows)} cannot {'' if len(rows) == 1 else 'all '}be true"


def rows_text(rows: tuple[int, ...]) -> str:
    """``"row 2"``, ``"rows 1 and 3"``, ``"rows 1, 2 and 4"``."""
    if len(rows) == 1:
        return f"row {rows[0]}"
    return "rows " + ", ".join(map(str, rows[:-1])) + f" and {rows[-1]}"


@dataclass(frozen=True)
class Row:
    """One recorded answer: the guess (a code index) and its score."""

    guess: int
    score: Score


def to_score(game: Game, score: ScoreLike) -> Score:
    """A validated :class:`Score` from ``"2 1"``-style text or a (black, white) pair.

    >>> to_score(Game(4, 6), "BBW"), to_score(Game(4, 6), (1, 0))
    (Score(black=2, white=1), Score(black=1, white=0))
    """
    if isinstance(score, str):
        return game.parse_score(score)
    try:
        s = Score(*score)
    except TypeError:
        raise ScoreError(f"not a score: {score!r}") from None
    game.slot(s)  # raises ScoreError for a score that cannot happen
    return s


def minimal_conflict(game: Game, rows: Iterable[tuple[CodeLike, ScoreLike]]) -> tuple[int, ...]:
    """The 1-based numbers of a smallest set of rows no secret satisfies; ``()`` if the
    rows are consistent.

    Subsets are tried by increasing size, in lexicographic order, so the answer is the
    first smallest conflicting set.  Histories are short (a dozen rows at most in practice):
    every subset filters the secrets already narrowed by its first row.

    >>> game = Game(4, 6)
    >>> minimal_conflict(game, [("1111", "1 0"), ("2222", "0 0"), ("1234", "0 0")])
    (1, 3)
    >>> minimal_conflict(game, [("1122", "1 0")])
    ()
    """
    pairs = [(game.code(g), game.slot(to_score(game, s))) for g, s in rows]
    kernel = game.kernel
    alone = [kernel.filter(g, slot, game.secrets) for g, slot in pairs]
    every = game.secrets
    for g, slot in pairs:
        every = kernel.filter(g, slot, every)
    if every.size:  # consistent: no need to try the 2**len(rows) subsets
        return ()
    for size in range(1, len(pairs) + 1):
        for subset in itertools.combinations(range(len(pairs)), size):
            cands = alone[subset[0]]
            for i in subset[1:]:
                if cands.size == 0:
                    break
                cands = kernel.filter(pairs[i][0], pairs[i][1], cands)
            if cands.size == 0:
                return tuple(i + 1 for i in subset)
    return ()


# ---------------------------------------------------------------------- the session
class Session:
    """A game in progress, seen from the codebreaker's side.

    Parameters
    ----------
    game : Game
    strategy : str or Strategy
        The rule behind :meth:`suggest` (default ``minmax``).
    candidates_only : bool
        Suggest only codes that can still be the secret.
    first : code, optional
        The opening suggestion (default: the strategy's own choice).

    Notes
    -----
    Following :meth:`suggest` at every turn plays exactly the guesses of
    :func:`mastermind.analysis.exhaustive.solve`, so a game never lasts longer than the strategy's
    worst case.  :meth:`record` keeps a row even when it makes the answers inconsistent (it
    then raises :class:`InconsistentAnswers`): the wrong answer may be an older one, and
    :meth:`fix` or :meth:`undo` repairs the history.

    >>> s = Session(Game(4, 6))
    >>> s.record(s.suggest(), "0 0"), s.codes(3)
    (256, ['3333', '3334', '3335'])
    """

    def __init__(
        self,
        game: Game,
        strategy: Union[str, Strategy] = Strategy.MINMAX,
        *,
        candidates_only: bool = False,
        first: Optional[CodeLike] = None,
    ):
        candidates_only = checks.flag(candidates_only, "candidates_only")
        self.game = checks.game(game, "Session")
        self.strategy = Strategy.parse(strategy)
        self.candidates_only = bool(candidates_only)
        self._first: Optional[int] = None  # the rule's opening, computed when first asked
        if first is not None:
            self._first = game.guess(first)
            if self.candidates_only and not game.is_secret(self._first):
                raise PlayError(
                    f"{game.format_code(self._first)} is not a candidate, and only "
                    "candidates may be played"
                )
        self._rows: list[Row] = []
        self._cands: np.ndarray = game.secrets
        self._suggestion: Optional[Choice] = None  # kept until the next move
        self._suggestion_limit = 0.0

    @property
    def first(self) -> int:
        """The opening suggestion (the strategy's choice unless given)."""
        if self._first is None:
            self._first = first_guess(self.game, self.strategy, self.candidates_only)
        return self._first

    def __repr__(self) -> str:
        return (
            f"<Session {self.game.name} {self.strategy}: {len(self._rows)} rows, "
            f"{self.remaining} candidates>"
        )

    def _repr_html_(self) -> str:
        from ..views.notebook import session_html

        return session_html(self)

    # -------------------------------------------------------------- state
    @property
    def history(self) -> tuple[Row, ...]:
        """The recorded rows, oldest first (row 1 is ``history[0]``)."""
        return tuple(self._rows)

    @property
    def candidates(self) -> np.ndarray:
        """The secrets consistent with every row (sorted int32 indices, read-only)."""
        view = self._cands.view()
        view.flags.writeable = False
        return view

    @property
    def remaining(self) -> int:
        """How many secrets are consistent with every row."""
        return int(self._cands.size)

    def codes(self, limit: Optional[int] = None) -> list[str]:
        """The candidates as people write them, at most ``limit`` of them."""
        cands = self._cands if limit is None else self._cands[:limit]
        return [self.game.format_code(int(c)) for c in cands]

    @property
    def consistent(self) -> bool:
        """Whether some secret gives every recorded answer."""
        return self._cands.size > 0

    @property
    def solved(self) -> bool:
        """Whether the last row is a win that fits every answer (a win on a guess that cannot
        be the secret only makes the answers inconsistent)."""
        return (
            bool(self._rows)
            and self._rows[-1].score == self.game.slots[self.game.win_slot]
            and self.consistent
        )

    def conflict(self) -> tuple[int, ...]:
        """A smallest set of rows (1-based) that cannot all be true; ``()`` if consistent."""
        if self.consistent:
            return ()
        return minimal_conflict(self.game, [(r.guess, r.score) for r in self._rows])

    def remaining_after(self) -> list[int]:
        """The number of candidates after each row (the ``left`` column of a history)."""
        out, cands = [], self.game.secrets
        for r in self._rows:
            cands = self.game.kernel.filter(r.guess, self.game.slot(r.score), cands)
            out.append(int(cands.size))
        return out

    # -------------------------------------------------------------- moves
    def suggest(self, time_limit: Optional[float] = None) -> int:
        """The strategy's next guess (a code index).

        With ``time_limit`` (seconds), the best guess found within it: the strategy's own
        guess when the scan finished in time (:attr:`last_suggestion_complete`), else the
        best of the codes examined, the candidates first (and the first candidate when
        not even one was).  A suggestion is kept until the next move (an incomplete one
        is thought again when asked with more time, or with none); Ctrl-C stops the
        thinking.  Raises :class:`InconsistentAnswers` when no secret is left,
        :class:`PlayError` once the code is broken.
        """
        time_limit = checks.time_limit(time_limit)
        self._check_open()
        if not self.consistent:
            raise self._inconsistent()
        old = self._suggestion
        if (
            old is None
            or not old.complete
            and (time_limit is None or time_limit > self._suggestion_limit)
        ):
            if not self._rows:
                self._suggestion = Choice(self.first, True, 0.0)
            else:
                self._suggestion = next_guess(
                    self.game,
                    self._cands,
                    self.strategy,
                    candidates_only=self.candidates_only,
                    history=[r.guess for r in self._rows],
                    time_limit=time_limit,
                )
            self._suggestion_limit = time_limit or 0.0
        assert self._suggestion is not None
        return self._suggestion.guess

    @property
    def last_suggestion_complete(self) -> bool:
        """False when the last :meth:`suggest` ran out of time (see there)."""
        return self._suggestion is None or self._suggestion.complete

    def record(self, guess: CodeLike, score: ScoreLike) -> int:
        """Add a row and return how many candidates are left.

        Raises :class:`~mastermind.game.CodeError` / :class:`~mastermind.game.ScoreError`
        for a bad guess or score (nothing is recorded), and :class:`InconsistentAnswers`
        when the new row leaves no secret (the row *is* recorded: fix or undo a row).
        """
        self._check_open()
        if not self.consistent:
            raise self._inconsistent(
                "the answers are already inconsistent: fix or undo a row before recording another"
            )
        g = self.game.guess(guess)
        s = to_score(self.game, score)
        self._rows.append(Row(g, s))
        self._cands = self.game.kernel.filter(g, self.game.slot(s), self._cands)
        self._suggestion = None
        if not self.consistent:
            raise self._inconsistent()
        return self.remaining

    def undo(self) -> Row:
        """Remove the last row and return it."""
        if not self._rows:
            raise PlayError("nothing to undo")
        row = self._rows.pop()
        self._recompute()
        return row

    def fix(self, row: int, score: ScoreLike) -> int:
        """Replace the score of ``row`` (1-based) and return how many candidates are left;
        raises :class:`InconsistentAnswers` if the answers are still inconsistent."""
        if (
            isinstance(row, bool)
            or not isinstance(row, (int, np.integer))
            or not 1 <= row <= len(self._rows)
        ):
            have = f"rows 1..{len(self._rows)}" if self._rows else "no rows yet"
            raise PlayError(f"no row {row!r}: there are {have}")
        s = to_score(self.game, score)
        self._rows[row - 1] = Row(self._rows[row - 1].guess, s)
        self._recompute()
        if not self.consistent:
            raise self._inconsistent()
        return self.remaining

    # -------------------------------------------------------------- helpers
    def _recompute(self) -> None:
        self._cands = self.game.candidates((r.guess, r.score) for r in self._rows)
        self._suggestion = None

    def _check_open(self) -> None:
        if self.solved:
            raise PlayError(
                f"the code is already broken: it is {self.game.format_code(self._rows[-1].guess)}"
            )

    def _inconsistent(self, message: Optional[str] = None) -> InconsistentAnswers:
        rows = self.conflict()
        if message:
            message = f"{message} ({cannot_be_true(rows)})"
        return InconsistentAnswers(rows, message)


# ---------------------------------------------------------------------- codemakers
class Codemaker(Protocol):
    """The codemaker's side: scores guesses, and reveals a secret at the end."""

    game: Game

    def answer(self, guess: CodeLike) -> Score: ...

    def reveal(self) -> int: ...


class SecretCodemaker:
    """A codemaker with a secret: ``secret``, or one picked by ``random.Random(seed)``.

    >>> cm = SecretCodemaker(Game(4, 6), "6543")
    >>> cm.answer("1122"), cm.answer("6543")
    (Score(black=0, white=0), Score(black=4, white=0))
    """

    def __init__(
        self, game: Game, secret: Optional[CodeLike] = None, *, seed: Optional[int] = None
    ):
        self.game = game
        if secret is None:
            secret = int(game.secrets[random.Random(seed).randrange(game.secrets.size)])
        self.secret = game.secret(secret)

    def answer(self, guess: CodeLike) -> Score:
        """The score of ``guess`` (validated as a playable code) against the secret."""
        return self.game.score_index(self.game.guess(guess), self.secret)

    def reveal(self) -> int:
        return self.secret


class Adversary:
    """A codemaker that keeps no secret and makes the game last as long as it can.

    Each guess gets the score whose part of the candidates is largest (ties broken by
    ``random.Random(seed)``); the winning score is given only when the guess is the one
    candidate left.  Every answer is consistent with the earlier ones, and :meth:`reveal`
    returns a secret that gives them all.

    >>> adv = Adversary(Game(4, 6), seed=1)
    >>> adv.answer("1122"), adv.remaining
    (Score(black=0, white=0), 256)
    """

    def __init__(self, game: Game, *, seed: Optional[int] = None):
        self.game = game
        self.rng = random.Random(seed)
        self._cands = game.secrets
        self._revealed: Optional[int] = None
        self.history: list[Row] = []

    @property
    def candidates(self) -> np.ndarray:
        """The secrets consistent with every answer given so far."""
        return self._cands

    @property
    def remaining(self) -> int:
        return int(self._cands.size)

    @property
    def solved(self) -> bool:
        return bool(self.history) and self.history[-1].score == self.game.slots[self.game.win_slot]

    def answer(self, guess: CodeLike) -> Score:
        """The score of ``guess`` that leaves the most candidates."""
        game = self.game
        g = game.guess(guess)
        if self.solved:
            raise PlayError("the code is already broken")
        table = game.kernel.histogram(g, self._cands).astype(np.int64)
        table[game.win_slot] = 0  # win only when nothing else is left
        best = int(table.max())
        if best == 0:  # the guess is the only candidate
            slot = game.win_slot
        else:
            slot = self.rng.choice([int(i) for i in np.flatnonzero(table == best)])
        self._cands = game.kernel.filter(g, slot, self._cands)
        score = game.slots[slot]
        self.history.append(Row(g, score))
        return score

    def reveal(self) -> int:
        """A secret consistent with every answer (the guess itself once it has won)."""
        if self.solved:
            return self.history[-1].guess
        if self._revealed is None or not np.isin(self._revealed, self._cands):
            self._revealed = int(self._cands[self.rng.randrange(self._cands.size)])
        return self._revealed
