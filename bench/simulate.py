"""Project the wall time of a run of units on W workers from the units it measured.

    python bench/simulate.py RUN [RUN ...] [--overhead S] [--client S] [--workers 1,16,...]

RUN is a checkpoint (SQLite; every unit's key, parent, seconds and whether it split, as
``mastermind.engine.checkpoint.read_units`` lists them) or a JSON file of such rows
(``[[key, parent, seconds, split], ...]``, as ``--save`` writes them).

The model is the engine's own scheduling (mastermind.engine.units.execute), replayed:
list scheduling on W identical workers; the plan's units are offered in the plan's order
(``--order plan``: the analysis keys ``walk/I/J`` of a plan made at the start sorted by
I, then J; any other keys as recorded; ``recorded``: the order they finished in), an analysis's scan units (``scan/PATH:B``) before its walk
units, and a unit the plan makes when a node's guess is known (``walk/PATH:I``, or the
scans of a node below PATH) only once every scan unit of that node has finished; the
sub-units of a unit that split are offered as soon as it splits, ahead of the units
waiting (so a split parent's answer, merged on the client, follows its children's); a
unit occupies its worker for its measured seconds plus ``--overhead`` (the per-unit cost
of dispatching it, measured by bench/distributed_overhead.py: Dask on local:2 against
the in-process run); ``--client`` seconds of the client's own work (the top of the tree)
come first.  A unit that split is counted for the seconds it worked before splitting.

It prints, for each W, the projected wall time and the speed-up against one worker
(the same units, the same overhead), and the largest unit's share of the work.
"""

from __future__ import annotations

import argparse
import heapq
import json
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

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
    units: Sequence[Row], workers: int, overhead: float = 0.0, client: float = 0.0
) -> float:
    """The wall time of ``units`` on ``workers`` workers by the engine's list scheduling
    (see the module's docstring); ``client`` seconds of serial work first."""
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
        now, _, row = heapq.heappop(running)
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


def load(path: str, order: str = "recorded") -> list[Row]:
    """The units of a checkpoint or of a JSON list."""
    if path.endswith(".json"):
        rows = [
            (str(k), str(p), float(s), bool(x)) for k, p, s, x in json.loads(Path(path).read_text())
        ]
    else:
        from mastermind.engine.checkpoint import read_units

        rows = [(k, p, float(s), bool(x)) for k, p, _, s, x in read_units(path)]
    if order == "plan":  # analysis keys walk/I/J/...: the plan's order, and expand's
        try:
            rows.sort(key=lambda r: tuple(int(x) for x in r[0].split("/")[1:]))
        except ValueError:  # other keys: as recorded
            pass
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--overhead", type=float, default=0.0)
    ap.add_argument("--client", type=float, default=0.0)
    ap.add_argument("--workers", default="1,16,64,512,4096")
    ap.add_argument("--order", choices=("recorded", "plan"), default="plan")
    ap.add_argument("--save", help="write the units as JSON to this file")
    args = ap.parse_args()
    rows: list[Row] = []
    for run in args.runs:
        rows.extend(load(run, args.order))
    if args.save:
        Path(args.save).write_text(json.dumps([list(r) for r in rows]))
    work = sum(r[2] for r in rows)
    print(
        f"{len(rows)} units ({sum(r[3] for r in rows)} split), {work:.1f} worker-s, "
        f"largest {max(r[2] for r in rows):.2f} s = {share_of_largest(rows):.2%} of the work; "
        f"overhead {args.overhead:.3f} s/unit, client {args.client:.1f} s"
    )
    one = simulate(rows, 1, args.overhead, args.client)
    print(f"{'workers':>8} {'wall (s)':>10} {'speed-up':>9}")
    for w in (int(x) for x in args.workers.split(",")):
        wall = simulate(rows, w, args.overhead, args.client)
        print(f"{w:>8} {wall:>10.2f} {one / wall:>9.1f}")


if __name__ == "__main__":
    main()
