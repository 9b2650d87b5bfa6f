"""The package's own error type.

Every error the package raises on purpose, for bad input or an impossible request (an
unknown strategy, a code that is not a code, a game too big to build, a tree that cannot
be replayed...), derives from :class:`MastermindError`; the command line maps exactly
these to exit status 2 with a one-line message, and reports anything else as an internal
error.  It is a :class:`ValueError`, so ``except ValueError`` keeps catching them.
Two kinds are not bad input, and the command line says so by its exit status: a missing
tool (:class:`MissingTool`, status 3) and a resource that failed under the run
(:class:`ResourceError`, status 1).

>>> from mastermind import Game, MastermindError
>>> try:
...     Game(4, 6).code("1299")
... except MastermindError as e:
...     print(type(e).__name__)
CodeError
"""

from __future__ import annotations

__all__ = ["GameError", "MastermindError", "MissingTool", "ResourceError", "shown"]


class MastermindError(ValueError):
    """Every error the package raises on purpose for bad input or an impossible request
    derives from it; the command line maps exactly these to exit status 2."""


class MissingTool(MastermindError):
    """A program or optional package the request needs is not installed (Graphviz's
    ``dot``, matplotlib, Dask): nothing wrong with the input; the command line says so
    with exit status 3."""


class ResourceError(MastermindError):
    """The work could not go on for a reason outside the request: a full disk, a file
    moved or locked under the run.  Nothing wrong with the input: the command line says
    so with exit status 1 (unfinished), as for a stop."""


class GameError(MastermindError):
    """A game that cannot be built (bad n, k, variant or size), or a value given where a
    game is needed."""


def shown(value: object, width: int = 40) -> str:
    """``repr(value)``, cut to about ``width`` characters (error messages never echo a
    whole 100 kB input)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 4] + "...'"
