"""Measure what one unit of work costs beyond its own work on a Dask cluster: the same
run of many tiny units (an analysis split at once down to its smallest units,
``unit_seconds=0``) on threads of this process and on a running LocalCluster of W worker
processes, both recording to a checkpoint; the per-unit overhead is the difference of
the wall times times W over the number of units (the cost a worker loses per unit).

    python bench/unit_overhead.py [N K] [--workers W] [--repeat R]

(default: [4,5] min-max, 2 workers, 3 interleaved repeats; the medians are used.)
The overhead per unit is the input ``--overhead`` of bench/simulate.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from mastermind import Game, analyze


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, nargs="?", default=4)
    ap.add_argument("k", type=int, nargs="?", default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    game = Game(args.n, args.k)
    here = analyze(game, "minmax")
    threads, dask, units = [], [], 0
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
        tempfile.TemporaryDirectory() as tmp,
    ):
        client.wait_for_workers(args.workers)
        for r in range(args.repeat):
            for where, times in (("threads", threads), ("dask", dask)):
                path = os.path.join(tmp, f"{where}{r}.sqlite")
                t = time.perf_counter()
                a = analyze(
                    game,
                    "minmax",
                    checkpoint=path,
                    unit_seconds=0,
                    jobs=args.workers,
                    **({"client": client} if where == "dask" else {}),
                )
                times.append(time.perf_counter() - t)
                assert a.distribution == here.distribution
                units = a.units
    t1, t2 = statistics.median(threads), statistics.median(dask)
    per_unit = (t2 - t1) * args.workers / units
    print(
        f"[{args.n},{args.k}] min-max split at once: {units} units; threads "
        f"{t1:.2f} s, Dask ({args.workers} workers) {t2:.2f} s (medians of "
        f"{args.repeat}); overhead per unit {per_unit * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
