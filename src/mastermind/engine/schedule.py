"""The engine's scheduling replayed: the wall time a run of units would take on W
workers, from the units it measured (each unit's key, parent, seconds and whether it
split, as :func:`mastermind.engine.checkpoint.read_units` lists them).

List scheduling on W identical workers, as :func:`mastermind.engine.loop.execute`
offers units: the plan's units in the plan's order, an analysis's scan units
(``scan/PATH:B``) before its walk units, and a unit the plan makes when a node's guess
is known (``walk/PATH:I``, or the scans of a node below PATH) only once every scan unit
of that node has finished; the sub-units of a unit that split are offered as soon as it
splits, ahead of the units waiting; a unit occupies its worker for its measured seconds
plus ``overhead`` (the per-unit cost of dispatching it); ``client`` seconds of the
client's own work come first.  A unit that split is counted for the seconds it worked
before splitting.  ``bench/simulate.py`` is its command line; the campaigns project
their runs with it.

>>> rows = [("a", "", 2.0, False), ("b", "", 1.0, True), ("b/0", "b", 3.0, False)]
>>> simulate(rows, 1), simulate(rows, 2), simulate(rows, 2, record=0.5)
(6.0, 4.0, 5.0)
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from typing import Optional

__all__ = ["Row", "share_of_largest", "simulate"]

Row = tuple[str, str, float, bool]  # key, parent ("" for a unit of the plan), seconds, split


def _node(key: str) -> Optional[tuple[str, str]]:
    """An analysis unit's place: ("scan", PATH) for ``scan/PATH:B``, ("walk", PATH) for
    ``walk/PATH:I``; None for the units planned at the start (``walk/I``) and for other
    plans' keys."""
    kind, _, rest = key.partition("/")
    if kind not in ("scan", "walk") or ":" not in rest or "/" in rest:
        return None
    return kind, rest.rsplit(":", 1)[0]


def _waits_for(key: str, scanned: set[str]) -> Optional[str]:
    """The node whose scan units a plan's unit waits for (None: none): a walk unit planned
    when node PATH's guess was known waits for PATH's scans; a scan unit of node PATH for
    those of its nearest ancestor scanned by units (the nodes between were chosen on the
    client, at once)."""
    place = _node(key)
    if place is None:
        return None
    kind, path = place
    if kind == "walk":
        return path if path in scanned else None
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        up = ".".join(parts[:cut])
        if up in scanned:
            return up
    return None


def simulate(
    units: Sequence[Row],
    workers: int,
    overhead: float = 0.0,
    client: float = 0.0,
    record: float = 0.0,
) -> float:
    """The wall time of ``units`` on ``workers`` workers by the engine's list scheduling
    (see the module's docstring); ``client`` seconds of serial work first; ``record``
    seconds of the client's for each unit that finishes (it takes them one at a time:
    a worker's next unit, and a split's sub-units, wait for it)."""
    children: dict[str, list[Row]] = {}
    top: list[Row] = []
    for row in units:
        (children.setdefault(row[1], []) if row[1] else top).append(row)
    scanned = {p[1] for p in (_node(r[0]) for r in top) if p is not None and p[0] == "scan"}
    left: dict[str, int] = {}
    blocked: dict[str, list[tuple[int, int, Row]]] = {}
    ready: list[tuple[int, int, Row]] = []  # (scans first, the plan's order, unit)
    for i, row in enumerate(top):
        item = (0 if row[0].startswith("scan/") else 1, i, row)
        place = _node(row[0])
        if place is not None and place[0] == "scan":
            left[place[1]] = left.get(place[1], 0) + 1
        wait = _waits_for(row[0], scanned)
        if wait is None:
            heapq.heappush(ready, item)
        else:
            blocked.setdefault(wait, []).append(item)
    waiting: deque[Row] = deque()
    running: list[tuple[float, int, Row]] = []  # (finish, tie-break, unit)
    free = workers
    now = float(client)
    order = 0
    while ready or waiting or running:
        while free and (waiting or ready):
            row = waiting.popleft() if waiting else heapq.heappop(ready)[2]
            order += 1
            heapq.heappush(running, (now + row[2] + overhead, order, row))
            free -= 1
        if not running:  # pragma: no cover - a unit waiting for a scan never recorded
            raise ValueError("units wait for scans that are not in the run")
        finish, _, row = heapq.heappop(running)
        now = max(now, finish) + record
        free += 1
        if row[3]:  # it split: its sub-units go ahead of the units waiting
            waiting.extendleft(reversed(children.get(row[0], [])))
        place = _node(row[0])
        if place is not None and place[0] == "scan" and not row[1]:
            left[place[1]] -= 1
            if left[place[1]] == 0:  # the node's guess is known: what waited is planned
                for item in blocked.pop(place[1], []):
                    heapq.heappush(ready, item)
    return now


def share_of_largest(units: Sequence[Row]) -> float:
    work = sum(r[2] for r in units)
    return max(r[2] for r in units) / work if work else 0.0
