"""A strategy tree checked on its own: :func:`check_strategy` plays a :class:`Node` tree
against every candidate with a plain-Python scorer (independent of the search and the
kernel) and gives its worst case; :func:`strategy_distribution` the whole distribution.
The line of play is :func:`mastermind.strategy_tree.replay_line`'s; what is wrong with a
tree is a :class:`StrategyCheckError` naming the secret and the path.

>>> from mastermind.game import Game
>>> from mastermind.analysis.exhaustive import analyze
>>> a = analyze(Game(3, 3), tree=True)
>>> check_strategy(a.game, a.tree), strategy_distribution(a.game, a.tree) == a.distribution
(4, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Union, cast

import numpy as np

from .. import checks
from ..custom import CustomGame
from ..game import CodeLike, Game, GameLike, Score, reference_score
from ..limits import MAX_REPLAY_GUESSES
from ..strategy_tree import Node, Played, replay_counts

__all__ = ["StrategyCheckError", "check_strategy", "strategy_distribution"]


class StrategyCheckError(checks.ArgumentError):
    """A strategy tree that does not do what it claims."""


def check_strategy(
    game: GameLike,
    tree: Node,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    candidates_only: bool = False,
) -> int:
    """Play the strategy ``tree`` against every candidate; return its worst case.

    Independent of the search and the kernel: scores come from
    :func:`mastermind.game.reference_score` on colour tuples (a custom game's own score
    function, for a :class:`~mastermind.custom.CustomGame`).  Each node's guess must be
    an allowed guess (with ``candidates_only``: consistent with every score so far), each
    score must lead to a child or be the win.  :func:`strategy_distribution` gives the
    whole distribution.

    Raises
    ------
    StrategyCheckError
        With the secret and the path where the strategy fails.

    >>> from mastermind.game import Game
    >>> g = Game(2, 2)
    >>> check_strategy(g, Node(0, 4))
    Traceback (most recent call last):
    ...
    mastermind.worstcase.check.StrategyCheckError: secret 12: after 11 scored 1 0 the strategy has no move
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    return max(
        strategy_distribution(
            game, tree, candidates, guesses=guesses, candidates_only=candidates_only
        )
    )


def strategy_distribution(
    game: GameLike,
    tree: Node,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    candidates_only: bool = False,
) -> dict[int, int]:
    """{number of guesses: secrets} from playing the strategy ``tree`` against every
    candidate, as :func:`check_strategy` plays it (independently of the kernel).

    >>> from mastermind.game import Game
    >>> from mastermind.analysis.exhaustive import analyze
    >>> a = analyze(Game(3, 3), tree=True)
    >>> strategy_distribution(a.game, a.tree) == a.distribution
    True
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    if not isinstance(tree, Node):
        raise StrategyCheckError(f"expected a strategy Node, got {type(tree).__name__}")
    cands = game.as_indices(candidates, game.secrets, "candidates")
    allowed = set(game.as_indices(guesses, game.guesses, "guesses").tolist())
    reader = _CheckedPlay(game, allowed, candidates_only=candidates_only)
    return replay_counts(reader, tree, cands.tolist())


def _scorer(game: GameLike) -> tuple[Callable[[int, int], Any], Callable[[Any], bool]]:
    """(score of two codes, whether a score is the win) in plain Python: the reference
    score on colour tuples, or a custom game's own score function (not its table)."""
    if isinstance(game, CustomGame):
        codes, fn, ends = game.codes, game.score_function, game.end_scores

        def custom_score(u: int, v: int) -> Any:
            return fn(codes[u], codes[v])

        return custom_score, ends.__contains__
    mastermind = cast("Game", game)  # (not a custom game: a Mastermind one)
    colours: dict[int, tuple[int, ...]] = {}
    black_only = mastermind.variant.value == "black-peg"
    win = Score(mastermind.n, 0)

    def col(i: int) -> tuple[int, ...]:
        if i not in colours:
            colours[i] = mastermind.colours(i)
        return colours[i]

    def score(u: int, v: int) -> Any:
        s = reference_score(col(u), col(v))
        return Score(s.black, 0) if black_only else s

    def won(s: Any) -> bool:
        return s == win

    return score, won


class _CheckedPlay:
    """A :class:`Node` tree as :func:`~mastermind.strategy_tree.replay_line` reads it for
    :func:`check_strategy`: each guess allowed (and a candidate with
    ``candidates_only``), scored by :func:`_scorer`; what is wrong is a
    :class:`StrategyCheckError` naming the secret and the path."""

    def __init__(self, game: GameLike, allowed: set[int], *, candidates_only: bool):
        self.game, self.allowed, self.candidates_only = game, allowed, candidates_only
        self.score, self.won = _scorer(game)

    def guess(self, node: Node, secret: int, path: list[Played]) -> int:
        g = node.guess
        if (
            not isinstance(g, (int, np.integer))
            or not 0 <= g < self.game.size
            or g not in self.allowed
        ):
            raise StrategyCheckError(f"{self.where(secret, path)}: {g!r} is not an allowed guess")
        if self.candidates_only and any(self.score(u, g) != s for _, u, s in path):
            raise StrategyCheckError(
                f"{self.where(secret, path)}: {self.game.format_code(g)} is not a candidate"
            )
        return g

    def child(self, node: Node, secret: int, path: list[Played]) -> Node:
        after = node.children.get(path[-1][2])
        if after is None:
            raise StrategyCheckError(f"{self.where(secret, path)} the strategy has no move")
        return after

    def endless(self, secret: int, path: list[Played]) -> Exception:
        return StrategyCheckError(
            f"{self.where(secret, path)}: more than {MAX_REPLAY_GUESSES} guesses"
        )

    def where(self, secret: int, path: list[Played]) -> str:
        code = self.game.format_code
        return f"secret {code(secret)}: " + (
            "after " + ", ".join(f"{code(u)} scored {s}" for _, u, s in path)
            if path
            else "at the start"
        )
