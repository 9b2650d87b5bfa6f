"""Playing a game: the computer breaks your code, you break the computer's (issue 5).

Three pieces, usable from Python and from the ``mastermind play`` command:

* :class:`Session`: a game in progress seen from the codebreaker's side: the (guess,
  score) rows, the candidates, the strategy's next guess, ``undo`` and ``fix``; answers that
  no secret can give raise :class:`InconsistentAnswers`, naming a smallest set of rows that
  cannot all be true.
* Codemakers: :class:`SecretCodemaker` scores against a secret (given, or picked with a
  seeded random choice); :class:`Adversary` keeps no secret and gives each guess the score
  that leaves the most candidates, so the game lasts as long as possible.
* The interactive loops :func:`play_codebreaker` and :func:`play_codemaker`, reading
  commands from an input stream and writing to an output stream; they work on a terminal
  and on plain pipes, and return the exit status (0 finished, 1 unfinished).

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
mastermind.play.InconsistentAnswers: rows 1 and 3 cannot all be true: no secret gives every answer
>>> s.fix(3, "0 1")
24
>>> game.format_code(s.undo().guess), s.remaining
('1234', 256)
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional, Protocol, TextIO, Union

import numpy as np

from .game import CodeError, CodeLike, Game, Score, ScoreError, Variant
from .strategies import Strategy, choose_guess, first_guess

__all__ = [
    "Adversary", "Codemaker", "InconsistentAnswers", "PlayError", "Row", "SecretCodemaker",
    "Session", "minimal_conflict", "play_codebreaker", "play_codemaker", "register",
    "to_score",
]

ScoreLike = Union[Score, tuple[int, int], str]

FINISHED, UNFINISHED = 0, 1  # exit statuses of the interactive loops (the CLI's as well)


# ---------------------------------------------------------------------- errors and rows
class PlayError(ValueError):
    """A move that the game does not allow: nothing to undo, no such row, game over."""


class InconsistentAnswers(PlayError):
    """The recorded answers cannot all be true: no secret gives every one of them.

    ``rows`` holds the 1-based numbers of a smallest set of rows that already conflict.
    """

    def __init__(self, rows: Iterable[int], message: Optional[str] = None):
        self.rows = tuple(rows)
        super().__init__(message or f"{_rows_text(self.rows)} cannot all be true: "
                                    "no secret gives every answer")


def _rows_text(rows: tuple[int, ...]) -> str:
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
    :func:`mastermind.analysis.solve`, so a game never lasts longer than the strategy's
    worst case.  :meth:`record` keeps a row even when it makes the answers inconsistent (it
    then raises :class:`InconsistentAnswers`): the wrong answer may be an older one, and
    :meth:`fix` or :meth:`undo` repairs the history.

    >>> s = Session(Game(4, 6))
    >>> s.record(s.suggest(), "0 0"), s.codes(3)
    (256, ['3333', '3334', '3335'])
    """

    def __init__(self, game: Game, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
                 candidates_only: bool = False, first: Optional[CodeLike] = None):
        self.game = game
        self.strategy = Strategy.parse(strategy)
        self.candidates_only = bool(candidates_only)
        if first is None:
            self.first = first_guess(game, self.strategy, self.candidates_only)
        else:
            self.first = game.guess(first)
            if self.candidates_only and not game.is_secret(self.first):
                raise PlayError(f"{game.format_code(self.first)} is not a candidate, and only "
                                "candidates may be played")
        self._rows: list[Row] = []
        self._cands: np.ndarray = game.secrets
        self._suggestion: Optional[int] = None

    def __repr__(self) -> str:
        return (f"<Session {self.game.name} {self.strategy}: {len(self._rows)} rows, "
                f"{self.remaining} candidates>")

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
        return (bool(self._rows) and self._rows[-1].score == self.game.slots[self.game.win_slot]
                and self.consistent)

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
    def suggest(self) -> int:
        """The strategy's next guess (a code index).

        Raises :class:`InconsistentAnswers` when no secret is left, :class:`PlayError` once
        the code is broken.
        """
        self._check_open()
        if not self.consistent:
            raise self._inconsistent()
        if self._suggestion is None:
            self._suggestion = self.first if not self._rows else choose_guess(
                self.game, self._cands, self.strategy, self.candidates_only)
        return self._suggestion

    def record(self, guess: CodeLike, score: ScoreLike) -> int:
        """Add a row and return how many candidates are left.

        Raises :class:`~mastermind.game.CodeError` / :class:`~mastermind.game.ScoreError`
        for a bad guess or score (nothing is recorded), and :class:`InconsistentAnswers`
        when the new row leaves no secret (the row *is* recorded: fix or undo a row).
        """
        self._check_open()
        if not self.consistent:
            raise self._inconsistent("the answers are already inconsistent: fix or undo a row "
                                     "before recording another")
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
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) \
                or not 1 <= row <= len(self._rows):
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
            raise PlayError(f"the code is already broken: it is "
                            f"{self.game.format_code(self._rows[-1].guess)}")

    def _inconsistent(self, message: Optional[str] = None) -> InconsistentAnswers:
        rows = self.conflict()
        if message:
            message = f"{message} ({_rows_text(rows)} cannot all be true)"
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

    def __init__(self, game: Game, secret: Optional[CodeLike] = None, *,
                 seed: Optional[int] = None):
        self.game = game
        if secret is None:
            secret = int(game.secrets[random.Random(seed).randrange(game.secrets.size)])
        self.secret = game.secret(secret)

    def answer(self, guess: CodeLike) -> Score:
        """The score of ``guess`` (validated as a playable code) against the secret."""
        return self.game.score(self.game.guess(guess), self.secret)

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


