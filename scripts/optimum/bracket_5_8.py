"""A proved lower bound L on the optimum of [5,8] (the least total number of guesses over
the 32,768 secrets), so that the optimum is known to lie in [L, the best total found].

The bound tree of :mod:`mastermind.optimum.bracket`: L is the least, over the openings (one per
symmetry class: 7 for [5,8]), of 32,768 + the sum over the opening's non-winning parts of
a proved lower bound of the part's optimum.  Each part starts at its depth-1 bound (every
second guess scanned, its parts at the counting estimate); then, best first, the parts of
the opening whose bound is least at the moment are deepened to ``--depth`` (every second
guess, each of its parts bounded at depth ``--depth - 1``, small ones solved exactly),
until every part of the least opening has reached that depth (L is
then final for it) or ``--budget`` seconds have passed (L is then the least opening bound
so far: still proved, each part's bound being one).  The parts of an opening are deepened
the smallest first (the most bound gained a second), or with ``--largest-first`` the
largest first.  With ``--exact-leaves N`` the parts of at most N codes at the last level of
each part's tree are solved exactly instead of estimated (about ten times the work, about
1.5% more bound on [5,8]'s parts); ``--start-from`` takes the part bounds of a result
file written before as the starting point (each a proved bound).

Each finished (opening, part, depth) bound is appended to a cache (JSON lines), so a
stopped run resumes.  Progress lines go to stdout.  Usage (from the repository root, with
PYTHONPATH=src)::

    nice -n 15 python scripts/optimum/bracket_5_8.py [--depth 2] [--budget 5400]
        [--cache bracket_5_8.cache.jsonl] [--out results/bracket_5_8.json]

``--game 4,6`` runs it on another game (the tests do, on small ones).
"""

from __future__ import annotations

import argparse
import atexit
import json
import multiprocessing as mp
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mastermind import Game
from mastermind.optimum.bracket import Bounder
from mastermind.strategy_tree import split_by_score

RECORD_5_8 = 178698  # results/record_5_8.json: the best [5,8] strategy's total


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


class Part:
    def __init__(self, slot: int, codes: np.ndarray):
        self.slot = slot
        self.codes = codes
        self.depth = 0
        self.reached: set[tuple[int, int]] = set()  # (depth, exact leaves) bounds taken
        self.bound = 0
        self.leaves = 0  # the exact leaves of the bound taken
        self.how = ""
        self.seconds = 0.0


_BOUNDER: Any = None


def _init_worker(n: int, k: int, exact_max: int, exact_seconds: float, leaves: int) -> None:
    global _BOUNDER
    _BOUNDER = Bounder(Game(n, k), exact_max, exact_seconds, 1 << 30, exact_leaves=leaves)


def _work(codes: np.ndarray, g1: int, depth: int, b: int) -> tuple[int, str, float]:
    t = time.perf_counter()
    value, how = _BOUNDER.bound(codes, [g1], depth, b)
    return int(value), how, time.perf_counter() - t


