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
file written before as the starting point (each a proved bound).  With ``--exact-parts N``,
before any deepening, the parts of at most N codes of the opening whose bound is least
are solved exactly (the exact search, within ``--exact-parts-seconds`` each; its proved
bound if stopped), the smallest first, until that opening has none left: the search
solves parts of hundreds of codes in seconds, where the bound tree stays 1-10% below
their optimum.

The parts an optimum campaign worked out (``mastermind optimum-campaign``: a folder of
``--campaigns``, by default ``results/optimum_5_8/``, whose question is the game after one
opening and score) are read too: a part's exact total, or the lower bound the campaign
proved for it, replaces a smaller bound (``how``: "campaign"; read from the campaign's
``state.json`` with the package's checked readers).

Each finished (opening, part, depth) bound is appended to a cache (JSON lines), so a
stopped run resumes.  (A cache from before the stopped search took the least bound over
every guess not yet tried may hold "solver" rows that are not proofs: the shipped result
file has none left, a resumed run must start a new cache.)  Progress lines go to stdout.
Usage (from the repository root, with
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
from _common import log  # noqa: E402

#: the best [5,8] strategy's file (its total is the bracket's upper side)
RECORD_5_8 = Path(__file__).resolve().parents[2] / "results" / "record_5_8.json"


def record_total() -> Any:
    """The total of the shipped [5,8] record strategy (None if the file is not there)."""
    if not RECORD_5_8.exists():
        return None
    return int(json.loads(RECORD_5_8.read_text())["total"])


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


#: the optimum campaigns of [5,8]'s parts (one folder per part: OPENING-SCORE)
CAMPAIGNS = Path(__file__).resolve().parents[2] / "results" / "optimum_5_8"


def campaign_rows(root: Any, game: Any) -> list[dict[str, Any]]:
    """The parts the optimum campaigns under ``root`` (each folder one campaign) worked
    out for ``game`` after one opening and score: a cache row each, the campaign's exact
    total ("exact") or its proved lower bound ("campaign"); none where it proved none."""
    from mastermind import MastermindError
    from mastermind.optimum.campaign.question import OptimumCampaign
    from mastermind.optimum.campaign.state import read_state

    rows = []
    folders = sorted(p for p in Path(root).iterdir() if p.is_dir()) if root else []
    for folder in folders:
        if not (folder / "campaign.json").is_file():
            continue
        try:
            c = OptimumCampaign.load(str(folder))
            doc = read_state(c) or {}
        except MastermindError as e:
            log(f"{folder}: left out ({e})")
            continue
        s = doc.get("summary")
        same = (c.pegs, c.colours, c.variant) == (game.n, game.k, game.variant.value)
        plain = c.first is None and c.max_guesses is None and not c.candidates_only
        if not (same and plain and len(c.after) == 1 and isinstance(s, dict)):
            continue
        value = s.get("total") if s.get("exact") else s.get("lower")
        if type(value) is not int or value <= 0:
            continue
        (opening, score), size = c.after[0], c.secrets()
        how = "exact" if s.get("exact") else "campaign"
        rows.append(
            {"opening": opening, "score": score, "depth": 0, "leaves": 0, "size": size}
            | {"bound": value, "how": how, "seconds": float(s.get("seconds") or 0)}
        )
        log(f"{folder.name}: {opening} = ({score}), {size} codes: {how} {value:,}")
    return rows


def _load_cache(
    path: Any, start: Any, campaigns: Any = None, game: Any = None
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The bounds known per (opening, part score): every row of the cache (JSON lines),
    the parts of a result file written before (``--start-from``), and the parts the
    optimum campaigns under ``campaigns`` worked out (:func:`campaign_rows`)."""
    cache: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows = []
    if campaigns and game is not None and Path(campaigns).is_dir():
        rows += campaign_rows(campaigns, game)
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


def _parser() -> argparse.ArgumentParser:
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
    ap.add_argument(
        "--exact-parts", type=int, default=0, help="the opening's parts solved exactly, first"
    )
    ap.add_argument("--exact-parts-seconds", type=float, default=600.0)
    ap.add_argument(
        "--solve-openings",
        default="",
        help="with --exact-parts: only these openings' parts (a second run beside a first)",
    )
    ap.add_argument("--upper", type=int, default=None, help="the best total known")
    ap.add_argument("--largest-first", action="store_true", help="deepen large parts first")
    ap.add_argument("--workers", type=int, default=1, help="processes deepening parts")
    ap.add_argument(
        "--campaigns",
        default=str(CAMPAIGNS),
        help="a folder of optimum campaigns of parts, read as proved bounds ('' : none)",
    )
    ap.add_argument("--cache", default=None)
    ap.add_argument("--out", default=None)
    return ap


class Deepening:
    """One run: every opening's parts with their best bounds so far, the cache they are
    read from and appended to, and the choice of the next part to deepen."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        n, k = (int(x) for x in args.game.split(","))
        self.game = game = Game(n, k)
        self.leaves = args.exact_leaves
        self.bounder = Bounder(
            game, args.exact_max, args.exact_seconds, 1 << 30, exact_leaves=self.leaves
        )
        cands = np.ascontiguousarray(game.secrets)
        self.m = int(cands.size)
        scanned = self.bounder.scan(cands, [])
        if scanned is None:
            raise SystemExit("the game is too small for a bound tree: solve it with optimal()")
        openings, _, self.b_root = scanned
        self.cache = _load_cache(args.cache, args.start_from, args.campaigns, game)
        self.out_cache = open(args.cache, "a") if args.cache else None  # noqa: SIM115
        self.table: dict[int, list[Part]] = {}
        for g1 in openings.tolist():
            self.table[g1] = self._parts(g1, cands)
        self.inflight: dict[tuple[int, int], Any] = {}  # (opening, slot) -> async result

    def _parts(self, g1: int, cands: np.ndarray) -> list[Part]:
        """The opening's parts, each with its cached bounds or its depth-1 bound."""
        game = self.game
        parts = [Part(s, c) for s, c in split_by_score(game, g1, cands) if s != game.win_slot]
        for p in parts:
            if not self.cached(g1, p):
                t = time.perf_counter()
                value, how = self.bounder.bound(p.codes, [g1], 1, self.b_root)
                self.record(g1, p, 1, value, how, time.perf_counter() - t)
        return parts

    def cached(self, g1: int, p: Part) -> bool:
        """Take every cached bound of (g1, p), if any."""
        rows = self.cache.get((self.game.format_code(g1), str(self.game.slots[p.slot])), [])
        for row in rows:
            if row["size"] != p.codes.size:
                continue
            # the part has reached that depth even if a stopped exact search (load-dependent)
            # gave less than the bound it had: the larger proved bound is kept
            p.depth = max(p.depth, int(row["depth"]))
            p.reached.add((int(row["depth"]), int(row.get("leaves", 0))))
            if row["bound"] > p.bound or (row["bound"] == p.bound and p.how != "exact"):
                p.bound, p.how, p.seconds = row["bound"], row["how"], row["seconds"]
                p.leaves = int(row.get("leaves", 0))
        return bool(p.reached)

    def record(
        self, g1: int, p: Part, depth: int, value: int, how: str, seconds: float, tried: float = 0
    ) -> None:
        row = {
            "opening": self.game.format_code(g1),
            "score": str(self.game.slots[p.slot]),
            "depth": depth,
            "leaves": self.leaves,
            "size": int(p.codes.size),
            "bound": int(value),
            "how": how,
            "seconds": round(seconds, 3),
        }
        if tried:
            row["tried_seconds"] = tried
        self.cache.setdefault((row["opening"], row["score"]), []).append(row)
        if self.out_cache is not None:
            self.out_cache.write(json.dumps(row) + "\n")
            self.out_cache.flush()
        self.cached(g1, p)

    def total(self, g1: int) -> int:
        return self.m + sum(p.bound for p in self.table[g1])

    def lower(self) -> int:
        return min(self.total(g) for g in self.table)

    def pending(self, g1: int) -> list[Part]:
        """The parts not yet bounded at --depth with --exact-leaves (or beyond both), nor
        solved exactly."""
        depth, leaves = self.args.depth, self.leaves
        return [
            p
            for p in self.table[g1]
            if p.how != "exact" and not any(d >= depth and v >= leaves for d, v in p.reached)
        ]

    def to_solve(self, g1: int) -> list[Part]:
        """The opening's parts of at most --exact-parts codes not yet solved exactly nor
        tried for --exact-parts-seconds."""
        most, cap = self.args.exact_parts, self.args.exact_parts_seconds
        out = []
        for p in self.table[g1]:
            rows = self.cache.get((self.game.format_code(g1), str(self.game.slots[p.slot])), [])
            tried = any(r.get("tried_seconds", 0) >= cap for r in rows)
            if p.codes.size <= most and p.how != "exact" and not tried:
                out.append(p)
        return out

    def solve_parts(self) -> None:
        """The parts of at most --exact-parts codes solved exactly (the search's proved
        bound if stopped at --exact-parts-seconds), the least opening's first (its
        smallest first), until that opening has none left or the budget is spent."""
        start, cap = time.perf_counter(), self.args.exact_parts_seconds
        only = [self.game.guess(g) for g in self.args.solve_openings.split(",") if g]
        while time.perf_counter() - start <= self.args.budget:
            least = min(only or self.table, key=self.total)
            todo = self.to_solve(least)
            if not todo:
                return
            p = min(todo, key=lambda q: q.codes.size)
            t = time.perf_counter()
            value, exact = self.bounder.solve(p.codes, [least], cap)
            before, how = p.bound, "exact" if exact else "solver"
            self.record(least, p, self.args.depth, value, how, time.perf_counter() - t, cap)
            self.report(least, p, before)
        log("budget spent")

    def pick(self) -> Any:
        """The next pending part (not in flight) of the least opening that has one: the
        smallest (the most bound gained a second: measured, a part of a hundred codes
        gains about 10% in seconds, one of 7,000 about 3.5% in many minutes), or with
        --largest-first the largest."""
        for g1 in sorted(self.table, key=self.total):
            todo = [p for p in self.pending(g1) if (g1, p.slot) not in self.inflight]
            if todo:
                size = lambda q: q.codes.size  # noqa: E731
                return g1, (max(todo, key=size) if self.args.largest_first else min(todo, key=size))
            if not self.pending(g1):
                return None  # the least opening is done: L is final
        return None

    def report(self, g1: int, p: Part, before: int) -> None:
        game = self.game
        log(
            f"{game.format_code(g1)} part {game.slots[p.slot]} ({p.codes.size} codes): "
            f"{before:,} -> {p.bound:,} ({p.how}, {p.seconds:.1f} s); "
            f"opening {self.total(g1):,}, L = {self.lower():,}"
        )

    def finish(self, g1: int, p: Part, value: int, how: str, seconds: float) -> None:
        before = p.bound
        self.record(g1, p, self.args.depth, value, how, seconds)
        self.report(g1, p, before)

    def serial(self) -> None:
        """Deepen the parts one by one in this process until done or out of budget."""
        start = time.perf_counter()
        while True:
            if time.perf_counter() - start > self.args.budget:
                log("budget spent")
                return
            got = self.pick()
            if got is None:
                return
            g1, p = got
            t = time.perf_counter()
            value, how = self.bounder.bound(p.codes, [g1], self.args.depth, self.b_root)
            self.finish(g1, p, value, how, time.perf_counter() - t)

    def pooled(self) -> None:
        """Deepen the parts side by side in --workers processes."""
        args, start = self.args, time.perf_counter()
        pool = mp.get_context("fork").Pool(
            args.workers,
            initializer=_init_worker,
            initargs=(*self.game_nk(), args.exact_max, args.exact_seconds, self.leaves),
        )
        # a SIGTERM ends the run like Ctrl-C: the workers are ended with it
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
        atexit.register(pool.terminate)
        while True:
            over = time.perf_counter() - start > args.budget
            while not over and len(self.inflight) < args.workers:
                got = self.pick()
                if got is None:
                    break
                g1, p = got
                work = (p.codes, g1, args.depth, self.b_root)
                self.inflight[(g1, p.slot)] = pool.apply_async(_work, work)
            if not self.inflight:
                break
            if over:
                log(f"budget spent ({len(self.inflight)} parts unfinished)")
                pool.terminate()
                break
            time.sleep(1.0)
            self._collect()
        pool.close()
        pool.join()

    def _collect(self) -> None:
        for key in [key for key, res in self.inflight.items() if res.ready()]:
            g1, slot = key
            p = next(q for q in self.table[g1] if q.slot == slot)
            value, how, secs = self.inflight.pop(key).get()
            self.finish(g1, p, value, how, secs)

    def game_nk(self) -> tuple[int, int]:
        return self.game.n, self.game.k

    def result(self, seconds: float, upper: Any, argv: Any) -> dict[str, Any]:
        """The run's result file: L, whether it is final, every opening's parts."""
        args, game, low = self.args, self.game, self.lower()
        least = min(self.table, key=self.total)
        return {
            "game": f"[{game.n},{game.k}]",
            "secrets": self.m,
            "lower": low,
            "lower_average": low / self.m,
            "final": not self.pending(least),
            "depth": args.depth + 1,
            "upper": upper,
            "ratio": None if upper is None else low / upper,
            "openings": [
                {"guess": game.format_code(g), "bound": self.total(g), "parts": self._rows(g)}
                for g in sorted(self.table, key=self.total)
            ],
            "exact_max": args.exact_max,
            "exact_seconds": args.exact_seconds,
            "exact_leaves": self.leaves,
            "exact_parts": args.exact_parts,
            "exact_parts_seconds": args.exact_parts_seconds if args.exact_parts else None,
            "seconds": round(seconds, 1),
            "part_seconds": round(
                sum(r["seconds"] for rows in self.cache.values() for r in rows), 1
            ),
            "command": "python scripts/optimum/bracket_5_8.py "
            + " ".join(Path(a).name if Path(a).is_absolute() else a for a in argv),
        }

    def _rows(self, g1: int) -> list[dict[str, Any]]:
        return [
            {
                "score": str(self.game.slots[p.slot]),
                "size": int(p.codes.size),
                "depth": p.depth,
                "leaves": p.leaves,
                "bound": p.bound,
                "how": p.how,
                "seconds": p.seconds,
            }
            for p in self.table[g1]
        ]


def main(argv: Any = None) -> int:
    args = _parser().parse_args(argv)
    start = time.perf_counter()
    run = Deepening(args)
    n, k = run.game_nk()
    upper = args.upper if args.upper is not None else (record_total() if (n, k) == (5, 8) else None)
    log(
        f"[{n},{k}]: {len(run.table)} openings at depth 2: "
        + ", ".join(f"{run.game.format_code(g)} {run.total(g):,}" for g in run.table)
    )
    if args.exact_parts:
        run.solve_parts()
    if args.workers > 1:
        run.pooled()
    else:
        run.serial()
    if run.out_cache is not None:
        run.out_cache.close()
    result = run.result(time.perf_counter() - start, upper, argv or sys.argv[1:])
    low = result["lower"]
    log(
        f"L = {low:,} ({'final' if result['final'] else 'budget spent'}), "
        f"average {low / run.m:.5f}"
        + ("" if upper is None else f", L/{upper:,} = {low / upper:.4f}")
    )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
