"""The terminal dialogue of ``mastermind play``: the computer breaks a code the person
scores (:func:`play_codebreaker`), or the person breaks the computer's
(:func:`play_codemaker`).

Both read commands from an input stream and write to an output stream: a terminal (with
line editing) or plain pipes, so scripts can drive them; they return the exit status (0
finished, 1 unfinished).  The game itself is :mod:`mastermind.apps.play`'s.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Optional, TextIO, Union

from ..apps.play import (
    Adversary,
    Codemaker,
    InconsistentAnswers,
    PlayError,
    Row,
    SecretCodemaker,
    Session,
    cannot_be_true,
)
from ..game import CodeError, CodeLike, Game, Score, ScoreError, Variant, shown
from ..rules import Strategy
from . import render
from .common import EXIT_OK as FINISHED
from .common import EXIT_UNFINISHED as UNFINISHED

__all__ = ["play_codebreaker", "play_codemaker"]


class _Console:
    """Prompts and answers on a terminal (``input()``, with line editing) or on any text
    streams (an answer that does not come from a terminal is echoed after its prompt, so a
    piped transcript reads like a terminal session)."""

    def __init__(
        self, input: Optional[TextIO], output: Optional[TextIO], game: Optional[Game] = None
    ):
        self.inp = sys.stdin if input is None else input
        self.out = sys.stdout if output is None else output
        self.tty = (
            self.inp is sys.stdin
            and self.out is sys.stdout
            and _isatty(self.inp)
            and _isatty(self.out)
        )
        # coloured pegs on a colour terminal; the plain text everywhere else
        self.pegs = (
            render.Pegs(game, self.out)
            if game is not None and self.tty and render.wants_colour(self.out)
            else None
        )
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
                return input(prompt if self.pegs is None else render.prompt_text(prompt))
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

    # how codes, scores and histories are shown: pegs on a colour terminal, else plain
    def code(self, game: Game, g: int) -> str:
        return game.format_code(g) if self.pegs is None else self.pegs.ansi(self.pegs.code(g))

    def score(self, game: Game, score: Score) -> str:
        if self.pegs is None:
            return game.format_score(score, pegs=True)
        return self.pegs.ansi(self.pegs.score(score))

    def row(self, game: Game, number: int, row: Row) -> str:
        return (
            _row_line(game, number, row)
            if self.pegs is None
            else self.pegs.ansi(self.pegs.row(number, row))
        )

    def history(
        self,
        game: Game,
        rows: Iterable[Row],
        left: Optional[list[int]] = None,
        marked: tuple[int, ...] = (),
    ) -> list[str]:
        if self.pegs is None:
            return _history_table(game, rows, left, marked)
        rows = list(rows)
        return (
            self.pegs.lines(self.pegs.history(rows, left, marked))
            if rows
            else ["  (no guesses yet)"]
        )

    def legend(self) -> None:
        if self.pegs is not None:
            self.say(self.pegs.ansi(self.pegs.legend()))


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _describe(game: Game) -> str:
    """What a secret looks like, in words."""
    if game.variant is Variant.PERMUTATION:
        return f"the colours 1..{game.k} in some order"
    repeats = (
        "no colour repeated"
        if game.variant in (Variant.DISTINCT, Variant.BULLS_AND_COWS)
        else "colours may repeat"
    )
    return f"{game.n} colours from 1..{game.k}, {repeats}"


def _score_forms(game: Game) -> str:
    return game.score_forms()


def _score_meaning(game: Game) -> str:
    if game.variant is Variant.BLACK_PEG:
        return "blacks (right colour in the right place)"
    return "blacks (right colour in the right place) and whites (right colour in the wrong place)"


def _history_table(
    game: Game, rows: Iterable[Row], left: Optional[list[int]] = None, marked: tuple[int, ...] = ()
) -> list[str]:
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
    return (
        f"{number:4d}  {game.format_code(row.guess):<{width}}  "
        f"{game.format_score(row.score, pegs=True)}"
    )


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


def play_codebreaker(
    game: Game,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    *,
    candidates_only: bool = False,
    first: Optional[CodeLike] = None,
    secret: Optional[CodeLike] = None,
    input: Optional[TextIO] = None,
    output: Optional[TextIO] = None,
    think: Optional[float] = None,
) -> int:
    """The computer breaks a code: it guesses, and the person (or ``secret``) scores.

    ``think``: seconds the computer may think about a guess (None: as long as the
    strategy needs); past them it plays the best guess found and says so.  Returns the
    exit status: 0 once the code is broken, 1 when the game is left unfinished
    (``quit``, end of input, Ctrl-C).

    >>> import io
    >>> out = io.StringIO()
    >>> play_codebreaker(Game(4, 6), secret="6543", output=out)
    0
    >>> out.getvalue().splitlines()[-1]
    'Solved in 5 guesses: the secret is 6543.'
    """
    session = Session(game, strategy, candidates_only=candidates_only, first=first)
    target = None if secret is None else game.secret(secret)
    con = _Console(input, output, game)
    try:
        if target is not None:
            con.say(
                f"Mastermind {game.name}, {session.strategy}: I guess the secret "
                f"{game.format_code(target)} and score myself."
            )
            con.legend()
            while not session.solved:
                g = _suggest(game, session, con, think)
                score = game.score_index(g, target)
                left = session.record(g, score)
                con.say(
                    f"guess {len(session.history)}: {con.code(game, g)}  score "
                    f"{con.score(game, score)}"
                    + ("" if session.solved else f"  {_plural(left, 'code')} left")
                )
            con.say(
                f"Solved in {_plural(len(session.history), 'guess')}: the secret is "
                f"{game.format_code(target)}."
            )
            return FINISHED
        con.say(
            f"Mastermind {game.name}, {session.strategy}. Think of a secret: {_describe(game)}."
        )
        con.say(f"I guess; you score each guess with {_score_meaning(game)}.")
        con.legend()
        con.say(
            f"Write a score as {_score_forms(game)}. "
            "Other commands: undo, fix ROW SCORE, history, list, help, quit.\n"
        )
        return _breaker_loop(game, session, con, think)
    except KeyboardInterrupt:
        con.say("\nInterrupted: the game is unfinished.")
        return UNFINISHED


_SLOW_PAIRS = 1 << 27  # (guess, candidate) pairs beyond which a suggestion may take a while


def _suggest(game: Game, session: Session, con: _Console, think: Optional[float]) -> int:
    """The session's suggestion within ``think`` seconds, saying so when thinking is long
    or cut short."""
    if game.guesses.size * session.remaining > _SLOW_PAIRS and session.history:
        limit = f", at most {think:g} s" if think is not None else ""
        con.say(f"(thinking about {_plural(session.remaining, 'code')}{limit}...)")
    g = session.suggest(think)
    if not session.last_suggestion_complete:
        con.say(
            f"(the best guess found in {think:g} s, of the codes examined, candidates "
            f"first: the full {session.strategy} rule might choose another)"
        )
    return g


def _breaker_loop(
    game: Game, session: Session, con: _Console, think: Optional[float] = None
) -> int:
    """Guess, read the person's line (a score or a command), until the game ends: its
    exit status."""
    while True:
        if session.solved:
            con.say(
                f"Solved in {_plural(len(session.history), 'guess')}: your secret is "
                f"{game.format_code(session.history[-1].guess)}."
            )
            return FINISHED
        if session.consistent:
            g = _suggest(game, session, con, think)
            turn = len(session.history) + 1
            note = "  (the only code left)" if session.remaining == 1 else ""
            prompt = f"guess {turn}: {con.code(game, g)}{note}  score> "
        else:
            g, prompt = -1, "fix ROW SCORE or undo> "
        line = con.ask(prompt)
        if line is None:
            con.say("End of input: the game is unfinished.")
            return UNFINISHED
        text = line.strip()
        if not text:
            continue
        status = _breaker_command(game, session, con, text.lower())
        if status is None:
            status = _breaker_answer(game, session, con, g, text)
        if status != _AGAIN:
            return status


_AGAIN = -1  # a line was handled and the game goes on: the next line


def _breaker_command(game: Game, session: Session, con: _Console, word: str) -> Optional[int]:
    """Carry out a command that reads the game (quit, help, history, list): ``_AGAIN``,
    or UNFINISHED for quit; None when ``word`` is no such command."""
    if word in ("quit", "exit", "q"):
        con.say("Game abandoned: unfinished.")
        return UNFINISHED
    if word in ("help", "?", "h"):
        con.say(_BREAKER_HELP.format(meaning=_score_meaning(game), forms=_score_forms(game)))
    elif word == "history":
        for ln in con.history(game, session.history, session.remaining_after(), session.conflict()):
            con.say(ln)
    elif word in ("list", "candidates"):
        listed = session.codes(40)
        more = session.remaining - len(listed)
        con.say(
            f"{_plural(session.remaining, 'code')} possible: "
            + " ".join(listed)
            + (f" ... and {more:,} more" if more > 0 else "")
        )
    else:
        return None
    return _AGAIN


def _breaker_answer(game: Game, session: Session, con: _Console, g: int, text: str) -> int:
    """A line that changes the answers: undo, fix ROW SCORE, or the score of the guess
    ``g``; what goes wrong (an inconsistency, a bad row or score) is said.  ``_AGAIN``."""
    word = text.lower()
    try:
        if word == "undo":
            row = session.undo()
            con.say(
                f"Took back row {len(session.history) + 1}: "
                f"{game.format_code(row.guess)} scored {game.format_score(row.score, pegs=True)}."
            )
            _report_state(game, session, con)
        elif word.startswith("fix"):
            m = re.fullmatch(r"fix\s+([0-9]+)\s+(.+)", word)
            if not m:
                con.say("Write 'fix ROW SCORE', e.g. 'fix 2 1 0' (row numbers: 'history').")
                return _AGAIN
            number, left = int(m.group(1)), session.fix(int(m.group(1)), m.group(2))
            score = game.format_score(session.history[number - 1].score, pegs=True)
            con.say(f"Row {number} is now {score}: {_plural(left, 'code')} left.")
        elif not session.consistent:
            con.say(
                "The answers so far are inconsistent: correct a row with "
                "'fix ROW SCORE', or 'undo' the last one."
            )
        else:
            _record_score(game, session, con, g, text)
    except InconsistentAnswers as e:
        _report_inconsistent(game, session, con, e)
    except (PlayError, ScoreError, CodeError) as e:
        con.say(f"{e}.")
    return _AGAIN


def _record_score(game: Game, session: Session, con: _Console, g: int, text: str) -> None:
    """The person's score ``text`` of the guess ``g``, recorded (or why it is none)."""
    word = text.lower()
    try:
        score = game.parse_score(text)
    except ScoreError as e:
        if re.fullmatch(r"[a-z ]+", word) and not re.fullmatch(r"[bw]+", word):
            con.say(
                f"{shown(text)} is neither a score nor a command: write a score as "
                f"{_score_forms(game)}, or type 'help'."
            )
        else:
            con.say(f"{e}. Try again.")
        return
    left = session.record(g, score)
    if not session.solved:
        con.say(
            f"  {_plural(left, 'code')} left"
            + (f": it must be {session.codes(1)[0]}" if left == 1 else "")
        )


