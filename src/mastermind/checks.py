"""Checks of the arguments the library's functions share (the game, integers in a range,
thread counts, seconds and time limits, memory budgets, progress callbacks, guess limits,
unit budgets, a position's history), with messages in the package's own words: every
public entry point validates its arguments through here, and a bad one raises
:class:`ArgumentError` (a game that is not one: :class:`~mastermind.game.GameError`).
The command line checks its options with the same functions: importing this module loads
no NumPy (a NumPy number is still taken wherever a Python one is).
What a game is, to them and to every family: :class:`GameLike` (and :class:`GameCore`,
the part a unit's worker has), published by :mod:`mastermind.game`.

>>> threads(2), threads(None) >= 1
(2, True)
>>> threads(70000)
Traceback (most recent call last):
...
mastermind.checks.ArgumentError: jobs must be between 1 and 256, not 70000
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Optional, Protocol, runtime_checkable

from .errors import GameError, MastermindError, shown
from .limits import MAX_GUESSES, MAX_JOBS, MAX_MEMORY

if TYPE_CHECKING:
    import enum

    import numpy as np

    from .kernel import _core


class ArgumentError(MastermindError, ValueError):
    """An argument of the wrong kind or out of its range."""


@runtime_checkable
class GameCore(Protocol):
    """What every game has, a unit's worker included (where a custom game is only its
    score table, :class:`~mastermind.custom.TableGame`): its code sets and its kernel.

    Codes are indices ``0..size-1``; ``guesses`` and ``secrets`` are the sorted int32
    arrays of those that may be played and be secret (``secrets_are_guesses``: each
    secret may be played); a score's *slot* is its number ``0..nslots-1``
    (``win_slot``: the winning one); ``kernel`` computes on indices and slots.
    ``symmetric``: the guess and secret sets are closed under colour and position
    permutations (Mastermind's); ``n``, the pegs, is None for a custom game."""

    @property
    def n(self) -> Optional[int]: ...
    @property
    def symmetric(self) -> bool: ...
    @property
    def size(self) -> int: ...
    @property
    def guesses(self) -> np.ndarray: ...
    @property
    def secrets(self) -> np.ndarray: ...
    @property
    def secrets_are_guesses(self) -> bool: ...
    @property
    def nslots(self) -> int: ...
    @property
    def win_slot(self) -> int: ...
    @property
    def kernel(self) -> _core.Kernel: ...


class WireForm(Protocol):
    """A game's wire form, from which a worker rebuilds it once per process
    (:class:`~mastermind.game.GameSpec`, :class:`~mastermind.custom.TableSpec`): whether
    it is ``heavy`` (sent to each worker once), its ``token``, its ``definition()`` (what
    a checkpoint's header records) and the ``game()`` it rebuilds."""

    @property
    def heavy(self) -> bool: ...
    @property
    def token(self) -> str: ...
    def definition(self) -> dict[str, Any]: ...
    def game(self) -> Any: ...


@runtime_checkable
class GameLike(GameCore, Protocol):
    """What every game offers, a :class:`~mastermind.game.Game` and a
    :class:`~mastermind.custom.CustomGame` alike: what the analyses, the bounds, the
    views and the command line use of a game.  Beyond its :class:`GameCore`: its name,
    its colours ``k`` (None for a custom game, whose ``variant`` is ``"custom"``), its
    scores (``slots``, a slot's score), codes and scores read and written (a score as
    its variant tells it: ``format_score``), and its wire
    form (``spec()``, from which a worker rebuilds it)."""

    @property
    def name(self) -> str: ...
    @property
    def k(self) -> Optional[int]: ...
    @property
    def variant(self) -> enum.Enum: ...  # (rules.Variant, or custom's CustomKind)
    @property
    def slots(self) -> tuple[Any, ...]: ...

    def spec(self) -> WireForm: ...
    def code(self, value: Any) -> int: ...
    def guess(self, value: Any) -> int: ...
    def secret(self, value: Any) -> int: ...
    def is_guess(self, index: int) -> bool: ...
    def is_secret(self, index: int) -> bool: ...
    def format_code(self, index: int) -> str: ...
    def format_score(self, score: Any) -> str: ...
    def slot(self, score: Any) -> int: ...
    def parse_score(self, text: str) -> Any: ...
    def score_index(self, guess: int, secret: int) -> Any: ...
    def as_indices(
        self, codes: Any, default: Optional[np.ndarray] = None, what: str = "codes"
    ) -> np.ndarray: ...
    def candidates(self, history: Iterable[tuple[Any, Any]] = ()) -> np.ndarray: ...


class HistoryError(ArgumentError):
    """A history that is not a sequence of (guess, score) pairs."""


def history_pairs(history: object) -> list[tuple[Any, Any]]:
    """``history`` as a list of (guess, score) pairs, each taken apart;
    :class:`HistoryError` when it is no such thing (a number, a text, a mapping, an
    item that is not a pair).

    >>> history_pairs([("1122", "1 0")])
    [('1122', '1 0')]
    """
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise HistoryError(
            f"a history is a sequence of (guess, score) pairs, such as "
            f"[('1122', '1 0')], not {shown(history)}"
        )
    out: list[tuple[Any, Any]] = []
    for item in history:
        whole = not isinstance(item, (str, bytes, Mapping)) and isinstance(item, Iterable)
        pair = tuple(item) if whole else ()
        if len(pair) != 2:
            raise HistoryError(
                f"a step of a history is a (guess, score) pair, such as ('1122', '1 0'), "
                f"not {shown(item)}"
            )
        out.append((pair[0], pair[1]))
    return out


def _numpy_kind(value: Any, *kinds: str) -> bool:
    """Whether ``value`` is a NumPy scalar of one of ``kinds`` (``"integer"``,
    ``"floating"``, ``"bool_"``); without NumPy loaded, no value is one."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, tuple(getattr(np, k) for k in kinds))


def _is_integer(value: Any) -> bool:
    """An int or a NumPy integer; never a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or _numpy_kind(value, "integer")


def _is_number(value: Any) -> bool:
    """An int, a float or a NumPy integer or float; never a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or _numpy_kind(value, "integer", "floating")


def game(value: Any, who: str) -> Any:
    """``value`` if it is a game (:class:`GameLike`: a
    :class:`~mastermind.game.Game` or a :class:`~mastermind.custom.CustomGame`), else
    :class:`GameError`."""
    if isinstance(value, type) or not isinstance(value, GameLike):
        raise GameError(f"{who}() needs a game such as mastermind.Game(4, 6), not {shown(value)}")
    return value


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def threads(jobs: Any) -> int:
    """The thread count ``jobs`` asks for (None: every core), 1..:data:`MAX_JOBS`."""
    if jobs is None:
        return min(cores(), MAX_JOBS)
    if not _is_integer(jobs):
        raise ArgumentError(f"jobs must be an integer, not {shown(jobs)}")
    if not 1 <= jobs <= MAX_JOBS:
        raise ArgumentError(f"jobs must be between 1 and {MAX_JOBS}, not {jobs}")
    return int(jobs)


def integer(value: Any, name: str, lo: int, hi: Optional[int] = None) -> int:
    """``value`` as an int in ``lo..hi`` (no upper end when ``hi`` is None); a bool, a
    float or a string is no integer."""
    span = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
    if not _is_integer(value):
        raise ArgumentError(f"{name} must be an integer {span}, not {shown(value)}")
    if value < lo or (hi is not None and value > hi):
        raise ArgumentError(f"{name} must be an integer {span}, not {value}")
    return int(value)


def seconds(value: Any, name: str, *, zero: bool = False) -> float:
    """A finite number of seconds, positive (or >= 0 with ``zero``)."""
    if (
        not _is_number(value)
        or value != value
        or value == float("inf")
        or value < 0
        or (value == 0 and not zero)
    ):
        what = "a number of seconds >= 0" if zero else "a positive number of seconds"
        raise ArgumentError(f"{name} must be {what}, not {shown(value)}")
    return float(value)


def time_limit(value: Any) -> Optional[float]:
    """A positive number of seconds, or None."""
    return None if value is None else seconds(value, "time_limit")


def unit_seconds(value: Any) -> Optional[float]:
    """A unit's budget: seconds >= 0, or None (never split)."""
    return None if value is None else seconds(value, "unit_seconds", zero=True)


def recheck(value: Any) -> float:
    """A spot-check fraction: the share of units (0 to 1) re-run on the client and
    compared with the answers of the workers or the checkpoint."""
    if not _is_number(value) or not 0 <= value <= 1:
        raise ArgumentError(
            f"recheck must be a fraction of the units from 0 to 1, not {shown(value)}"
        )
    return float(value)


def flag(value: Any, name: str) -> bool:
    """A yes or no: ``True`` or ``False`` (a NumPy bool too), never a text or a number
    taken for one (``candidates_only='x'`` is no flag)."""
    if not (isinstance(value, bool) or _numpy_kind(value, "bool_")):
        raise ArgumentError(f"{name} must be True or False, not {shown(value)}")
    return bool(value)


def max_guesses(value: Any, lo: int = 0, hi: int = MAX_GUESSES) -> int:
    """A number of guesses a question allows, ``lo..hi``."""
    return integer(value, "max_guesses", lo, hi)


def guessable(game: GameLike) -> None:
    """That every secret of ``game`` may also be guessed (the searches need it)."""
    if not game.secrets_are_guesses:
        raise ArgumentError(f"in {game.name} some secrets cannot be guessed")


def history(game: GameLike, pairs: Any, after: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    """A position: its (guess, score) ``pairs`` as (guess, slot) and the codes consistent
    with them; not a won game (``after`` says what would be left to do), and not one no
    secret is consistent with."""
    import numpy as np

    played = [(game.guess(g), game.slot(s)) for g, s in history_pairs(pairs)]
    cands = np.ascontiguousarray(game.candidates((g, game.slots[s]) for g, s in played))
    if cands.size == 0:
        raise ArgumentError("no secret is consistent with that history")
    for g, s in played:
        if s == game.win_slot:
            raise ArgumentError(
                f"the game is already won: {game.format_code(g)} "
                f"scored {game.slots[s]}; nothing is left to {after}"
            )
    return played, cands


def progress(value: Any) -> Optional[Callable[[int, int], None]]:
    """A callable ``progress(done, total)``, or None."""
    if value is not None and not callable(value):
        raise ArgumentError(f"progress must be a function of (done, total), not {shown(value)}")
    return value


def memory(value: Any) -> int:
    """A positive number of bytes (a memo's budget)."""
    if not _is_integer(value) or value < 1:
        raise ArgumentError(f"memory must be a positive number of bytes, not {shown(value)}")
    if value > MAX_MEMORY:
        raise ArgumentError(f"memory must be at most {MAX_MEMORY:,} bytes, not {value:,}")
    return int(value)
