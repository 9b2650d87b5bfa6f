"""How many finished units the engine's client records a second, the workers aside: a
fake executor answers every unit at once (a refutation's answer, ``{"ok": 0, "nodes":
N}``), so what is measured is the client alone: the plan offering units, each unit's
digest, the loop, the checkpoint's row (encoded, checksummed, committed by the second).

    python bench/client_rate.py [--units N] [--slots S] [--cands C] [--repeat R]

The units are like the p(5,8) campaign's smallest questions (a set of C codes, the
guesses before it, the guesses left).  The rate bounds the workers a client keeps busy:
at R units a second and units of T seconds, about R x T workers.  It prints the median
of R rounds, with and without a checkpoint.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any, Optional

import numpy as np

from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.loop import execute
from mastermind.engine.units import Unit
from mastermind.stopping import new_flag

GAME = {"type": "game", "n": 5, "k": 8, "variant": "classic"}


class Plan:
    """``units`` independent questions, offered in order, each answered by its row."""

    kind = "bound"

    def __init__(self, units: int, cands: int):
        rng = np.random.default_rng(1)
        self.args = [
            {
                "cands": np.sort(rng.choice(32768, cands, replace=False)).astype(np.int32),
                "d": 3,
                "candidates_only": False,
                "symmetry": True,
                "memory": 1 << 30,
                "history": np.array([1500, 3210, i], dtype=np.int32),
            }
            for i in range(units)
        ]
        self.at = 0
        self.answered = 0

    def next(self) -> Optional[Unit]:
        if self.at == len(self.args):
            return None
        self.at += 1
        return Unit(f"exists/1500/7/5/{self.at}", "worstcase.exists", self.args[self.at - 1], 9)

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        self.answered += 1
        return []

    def done(self) -> bool:
        return self.answered == len(self.args)

    def known(self) -> int:
        return len(self.args)


class Instant:
    """An executor whose units are all answered the moment they are submitted."""

    def __init__(self, slots: int):
        self._slots = slots
        self.handed: list[int] = []

    def slots(self) -> int:
        return self._slots

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        self.handed.append(len(self.handed))
        return self.handed[-1]

    def wait(self, handles: list, timeout: float) -> list:
        answer = {"ok": 0, "nodes": 1234, "seconds": 0.02, "worker": "fake:1"}
        return [(h, dict(answer), None) for h in handles]

    def cancel(self, handles: list) -> None:
        pass


def rate(units: int, slots: int, cands: int, folder: Optional[str]) -> float:
    """Units a second through the engine's loop (and a checkpoint in ``folder``)."""
    plan = Plan(units, cands)  # (made before the clock starts: the inputs are given)
    t0 = time.perf_counter()
    if folder is None:
        execute(plan, Instant(slots), None, new_flag())
    else:
        path = os.path.join(folder, f"c{time.perf_counter_ns()}.sqlite")
        with open_checkpoint(path, "bound", GAME, {"memory": 1 << 30}) as store:
            execute(plan, Instant(slots), store, new_flag())
    assert plan.done()
    return units / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=20000)
    ap.add_argument("--slots", type=int, default=512)
    ap.add_argument("--cands", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        bare, kept = [], []
        for _ in range(args.repeat):
            bare.append(rate(args.units, args.slots, args.cands, None))
            kept.append(rate(args.units, args.slots, args.cands, folder))
    print(
        f"{args.units} units, {args.slots} slots, sets of {args.cands} codes: "
        f"{statistics.median(bare):,.0f} units/s without a checkpoint, "
        f"{statistics.median(kept):,.0f} units/s with one "
        f"({1e6 / statistics.median(kept):.0f} us a unit on the client)"
    )


if __name__ == "__main__":
    main()