def _report_state(game: Game, session: Session, con: _Console) -> None:
    if session.consistent:
        con.say(f"  {_plural(session.remaining, 'code')} left")
    else:
        _report_inconsistent(game, session, con, InconsistentAnswers(session.conflict()))


def _report_inconsistent(
    game: Game, session: Session, con: _Console, err: InconsistentAnswers
) -> None:
    rows = err.rows
    con.say(
        f"These answers are inconsistent: no secret gives them all. "
        f"{cannot_be_true(rows).capitalize()} (marked *):"
    )
    for ln in con.history(game, session.history, session.remaining_after(), rows):
        con.say(ln)
    which = f"row {rows[0]} is" if len(rows) == 1 else f"one of rows {', '.join(map(str, rows))} is"
    con.say(
        f"At least {which} wrong: correct it with 'fix ROW SCORE', or 'undo' to take back "
        "the last score."
    )


# ---------------------------------------------------------------------- the person guesses
def _parse_guess(game: Game, text: str) -> int:
    """:meth:`Game.guess` of typed text, with the colour count in the message when a
    compact code (one digit per colour) has the wrong length."""
    if game.k <= 9 and re.fullmatch(r"[0-9]+", text) and len(text) != game.n:
        raise CodeError(
            f"{shown(text)} has {len(text)} colour{'s' if len(text) != 1 else ''}, "
            f"a code has {game.n}"
        )
    return game.guess(text)