def _load_cache(path: Any, start: Any) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The bounds known per (opening, part score): every row of the cache (JSON lines),
    and the parts of a result file written before (``--start-from``)."""
    cache: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows = []
    if start:
        for o in json.loads(Path(start).read_text())["openings"]:
            rows += [dict(q, opening=o["guess"]) for q in o["parts"]]
    if path and Path(path).exists():
        rows += [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    for row in rows:
        cache.setdefault((row["opening"], row["score"]), []).append(row)
    if rows:
        log(f"{len(rows)} part bounds from {path or ''} {start or ''}".rstrip())
    return cache


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="5,8", help="pegs,colours (default 5,8)")
    ap.add_argument("--depth", type=int, default=2, help="depth of each part's bound tree")
    ap.add_argument("--budget", type=float, default=5400.0, help="seconds of deepening")
    ap.add_argument("--exact-max", type=int, default=0, help="sets solved exactly")
    ap.add_argument("--exact-seconds", type=float, default=1.0)
    ap.add_argument(
        "--exact-leaves", type=int, default=0, help="parts solved exactly at the last level"
    )
    ap.add_argument(
        "--start-from", default=None, help="a result file whose part bounds are taken as cached"
    )
    ap.add_argument("--upper", type=int, default=None, help="the best total known")
    ap.add_argument("--largest-first", action="store_true", help="deepen large parts first")
    ap.add_argument("--workers", type=int, default=1, help="processes deepening parts")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    n, k = (int(x) for x in args.game.split(","))
    game = Game(n, k)
    upper = args.upper if args.upper is not None else (RECORD_5_8 if (n, k) == (5, 8) else None)
    start = time.perf_counter()
    leaves = args.exact_leaves
    bounder = Bounder(game, args.exact_max, args.exact_seconds, 1 << 30, exact_leaves=leaves)
    cands = np.ascontiguousarray(game.secrets)
    m = int(cands.size)
    scanned = bounder.scan(cands, [])
    if scanned is None:
        raise SystemExit("the game is too small for a bound tree: solve it with optimal()")
    openings, _, b_root = scanned
    cache = _load_cache(args.cache, args.start_from)
    out_cache = open(args.cache, "a") if args.cache else None  # noqa: SIM115 (closed below)

    def cached(g1: int, p: Part) -> bool:
        """Take every cached bound of (g1, p), if any."""
        rows = cache.get((game.format_code(g1), str(game.slots[p.slot])), [])
        for row in rows:
            if row["size"] != p.codes.size:
                continue
            # the part has reached that depth even if a stopped exact search (load-dependent)
            # gave less than the bound it had: the larger proved bound is kept
            p.depth = max(p.depth, int(row["depth"]))
            p.reached.add((int(row["depth"]), int(row.get("leaves", 0))))
            if row["bound"] >= p.bound:
                p.bound, p.how, p.seconds = row["bound"], row["how"], row["seconds"]
                p.leaves = int(row.get("leaves", 0))
        return bool(p.reached)

    def record(g1: int, p: Part, depth: int, value: int, how: str, seconds: float) -> None:
        row = {
            "opening": game.format_code(g1),
            "score": str(game.slots[p.slot]),
            "depth": depth,
            "leaves": leaves,
            "size": int(p.codes.size),
            "bound": int(value),
            "how": how,
            "seconds": round(seconds, 3),
        }
        cache.setdefault((row["opening"], row["score"]), []).append(row)
        if out_cache is not None:
            out_cache.write(json.dumps(row) + "\n")
            out_cache.flush()
        cached(g1, p)

    table: dict[int, list[Part]] = {}
    for g1 in openings.tolist():
        parts = [Part(s, c) for s, c in split_by_score(game, g1, cands) if s != game.win_slot]
        for p in parts:
            if not cached(g1, p):
                t = time.perf_counter()
                value, how = bounder.bound(p.codes, [g1], 1, b_root)
                record(g1, p, 1, value, how, time.perf_counter() - t)
        table[g1] = parts

    def total(g1: int) -> int:
        return m + sum(p.bound for p in table[g1])

    def pending(g1: int) -> list[Part]:
        """The parts not yet bounded at --depth with --exact-leaves (or beyond both)."""
        return [
            p for p in table[g1] if not any(d >= args.depth and v >= leaves for d, v in p.reached)
        ]

    log(
        f"[{n},{k}]: {len(table)} openings at depth 2: "
        + ", ".join(f"{game.format_code(g)} {total(g):,}" for g in table)
    )
    deepen_start = time.perf_counter()
    pool = None
    if args.workers > 1:
        ctx = mp.get_context("fork")
        pool = ctx.Pool(
            args.workers,
            initializer=_init_worker,
            initargs=(n, k, args.exact_max, args.exact_seconds, leaves),
        )
        # a SIGTERM ends the run like Ctrl-C: the workers are ended with it
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        atexit.register(pool.terminate)
    inflight: dict[tuple[int, int], Any] = {}  # (opening, slot) -> the async result

    def pick() -> Any:
        """The next pending part (not in flight) of the least opening that has one: the
        smallest (the most bound gained a second: measured, a part of a hundred codes
        gains about 10% in seconds, one of 7,000 about 3.5% in many minutes), or with
        --largest-first the largest."""
        for g1 in sorted(table, key=total):
            todo = [p for p in pending(g1) if (g1, p.slot) not in inflight]
            if todo:
                size = lambda q: q.codes.size  # noqa: E731
                return g1, (max(todo, key=size) if args.largest_first else min(todo, key=size))
            if not pending(g1):
                return None  # the least opening is done: L is final
        return None

    def report(g1: int, p: Part, before: int) -> None:
        log(
            f"{game.format_code(g1)} part {game.slots[p.slot]} ({p.codes.size} codes): "
            f"{before:,} -> {p.bound:,} ({p.how}, {p.seconds:.1f} s); opening {total(g1):,}, "
            f"L = {min(total(g) for g in table):,}"
        )

    while True:
        over = time.perf_counter() - deepen_start > args.budget
        if pool is None:
            if over:
                log("budget spent")
                break
            got = pick()
            if got is None:
                break
            g1, p = got
            before, t = p.bound, time.perf_counter()
            value, how = bounder.bound(p.codes, [g1], args.depth, b_root)
            record(g1, p, args.depth, value, how, time.perf_counter() - t)
            report(g1, p, before)
            continue
        while not over and len(inflight) < args.workers:
            got = pick()
            if got is None:
                break
            g1, p = got
            inflight[(g1, p.slot)] = pool.apply_async(_work, (p.codes, g1, args.depth, b_root))
        if not inflight:
            break
        if over:
            log(f"budget spent ({len(inflight)} parts unfinished)")
            pool.terminate()
            break
        time.sleep(1.0)
        for key in [key for key, res in inflight.items() if res.ready()]:
            g1, slot = key
            p = next(q for q in table[g1] if q.slot == slot)
            value, how, secs = inflight.pop(key).get()
            before = p.bound
            record(g1, p, args.depth, value, how, secs)
            report(g1, p, before)
    if pool is not None:
        pool.close()
        pool.join()
    if out_cache is not None:
        out_cache.close()
    low = min(total(g) for g in table)
    least = min(table, key=total)
    final = not pending(least)
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {
        "game": f"[{n},{k}]",
        "secrets": m,
        "lower": low,
        "lower_average": low / m,
        "final": final,
        "depth": args.depth + 1,
        "upper": upper,
        "ratio": None if upper is None else low / upper,
        "openings": [
            {
                "guess": game.format_code(g),
                "bound": total(g),
                "parts": [
                    {
                        "score": str(game.slots[p.slot]),
                        "size": int(p.codes.size),
                        "depth": p.depth,
                        "leaves": p.leaves,
                        "bound": p.bound,
                        "how": p.how,
                        "seconds": p.seconds,
                    }
                    for p in table[g]
                ],
            }
            for g in sorted(table, key=total)
        ],
        "exact_max": args.exact_max,
        "exact_seconds": args.exact_seconds,
        "exact_leaves": leaves,
        "seconds": round(seconds, 1),
        "part_seconds": round(sum(r["seconds"] for rows in cache.values() for r in rows), 1),
        "command": "python scripts/optimum/bracket_5_8.py "
        + " ".join(Path(a).name if Path(a).is_absolute() else a for a in (argv or sys.argv[1:])),
    }
    log(
        f"L = {low:,} ({'final' if final else 'budget spent'}), average {low / m:.5f}"
        + ("" if upper is None else f", L/{upper:,} = {low / upper:.4f}")
    )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
