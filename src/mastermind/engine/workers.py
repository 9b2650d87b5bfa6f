"""What a worker does with a unit: the game rebuilt from its wire form (a
:class:`~mastermind.checks.WireForm`, which the game itself makes: its ``spec()``) once
per worker process, so that no kernel object is ever pickled; the unit's function called
(:func:`run_unit`); its answer or its error made to cross back to the client whole, or
as one line (:func:`run_remote`).

The engine never looks inside a game or its wire form: it asks a game for its spec, a
spec for the checkpoint's record of the game (``definition()``) and for the game
(``game()``), and hands the game to the unit's function."""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Optional, Protocol

import numpy as np

from ..checks import WireForm
from ..stopping import Stopped
from .kinds import worker

__all__ = ["Specified", "UnitFailed", "run_remote", "run_unit"]


class Specified(Protocol):
    """A game as the engine sees it: what says its wire form; the rest is the business
    of the units' functions."""

    def spec(self) -> WireForm: ...


def run_unit(
    game: object, kind: str, args: dict[str, Any], stop: Any = None, budget: Optional[float] = None
) -> dict[str, Any]:
    """Run one unit (on a worker, or on a thread of this process): the function of its
    kind on ``game``; the answer gains ``seconds`` and ``worker``.  ``budget`` (seconds,
    when given) is passed on as ``budget=``: past it, the function may hand back a split
    (:func:`~mastermind.engine.units.is_split`) instead of its answer."""
    fn = worker(kind)
    t0 = time.perf_counter()
    if budget is None:
        result = fn(game, stop=stop, **args)
    else:
        result = fn(game, stop=stop, budget=float(budget), **args)
    result["seconds"] = time.perf_counter() - t0
    result["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return result


class UnitFailed(RuntimeError):
    """A unit's failure on a worker, in words: what the client receives when the
    worker's own error, or its answer, could not be sent back whole."""


def run_remote(
    spec: WireForm,
    kind: str,
    args: dict[str, Any],
    stop: Any = None,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """:func:`run_unit` on a worker of a cluster, on the game ``spec`` defines (built
    once per process), whose error and answer must cross to the client: an error (but a
    stop) is sent as :class:`UnitFailed` with its words, never as itself (it may not
    pickle, or not be rebuilt from its pickle), and an answer that is not a dict of
    arrays and numbers is refused the same way, so that the client's unit fails in one
    line (no traceback of Dask's, no wait for a result that never comes)."""
    failure = None
    try:
        result = run_unit(spec.game(), kind, args, stop, budget)
    except Stopped:
        raise
    except Exception as e:
        failure = f"{type(e).__name__}: {e}"
    if failure is not None:  # (raised here: no context of an error that would not cross)
        raise UnitFailed(failure)
    wrong = _not_plain(result)
    if wrong is not None:
        raise UnitFailed(f"its answer cannot be sent back ({wrong})")
    return result


_PLAIN = (bool, int, float, str, np.integer, np.floating, np.bool_)


def _not_plain(result: Any) -> Optional[str]:
    """What makes ``result`` no answer (a dict of names to arrays and numbers), or None."""
    if not isinstance(result, dict):
        return f"a {type(result).__name__}, not a dict"
    for name, value in result.items():
        if not isinstance(name, str):
            return f"a field named by a {type(name).__name__}"
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                return f"{name}: an array of objects"
        elif not isinstance(value, _PLAIN):
            return f"{name}: a {type(value).__name__}"
    return None
