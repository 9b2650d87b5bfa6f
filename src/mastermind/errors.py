"""The package's errors: every error raised on purpose, for bad input or a request that
cannot be met, derives from :class:`MastermindError` (a ``ValueError``).  The command line
maps exactly these to exit status 2 with their one-line message; anything else is a fault
of the package.
"""

__all__ = ["MastermindError"]


class MastermindError(ValueError):
    """Bad input or an impossible request, said in one line."""
