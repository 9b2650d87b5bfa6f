"""The package's own error type.

Every error the package raises on purpose, for bad input or an impossible request (an
unknown strategy, a code that is not a code, a game too big to build, a tree that cannot
be replayed...), derives from :class:`MastermindError`; the command line maps exactly
these to exit status 2 with a one-line message, and reports anything else as an internal
error.  It is a :class:`ValueError`, so ``except ValueError`` keeps catching them.

>>> from mastermind import Game, MastermindError
>>> try:
...     Game(4, 6).code("1299")
... except MastermindError as e:
...     print(type(e).__name__)
CodeError
"""

from __future__ import annotations

__all__ = ["MastermindError"]


class MastermindError(ValueError):
    """Every error the package raises on purpose for bad input or an impossible request
    derives from it; the command line maps exactly these to exit status 2."""