_MAKER_HELP = """\
Type a guess (e.g. {example}); I answer with {meaning}.
  hint           how many codes are still possible
  hint suggest   the {strategy} strategy's next guess
  history        your guesses and their scores
  give up        end the game and see the secret
  help           this text
  quit           stop without seeing the secret (also: end of input, Ctrl-C)"""


def play_codemaker(
    game: Game,
    *,
    seed: Optional[int] = None,
    adversary: bool = False,
    secret: Optional[CodeLike] = None,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    candidates_only: bool = False,
    first: Optional[CodeLike] = None,
    input: Optional[TextIO] = None,
    output: Optional[TextIO] = None,
    think: Optional[float] = None,
) -> int:
    """The person breaks the computer's code: the computer picks a secret (``seed`` makes
    it reproducible; ``secret`` sets it) or, with ``adversary``, keeps none and answers so
    that the game lasts as long as possible.

    The strategy options only shape ``hint suggest`` (``think``: its time budget, as in
    :func:`play_codebreaker`); ``first``, the guess it proposes first, is said at the
    start.  Returns 0 when the game is over (the
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
    maker = _codemaker(game, adversary, secret, seed)
    tracker = Session(game, strategy, candidates_only=candidates_only, first=first)
    dialogue = _BreakMyCode(game, maker, tracker, _Console(input, output, game), adversary, think)
    try:
        dialogue.greet()
        if first is not None:  # (it shapes the suggestions only: said, not silently kept)
            dialogue.con.say(
                f"'hint suggest' proposes {game.format_code(tracker.first)} as your first "
                "guess (--first).\n"
            )
        return dialogue.run()
    except KeyboardInterrupt:
        dialogue.con.say("\nInterrupted: the game is unfinished.")
        return UNFINISHED


def _codemaker(
    game: Game, adversary: bool, secret: Optional[CodeLike], seed: Optional[int]
) -> Codemaker:
    """The computer's side: an adversary (no secret), or a secret (given, or drawn)."""
    if not adversary:
        return SecretCodemaker(game, secret, seed=seed)
    if secret is not None:
        raise PlayError("an adversary keeps no secret: give either a secret or adversary")
    return Adversary(game, seed=seed)


