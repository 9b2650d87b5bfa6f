"""The cheaper refutations checked on the real instances: second guesses of refuted parts
re-decided with the colour-multiset counts and the label-matrix ranking off, then on.

    python bench/cuts_check.py [--part 12345:"0 2" ...] [--sample 20] [--seed 58]
                               [--time-limit 300] [-n 5 -k 8 --guesses 5] [--json]

For each part (the secrets left after OPENING scores SCORE, asked within GUESSES more;
by default the three refuted parts of the p(5,8) campaign whose refutations cost the most
after 11234's, whose second guesses bench/refute_ab.py samples: 12345 = (0 2), 11223 =
(0 1), 11123 = (0 1)), the second guesses its refutation must refute are those its
search ranks at its root, one per symmetry class of the opening; ``--sample`` of them
are drawn with ``--seed``.  Each is re-decided as the campaign decides it: "can every
part it leaves be solved within GUESSES - 1 more?", its parts of three codes or more
asked largest first until one is not solvable, each part a search of its own (a fresh
memo), once with ``Searcher.multiset_counts`` and ``Searcher.label_counts`` off (the d = 3
nodes rank their guesses by scoring them, every colour multiset read) and once with them
on (the default).  docs/bounds.md says both rules change nothing but the time: the same
answers, and the same nodes.  Printed per guess: each side's verdicts, nodes and CPU
seconds; a question past ``--time-limit`` seconds (per side) is said to be capped and not
compared.  Exit status 0 when every question compared agrees in answers and nodes, 1
otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

HERE = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # (a checkout built in place; PYTHONPATH picks another)
    sys.path.insert(0, str(HERE / "src"))

PARTS = ["12345:0 2", "11223:0 1", "11123:0 1"]


def second_guesses(game: Any, opening: int, part: np.ndarray, d: int) -> list[int]:
    """The guesses a search of ``part`` within d tries at its root, in its order: one per
    symmetry class of the opening (the campaign's split hands out the same)."""
    from mastermind.kernel import _symmetry
    from mastermind.worstcase.search import Search
    from mastermind.worstcase.units import root_openings

    pool = _symmetry.canonical_guesses(
        game.kernel, game.guesses, np.array([opening], dtype=np.int32)
    )
    order = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 26)
    return root_openings(game, part, pool, d, order.core.order, game.kernel.nslots - 1) or []


def parts_of(game: Any, guess: int, cands: np.ndarray) -> list[np.ndarray]:
    """The guess's parts of three codes or more, the largest first."""
    from mastermind.strategy_tree import split_by_score

    parts = [p for s, p in split_by_score(game, guess, cands) if s != game.win_slot]
    return [p for p in sorted(parts, key=lambda p: -p.size) if p.size >= 3]


def decide(
    game: Any, parts: list[np.ndarray], d: int, cuts: bool, limit: Optional[float]
) -> dict[str, Any]:
    """Each part within d, the largest first, until one is not solvable: the verdicts,
    the nodes, the CPU seconds (``capped`` when the time limit ended it)."""
    from mastermind.worstcase.search import Search, SearchUnfinished

    answers: list[bool] = []
    nodes, cpu = 0, time.process_time()
    until = None if limit is None else time.monotonic() + limit
    for part in parts:
        search = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=1 << 30)
        search.core.multiset_counts = cuts
        search.core.label_counts = cuts
        try:
            ok, _ = search.run(part, d, until)
        except SearchUnfinished as e:
            return {"answers": answers, "nodes": nodes + e.nodes, "capped": True,
                    "cpu": time.process_time() - cpu}  # fmt: skip
        nodes += search.nodes
        answers.append(ok)
        if not ok:
            break
    return {"answers": answers, "nodes": nodes, "capped": False, "cpu": time.process_time() - cpu}


