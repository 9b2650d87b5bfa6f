"""The kinds of unit: a stable name for each worker function, kept apart from where the
function lives.

A unit names its work by a registered kind (``"analysis.walk"``, ``"worstcase.exists"``,
...), never by a module path: a worker looks the kind up here (:func:`worker`), and a
checkpoint binds each recorded answer to its unit by a digest of the kind's *recorded
name* and the unit's arguments (:func:`recorded_name`).  The recorded name of a kind is
frozen the day the kind is first recorded: for the kinds that existed before the
registry it is the module path their checkpoints of format 2 were written with, so those
checkpoints (the p(5,8) campaign's among them) still load wherever the worker functions
move.  Moving a worker function changes only its ``worker`` path below.

Work from outside the package (a plan of one's own, the tests' toy plans) names its
worker function by its path, ``"module:function"``; such a kind is its own recorded name.

>>> worker("analysis.walk").__name__
'walk_unit'
>>> recorded_name("worstcase.exists")
'mastermind.units_bounds:exists_unit'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

from ..errors import MastermindError
from ..limits import DEFAULT_MEMORY

__all__ = ["KINDS", "Kind", "UnknownKind", "free_arguments", "recorded_name", "worker"]


class UnknownKind(MastermindError, LookupError):
    """A unit kind that is neither registered nor a ``module:function`` path."""


class Kind(NamedTuple):
    """Where a kind's worker function lives, the name its digests are made with, and the
    arguments its answers do not depend on (a memory budget), left out of the digests
    so that a checkpoint serves a run that changes them."""

    worker: str  # "module:function", free to change when the function moves
    recorded_as: str  # part of every checkpoint row's digest: never to change
    free: dict[str, Any] = {}  # argument -> the value runs gave it by default


KINDS: dict[str, Kind] = {
    "analysis.scan": Kind(
        "mastermind.analysis.unit_work:scan_unit", "mastermind.units_analysis_work:scan_unit"
    ),
    "analysis.walk": Kind(
        "mastermind.analysis.unit_work:walk_unit", "mastermind.units_analysis_work:walk_unit"
    ),
    "worstcase.exists": Kind(
        "mastermind.worstcase.units:exists_unit",
        "mastermind.units_bounds:exists_unit",
        free={"memory": DEFAULT_MEMORY},  # (the memo's size: exact answers whatever it is)
    ),
    "optimum.part": Kind(
        "mastermind.optimum.units:optimal_unit",
        "mastermind.units_optimal:optimal_unit",
        free={"memory": DEFAULT_MEMORY},
    ),
    "optimum.position": Kind(
        "mastermind.optimum.solver:position_unit",
        "mastermind.optimum.solver:position_unit",
        free={"memory": DEFAULT_MEMORY},
    ),
    "optimum.part_bound": Kind(
        "mastermind.optimum.bracket:part_bound_unit",
        "mastermind.optimum.bracket:part_bound_unit",
        free={"memory": DEFAULT_MEMORY},  # (the search's memo: the same bounds whatever it is)
    ),
    # units sent together (mastermind.engine.batching): never recorded, each of its
    # units is, under its own kind
    "engine.batch": Kind("mastermind.engine.batching:run_batch", "engine.batch"),
}
"""Every kind of unit the package runs: name -> :class:`Kind`."""


def _kind(name: str) -> Kind:
    kind = KINDS.get(name)
    if kind is not None:
        return kind
    if isinstance(name, str) and name.count(":") == 1 and all(name.split(":")):
        return Kind(name, name)
    raise UnknownKind(f"unknown kind of unit {name!r} (known: {', '.join(sorted(KINDS))})")


def recorded_name(name: str) -> str:
    """The name a kind's digests are made with (frozen; see the module's docstring)."""
    return _kind(name).recorded_as


def free_arguments(name: str) -> dict[str, Any]:
    """The arguments of kind ``name`` its answers do not depend on (not in its digests),
    each with the value runs gave it by default (older checkpoints hashed it in)."""
    return _kind(name).free


def worker(name: str) -> Callable[..., dict[str, Any]]:
    """The worker function of kind ``name`` (imported on first use)."""
    module, function = _kind(name).worker.split(":")
    return getattr(importlib.import_module(module), function)