# ---------------------------------------------------------------------- console
class _Console:
    """Prompts and answers on a terminal (``input()``, with line editing) or on any text
    streams (an answer that does not come from a terminal is echoed after its prompt, so a
    piped transcript reads like a terminal session)."""

    def __init__(self, input: Optional[TextIO], output: Optional[TextIO]):
        self.inp = sys.stdin if input is None else input
        self.out = sys.stdout if output is None else output
        self.tty = (self.inp is sys.stdin and self.out is sys.stdout
                    and _isatty(self.inp) and _isatty(self.out))
        self.echo = not _isatty(self.inp)  # a terminal echoes what is typed by itself
        if self.tty:
            try:
                import readline  # noqa: F401  (line editing for input())
            except ImportError:  # pragma: no cover - e.g. Windows
                pass

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> Optional[str]:
        """One line without its end of line; ``None`` at the end of the input."""
        if self.tty:
            try:
                return input(prompt)
            except EOFError:
                self.out.write("\n")
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            return None
        line = line.rstrip("\r\n")
        if self.echo:
            self.out.write(line + "\n")
        return line


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _describe(game: Game) -> str:
    """What a secret looks like, in words."""
    if game.variant is Variant.PERMUTATION:
        return f"the colours 1..{game.k} in some order"
    repeats = ("no colour repeated" if game.variant in (Variant.DISTINCT, Variant.BULLS_AND_COWS)
               else "colours may repeat")
    return f"{game.n} colours from 1..{game.k}, {repeats}"


def _score_forms(game: Game) -> str:
    if game.variant is Variant.BLACK_PEG:
        return "the number of blacks, e.g. '2', or pegs 'BB' ('-' for none)"
    compact = ", '21'" if game.n < 10 else ""
    return f"'2 1', '2,1'{compact} or pegs 'BBW' ('-' for none)"


def _score_meaning(game: Game) -> str:
    if game.variant is Variant.BLACK_PEG:
        return "blacks (right colour in the right place)"
    return ("blacks (right colour in the right place) and whites (right colour in the wrong "
            "place)")