def check_part(game: Any, spec: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The sampled second guesses of one part, each decided with the rules off and on."""
    opening, score = spec.split(":")
    g = game.code(opening)
    part = np.asarray(game.filter(game.secrets, opening, score), dtype=np.int32)
    ranked = second_guesses(game, g, part, args.guesses)
    picked = sorted(
        random.Random(args.seed).sample(range(len(ranked)), min(args.sample, len(ranked)))
    )
    if not args.json:
        print(f"{opening} = ({score}): {part.size:,} codes, {len(ranked)} second guesses; "
              f"ranks {picked}", flush=True)  # fmt: skip
    rows = []
    for rank in picked:
        parts = parts_of(game, ranked[rank], part)
        off = decide(game, parts, args.guesses - 1, False, args.time_limit)
        on = decide(game, parts, args.guesses - 1, True, args.time_limit)
        capped = off["capped"] or on["capped"]
        row = {
            "part": spec, "rank": rank, "guess": game.format_code(ranked[rank]),
            "parts": len(parts), "capped": capped,
            "same_answers": None if capped else off["answers"] == on["answers"],
            "same_nodes": None if capped else off["nodes"] == on["nodes"],
            "answers": on["answers"], "nodes_off": off["nodes"], "nodes_on": on["nodes"],
            "cpu_off": round(off["cpu"], 2), "cpu_on": round(on["cpu"], 2),
        }  # fmt: skip
        rows.append(row)
        print(json.dumps(row) if args.json else _line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    verdict = "capped" if row["capped"] else ("refuted" if not all(row["answers"]) else "solvable")
    agree = "capped" if row["capped"] else (
        "same answers and nodes" if row["same_answers"] and row["same_nodes"] else "DIFFER")  # fmt: skip
    timed = row["cpu_off"] >= TIMED
    ratio = f"{row['cpu_on'] / row['cpu_off']:.3f}" if timed else "too short to time"
    return (
        f"  {row['rank']:4d} {row['guess']}  {len(row['answers'])}/{row['parts']} parts asked "
        f"({verdict}), nodes off {row['nodes_off']:,} on {row['nodes_on']:,}, CPU off "
        f"{row['cpu_off']:.2f} s on {row['cpu_on']:.2f} s ({ratio}): {agree}"
    )


TIMED = 0.05
"""A question whose side without the cuts took less CPU (s) than this is too short for
its ratio to mean anything: left out of the median."""


def summary(rows: list[dict[str, Any]]) -> tuple[str, bool]:
    """One line over every question, and whether every question compared agrees."""
    compared = [r for r in rows if not r["capped"]]
    ok = all(r["same_answers"] and r["same_nodes"] for r in compared)
    off = sum(r["cpu_off"] for r in compared)
    on = sum(r["cpu_on"] for r in compared)
    ratios = [r["cpu_on"] / r["cpu_off"] for r in compared if r["cpu_off"] >= TIMED]
    median = statistics.median(ratios) if ratios else float("nan")
    line = (
        f"{len(rows)} questions, {len(rows) - len(compared)} capped; of {len(compared)} "
        f"compared: {'every one the same answers and nodes' if ok else 'SOME DIFFER'}; "
        f"CPU off {off:,.1f} s, on {on:,.1f} s (on/off {on / off if off else float('nan'):.3f}, "
        f"median per question timed {median:.3f}, {len(ratios)} of them)"
    )
    return line, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", action="append", metavar="OPENING:SCORE",
                        help="a part to sample (repeatable; default the three of p(5,8))")  # fmt: skip
    parser.add_argument("-n", type=int, default=5, help="pegs (5)")
    parser.add_argument("-k", type=int, default=8, help="colours (8)")
    parser.add_argument("--guesses", type=int, default=5, help="guesses left at the part (5)")
    parser.add_argument("--sample", type=int, default=20, help="second guesses per part (20)")
    parser.add_argument("--seed", type=int, default=58, help="the sample's seed (58)")
    parser.add_argument("--time-limit", type=float, default=300.0, help="s per side (300)")
    parser.add_argument("--json", action="store_true", help="one JSON line per question")
    args = parser.parse_args()
    from mastermind import Game

    game = Game(args.n, args.k)
    rows: list[dict[str, Any]] = []
    for spec in args.part or PARTS:
        rows += check_part(game, spec, args)
    line, ok = summary(rows)
    print(json.dumps({"summary": line, "agree": ok}) if args.json else line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
