"""Units of work: what a worker receives and runs, and what a plan and an executor are.

A unit is the game's wire form (:class:`~mastermind.checks.WireForm`) plus a
small dict of arguments: a candidate set as an int32 array, the guesses played before
it, the guesses left.  The worker rebuilds the game once per process and calls the
worker function of the unit's kind (a registered name, ``"analysis.walk"``:
:mod:`mastermind.engine.kinds`), as :mod:`mastermind.engine.workers` says.  Its answer is
a dict of NumPy arrays and numbers (what a checkpoint row stores).

The plans (:mod:`~mastermind.analysis.units`, :mod:`~mastermind.worstcase.units`,
:mod:`~mastermind.optimum.units`) say which units to run and combine their answers; the
answers combine exactly, so the result never depends on the number of workers or on the
order in which units finish.  :func:`mastermind.engine.loop.execute` runs a plan: on a
Dask cluster or on threads of this process (:mod:`mastermind.engine.executors`), with a
checkpoint or without.  Nothing here knows what a unit computes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional, Protocol

import numpy as np

from ..checks import ArgumentError
from ..limits import UNIT_SECONDS
from .kinds import free_arguments, recorded_name

__all__ = [
    "SPLIT",
    "UNIT_SECONDS",
    "BudgetError",
    "Executor",
    "Plan",
    "SplitPlan",
    "Unit",
    "UnitError",
    "digest",
    "is_split",
]


class UnitError(RuntimeError):
    """A unit failed on its worker (the message names the unit and the cause)."""


BudgetError = ArgumentError
"""A unit budget that is not a number of seconds >= 0 (the package's
:class:`~mastermind.checks.ArgumentError`, by its earlier name)."""


def digest(kind: str, args: dict[str, Any]) -> str:
    """A digest of a unit's input: its kind's recorded name and its arguments but those
    its answer does not depend on (:func:`~mastermind.engine.kinds.free_arguments`); a
    checkpoint row is reused only for the same input."""
    free = free_arguments(kind)
    return _digest(kind, {name: v for name, v in args.items() if name not in free})


def recorded_digests(kind: str, args: dict[str, Any], recorded: dict[str, Any]) -> set[str]:
    """Every digest a checkpoint may hold for a unit: :func:`digest`, and those of the
    versions that hashed every argument, with the free ones (a memory budget) at this
    run's values, at those the file's header records (``recorded``: its parameters), or
    at their defaults."""
    out = {digest(kind, args), _digest(kind, args)}
    for name, default in free_arguments(kind).items():
        if name in args:
            for value in (recorded.get(name, default), default):
                out.add(_digest(kind, {**args, name: value}))
    return out


def _digest(kind: str, args: dict[str, Any]) -> str:
    h = hashlib.sha1(recorded_name(kind).encode())
    for name in sorted(args):
        value = args[name]
        h.update(name.encode())
        if isinstance(value, np.ndarray):
            h.update(f"{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()[:20]


@dataclass
class Unit:
    """One unit: its key (what it answers), its kind (the worker function's registered
    name, :mod:`mastermind.engine.kinds`), its arguments and size (candidates; for
    progress and cost models); ``identity``, when given, the arguments its digest is
    made of (a bound it runs with, say, left out)."""

    key: str
    kind: str
    args: dict[str, Any]
    size: int
    digest: str = ""
    identity: Optional[dict[str, Any]] = None

    def __post_init__(self) -> None:
        if not self.digest:
            self.digest = digest(self.kind, self.args if self.identity is None else self.identity)


SPLIT = "split"
"""The field of a unit's answer that marks it as a split (:func:`is_split`)."""


def is_split(result: dict[str, Any]) -> bool:
    """Whether a unit's answer is a split: the unit worked past its budget and handed
    back its sub-units (the plan's ``expand`` names them) instead of an answer."""
    return bool(result.get(SPLIT, 0))


class Plan(Protocol):
    """What :func:`execute` runs: units offered one at a time, answers taken back."""

    kind: str

    def next(self) -> Optional[Unit]:
        """The next unit to run now, or None (for now: more may come as answers do)."""

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        """Use a unit's answer; returns the keys of units no longer needed."""

    def done(self) -> bool:
        """Whether the answer is complete."""

    def known(self) -> int:
        """Units planned so far (for progress)."""

    # optional: def valid(self, unit: Unit, result: dict[str, Any]) -> bool, whether a
    # recorded answer holds for its unit (checked when read back from a checkpoint)
    #
    # with units that split (a budget given to execute), a SplitPlan's expand and merge;
    # optionally def unneeded(self, unit, split, answers) -> list[str], the keys of
    #     sub-units whose answers can no longer matter (cancelled, never merged);
    # optionally def more(self, unit, split, answers) -> Optional[Unit], one more sub-unit
    #     of a unit that split, made when the executor has room (sub-units made one at a
    #     time, with what the answers so far tell; None: none for now). The units that
    #     split most recently are asked first, before the plan's next units; one that has
    #     none to give is asked for its merged answer.
    # optionally settles = True: a unit that split is recorded with its merged answer once
    #     it has it, and the rows below it dropped (Checkpoint.settle): a resume takes the
    #     answer at once, and the checkpoint keeps only what an open question needs.


class SplitPlan(Plan, Protocol):
    """A plan whose units may split (a budget given to :func:`execute`)."""

    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """The sub-units a split answer names (keys unique to this run: the parent's
        key, "/", more)."""

    def merge(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> Optional[dict[str, Any]]:
        """The parent's whole answer from its split and the whole answers of the
        sub-units finished so far (by key), or None while undecided (a decided answer
        cancels the sub-units still running or waiting)."""


class Executor(Protocol):
    """Where units run (:mod:`mastermind.engine.executors`)."""

    def slots(self) -> int: ...
    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any: ...
    def wait(
        self, handles: list, timeout: float
    ) -> list[tuple[Any, Any, Optional[BaseException]]]: ...
    def cancel(self, handles: list) -> None: ...