def _score_text(score: Score, black_peg: bool = False) -> str:
    return f"{score.black}" if black_peg else f"{score} ({score.pegs()})"


def _history_table(game: Game, rows: Iterable[Row], left: Optional[list[int]] = None,
                   marked: tuple[int, ...] = ()) -> list[str]:
    rows = list(rows)
    if not rows:
        return ["  (no guesses yet)"]
    width = max(5, len(game.format_code(0)))
    sw = 4 if game.variant is Variant.BLACK_PEG else max(10, game.n + 6)
    head = f"    #  {'guess':<{width}}  {'score':<{sw}}" + ("  left" if left is not None else "")
    lines = [head.rstrip()]
    for i, r in enumerate(rows, 1):
        line = ("*" if i in marked else " ") + _row_line(game, i, r)
        if left is not None:
            line = f"{line:<{9 + width + sw}}  {left[i - 1]:4d}"
        lines.append(line.rstrip())
    return lines


def _row_line(game: Game, number: int, row: Row) -> str:
    """`` 3  1344   0 2 (WW)``: one row of a history table (without the marker column)."""
    width = max(5, len(game.format_code(0)))
    return (f"{number:4d}  {game.format_code(row.guess):<{width}}  "
            f"{_score_text(row.score, game.variant is Variant.BLACK_PEG)}")


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else ('es' if word.endswith('ss') else 's')}"


# ---------------------------------------------------------------------- the computer guesses
_BREAKER_HELP = """\
I guess; you answer each guess with its score: {meaning}.
  a score        {forms}
  undo           take back the last score
  fix ROW SCORE  correct the score of an earlier row, e.g. 'fix 2 1 0'
  history        the guesses and scores so far
  list           the codes that are still possible
  help           this text
  quit           stop (also: end of input, Ctrl-C)"""


def play_codebreaker(game: Game, strategy: Union[str, Strategy] = Strategy.MINMAX, *,
                     candidates_only: bool = False, first: Optional[CodeLike] = None,
                     secret: Optional[CodeLike] = None, input: Optional[TextIO] = None,
                     output: Optional[TextIO] = None) -> int:
    """The computer breaks a code: it guesses, and the person (or ``secret``) scores.

    Returns the exit status: 0 once the code is broken, 1 when the game is left
    unfinished (``quit``, end of input, Ctrl-C).

    >>> import io
    >>> out = io.StringIO()
    >>> play_codebreaker(Game(4, 6), secret="6543", output=out)
    0
    >>> out.getvalue().splitlines()[-1]
    'Solved in 5 guesses: the secret is 6543.'
    """
    session = Session(game, strategy, candidates_only=candidates_only, first=first)
    target = None if secret is None else game.secret(secret)
    con = _Console(input, output)
    bp = game.variant is Variant.BLACK_PEG
    try:
        if target is not None:
            con.say(f"Mastermind {game.name}, {session.strategy}: I guess the secret "
                    f"{game.format_code(target)} and score myself.")
            while not session.solved:
                g = session.suggest()
                score = game.score(g, target)
                left = session.record(g, score)
                con.say(f"guess {len(session.history)}: {game.format_code(g)}  score "
                        f"{_score_text(score, bp)}"
                        + ("" if session.solved else f"  {_plural(left, 'code')} left"))
            con.say(f"Solved in {_plural(len(session.history), 'guess')}: the secret is "
                    f"{game.format_code(target)}.")
            return FINISHED
        con.say(f"Mastermind {game.name}, {session.strategy}. Think of a secret: "
                f"{_describe(game)}.")
        con.say(f"I guess; you score each guess with {_score_meaning(game)}.")
        con.say(f"Write a score as {_score_forms(game)}. "
                "Other commands: undo, fix ROW SCORE, history, list, help, quit.\n")
        return _breaker_loop(game, session, con)
    except KeyboardInterrupt:
        con.say("\nInterrupted: the game is unfinished.")
        return UNFINISHED