class _BreakMyCode:
    """The dialogue of :func:`play_codemaker`: the greeting, then one line at a time, a
    command or a guess, until the game ends (an exit status)."""

    def __init__(
        self,
        game: Game,
        maker: Codemaker,
        tracker: Session,
        con: _Console,
        adversary: bool,
        think: Optional[float],
    ):
        self.game, self.maker, self.tracker, self.con = game, maker, tracker, con
        self.adversary, self.think = adversary, think
        self.example = game.format_code(game.index([i % game.k + 1 for i in range(game.n)]))

    def greet(self) -> None:
        game, con = self.game, self.con
        if self.adversary:
            con.say(f"Mastermind {game.name}: break my code ({_describe(game)}).")
            con.say(
                "Beware: I keep no secret and answer so that the game lasts as long as "
                "possible;\nevery answer stays consistent, and at the end I reveal a "
                "secret that fits them all."
            )
        else:
            con.say(
                f"Mastermind {game.name}: I have picked a secret ({_describe(game)}). Break it!"
            )
        con.say(f"Each guess gets {_score_meaning(game)}.")
        con.legend()
        con.say(
            f"Type a guess such as {self.example}. Commands: hint, hint suggest, "
            "history, give up, help, quit.\n"
        )

    def run(self) -> int:
        """Lines until the game ends: its exit status."""
        while True:
            line = self.con.ask(f"guess {len(self.tracker.history) + 1}> ")
            if line is None:
                self.con.say("End of input: the game is unfinished.")
                return UNFINISHED
            text = line.strip()
            if not text:
                continue
            word = " ".join(text.lower().split())
            status = self.command(word)
            if status is None:
                status = self.guess(text, word)
            if status != _AGAIN:
                return status

    def command(self, word: str) -> Optional[int]:
        """Carry out the command ``word``: ``_AGAIN``, or the exit status when it ends the
        game; None when ``word`` is no command."""
        con, tracker = self.con, self.tracker
        if word in ("quit", "exit", "q"):
            con.say("Game abandoned: unfinished.")
            return UNFINISHED
        if word in ("give up", "giveup", "give-up", "reveal"):
            fits = "A secret that fits every answer is" if self.adversary else "The secret was"
            con.say(
                f"You gave up after {_plural(len(tracker.history), 'guess')}. "
                f"{fits} {self.game.format_code(self.maker.reveal())}."
            )
            return FINISHED
        if word in ("help", "?"):
            con.say(
                _MAKER_HELP.format(
                    example=self.example,
                    meaning=_score_meaning(self.game),
                    strategy=tracker.strategy,
                )
            )
        elif word == "history":
            for ln in con.history(self.game, tracker.history):
                con.say(ln)
        elif word == "hint":
            n = tracker.remaining
            con.say(
                f"{_plural(n, 'code')} {'is' if n == 1 else 'are'} still possible"
                + (
                    f": {tracker.codes(1)[0]}"
                    if n == 1
                    else f" ('hint suggest' shows the {tracker.strategy} strategy's guess)"
                )
                + "."
            )
        elif word in ("hint suggest", "suggest", "hint guess"):
            g = _suggest(self.game, tracker, con, self.think)
            con.say(f"The {tracker.strategy} strategy would play {self.game.format_code(g)}.")
        else:
            return None
        return _AGAIN

    def guess(self, text: str, word: str) -> int:
        """Score the guess ``text`` (or say why it is none): ``_AGAIN``, or FINISHED when
        it breaks the code."""
        game, con, tracker = self.game, self.con, self.tracker
        try:
            g = _parse_guess(game, text)
        except CodeError as e:
            if re.fullmatch(r"[a-z][a-z ]*", word):
                con.say(f"Unknown command {shown(text)}: type 'help'.")
            else:
                con.say(f"{e}. Try again.")
            return _AGAIN
        score = self.maker.answer(g)
        tracker.record(g, score)  # the codemaker never contradicts itself
        con.say(" " + con.row(game, len(tracker.history), tracker.history[-1]))
        if not tracker.solved:
            return _AGAIN
        con.say(
            f"You broke the code in {_plural(len(tracker.history), 'guess')}: "
            f"{game.format_code(self.maker.reveal())}."
        )
        return FINISHED
