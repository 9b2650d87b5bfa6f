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
``state.json`` with the package's checked readers).  So are the parts a record strategy's
file says were solved whole (``--records FILE ...``, gzip-compressed or not:
``scripts/optimum/improve_record.py --whole-parts`` notes each search in the file's
``method.whole_parts``; ``how``: "exact", or "record" for the bound a stopped search
proved).

Each part's bound (at depth 1, deepened, or solved) is a unit of work of the package's
engine (kind ``"optimum.part_bound"``: :func:`mastermind.optimum.bracket.part_bound_unit`),
run on ``--workers`` threads, each keeping one Bounder (what it has learnt serves its next
parts), and recorded in the engine's checkpoint (``--cache``, SQLite) as each finishes, so
a stopped run resumes: its units are taken from the checkpoint in the same order.
Progress lines go to stdout.  Usage (from the repository root, with PYTHONPATH=src)::

    nice -n 15 python scripts/optimum/bracket_5_8.py [--depth 2] [--budget 5400]
        [--cache bracket_5_8.checkpoint] [--out results/bracket_5_8.json]

``--game 4,6`` runs it on another game (the tests do, on small ones).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import numpy as np

from mastermind import Game
from mastermind.engine.options import RunOptions
from mastermind.engine.run import open_run
from mastermind.engine.units import Unit
from mastermind.optimum.bracket import Bounder, how_of
from mastermind.stopping import TimeLimitReached
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


#: the memo of each thread's exact search (bytes)
MEMORY = 1 << 30

#: what a pick hands out: (opening, part, depth, seconds to solve it exactly or 0)
Pick = Optional[tuple[int, Part, int, float]]


class Bounds:
    """A plan of the package's engine: parts' bounds as units (kind
    ``"optimum.part_bound"``), handed out as ``pick`` chooses them from the answers so
    far (it is given the (opening, slot) pairs in flight; None: none for now, or none
    left once nothing is in flight), at most ``most`` at a time; each answer goes to
    ``run.take``."""

    kind = "optimum.part_bound"

    def __init__(self, run: "Deepening", pick: Callable[[set], Pick], most: int):
        self.run, self.pick, self.most = run, pick, most
        self.inflight: dict[str, tuple[int, Part, int, float]] = {}
        self.planned = 0

    def busy(self) -> set[tuple[int, int]]:
        return {(g1, p.slot) for g1, p, _, _ in self.inflight.values()}

    def next(self) -> Optional[Unit]:
        if len(self.inflight) >= self.most:
            return None
        got = self.pick(self.busy())
        if got is None:
            return None
        unit = self.run.unit(*got)
        self.inflight[unit.key] = got
        self.planned += 1
        return unit

    def valid(self, unit: Unit, result: dict) -> bool:
        """Whether a recorded answer can be a part's bound (a guess a secret at least)."""
        return int(result["bound"]) >= unit.size and float(result["took"]) >= 0

    def take(self, unit: Unit, result: dict) -> list[str]:
        self.run.take(*self.inflight.pop(unit.key), result)
        return []

    def done(self) -> bool:
        return not self.inflight and self.pick(set()) is None

    def known(self) -> int:
        return self.planned


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


def record_rows(paths: list[str], game: Any) -> list[dict[str, Any]]:
    """The parts of an opening that ``scripts/optimum/improve_record.py --whole-parts``
    solved whole, read from the record files ``paths`` (their ``method.whole_parts``):
    a cache row each, the exact optimum ("exact") or the bound its stopped search proved
    ("record").  A file of another game, or an entry not of the expected form, is left
    out with a line saying so."""
    rows = []
    for path in paths:
        with gzip.open(path, "rt") if str(path).endswith(".gz") else open(path) as f:
            doc = json.load(f)
        if (doc.get("pegs"), doc.get("colours"), doc.get("variant")) != (
            game.n,
            game.k,
            game.variant.value,
        ):
            log(f"{path}: left out (another game)")
            continue
        for e in doc.get("method", {}).get("whole_parts", []):
            after, size, lower = e.get("after"), e.get("secrets"), e.get("lower")
            good = isinstance(after, list) and len(after) == 2 and type(size) is int
            if not (good and type(lower) is int and lower >= size > 0):
                log(f"{path}: an entry left out ({e!r:.80})")
                continue
            how = "exact" if e.get("exact") is True else "record"
            took = float(e.get("seconds") or 0)
            rows.append(
                {"opening": after[0], "score": after[1], "depth": 0, "leaves": 0}
                | {"size": size, "bound": lower, "how": how, "seconds": took}
            )
    return rows