def _breaker_loop(game: Game, session: Session, con: _Console) -> int:
    bp = game.variant is Variant.BLACK_PEG
    while True:
        if session.solved:
            con.say(f"Solved in {_plural(len(session.history), 'guess')}: your secret is "
                    f"{game.format_code(session.history[-1].guess)}.")
            return FINISHED
        if session.consistent:
            g = session.suggest()
            turn = len(session.history) + 1
            note = "  (the only code left)" if session.remaining == 1 else ""
            prompt = f"guess {turn}: {game.format_code(g)}{note}  score> "
        else:
            g, prompt = -1, "fix ROW SCORE or undo> "
        line = con.ask(prompt)
        if line is None:
            con.say("End of input: the game is unfinished.")
            return UNFINISHED
        text = line.strip()
        word = text.lower()
        if not text:
            continue
        if word in ("quit", "exit", "q"):
            con.say("Game abandoned: unfinished.")
            return UNFINISHED
        if word in ("help", "?", "h"):
            con.say(_BREAKER_HELP.format(meaning=_score_meaning(game), forms=_score_forms(game)))
            continue
        if word == "history":
            for ln in _history_table(game, session.history, session.remaining_after(),
                                     session.conflict()):
                con.say(ln)
            continue
        if word in ("list", "candidates"):
            shown = session.codes(40)
            more = session.remaining - len(shown)
            con.say(f"{_plural(session.remaining, 'code')} possible: " + " ".join(shown)
                    + (f" ... and {more:,} more" if more > 0 else ""))
            continue
        try:
            if word == "undo":
                row = session.undo()
                con.say(f"Took back row {len(session.history) + 1}: "
                        f"{game.format_code(row.guess)} scored {_score_text(row.score, bp)}.")
                _report_state(game, session, con)
                continue
            if word.startswith("fix"):
                m = re.fullmatch(r"fix\s+(\d+)\s+(.+)", word)
                if not m:
                    con.say("Write 'fix ROW SCORE', e.g. 'fix 2 1 0' (row numbers: 'history').")
                    continue
                row, left = int(m.group(1)), session.fix(int(m.group(1)), m.group(2))
                con.say(f"Row {row} is now {_score_text(session.history[row - 1].score, bp)}: "
                        f"{_plural(left, 'code')} left.")
                continue
            if not session.consistent:
                con.say("The answers so far are inconsistent: correct a row with "
                        "'fix ROW SCORE', or 'undo' the last one.")
                continue
            try:
                score = game.parse_score(text)
            except ScoreError as e:
                if re.fullmatch(r"[a-z ]+", word) and not re.fullmatch(r"[bw]+", word):
                    con.say(f"{text!r} is neither a score nor a command: write a score as "
                            f"{_score_forms(game)}, or type 'help'.")
                else:
                    con.say(f"{e}. Try again.")
                continue
            left = session.record(g, score)
            if not session.solved:
                con.say(f"  {_plural(left, 'code')} left" + (
                    f": it must be {session.codes(1)[0]}" if left == 1 else ""))
        except InconsistentAnswers as e:
            _report_inconsistent(game, session, con, e)
        except (PlayError, ScoreError, CodeError) as e:
            con.say(f"{e}.")


def _report_state(game: Game, session: Session, con: _Console) -> None:
    if session.consistent:
        con.say(f"  {_plural(session.remaining, 'code')} left")
    else:
        _report_inconsistent(game, session, con, session._inconsistent())


def _report_inconsistent(game: Game, session: Session, con: _Console,
                         err: InconsistentAnswers) -> None:
    rows = err.rows
    con.say(f"These answers are inconsistent: no secret gives them all. "
            f"{_rows_text(rows).capitalize()} cannot all be true (marked *):")
    for ln in _history_table(game, session.history, session.remaining_after(), rows):
        con.say(ln)
    which = f"row {rows[0]} is" if len(rows) == 1 else f"one of rows {', '.join(map(str, rows))} is"
    con.say(f"At least {which} wrong: correct it with 'fix ROW SCORE', or 'undo' to take back "
            "the last score.")


