"""Spot-checks of a cluster's answers: which units are re-run on the client (a keyed hash
of each unit's identity, :class:`Sampler`; the cluster cannot predict the sample), how
two answers are compared, and what a failed check says (:class:`Mismatch`,
:class:`SpotCheckWarning`).  The loop that runs them is :func:`mastermind.engine.loop.execute`'s."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..checks import ArgumentError

if TYPE_CHECKING:
    from .units import Unit

__all__ = ["RECHECK", "Mismatch", "RecheckError", "Sampler", "SpotCheckWarning", "first_difference"]


class SpotCheckWarning(UserWarning):
    """A unit's answer, from a worker or a checkpoint, differed from its re-run on the
    client (a spot-check): the re-run's answer is used, and the answers not re-run from
    the same source are in doubt."""


RecheckError = ArgumentError
"""A spot-check fraction that is not a number from 0 to 1 (the package's
:class:`~mastermind.checks.ArgumentError`)."""


RECHECK = 0.1
"""The fraction of units docs/distributed.md advises re-checking on a cluster one does
not control (``--recheck``): a worker that alters 1 answer in 100 is caught with
probability 1 - exp(-0.001 n) over n of its units (63% at 1,000, 99.3% at 5,000)."""


def _sample_key() -> bytes:
    """The secret that picks the units re-checked: a cluster cannot tell in advance
    which of its answers will be compared."""
    return os.urandom(16)


class Sampler:
    """Whether a unit is re-checked: a keyed hash of its identity below the fraction (the
    same unit, the same decision, within one run)."""

    def __init__(self, fraction: float):
        self.fraction = fraction
        self.key = _sample_key() if 0 < fraction < 1 else b""

    def __call__(self, unit: "Unit") -> bool:
        if self.fraction <= 0 or self.fraction >= 1:
            return self.fraction >= 1
        h = hashlib.blake2b(f"{unit.key}/{unit.digest}".encode(), key=self.key, digest_size=8)
        return int.from_bytes(h.digest(), "big") < self.fraction * 2.0**64


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> Optional[str]:
    """The first field in which two answers differ (by name), or None when alike."""
    if set(a) != set(b):
        return "fields " + ", ".join(sorted(set(a) ^ set(b)))
    for name in sorted(a):
        x, y = a[name], b[name]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            x, y = np.asarray(x), np.asarray(y)
            if x.shape != y.shape or not np.array_equal(x, y):
                return name
        elif x != y:
            return name
    return None


@dataclass(frozen=True)
class Mismatch:
    """A spot-check that failed: the unit, who gave the answer (a worker, as its
    scheduler and it name it, or the checkpoint), and the first field that differed."""

    key: str
    source: str
    field: str
