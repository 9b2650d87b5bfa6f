"""A campaign: one worst-case question decided over as many runs, machines and weeks as
it takes, in a folder that carries its whole state.

The question is whether every secret of a game can be found within d guesses (for
p(5,8): d = 6, which decides p(5,8) = 6 or 7).  It is the question
:func:`~mastermind.worstcase.bounds.solution_exists` asks, cut into the same units
(:class:`~mastermind.worstcase.units.ExistsPlan`: one unit per (opening, part, guesses
left), a unit past its budget splitting into its guesses' parts one guess fewer,
recursively), run on the engine with a checkpoint, so that any run (Ctrl-C, SIGTERM, a
killed machine, a time limit) resumes where the last one stopped.  The only difference
from ``solution_exists``'s own plan is the order in which the root's units are offered
(``focus``, :class:`.question.FocusPlan`); the answer does not depend on it.

The folder holds ``campaign.json`` (the question: the game, d, each unit's memo and
budget, the focus), ``shards/`` (the checkpoint's rows as append-only shards,
:mod:`mastermind.engine.shards`: what travels in git), ``state.json`` (where the question
stands, written by every run and export: :mod:`.state`), ``run.log``, and the
checkpoint itself (``checkpoint.sqlite``), made again from the shards on a machine that
has none.

The folder is what git carries between people, so its files are a stranger's:
:mod:`.folder` looks at each of its names before anything is opened (a link, a FIFO or a
device refused in one line, never followed), reads them up to a cap and holds the
folder's lock; shards are read typed and bounded (:mod:`mastermind.engine.shard_reader`).

The modules: :mod:`.folder` (its files and its lock), :mod:`.question` (the campaign's
file, its plan and witness), :mod:`.run` (a run, an export, a re-check, a checkpoint made
again from the shards), :mod:`.state` (where it stands, and its tables), :mod:`.summary`
(what its summary says about p), :mod:`.verdict` (what is proved about p, in one
sentence), :mod:`.origins` (where each answer of the checkpoint came from), :mod:`.rests`
(what a decision rests on), :mod:`.certificates` (the folder's part certificates),
:mod:`.recheck` (the answers a decision rests on, run again here), :mod:`.projection`
(the core-hours still needed).
"""
