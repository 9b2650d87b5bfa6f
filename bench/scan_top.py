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
from mastermind.analysis.strategies import first_guess
from mastermind.analysis.units import AnalysisPlan, scan_block
from mastermind.engine.workers import run_unit
from mastermind.rules import Strategy


def drain(plan):
    """Every unit the plan offers now, in its order."""
    units = []
    while (u := plan.next()) is not None:
        units.append(u)
    return units


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--strategy", default="minmax")
    ap.add_argument("--first")
    ap.add_argument("--sample", type=int, default=8, help="scan units run here")
    ap.add_argument(
        "--run-top",
        action="store_true",
        help="run every scan unit of the top (2 threads here), then plan and sample the "
        "next level's scans",
    )
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
    units = drain(plan)
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
        block_pairs=scan_block(game),
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
    rebuilt = game.spec().game()  # the game as a worker builds it
    rows = []
    for i in pick:
        u = scans[i]
        t = time.perf_counter()
        run_unit(rebuilt, u.kind, u.args)  # (the node's lists built on the first of a node)
        first = time.perf_counter() - t
        t = time.perf_counter()
        run_unit(rebuilt, u.kind, u.args)  # again: the block's scan alone
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
    if args.run_top:
        from concurrent.futures import ThreadPoolExecutor

        t = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda u: run_unit(game, u.kind, u.args), scans))
        out["top_scans_wall"] = time.perf_counter() - t
        out["top_scans_worker_seconds"] = sum(a["seconds"] for a in answers)
        out["top_scans_longest"] = max(a["seconds"] for a in answers)
        before = plan.client_seconds
        for u, a in zip(scans, answers):
            plan.take(u, a)
        out["level3_plan_seconds"] = plan.client_seconds - before
        more = drain(plan)
        s3 = [u for u in more if u.key.startswith("scan/")]
        w3 = [u for u in more if not u.key.startswith("scan/")]
        p3 = [u.size * (u.args["hi"] - u.args["lo"]) for u in s3]
        out.update(
            level3_scan_units=len(s3),
            level3_scan_nodes=len({u.key[5:].rsplit(":", 1)[0] for u in s3}),
            level3_scan_pairs=int(sum(p3)),
            level3_walk_units=len(w3),
            level3_walk_candidates=int(sum(u.size for u in w3)),
            level3_largest_walk=max((u.size for u in w3), default=0),
        )
        print(
            f"the top's {len(scans)} scans run here: {out['top_scans_worker_seconds']:.1f} "
            f"worker-s ({out['top_scans_wall']:.1f} s on 2 threads), the longest "
            f"{out['top_scans_longest']:.2f} s; the client then planned the next level in "
            f"{out['level3_plan_seconds']:.1f} s: {len(s3)} scan units at "
            f"{out['level3_scan_nodes']} nodes ({out['level3_scan_pairs']:.3g} pairs), "
            f"{len(w3)} walk units ({out['level3_walk_candidates']} candidates, the largest "
            f"{out['level3_largest_walk']})"
        )
        pick = sorted(rng.choice(len(s3), min(args.sample, len(s3)), replace=False).tolist())
        rows3 = []
        for i in pick:
            u = s3[i]
            run_unit(game, u.kind, u.args)
            a = run_unit(game, u.kind, u.args)
            rows3.append((u.key, u.size, p3[i], a["seconds"]))
            print(f"  {u.key}: {u.size} candidates, {p3[i]:.3g} pairs, {a['seconds']:.2f} s")
        if rows3:
            rate3 = sum(r[2] for r in rows3) / sum(r[3] for r in rows3)
            out["level3_sample"] = rows3
            out["level3_scan_worker_seconds"] = out["level3_scan_pairs"] / rate3
            print(
                f"sample: {rate3:.3g} pairs/s; the next level's scans "
                f"{out['level3_scan_worker_seconds']:.0f} worker-s in all"
            )
    if args.save:
        Path(args.save).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
