"""Print, measured in one run, what running an analysis as units on Dask costs against
the in-process threads, and write out every unit's size and seconds.

    python bench/distributed_overhead.py [N K] [--workers W] [--costs FILE]

(default: [6,9] min-max, 2 workers, the costs to bench/results/units_N_K_minmax.json.)

It times, in this order: the analysis in this process on every core (``analyze(game)``),
the same on ``scheduler="local:W"`` (a LocalCluster of W worker processes of one thread,
started and closed by the call: what ``--scheduler local:W`` costs), and the same on a
cluster started beforehand (``client=``: the units alone), then in-process again; the
in-process time is the mean of its two runs (the machine's speed drifts).  It checks
that the three results are identical.  The overhead is ``distributed / in-process - 1``.

The costs file lists each unit (candidates, worker seconds), the basis of the wall-time
projections in docs/distributed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from mastermind import Game, analyze
from mastermind.engine.checkpoint import read_costs, read_units


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, nargs="?", default=6)
    ap.add_argument("k", type=int, nargs="?", default=9)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--strategy", default="minmax")
    ap.add_argument("--costs", default=None)
    ap.add_argument(
        "--unit-seconds",
        type=float,
        default=None,
        help="each unit's budget (default: the package's); the units recorded "
        "with their parents go to bench/results/split_N_K_S.json",
    )
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    game = Game(args.n, args.k)
    print(
        f"[{args.n},{args.k}] {args.strategy}, {game.secrets.size:,} secrets, "
        f"{os.cpu_count()} cores, {args.workers} workers"
    )
    a1, t1 = timed(lambda: analyze(game, args.strategy))
    print(f"in-process threads          {t1:8.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "units.sqlite")
        budget = {} if args.unit_seconds is None else {"unit_seconds": args.unit_seconds}
        b, t2 = timed(
            lambda: analyze(
                game, args.strategy, scheduler=f"local:{args.workers}", checkpoint=store, **budget
            )
        )
        print(
            f"scheduler=local:{args.workers}             {t2:8.2f} s   "
            f"({b.units} units, {b.units_split} split, cluster start and close included)"
        )
        costs = read_costs(store)
        rows = [(k, p, s, x) for k, p, _, s, x in read_units(store)]
        if args.unit_seconds is not None:
            split = (
                Path(__file__).parent
                / "results"
                / (f"split_{args.n}_{args.k}_{args.strategy}_{args.unit_seconds:g}.json")
            )
            split.write_text(json.dumps(rows))
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.wait_for_workers(args.workers)
        c, t3 = timed(lambda: analyze(game, args.strategy, client=client, **budget))
    print(f"client= (cluster running)   {t3:8.2f} s")
    a2, t4 = timed(lambda: analyze(game, args.strategy))
    print(f"in-process threads again    {t4:8.2f} s")
    for r in (b, c, a2):
        assert r.distribution == a1.distribution and r.first_guess == a1.first_guess
    base = statistics.mean([t1, t4])
    print(
        f"overhead, local:{args.workers} whole call: {t2 / base - 1:+.1%}   (ratio {t2 / base:.3f})"
    )
    print(f"overhead, units on a running cluster: {t3 / base - 1:+.1%}   (ratio {t3 / base:.3f})")
    work = sum(s for _, _, s in costs)
    print(
        f"units: {len(costs)}, worker seconds {work:.1f} (in-process wall x cores = "
        f"{base * args.workers:.1f}), largest unit {max(s for _, _, s in costs):.2f} s"
    )
    out = Path(
        args.costs
        or Path(__file__).parent / "results" / f"units_{args.n}_{args.k}_{args.strategy}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "game": [args.n, args.k],
                "strategy": args.strategy,
                "workers": args.workers,
                "in_process_seconds": [round(t1, 3), round(t4, 3)],
                "local_seconds": round(t2, 3),
                "client_seconds": round(t3, 3),
                "units": [{"key": k, "candidates": n, "seconds": round(s, 4)} for k, n, s in costs],
            },
            indent=1,
        )
        + "\n"
    )
    print(f"unit costs written to {out}")


if __name__ == "__main__":
    main()
