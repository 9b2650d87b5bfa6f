"""The exists question: :func:`solution_exists` decides whether some strategy finds every
candidate within ``d`` guesses (the winning guess counts).

The search (:mod:`mastermind.worstcase.search`, over the kernel's ``_search``) is exact:
it only cuts with proved bounds, so a ``False`` is a proof.  A ``True`` can come with its
witness, a strategy tree that :func:`mastermind.worstcase.check.check_strategy` verifies
independently.  With a scheduler, a client or a checkpoint the root's question runs as
units of work (:mod:`mastermind.worstcase.units`).

>>> from mastermind.game import Game
>>> g = Game(3, 3)
>>> solution_exists(g, 3), solution_exists(g, 4)
(False, True)
>>> from mastermind.worstcase.check import check_strategy
>>> ok, tree = solution_exists(g, 4, witness=True)
>>> check_strategy(g, tree)
4
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Literal, Optional, Union, overload

import numpy as np

from .. import checks
from ..engine.options import RunOptions
from ..engine.run import open_run
from ..game import CodeLike, Game
from ..limits import DEFAULT_MEMORY, UNIT_SECONDS
from .search import Search, SearchStats, Witnessed, deadline, prepare
from .units import UnitSearch, checkpoint_params

__all__ = ["solution_exists"]


@overload
def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Any = ...,
    guesses: Any = ...,
    *,
    witness: Literal[False] = ...,
    candidates_only: bool = ...,
    symmetry: bool = ...,
    time_limit: Optional[float] = ...,
    node_limit: int = ...,
    memory: int = ...,
    stats: Optional[SearchStats] = ...,
    scheduler: Optional[str] = ...,
    client: Any = ...,
    checkpoint: Optional[str] = ...,
    unit_seconds: Optional[float] = ...,
    recheck: float = ...,
) -> bool: ...


@overload
def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Any = ...,
    guesses: Any = ...,
    *,
    witness: Literal[True],
    candidates_only: bool = ...,
    symmetry: bool = ...,
    time_limit: Optional[float] = ...,
    node_limit: int = ...,
    memory: int = ...,
    stats: Optional[SearchStats] = ...,
    scheduler: Optional[str] = ...,
    client: Any = ...,
    checkpoint: Optional[str] = ...,
    unit_seconds: Optional[float] = ...,
    recheck: float = ...,
) -> Witnessed: ...


def solution_exists(
    game: Game,
    max_guesses: int,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    guesses: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    witness: bool = False,
    candidates_only: bool = False,
    symmetry: bool = True,
    time_limit: Optional[float] = None,
    node_limit: int = 0,
    memory: int = DEFAULT_MEMORY,
    stats: Optional[SearchStats] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    checkpoint: Optional[str] = None,
    unit_seconds: Optional[float] = UNIT_SECONDS,
    recheck: float = 0.0,
) -> Union[bool, Witnessed]:
    """Is there a strategy that finds every candidate within ``max_guesses`` guesses?

    The winning guess counts.  The search is exact: a ``False`` is a proof.

    Parameters
    ----------
    game : Game
    max_guesses : int
        The number of guesses allowed (0..100).
    candidates : codes, optional
        The codes that may still be the secret (default: every secret of the game).
    guesses : codes, optional
        The codes that may be played (default: the game's guess set).  A candidate that
        is not among them can never be found, so the answer is then False.
    witness : bool
        Also return the strategy tree: the result is ``Witnessed(exists, tree)``.
    candidates_only : bool
        Only codes that can still be the secret may be played.
    symmetry : bool
        Try one guess per symmetry class (colour and position permutations that fix the
        position); same answers, less work.
    time_limit : float, optional
        Seconds; :class:`SearchUnfinished` is raised when it runs out (also on Ctrl-C,
        or when ``node_limit`` nodes, if positive, have been searched).
    memory : int
        Bytes the memo may use (it stops growing, the search goes on).
    stats : SearchStats, optional
        Filled with the search's cost.
    scheduler, client, checkpoint : optional
        Run the question as units, one per part of each opening (a Dask scheduler's
        address or ``"local:N"``, a ``distributed.Client``, an SQLite checkpoint; for
        every secret of the game only; docs/distributed.md).  The same answers.
    unit_seconds : float, optional
        With units: a question still searched after this many seconds splits into the
        questions of its guesses' parts (recursively); 0 splits at once, None never.
    recheck : float
        With units, the fraction of them (0 to 1) spot-checked: re-run here and
        compared with the answer of the worker or checkpoint that gave it; a mismatch
        is a :class:`~mastermind.engine.spotcheck.SpotCheckWarning` and the re-run's answer
        is used (docs/distributed.md: the trust model).

    Returns
    -------
    bool, or Witnessed when ``witness``.

    >>> from mastermind.game import Game
    >>> g = Game(4, 6)
    >>> solution_exists(g, 5), solution_exists(g, 4)
    (True, False)
    >>> solution_exists(g, 2, candidates=g.candidates([("1122", "1 0")]))
    False
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    d = checks.max_guesses(max_guesses)
    node_limit = checks.integer(node_limit, "node_limit", 0)
    options = RunOptions.of(
        time_limit=time_limit,
        memory=memory,
        unit_seconds=unit_seconds,
        recheck=recheck,
        scheduler=scheduler,
        client=client,
        checkpoint=checkpoint,
    )
    memory = options.memory
    if options.as_units:
        if candidates is not None or guesses is not None or node_limit or stats is not None:
            raise checks.ArgumentError(
                "with a scheduler, a client or a checkpoint the question is "
                "about every secret: no candidates, guesses, node_limit or "
                "stats"
            )
        return _exists_as_units(
            game,
            d,
            witness=witness,
            candidates_only=candidates_only,
            symmetry=symmetry,
            options=options,
        )
    until = deadline(options.time_limit)
    start = time.monotonic()
    cands, pool, sym, guessable = prepare(
        game, candidates, guesses, candidates_only=candidates_only, symmetry=symmetry
    )
    if cands.size == 0:
        ok, tree = True, None
    elif not guessable:
        ok, tree = False, None
    else:
        search = Search(game, pool, candidates_only=candidates_only, symmetry=sym, memory=memory)
        try:
            ok, _ = search.run(cands, d, until, node_limit)
            tree = search.witness(cands, d, until) if ok and witness else None
        finally:
            if stats is not None:
                search.fill(stats, time.monotonic() - start)
    return Witnessed(ok, tree) if witness else ok


def _exists_as_units(
    game: Game,
    d: int,
    *,
    witness: bool,
    candidates_only: bool,
    symmetry: bool,
    options: RunOptions,
) -> Union[bool, Witnessed]:
    """:func:`solution_exists` for every secret of the game, the root's question run as
    units (:mod:`mastermind.worstcase.units`) as ``options`` say."""
    checks.game(game, "solution_exists")
    until = deadline(options.time_limit)
    memory = options.memory
    if not game.secrets_are_guesses and not candidates_only:
        return Witnessed(False, None) if witness else False  # a secret never played
    cands = np.ascontiguousarray(game.secrets)
    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(candidates_only=candidates_only, symmetry=symmetry, memory=memory),
        options=options,
    ) as run:
        search = UnitSearch(
            Search(
                game,
                game.guesses,
                candidates_only=candidates_only,
                symmetry=symmetry,
                memory=memory,
            ),
            game,
            candidates_only=candidates_only,
            symmetry=symmetry,
            memory=memory,
            run=run,
            unit_seconds=options.unit_seconds,
        )
        ok, _ = search.run(cands, d, until)
        tree = search.witness(cands, d, until) if ok and witness else None
    return Witnessed(ok, tree) if witness else ok
