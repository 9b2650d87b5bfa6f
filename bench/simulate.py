"""Project the wall time of a run of units on W workers from the units it measured.

    python bench/simulate.py RUN [RUN ...] [--overhead S] [--client S] [--workers 1,16,...]

RUN is a checkpoint (SQLite; every unit's key, parent, seconds and whether it split, as
``mastermind.engine.checkpoint.read_units`` lists them) or a JSON file of such rows
(``[[key, parent, seconds, split], ...]``, as ``--save`` writes them).

The model is the engine's own scheduling (mastermind.engine.loop.execute), replayed:
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
import json
from pathlib import Path

from mastermind.engine.schedule import Row, share_of_largest, simulate


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
