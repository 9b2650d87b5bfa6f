"""The table of exact expected-case optima (the least total number of guesses over every
secret), game after game, resumable.

For each game in the list (cheapest first): the exact optimum by
:func:`mastermind.optimum.solver.optimal` within a time budget; its strategy replayed secret by
secret with the plain-Python scorer (:func:`mastermind.worstcase.bounds.strategy_distribution`) to
the reported distribution before anything is written; the strategy written compressed
(``<out>/<game>.json.gz``, in ``mastermind tree --format json``'s format); then the exact
worst case p (:func:`mastermind.worstcase.bounds.worst_case`, within a shorter budget) and, when the
optimum needs more than p guesses, the optimum among the strategies that never need more
than p (checked likewise, written to ``<out>/<game>-within-p.json.gz``).  A game whose
search does not finish has its best strategy (the search's, or the one-step strategy it
started from) checked likewise and written to ``<out>/<game>-best.json.gz``: the proof of
its upper side.  Every finished game is recorded in ``<out>/table.json`` at once; a
game already there is skipped (a game that did not finish is tried again only with a
larger budget), so a rerun resumes.  With ``--checkpoints DIR`` each game's search records its finished units
in ``DIR/<game>.sqlite`` (:mod:`mastermind.engine`): a game that did not finish goes on
from there on the next run, whatever its budget, and its row adds up the seconds of
its runs (the proved bracket so far).  ``--tree-bounds`` gives each unfinished game the
lower bound of :func:`mastermind.optimum.bracket.lower_bound` (``--tree-depth``,
``--tree-leaves``: its exact leaves) when it is above the search's, kept in the row as
``tree_lower`` (the larger of the two is the bracket's lower side).  ``--markdown``
prints the table from ``table.json``.

Usage:
    PYTHONPATH=src nice -n 15 python scripts/optimum/optimal_table.py --budget 600 --jobs 1 \\
        --out results/optimal --log results/optimal/table.log
    PYTHONPATH=src python scripts/optimum/optimal_table.py --out results/optimal --markdown
    PYTHONPATH=src nice -n 19 python scripts/optimum/optimal_table.py --budget 3600 \\
        --only 5x7 --checkpoints ../optimal-checkpoints    # resumed run after run
    PYTHONPATH=src python scripts/optimum/optimal_table.py --tree-bounds --tree-leaves 40
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

from mastermind.engine.checkpoint import read_costs
from mastermind.game import Game
from mastermind.optimum.bracket import lower_bound
from mastermind.optimum.solver import optimal
from mastermind.views.tree import to_json
from mastermind.worstcase.bounds import check_strategy, strategy_distribution, worst_case

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
from _common import log as stamped  # noqa: E402

#: (pegs, colours, variant), cheapest first (as the brief of this table orders them)
GAMES: list[tuple[int, int, str]] = (
    [(2, k, "classic") for k in range(2, 11)]
    + [(3, k, "classic") for k in range(2, 11)]
    + [(4, k, "classic") for k in range(4, 9)]
    + [(5, k, "classic") for k in range(2, 5)]
    + [(6, k, "classic") for k in range(2, 4)]
    + [(4, k, "bulls-and-cows") for k in range(4, 11)]
    + [(5, k, "bulls-and-cows") for k in range(5, 9)]
    + [(4, k, "black-peg") for k in range(2, 8)]
    + [
        (6, 4, "classic"),
        (5, 5, "classic"),
        (4, 9, "classic"),
        (5, 6, "classic"),
        (4, 10, "classic"),
        (6, 5, "classic"),
        (5, 7, "classic"),
    ]
)


def key(n: int, k: int, variant: str) -> str:
    """The game's name in the table and in file names: ``4x8``, ``4x10-bulls-and-cows``."""
    return f"{n}x{k}" + ("" if variant == "classic" else f"-{variant}")


def label(n: int, k: int, variant: str) -> str:
    names = {"classic": "", "bulls-and-cows": "Bulls and Cows ", "black-peg": "black-peg "}
    return f"{names[variant]}[{n},{k}]"


def checked(result: Any) -> dict[str, Any]:
    """The optimum's row, after its strategy is replayed with the plain scorer."""
    game = result.game
    replay = strategy_distribution(game, result.tree)
    if replay != result.distribution:
        raise AssertionError(
            f"{game.name}: the tree replays to {replay}, not {result.distribution}"
        )
    worst = check_strategy(game, result.tree)
    if worst != result.max:
        raise AssertionError(f"{game.name}: the tree needs {worst} guesses, not {result.max}")
    return {
        "total": result.total,
        "max": result.max,
        "distribution": {str(d): c for d, c in sorted(result.distribution.items())},
        "first_guess": game.format_code(result.first_guess),
        "nodes": result.nodes,
        "seconds": round(result.seconds, 2),
    }


