"""The engine's loop (mastermind.engine.loop.execute) with every unit in flight at once,
as when a campaign's checkpoint is replayed (``mastermind campaign status --replay``):
an OR over 2^14 numbers split down to single numbers, decided by the middle one, so
that half of the units are answered and the rest dropped by key.  The loop's own
bookkeeping is what is timed (each unit is answered at once).

The loop once scanned every unit in flight for each unit dropped; the replay of the
[6,6] campaign's 35,661 units then did not end in 33 minutes, where it now takes 18 s.
"""

import pytest

from mastermind.engine.loop import execute
from mastermind.engine.units import Unit

LEAVES = 1 << 14


class OrPlan:
    """Whether some number of range(lo, hi) is ``target``: a unit splits into halves."""

    kind = "toy"

    def __init__(self):
        self.units = [Unit("or/0", "bench:none", {"lo": 0, "hi": LEAVES}, LEAVES)]
        self.answer = None

    def next(self):
        return self.units.pop() if self.units else None

    def take(self, unit, result):
        self.answer = result["value"]
        return []

    def done(self):
        return self.answer is not None

    def known(self):
        return 1

    def expand(self, unit, split):
        lo, hi = unit.args["lo"], unit.args["hi"]
        mid = (lo + hi) // 2
        return [
            Unit(f"{unit.key}/{i}", unit.kind, {"lo": a, "hi": b}, b - a)
            for i, (a, b) in enumerate([(lo, mid), (mid, hi)])
        ]

    def merge(self, unit, split, answers):
        if any(a["value"] for a in answers.values()):
            return {"value": 1}
        return {"value": 0} if len(answers) == 2 else None


class WideExecutor:
    """Takes every unit at once; ``wait`` answers the oldest (a leaf holding the target
    says yes, a unit of more than one number splits)."""

    def __init__(self):
        self.running = {}

    def slots(self):
        return 1 << 30

    def submit(self, unit, budget=None):
        handle = object()
        self.running[handle] = unit
        return handle

    def wait(self, handles, timeout):
        handle = next(iter(self.running))
        a = self.running.pop(handle).args
        if a["hi"] - a["lo"] > 1:
            return [(handle, {"split": 1}, None)]
        return [(handle, {"value": int(a["lo"] == LEAVES // 2)}, None)]

    def cancel(self, handles):
        for handle in handles:
            del self.running[handle]


@pytest.mark.benchmark(group="engine")
def test_engine_every_unit_in_flight(benchmark):
    def run():
        plan = OrPlan()
        execute(plan, WideExecutor(), unit_seconds=0.0)
        return plan.answer

    assert benchmark(run) == 1