# ---------------------------------------------------------------------- the person guesses
def _parse_guess(game: Game, text: str) -> int:
    """:meth:`Game.guess` of typed text, with the colour count in the message when a
    compact code (one digit per colour) has the wrong length."""
    if game.k <= 9 and text.isdigit() and len(text) != game.n:
        raise CodeError(f"{text!r} has {len(text)} colour{'s' if len(text) != 1 else ''}, "
                        f"a code has {game.n}")
    return game.guess(text)



_MAKER_HELP = """\
Type a guess (e.g. {example}); I answer with {meaning}.
  hint           how many codes are still possible
  hint suggest   the {strategy} strategy's next guess
  history        your guesses and their scores
  give up        end the game and see the secret
  help           this text
  quit           stop without seeing the secret (also: end of input, Ctrl-C)"""


def play_codemaker(game: Game, *, seed: Optional[int] = None, adversary: bool = False,
                   secret: Optional[CodeLike] = None,
                   strategy: Union[str, Strategy] = Strategy.MINMAX,
                   candidates_only: bool = False, first: Optional[CodeLike] = None,
                   input: Optional[TextIO] = None, output: Optional[TextIO] = None) -> int:
    """The person breaks the computer's code: the computer picks a secret (``seed`` makes
    it reproducible; ``secret`` sets it) or, with ``adversary``, keeps none and answers so
    that the game lasts as long as possible.

    The strategy options only shape ``hint suggest``.  Returns 0 when the game is over (the
    code is broken, or the person gives up and sees the secret), 1 when it is left
    unfinished (``quit``, end of input, Ctrl-C).

    >>> import io
    >>> out = io.StringIO()
    >>> play_codemaker(Game(4, 6), secret="6543", input=io.StringIO("1122\\n6543\\n"),
    ...                output=out)
    0
    >>> out.getvalue().splitlines()[-1]
    'You broke the code in 2 guesses: 6543.'
    """
    maker: Codemaker
    if adversary:
        if secret is not None:
            raise PlayError("an adversary keeps no secret: give either a secret or adversary")
        maker = Adversary(game, seed=seed)
    else:
        maker = SecretCodemaker(game, secret, seed=seed)
    tracker = Session(game, strategy, candidates_only=candidates_only, first=first)
    con = _Console(input, output)
    example = game.format_code(game.index([i % game.k + 1 for i in range(game.n)]))
    try:
        if adversary:
            con.say(f"Mastermind {game.name}: break my code ({_describe(game)}).")
            con.say("Beware: I keep no secret and answer so that the game lasts as long as "
                    "possible;\nevery answer stays consistent, and at the end I reveal a "
                    "secret that fits them all.")
        else:
            con.say(f"Mastermind {game.name}: I have picked a secret ({_describe(game)}). "
                    "Break it!")
        con.say(f"Each guess gets {_score_meaning(game)}.")
        con.say(f"Type a guess such as {example}. Commands: hint, hint suggest, history, "
                "give up, help, quit.\n")
        while True:
            line = con.ask(f"guess {len(tracker.history) + 1}> ")
            if line is None:
                con.say("End of input: the game is unfinished.")
                return UNFINISHED
            text = line.strip()
            word = " ".join(text.lower().split())
            if not text:
                continue
            if word in ("quit", "exit", "q"):
                con.say("Game abandoned: unfinished.")
                return UNFINISHED
            if word in ("help", "?"):
                con.say(_MAKER_HELP.format(example=example, meaning=_score_meaning(game),
                                           strategy=tracker.strategy))
                continue
            if word == "history":
                for ln in _history_table(game, tracker.history):
                    con.say(ln)
                continue
            if word in ("give up", "giveup", "give-up", "reveal"):
                con.say(f"You gave up after {_plural(len(tracker.history), 'guess')}. "
                        f"{'A secret that fits every answer is' if adversary else 'The secret was'}"
                        f" {game.format_code(maker.reveal())}.")
                return FINISHED
            if word == "hint":
                n = tracker.remaining
                con.say(f"{_plural(n, 'code')} {'is' if n == 1 else 'are'} still possible"
                        + (f": {tracker.codes(1)[0]}" if n == 1 else
                           f" ('hint suggest' shows the {tracker.strategy} strategy's guess)")
                        + ".")
                continue
            if word in ("hint suggest", "suggest", "hint guess"):
                con.say(f"The {tracker.strategy} strategy would play "
                        f"{game.format_code(tracker.suggest())}.")
                continue
            try:
                g = _parse_guess(game, text)
            except CodeError as e:
                if re.fullmatch(r"[a-z][a-z ]*", word):
                    con.say(f"Unknown command {text!r}: type 'help'.")
                else:
                    con.say(f"{e}. Try again.")
                continue
            score = maker.answer(g)
            tracker.record(g, score)  # the codemaker never contradicts itself
            con.say(" " + _row_line(game, len(tracker.history), tracker.history[-1]))
            if tracker.solved:
                con.say(f"You broke the code in {_plural(len(tracker.history), 'guess')}: "
                        f"{game.format_code(maker.reveal())}.")
                return FINISHED
    except KeyboardInterrupt:
        con.say("\nInterrupted: the game is unfinished.")
        return UNFINISHED


