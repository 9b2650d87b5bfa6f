"""An optimum campaign: the least total number of guesses of a game, or of the position
after given guesses, or with a given opening, worked out over as many runs, machines and
weeks as it takes, in a folder that carries its whole state.

The question is the one :func:`~mastermind.optimum.solver.optimal` answers with a
checkpoint, cut into the same units (:func:`~mastermind.optimum.units.plan_optimal`:
one unit per part of each opening, a unit past its budget splitting into the parts of
its set's guesses, recursively), run on the engine with a checkpoint, so that any run
(Ctrl-C, SIGTERM, a killed machine, a time limit) resumes where the last one stopped and
never solves a recorded part again.  A part's answer is its exact total, or a proved
lower bound (a part solved below a limit, or, while a split part is still open, the
least bound of the guesses still in the running at its set).

The folder is laid out as the worst-case campaign's (:mod:`mastermind.worstcase.campaign`)
and held by the same machinery (:mod:`mastermind.engine.folder`: its files looked at
before anything is opened, its lock taken first; :mod:`mastermind.engine.shards`: the
checkpoint's rows as append-only shards; :mod:`mastermind.engine.replay`: the state
worked out from the checkpoint with nothing run; :func:`mastermind.engine.schedule.simulate`:
the projection): ``campaign.json`` (the question, ``"question": "optimum"``),
``shards/``, ``state.json``, ``run.log``, ``optimum.json`` (the optimal strategy once it
is proved, replayed secret by secret before it is written) and the checkpoint.

The modules: :mod:`.question` (the campaign's file and its plan), :mod:`.run` (a run, an
export, the checkpoint made again from the shards), :mod:`.state` (where it stands: each
opening's and part's exact total or proved bound), :mod:`.projection` (the core-hours
still needed, and the recorded units' wall time on W workers).
"""
