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

DEFAULT_MEMORY = 1 << 30
"""Bytes the memo of one exact search (worst case or optimum) may use by default; past
them it stops growing and the search goes on (``memory=``, ``--memory`` in MB)."""

DEFAULT_MEMORY_MB = DEFAULT_MEMORY >> 20
""":data:`DEFAULT_MEMORY` in MB, as ``--memory`` takes it."""

MAX_MEMORY = 1 << 50
"""The largest memo budget a call may give (a petabyte: far beyond any machine, and
within what the kernel's byte counts hold)."""

MAX_GUESSES = 100
"""The most guesses a worst-case question may allow (``max_guesses``)."""

MAX_REPLAY_GUESSES = MAX_GUESSES
"""The most guesses a strategy tree may play against one secret when it is replayed
(:func:`mastermind.strategy_tree.replay_line`), as many as the longest worst-case
question allows: a line of play still unfinished after more guesses than this is a tree
that does not end."""

MAX_OPTIMAL_GUESSES = 64
"""The most guesses an optimal strategy may be limited to (``optimal(max_guesses=)``,
``--max-guesses``): below the optimal search's own count for "no limit"."""

MAX_CUSTOM_CODES = 20_000
"""Codes of a custom game: its score table is (codes x codes) bytes, 400 MB at this
size, and building it takes codes^2 calls of the game's score function."""

BIG_BUILD = 256 << 20
"""Bytes of game tables from which the command line says that it is building them
first (a big game takes seconds to minutes to set up)."""

MAX_BRACKET_DEPTH = 6
"""The deepest bound tree a proved lower bound of the optimum may use (``depth``)."""

MAX_EXACT_CODES = 1 << 20
"""The largest sets a lower bound of the optimum may solve exactly (``exact_max``)."""

INLINE_PAIRS = 1 << 22
"""(guess, candidate) pairs below which a kernel scan runs in the calling thread; from
there it runs in a worker thread that Ctrl-C can stop (a thread, and the new OpenMP team
it starts, cost more than a small scan itself)."""

MAX_BATCH = 4096
"""The most units sent to a worker as one task (``batch``, ``--batch``): a batch's
answers travel back together, so a bigger one only delays them."""

UNIT_SECONDS = 30.0
"""The default budget of a unit of work (seconds): a unit still running past it splits
into smaller units (:mod:`mastermind.engine.units`)."""
