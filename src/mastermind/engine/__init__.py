"""The engine of long work: computations cut into units, run on an executor (threads of
this process, or a Dask cluster), recorded in a resumable checkpoint.

It knows nothing of what a unit computes.  A computation states a *plan*
(:class:`~mastermind.engine.units.Plan`: which units to run now, how to use each answer,
when the answer is complete) and hands it to :func:`~mastermind.engine.run.open_run`'s
:class:`~mastermind.engine.run.Run`:

* :mod:`~mastermind.engine.units`: what a unit, a plan and an executor are;
  :mod:`~mastermind.engine.workers`: how a worker runs a unit, on the game rebuilt from
  the wire form the game itself gives (its ``spec()``:
  :class:`~mastermind.checks.WireForm`); the engine imports no game module;
* :mod:`~mastermind.engine.loop`: the loop that runs a plan
  (:func:`~mastermind.engine.loop.execute`), with spot-checks of the answers
  (:mod:`~mastermind.engine.spotcheck`);
* :mod:`~mastermind.engine.executors`: where units run (threads here, a Dask client,
  ``local:N``, a scheduler's address); the only module that imports Dask, and only then;
* :mod:`~mastermind.engine.checkpoint`: the SQLite file of finished units;
* :mod:`~mastermind.files`: every file the package writes or locks (outputs
  replaced whole through a private temporary file, locks never followed or truncated);
* :mod:`~mastermind.engine.run`: one run: the checkpoint and the executor opened, in that
  order, for one computation, and closed at the end.

The plans themselves live beside their computations (:mod:`mastermind.analysis.units`,
:mod:`mastermind.worstcase.units`, :mod:`mastermind.optimum.units`), above this package.
"""
