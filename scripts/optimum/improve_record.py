"""Lower the total of a record strategy (``scripts/optimum/record_5_8.py``'s file) where its
positions after two guesses were not solved exactly: at each such position (the largest
gap between its strategy's total and its proved lower bound first), a few third guesses
are tried, each followed by the exact optimum of every part it leaves (the exact search
within ``--part-limit`` seconds: past it, the best strategy that search found); the
position keeps the cheapest of them if it is cheaper than what it had.

Which third guesses: the choice of each one-step rule (entropy, most parts, expected
size, min-max) and the first ``--bound-guesses`` guesses by the depth-1 bound tree
(:func:`mastermind.optimum.bracket.lower_bound`, its least bounds first).  A guess is
given up once its parts' totals so far plus the depth-1 bound of each remaining part
reach the best total known for the position.

With ``--whole-parts N``, each part the opening leaves with at most N codes is first
solved whole, from its second guess on (the exact search within ``--whole-limit``
seconds), and kept if cheaper: the rule's second guess is then replaced too; with
``--whole-from M`` only the parts of at least M codes (a run after one that did the
smaller ones).

The file is rewritten only when the total fell, and only after the whole tree has been
replayed by the independent checker (:func:`mastermind.verify.verify_strategy`) to the
total, maximum and distribution it states; it is rewritten after each position that
improved, so a stopped run loses only the position it was on.  Each change is listed in
the file's ``method.improved``.

Usage (from the repository root, after ``pip install -e .`` or with PYTHONPATH=src)::

    python scripts/optimum/improve_record.py [--record results/record_5_8.json]
        [--budget 3600] [--part-limit 60] [--bound-guesses 4] [--positions N] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

from mastermind import Game, optimal
from mastermind.analysis.strategies import choose_guess
from mastermind.optimum.bracket import lower_bound
from mastermind.verify import verify_strategy
from mastermind.views.tree import to_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/: _common
from _common import log  # noqa: E402

RULES = ("entropy", "parts", "expected-size", "minmax")


def subtree_total(node: dict[str, Any]) -> int:
    """Guesses a tree node (``mastermind tree --format json``'s) spends on the secrets that
    reach it: one each at the node, then what its children spend."""
    return int(node["candidates"]) + sum(
        subtree_total(c) for c in node.get("children", {}).values()
    )


class Improver:
    """One record file: its game, tree and positions, and the changes made to them."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.path = Path(args.record)
        self.doc = json.loads(self.path.read_text())
        self.game = Game(self.doc["pegs"], self.doc["colours"])
        self.start = time.monotonic()

    def seconds_left(self) -> float:
        return self.args.budget - (time.monotonic() - self.start)

    # -- which positions, which guesses
    def weak_positions(self) -> list[dict[str, Any]]:
        """The positions not solved exactly, the largest gap (total - lower) first."""
        weak = [p for p in self.doc["positions"] if not p["exact"]]
        weak.sort(key=lambda p: -(p["total"] - p["lower"]))
        return weak[: self.args.positions] if self.args.positions else weak

    def third_guesses(self, history: list[tuple[str, str]], cands: np.ndarray) -> list[int]:
        """The rules' choices, then the depth-1 bound tree's first guesses, no repeats."""
        out: list[int] = []
        for rule in RULES:
            g = int(choose_guess(self.game, cands, rule))
            if g not in out:
                out.append(g)
        if self.args.bound_guesses:
            ranked = lower_bound(self.game, history=history, depth=1).guesses
            for gb in ranked[: self.args.bound_guesses]:
                if gb.guess not in out:
                    out.append(gb.guess)
        return out

    # -- one position
    def parts(self, g: int, cands: np.ndarray) -> list[tuple[int, int]]:
        """(slot, size) of every non-winning part of ``g`` on ``cands``, the largest first."""
        labels = self.game.kernel.slots(g, cands)
        slots, sizes = np.unique(labels, return_counts=True)
        out = [(int(s), int(c)) for s, c in zip(slots, sizes) if s != self.game.win_slot]
        return sorted(out, key=lambda sc: -sc[1])

    def try_guess(
        self, history: list[tuple[str, str]], cands: np.ndarray, g: int, best: int
    ) -> Optional[tuple[int, dict[str, Any]]]:
        """(total, subtree) of the position when ``g`` is played and each part is then
        solved; None once it cannot beat ``best``: the parts solved so far plus the
        depth-1 bound of each part left (a scan, far cheaper than a search) reach it."""
        game = self.game
        total = int(cands.size)
        node: dict[str, Any] = {"guess": game.format_code(g), "candidates": total}
        parts = [
            ([*history, (game.format_code(g), str(game.slots[s]))], m)
            for s, m in self.parts(g, cands)
        ]
        bounds = [lower_bound(game, history=after, depth=1).bound for after, _ in parts]
        floor = total + sum(bounds)
        children: dict[str, Any] = {}
        for (after, _), bound in zip(parts, bounds):
            if floor >= best:
                return None
            res = optimal(game, history=after, time_limit=self.args.part_limit, jobs=1)
            children[after[-1][1]] = to_json(res)["tree"]
            total += res.total
            floor += res.total - bound
        node["children"] = children
        return (total, node) if total < best else None

    def improve(self, pos: dict[str, Any]) -> Optional[tuple[int, dict[str, Any], str]]:
        """The cheapest (total, subtree, guess) found at ``pos`` if below its total."""
        g1, s1, g2, s2 = pos["after"]
        history = [(g1, s1), (g2, s2)]
        cands = self.game.candidates(history)
        cands = np.ascontiguousarray(cands)
        best, found = int(pos["total"]), None
        for g in self.third_guesses(history, cands):
            if self.seconds_left() <= 0:
                break
            t0 = time.monotonic()
            got = self.try_guess(history, cands, g, best)
            shown = "no better" if got is None else f"total {got[0]}"
            log(f"    {self.game.format_code(g)}: {shown} ({time.monotonic() - t0:.0f} s)")
            if got is not None:
                best, found = got[0], (got[0], got[1], self.game.format_code(g))
        return found

    # -- the file
    def splice(self, pos: dict[str, Any], total: int, subtree: dict[str, Any], g3: str) -> None:
        g1, s1, g2, s2 = pos["after"]
        node = self.doc["tree"]
        assert node["guess"] == g1 and node["children"][s1]["guess"] == g2
        node["children"][s1]["children"][s2] = subtree
        self.doc["method"].setdefault("improved", []).append(
            {
                "after": pos["after"],
                "total_before": pos["total"],
                "total": total,
                "third_guess": g3,
                "part_limit_s": self.args.part_limit,
            }
        )
        pos["total"], pos["tree_from"] = total, f"third guesses tried, {g3} kept"

    def replayed(self) -> dict[str, Any]:
        """The document with the total, maximum and distribution its tree replays to,
        checked a second time as stated."""
        doc = dict(self.doc)
        ps, method = doc["positions"], doc["method"]
        method["positions"], method["positions_exact"] = len(ps), sum(p["exact"] for p in ps)
        method["positions_from_the_rule"] = sum(p["tree_from"] in RULES for p in ps)
        bare = {k: v for k, v in doc.items() if k not in ("total", "max", "distribution")}
        verdict = verify_strategy(bare)
        doc["total"], doc["max"] = verdict.total, verdict.upper
        doc["distribution"] = {str(d): c for d, c in sorted(verdict.distribution.items())}
        verify_strategy(doc)
        return doc

    def write(self, before: int) -> None:
        doc = self.replayed()
        if doc["total"] >= before:
            log(f"replayed to {doc['total']}, not below {before}: the file is left as it was")
            return
        log(f"replayed to {doc['total']} (was {before}): written to {self.put(doc)}")

    def put(self, doc: dict[str, Any]) -> Path:
        """Write ``doc`` in place of the file at once (a new file renamed over it)."""
        out = Path(self.args.out or self.path)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(doc) + "\n")
        os.replace(tmp, out)
        return out

    def note_part(self, after: list[tuple[str, str]], size: int, res: Any, seconds: float) -> None:
        """What the search proved of a part solved whole, in ``method.whole_parts`` (one
        entry a part, the latest kept): its optimum, or the bound a stopped search proved
        (what a bracket's lower side may take)."""
        entry = {"after": list(after[0]), "secrets": size, "exact": bool(res.exact)}
        lower = res.total if res.exact else res.lower
        entry |= {"total": int(res.total), "lower": None if lower is None else int(lower)}
        entry |= {"seconds": round(seconds, 1), "limit_s": self.args.whole_limit}
        notes = self.doc["method"].setdefault("whole_parts", [])
        notes[:] = [e for e in notes if e["after"] != entry["after"]] + [entry]

    def write_notes(self) -> None:
        """Rewrite the file with its notes alone (the tree unchanged, replayed all the same)."""
        self.put(self.replayed())

    def solve_parts(self, before: int) -> None:
        """Each part the opening leaves with at most ``--whole-parts`` codes (the smallest
        first), solved whole from its second guess on: kept if below its subtree's total
        (the records of its positions after two guesses then leave the file)."""
        game, root = self.game, self.doc["tree"]
        for s1, child in sorted(root["children"].items(), key=lambda kv: kv[1]["candidates"]):
            m = int(child["candidates"])
            if not max(2, self.args.whole_from) <= m <= self.args.whole_parts:
                continue
            if self.seconds_left() <= 0:
                continue
            was = subtree_total(child)
            after = [(root["guess"], s1)]
            t0 = time.monotonic()
            res = optimal(game, history=after, time_limit=self.args.whole_limit, jobs=1)
            exact = "exact" if res.exact else f"best found, optimum proved >= {res.lower}"
            log(f"  part {s1} ({m} secrets): {was} -> {res.total} ({exact})")
            self.note_part(after, m, res, time.monotonic() - t0)
            if res.total >= was:
                if not self.args.dry_run:
                    self.write_notes()
                continue
            root["children"][s1] = to_json(res)["tree"]
            self.doc["positions"] = [p for p in self.doc["positions"] if p["after"][1] != s1]
            self.doc["method"].setdefault("improved", []).append(
                {
                    "after": [root["guess"], s1],
                    "total_before": was,
                    "total": res.total,
                    "exact": res.exact,
                    "second_guess": game.format_code(res.first_guess),
                    "whole_limit_s": self.args.whole_limit,
                }
            )
            if not self.args.dry_run:
                self.write(before)

    def run(self) -> None:
        before = int(self.doc["total"])
        if self.args.whole_parts:
            self.solve_parts(before)
        weak = [] if self.args.whole_only else self.weak_positions()
        log(f"{self.doc['game']} record {before}: {len(weak)} positions to try")
        for pos in weak:
            if self.seconds_left() <= 0:
                log("budget spent")
                break
            log(
                f"  after {' '.join(pos['after'])}: {pos['secrets']} secrets, "
                f"total {pos['total']}, proved >= {pos['lower']}"
            )
            was = pos["total"]
            found = self.improve(pos)
            if found is not None:
                self.splice(pos, *found)
                log(f"  -> {found[0]}, {was - found[0]} fewer guesses with {found[2]}")
                if not self.args.dry_run:
                    self.write(before)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--record", default="results/record_5_8.json")
    p.add_argument("--out", default=None, help="where to write (default: the record itself)")
    p.add_argument("--budget", type=float, default=3600.0, help="seconds for the whole run")
    p.add_argument("--part-limit", type=float, default=60.0, help="seconds per part's search")
    p.add_argument("--bound-guesses", type=int, default=4, help="third guesses by the bound tree")
    p.add_argument("--positions", type=int, default=0, help="try only the first N (0: all)")
    p.add_argument(
        "--whole-parts",
        type=int,
        default=0,
        help="first solve whole each part of the opening of at most this many codes",
    )
    p.add_argument(
        "--whole-from",
        type=int,
        default=2,
        help="with --whole-parts: only the parts of at least this many codes (a resumed run)",
    )
    p.add_argument("--whole-limit", type=float, default=600.0, help="seconds per whole part")
    p.add_argument("--whole-only", action="store_true", help="no third guesses after them")
    p.add_argument("--dry-run", action="store_true", help="report, write nothing")
    args = p.parse_args()
    Improver(args).run()


if __name__ == "__main__":
    sys.exit(main())