# ---------------------------------------------------------------------- command line
def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the ``play`` command to the ``mastermind`` command line."""
    from .cli import game_options, strategy_options

    p = subparsers.add_parser(
        "play", help="play a game: the computer breaks your code, or you break its code",
        description="Without --codemaker the computer is the codebreaker: think of a secret, "
                    "score each of its guesses ('2 1', '2,1', '21' or 'BBW'), and correct "
                    "a mistaken score with 'undo' or 'fix ROW SCORE'. --secret makes it "
                    "score itself. With --codemaker you break the computer's code "
                    "('hint', 'hint suggest', 'give up'); --adversary makes it cheat "
                    "consistently so that the game lasts as long as possible.",
        epilog="Reads commands from standard input (a terminal or a pipe). Exit status: 0 "
               "the game is over, 1 unfinished (quit, end of input, Ctrl-C), 2 bad options.")
    game_options(p)
    strategy_options(p)
    m = p.add_argument_group("play")
    m.add_argument("--secret", metavar="CODE",
                   help="the computer guesses this secret and scores its own guesses")
    m.add_argument("--codemaker", action="store_true",
                   help="the computer makes the code and you guess it")
    m.add_argument("--adversary", action="store_true",
                   help="with --codemaker: keep no secret, answer so as to make the game "
                        "as long as possible (implies --codemaker)")
    m.add_argument("--seed", type=int, metavar="N",
                   help="with --codemaker: seed of the secret (or of the adversary's tie "
                        "breaks), for a reproducible game")
    p.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace, out: TextIO,
             input: Optional[TextIO] = None) -> int:
    """Run ``mastermind play`` with parsed arguments."""
    from .cli import UsageError

    codemaker = args.codemaker or args.adversary
    if codemaker and args.secret is not None:
        raise UsageError("--secret is for the computer as codebreaker; with --codemaker the "
                         "computer picks its own secret (use --seed)")
    if not codemaker and args.seed is not None:
        raise UsageError("--seed only applies with --codemaker or --adversary")
    game = Game(args.pegs, args.colours, args.variant)
    inp = sys.stdin if input is None else input
    if codemaker:
        return play_codemaker(game, seed=args.seed, adversary=args.adversary,
                              strategy=args.strategy, candidates_only=args.candidates_only,
                              first=args.first, input=inp, output=out)
    return play_codebreaker(game, args.strategy, candidates_only=args.candidates_only,
                            first=args.first, secret=args.secret, input=inp, output=out)