def solve(
    n: int,
    k: int,
    variant: str,
    budget: float,
    p_budget: float,
    jobs: int,
    out: Path,
    log: Any,
    record: Any,
    checkpoint: Optional[Path] = None,
) -> dict[str, Any]:
    """One game's entry (written tree included); ``exact`` False when out of budget.
    ``record(row)`` saves the row as soon as the optimum is known (before p and the
    optimum within p, which can take as long again)."""
    game = Game(n, k, variant)
    name = key(n, k, variant)
    row: dict[str, Any] = {
        "game": label(n, k, variant),
        "pegs": n,
        "colours": k,
        "variant": variant,
        "secrets": int(game.secrets.size),
        "budget": budget,
        "jobs": jobs,
        "commit": commit(),
    }
    resumed = {} if checkpoint is None else {"checkpoint": str(checkpoint)}
    best = optimal(game, time_limit=budget, jobs=jobs, **resumed)
    if not best.exact:
        unfinished(row, best, out, name)
        if checkpoint is not None:  # the units finished so far, this run's and before
            row["units"] = len(read_costs(str(checkpoint)))
        return row
    row.update(exact=True, **checked(best))
    with gzip.open(out / f"{name}.json.gz", "wt", encoding="utf-8") as f:
        json.dump(to_json(best), f, separators=(",", ":"))
    log(
        f"  {name}: {best.total} (max {best.max}) in {best.seconds:.1f} s, "
        f"{best.nodes:,} nodes, tree written"
    )
    record(row)
    w = worst_case(game, time_limit=p_budget, jobs=jobs)
    row["p"] = w.upper if w.exact else None
    row["p_bounds"] = [w.lower, w.upper]
    if w.exact and w.upper < best.max:
        within = optimal(game, max_guesses=w.upper, time_limit=budget, jobs=jobs)
        if within.exact and within.feasible:
            row["within_p"] = checked(within)
            if within.max > w.upper:
                raise AssertionError(f"{name}: the limited optimum needs {within.max}")
            with gzip.open(out / f"{name}-within-p.json.gz", "wt", encoding="utf-8") as f:
                json.dump(to_json(within), f, separators=(",", ":"))
            log(f"  {name}: within p = {w.upper}: {within.total} in {within.seconds:.1f} s")
        else:
            row["within_p"] = {
                "exact": False,
                "lower": within.lower,
                "best_found": within.total,
                "seconds": round(within.seconds, 2),
            }
    return row


def unfinished(row: dict[str, Any], best: Any, out: Path, name: str) -> None:
    """The row of a game whose search did not finish: its proved lower bound and the total
    of its best strategy, whose tree, replayed with the plain scorer, is written to
    ``<out>/<game>-best.json.gz`` (the proof of the upper side) and named in the row's
    ``best_tree`` with where it comes from (the search, or a one-step strategy)."""
    row.update(
        exact=False,
        lower=best.lower,
        best_found=best.total,
        seconds=round(best.seconds, 2),
        nodes=best.nodes,
    )
    if best.tree is None:
        return
    checked(best)
    with gzip.open(out / f"{name}-best.json.gz", "wt", encoding="utf-8") as f:
        json.dump(to_json(best), f, separators=(",", ":"))
    row["best_tree"] = {"file": f"{name}-best.json.gz", "source": best.source}


def tree_bound(row: dict[str, Any], depth: int, leaves: int) -> Optional[dict[str, Any]]:
    """The bound tree's lower bound of an unfinished game, as ``row["tree_lower"]`` holds
    it, or None when it is no higher than what the row has already."""
    game = Game(row["pegs"], row["colours"], row["variant"])
    start = time.process_time()
    got = lower_bound(game, depth=depth, exact_leaves=leaves)
    old = row.get("tree_lower", {}).get("bound", 0)
    if got.bound <= max(old, search_lower(row)):
        return None
    return {
        "bound": got.bound,
        "depth": depth,
        "exact_leaves": leaves,
        "cpu_seconds": round(time.process_time() - start, 2),
        "commit": commit(),
    }


def search_lower(row: dict[str, Any]) -> int:
    """An unfinished game's lower bound proved by its search (0: none; a row whose stopped
    search's bound is not a proof has ``lower`` null)."""
    return row.get("lower") or 0


def lower_side(row: dict[str, Any]) -> int:
    """An unfinished game's proved lower side: the search's or the bound tree's."""
    return max(search_lower(row), row.get("tree_lower", {}).get("bound", 0))


