"""The package's limits, in one place (plain Python: the command line reads them for its
help and checks without loading the kernel)."""

MAX_PEGS = 8
"""Positions in a code."""

MAX_COLOURS = 16
"""Colours."""

MAX_CODES = 1 << 24
"""Codes in a game's space: 16,777,216 ([8,8], [6,16] and [7,10] fit; see
:func:`mastermind.game.build_cost` for what they take)."""

MAX_JOBS = 256
"""The most threads a call may ask for (``jobs``, ``--jobs``): more than the cores only
costs, and thread creation fails in the tens of thousands."""