def _load_rows(
    start: Any, campaigns: Any = None, game: Any = None, records: Any = ()
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The bounds known per (opening, part score) before any unit: the parts of a result
    file written before (``--start-from``), the parts the optimum campaigns under
    ``campaigns`` worked out (:func:`campaign_rows`), and the parts record files solved
    whole (:func:`record_rows`)."""
    cache: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows = []
    if campaigns and game is not None and Path(campaigns).is_dir():
        rows += campaign_rows(campaigns, game)
    if records and game is not None:
        rows += record_rows(list(records), game)
    if start:
        for o in json.loads(Path(start).read_text())["openings"]:
            rows += [dict(q, opening=o["guess"]) for q in o["parts"]]
    for row in rows:
        cache.setdefault((row["opening"], row["score"]), []).append(row)
    if rows:
        log(f"{len(rows)} part bounds from {start or ''} {campaigns or ''}".rstrip())
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
    ap.add_argument("--workers", type=int, default=1, help="threads bounding parts")
    ap.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS|local:N",
        help="bound the parts on a Dask cluster (a scheduler's address, or local:N worker "
        "processes here: each keeps its Bounder, and the recursion in Python runs on "
        "every core); default: --workers threads of this process",
    )
    ap.add_argument(
        "--campaigns",
        default=str(CAMPAIGNS),
        help="a folder of optimum campaigns of parts, read as proved bounds ('' : none)",
    )
    ap.add_argument(
        "--records",
        nargs="*",
        default=[],
        help="record strategy files whose parts solved whole (their method.whole_parts) are "
        "read as proved bounds",
    )
    ap.add_argument(
        "--cache", default=None, help="the engine's checkpoint (SQLite): a stopped run resumes"
    )
    ap.add_argument("--out", default=None)
    return ap


class Deepening:
    """One run: every opening's parts with their best bounds so far (the rows read before
    and the units' answers), the engine's run they are bounded on, and the choice of the
    next part to bound."""

    def __init__(self, args: argparse.Namespace, engine: Any):
        self.args, self.engine = args, engine
        n, k = (int(x) for x in args.game.split(","))
        self.game = game = Game(n, k)
        self.leaves = args.exact_leaves
        # (this one only scans the openings: the parts are bounded by the units' own)
        self.bounder = Bounder(game, args.exact_max, args.exact_seconds, 1 << 20)
        cands = np.ascontiguousarray(game.secrets)
        self.m = int(cands.size)
        scanned = self.bounder.scan(cands, [])
        if scanned is None:
            raise SystemExit("the game is too small for a bound tree: solve it with optimal()")
        openings, _, self.b_root = scanned
        self.cache = _load_rows(args.start_from, args.campaigns, game, args.records)
        self.table: dict[int, list[Part]] = {}
        for g1 in openings.tolist():
            self.table[g1] = self._parts(g1, cands)
        self.ran = self.resumed = 0
        self.saying, self.spent = False, False

    def _parts(self, g1: int, cands: np.ndarray) -> list[Part]:
        """The opening's parts, each with the bounds read before (its depth-1 bound is
        a unit: :meth:`first`)."""
        game = self.game
        parts = [Part(s, c) for s, c in split_by_score(game, g1, cands) if s != game.win_slot]
        for p in parts:
            self.cached(g1, p)
        return parts

    def unit(self, g1: int, p: Part, depth: int, solve: float) -> Unit:
        """The unit bounding part ``p`` of opening ``g1`` at ``depth`` (or solving it
        within ``solve`` seconds)."""
        args, game = self.args, self.game
        key = f"{game.format_code(g1)}/{game.slots[p.slot]}/depth {depth}/leaves {self.leaves}"
        key += f"/max {args.exact_max} in {args.exact_seconds}" + (f"/solve {solve}" * bool(solve))
        work = {"codes": p.codes, "opening": g1, "depth": depth, "b": self.b_root}
        work |= {"exact_max": args.exact_max, "exact_seconds": args.exact_seconds}
        work |= {"exact_leaves": self.leaves, "solve_seconds": solve, "memory": MEMORY}
        return Unit(key, "optimum.part_bound", work, int(p.codes.size))

    def take(self, g1: int, p: Part, depth: int, solve: float, result: dict) -> None:
        """A unit's answer: the part's bound recorded (said, but at depth 1)."""
        before = p.bound
        value, how, took = int(result["bound"]), how_of(int(result["how"])), result["took"]
        self.record(g1, p, depth, value, how, float(took), solve)
        if self.saying:
            self.report(g1, p, before)

    def execute(self, what: str, pick: Callable[[set], Pick], most: int, limit: Any = None):
        """Bound the parts ``pick`` hands out on the engine (``most`` at a time), for at
        most ``limit`` seconds (the parts then unfinished left as they were)."""
        plan, self.saying = Bounds(self, pick, most), what != "first"
        try:
            counts = self.engine.execute(plan, time_limit=limit)
        except TimeLimitReached:
            log(f"budget spent ({len(plan.inflight)} parts unfinished)")
            return
        self.ran, self.resumed = self.ran + counts.ran, self.resumed + counts.resumed

    def first(self, busy: set) -> Pick:
        """The first part (openings in the scan's order) with no bound yet: its depth-1
        bound."""
        for g1, parts in self.table.items():
            for p in parts:
                if not p.reached and (g1, p.slot) not in busy:
                    return g1, p, 1, 0.0
        return None

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

    def solving(self, deadline: float) -> Callable[[set], Pick]:
        """The pick of the parts of at most --exact-parts codes to solve exactly (the
        search's proved bound if stopped at --exact-parts-seconds), one at a time, the
        least opening's first (its smallest first), until that opening has none left or
        the ``deadline`` (a perf_counter time) has passed."""
        only = [self.game.guess(g) for g in self.args.solve_openings.split(",") if g]

        def pick(busy: set) -> Pick:
            if busy:
                return None
            if time.perf_counter() > deadline:
                if not self.spent:
                    self.spent = True
                    log("budget spent")
                return None
            least = min(only or self.table, key=self.total)
            todo = self.to_solve(least)
            if not todo:
                return None
            p = min(todo, key=lambda q: q.codes.size)
            return least, p, self.args.depth, self.args.exact_parts_seconds

        return pick

    def pick(self, busy: set) -> Pick:
        """The next pending part (not in flight) of the least opening that has one: the
        smallest (the most bound gained a second: measured, a part of a hundred codes
        gains about 10% in seconds, one of 7,000 about 3.5% in many minutes), or with
        --largest-first the largest."""
        for g1 in sorted(self.table, key=self.total):
            todo = [p for p in self.pending(g1) if (g1, p.slot) not in busy]
            if todo:
                size = lambda q: q.codes.size  # noqa: E731
                p = max(todo, key=size) if self.args.largest_first else min(todo, key=size)
                return g1, p, self.args.depth, 0.0
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


def _bound(run: Deepening) -> None:
    """Every part's depth-1 bound, then the exact parts (--exact-parts), then the
    deepening, best first, each part a unit on the engine."""
    args, game = run.args, run.game
    run.execute("first", run.first, args.workers)
    log(
        f"[{game.n},{game.k}]: {len(run.table)} openings at depth 2: "
        + ", ".join(f"{game.format_code(g)} {run.total(g):,}" for g in run.table)
    )
    if args.exact_parts:
        run.execute("solve", run.solving(time.perf_counter() + args.budget), 1)
    run.execute("deepen", run.pick, args.workers, args.budget)
    log(f"units run: {run.ran}, from the checkpoint: {run.resumed}")


def main(argv: Any = None) -> int:
    args = _parser().parse_args(argv)
    start = time.perf_counter()
    n, k = (int(x) for x in args.game.split(","))
    options = RunOptions.of(jobs=args.workers, scheduler=args.scheduler, checkpoint=args.cache)
    params = {"bracket": "proved lower bounds of the parts after one opening"}
    with open_run(Game(n, k), kind="bound", params=params, options=options) as engine:
        run = Deepening(args, engine)
        _bound(run)
    upper = args.upper if args.upper is not None else (record_total() if (n, k) == (5, 8) else None)
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