def commit() -> Optional[str]:
    """The checkout's commit (the solver that made the row), when it is a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
        )
    except OSError:
        return None
    return done.stdout.strip() or None


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


def save(path: Path, table: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(table, indent=1) + "\n")
    os.replace(tmp, path)


def short(dist: dict[str, int]) -> str:
    return "/".join(str(c) for _, c in sorted(dist.items(), key=lambda kv: int(kv[0])))


def work_of(row: dict[str, Any]) -> str:
    """A finished row's work: the search's nodes, or how many parts' searches decided it
    (a game decided opening by opening, ``by_parts``)."""
    if row.get("nodes") is not None:
        return f"{row['nodes']:,}"
    return f"{row['by_parts']['searches']:,} part searches"


def markdown(table: dict[str, Any]) -> Iterator[str]:
    yield (
        "| game | secrets | optimum | average | max | distribution | first guess "
        "| nodes | seconds | within p guesses |"
    )
    yield "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |"
    for n, k, variant in GAMES:
        row = table.get(key(n, k, variant))
        if row is None:
            continue
        if not row["exact"]:
            work = f"{row['units']:,} units" if row.get("units") else f"{row['nodes']:,}"
            spent = "so far, resumable" if row.get("runs") else "budget"
            how = "not finished"
            if not search_lower(row):
                how += " (lower side: bound tree)"
            elif lower_side(row) > search_lower(row):
                how += f" (lower side: bound tree, search {row['lower']})"
            yield (
                f"| {row['game']} | {row['secrets']:,} | {lower_side(row)}..{row['best_found']} "
                f"| | | {how} | | {work} | {row['seconds']:.0f} ({spent}) | |"
            )
            continue
        lim = row.get("within_p")
        if lim is None and row.get("p") is None:
            within = "p not proved"
        elif lim is None:  # the optimum within p not computed: said only where it is this one
            p = row["p"]
            within = f"max <= p = {p}" if row["max"] <= p else f"p = {p}: not computed"
        elif lim.get("exact", True) and lim["total"] == row["total"]:
            within = f"p = {row['p']}: the same total"
        elif lim.get("exact", True):
            within = f"p = {row['p']}: **{lim['total']}** ({short(lim['distribution'])})"
        else:
            within = f"p = {row['p']}: {lim['lower']}..{lim['best_found']} (not finished)"
        avg = row["total"] / row["secrets"]
        yield (
            f"| {row['game']} | {row['secrets']:,} | **{row['total']}** | {avg:.4f} "
            f"| {row['max']} | {short(row['distribution'])} | {row['first_guess']} "
            f"| {work_of(row)} | {row['seconds']:.2f} | {within} |"
        )


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/optimal", type=Path)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per optimum")
    ap.add_argument("--p-budget", type=float, default=60.0, help="seconds for p")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument(
        "--big-jobs", type=int, default=2, help="threads for games of 2,000 secrets or more"
    )
    ap.add_argument("--only", nargs="*", help="game names (as in table.json) to run")
    ap.add_argument("--log", type=Path)
    ap.add_argument("--markdown", action="store_true", help="print the table and stop")
    ap.add_argument(
        "--checkpoints", type=Path, help="a folder of the searches' checkpoints: resume there"
    )
    ap.add_argument(
        "--tree-bounds", action="store_true", help="bound the unfinished games by the bound tree"
    )
    ap.add_argument("--tree-depth", type=int, default=2, help="the bound tree's depth")
    ap.add_argument("--tree-leaves", type=int, default=40, help="its exact leaves")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "table.json"
    table = load(path)
    if args.markdown:
        print("\n".join(markdown(table)))
        return 0
    if args.tree_bounds:
        return tree_bounds(path, args)

    def log(line: str) -> None:
        stamped(line, stream=sys.stderr, also=args.log)

    for n, k, variant in GAMES:
        name = key(n, k, variant)
        if args.only and name not in args.only:
            continue
        old = table.get(name)
        resumes = args.checkpoints is not None
        if old is not None and (old["exact"] or (old["budget"] >= args.budget and not resumes)):
            continue
        size = Game(n, k, variant).secrets.size
        jobs = args.big_jobs if size >= 2000 else args.jobs
        log(f"{name}: {size} secrets, budget {args.budget:.0f} s, {jobs} thread(s)")

        def record(row: dict[str, Any], name: str = name) -> None:
            table = load(path)  # (another run may have added rows meanwhile)
            table[name] = row
            save(path, table)

        ckpt = None
        if resumes:
            args.checkpoints.mkdir(parents=True, exist_ok=True)
            ckpt = args.checkpoints / f"{name}.sqlite"
        row = solve(n, k, variant, args.budget, args.p_budget, jobs, args.out, log, record, ckpt)
        if resumes and old is not None and not row["exact"]:  # the runs' seconds add up
            row["seconds"] = round(row["seconds"] + old.get("seconds", 0.0), 2)
            row["runs"] = old.get("runs", 1) + 1
            row.update({f: old[f] for f in ("tree_lower", "note") if f in old})
        record(row)
        log(
            f"{name}: "
            + ("exact" if row["exact"] else f"not finished: {row['lower']}..{row['best_found']}")
        )
    return 0


def tree_bounds(path: Path, args: argparse.Namespace) -> int:
    """Give every unfinished game (of ``--only``) the bound tree's lower bound."""
    for name, row in load(path).items():
        if row["exact"] or (args.only and name not in args.only):
            continue
        got = tree_bound(row, args.tree_depth, args.tree_leaves)
        stamp = time.strftime("%H:%M:%S")
        if got is None:
            print(f"{stamp} {name}: the bound tree gives no more than {lower_side(row)}")
            continue
        table = load(path)  # (another run may have rewritten rows meanwhile)
        table[name]["tree_lower"] = got
        save(path, table)
        print(f"{stamp} {name}: {lower_side(row)} -> {got['bound']} ({got['cpu_seconds']} CPU-s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
