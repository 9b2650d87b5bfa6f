"""A Dask worker preload for the spot-check tests: a worker that lies.

Loaded with ``preload=[this file]``, it makes the worker alter one answer in a hundred:
the whole answers of the units whose digest, read as a number, is a multiple of 100 (the
same units on every run, whatever the schedule).  The lie is small and plausible: an analysis moves one secret one guess
deeper (as a tampered checkpoint row did: total 5802 for 5801), a proof's answer flips.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mastermind.engine.units as units
import mastermind.engine.workers as workers

LIES = []  # (key of the unit's digest) the answers altered in this process


def lies_about(kind: str, args: dict[str, Any]) -> bool:
    """Whether the lying worker alters the answer of this unit: 1 in a hundred."""
    return int(units.digest(kind, args), 16) % 100 == 0


def alter(result: dict[str, Any]) -> None:
    """One plausible change to a whole answer."""
    if "dists" in result:  # an analysis: one secret one guess deeper
        dists = np.array(result["dists"], copy=True)
        row, col = np.argwhere(dists[:, :-1] > 0)[0]
        dists[row, col] -= 1
        dists[row, col + 1] += 1
        result["dists"] = dists
    elif "ok" in result:  # a proof: the other answer
        result["ok"] = 1 - int(result["ok"])
    elif "value" in result:  # an optimum: one guess more
        result["value"] = int(result["value"]) + 1
    else:  # (a toy unit's)
        name = min(k for k in result if k not in ("seconds", "worker"))
        result[name] = np.asarray(result[name]) + 1


def dask_setup(worker: Any) -> None:
    honest = workers.run_remote

    def lying(spec: Any, kind: str, args: dict[str, Any], stop: Any = None, budget: Any = None):
        result = honest(spec, kind, args, stop, budget)
        if not units.is_split(result) and lies_about(kind, args):
            alter(result)
            LIES.append(units.digest(kind, args))
        return result

    workers.run_remote = lying


# ---------------------------------------------------------------------- toy units
def square(game: Any, *, stop: Any = None, x: int) -> dict[str, Any]:
    """A unit of next to no work: x squared (kind ``lying_worker:square``)."""
    return {"y": np.array([x * x], dtype=np.int64)}


class Unpicklable(Exception):
    """An error that cannot cross to the client: it holds a lock."""

    def __init__(self) -> None:
        import threading

        super().__init__("the worker's own words")
        self.lock = threading.Lock()


class Unrebuildable(Exception):
    """An error that pickles but cannot be rebuilt from its pickle (two arguments)."""

    def __init__(self, a: Any, b: Any) -> None:
        super().__init__(f"{a} and {b}")


def fails(game: Any, *, stop: Any = None, how: str) -> dict[str, Any]:
    """A unit that fails in a way Dask cannot carry whole (kind ``lying_worker:fails``)."""
    if how == "unpicklable":
        raise Unpicklable()
    if how == "unrebuildable":
        raise Unrebuildable(1, 2)
    import threading

    return {"lock": threading.Lock()}  # type: ignore[dict-item]  # an answer that cannot cross
