"""The first levels of an analysis as the plan of units makes them, measured: the opening
(the client's), the plan's own work on the client, the scan units of the top's nodes
(their number, pairs), and a sample of those units run here, one at a time, for the
cost of a block; a game too large to analyze here (``8 8``) is projected from these.

    python bench/scan_top.py N K [--strategy minmax] [--first CODE] [--sample S]

It prints one line per measurement and, with ``--save FILE``, writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from mastermind import Game
from mastermind.engine.units import run_unit, spec_of
from mastermind.rules import Strategy
from mastermind.strategies import first_guess
from mastermind.units_analysis import SCAN_BLOCK, AnalysisPlan


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--strategy", default="minmax")
    ap.add_argument("--first")
    ap.add_argument("--sample", type=int, default=8, help="scan units run here")
    ap.add_argument("--save")
    args = ap.parse_args()
    out: dict = {"game": [args.n, args.k], "strategy": args.strategy}
    t = time.perf_counter()
    game = Game(args.n, args.k)
    out["game_seconds"] = time.perf_counter() - t
    how = Strategy.parse(args.strategy)
    t = time.perf_counter()
    g0 = game.code(args.first) if args.first else first_guess(game, how, False)
    out["first_seconds"] = time.perf_counter() - t
    out["first"] = game.format_code(g0)
    plan = AnalysisPlan(game, g0, how, False, False, True, False)
    out["plan_seconds"] = plan.client_seconds
    units = []
    while True:
        u = plan.next()
        if u is None:
            break
        units.append(u)
    scans = [u for u in units if u.key.startswith("scan/")]
    walks = [u for u in units if not u.key.startswith("scan/")]
    nodes = sorted({u.key[5:].rsplit(":", 1)[0] for u in scans})
    pairs = [u.size * (u.args["hi"] - u.args["lo"]) for u in scans]
    out.update(
        scan_units=len(scans),
        scan_nodes=len(nodes),
        scan_pairs=int(sum(pairs)),
        walk_units=len(walks),
        walk_candidates=int(sum(u.size for u in walks)),
        block_pairs=SCAN_BLOCK,
    )
    print(
        f"[{args.n},{args.k}] {args.strategy} from {out['first']}: game built in "
        f"{out['game_seconds']:.2f} s, opening {out['first_seconds']:.2f} s, plan "
        f"{out['plan_seconds']:.2f} s on the client; {len(scans)} scan units at "
        f"{len(nodes)} nodes ({out['scan_pairs']:.3g} pairs), {len(walks)} walk units "
        f"({out['walk_candidates']} candidates) known at the start"
    )
    rng = np.random.default_rng(1)
    pick = sorted(rng.choice(len(scans), min(args.sample, len(scans)), replace=False).tolist())
    spec = spec_of(game)
    rows = []
    for i in pick:
        u = scans[i]
        t = time.perf_counter()
        run_unit(spec, u.func, u.args)  # (the node's lists built on the first of a node)
        first = time.perf_counter() - t
        t = time.perf_counter()
        run_unit(spec, u.func, u.args)  # again: the block's scan alone
        scan = time.perf_counter() - t
        rows.append((u.key, u.size, pairs[i], first, scan))
        print(
            f"  {u.key}: {u.size} candidates, {pairs[i]:.3g} pairs, {first:.2f} s "
            f"(first on this process), {scan:.2f} s (the scan), "
            f"{pairs[i] / max(scan, 1e-9):.3g} pairs/s"
        )
    if rows:
        rate = sum(r[2] for r in rows) / sum(r[4] for r in rows)
        out["sample"] = rows
        out["pairs_per_second"] = rate
        out["scan_worker_seconds"] = out["scan_pairs"] / rate
        print(
            f"sample: {rate:.3g} pairs/s; the top's scans {out['scan_worker_seconds']:.0f} "
            f"worker-s in all, the longest block about {max(r[4] for r in rows):.2f} s"
        )
    if args.save:
        Path(args.save).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
