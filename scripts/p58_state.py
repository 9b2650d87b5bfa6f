"""The state of the p(5,8) run read from its checkpoint (scripts/p58.py ``status``): every
recorded unit, the question replayed through the plan (no search), the tables; and the
projection of the core-hours still needed from the units measured (``projection``;
docs/bounds.md says how).  Run scripts/p58.py."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np
from p58_plan import ROOT, decided_value, replay_checkpoint

from mastermind.engine.checkpoint import connect_read_only
from mastermind.game import Game
from mastermind.strategy_tree import split_by_score


# --------------------------------------------------------------------------- the state
def recorded_since(path: str, since: float) -> int:
    """Units whose row was written at or after ``since`` (a wall-clock time): the units
    this run ran (a unit run again would replace its row, and count here)."""
    conn = connect_read_only(path)
    try:
        return int(
            conn.execute("SELECT COUNT(*) FROM units WHERE finished >= ?", (since,)).fetchone()[0]
        )
    finally:
        conn.close()


def unit_rows(path: str) -> dict[str, dict[str, Any]]:
    """Every recorded unit: key -> parent, size, seconds, split, ok, nodes."""
    conn = connect_read_only(path)
    try:
        from mastermind.engine.checkpoint import decode

        out = {}
        rows = conn.execute(  # (read at once: a run writing the file waits for readers)
            "SELECT u.key, COALESCE(s.parent, ''), u.size, u.seconds, COALESCE(s.split, 0), "
            "u.result FROM units u LEFT JOIN splits s ON s.key = u.key ORDER BY u.finished"
        ).fetchall()
        for key, parent, size, secs, split, blob in rows:
            res = decode(blob)
            out[key] = {
                "parent": parent,
                "size": int(size),
                "seconds": float(secs),
                "split": bool(split),
                "ok": None if split else int(res["ok"]),
                "nodes": int(res.get("nodes", 0)),
            }
        return out
    finally:
        conn.close()


def depth_of(key: str) -> int:
    """Guesses played above a unit's question, beyond the opening (0 for a root part)."""
    return (len(key.split("/")) - 4) // 2


def state(
    game: Game, d: int, path: str, focus: Optional[str], known: dict[str, Any], memory_mb: int
) -> dict[str, Any]:
    plan, dry = replay_checkpoint(game, d, path, memory_mb << 20, focus)
    rows = unit_rows(path) if os.path.exists(path) else {}
    openings = []
    for i, g in enumerate(plan.openings):
        parts = []
        for s, part in sorted(
            split_by_score(game, g, np.ascontiguousarray(game.secrets)), key=lambda p: -p[1].size
        ):
            if s == game.win_slot:
                continue
            key = f"exists/{g}/{s}/{d - 1}"
            mine = [r for k, r in rows.items() if k == key or k.startswith(key + "/")]
            ans = plan.answers[i].get(s) if part.size >= 3 else (part.size <= d - 1)
            entry = {
                "score": str(game.slots[s]),
                "size": int(part.size),
                "state": {True: "solvable", False: "refuted", None: "open"}[ans],
                "units": len(mine),
                "splits": sum(r["split"] for r in mine),
                "seconds": round(sum(r["seconds"] for r in mine), 2),
                "nodes": sum(r["nodes"] for r in mine),
                "open_units": sum(1 for k in dry.open if k == key or k.startswith(key + "/")),
            }
            if ans and (i, s) in plan.recs:
                recs = plan.recs[(i, s)]
                entry["witness"] = {
                    "guess": game.format_code(int(recs[0, 2])),
                    "records": int(recs.shape[0]),
                }
            parts.append(entry)
        st = plan.state(i)
        openings.append(
            {
                "opening": game.format_code(g),
                "state": {True: "solvable", False: "refuted", None: "open"}[st],
                "parts": parts,
            }
        )
    answer = None
    if not plan.openings:
        answer = False
    elif plan.decided():
        answer = plan.answer() >= 0
    value = decided_value(d, answer, known)
    size = os.path.getsize(path) if os.path.exists(path) else 0
    done_parts = [p for o in openings for p in o["parts"] if p["size"] >= 3]
    summary = {
        "decided": answer is not None,
        "value": value,
        "text": (
            f"p({game.n},{game.k}) = {value}"
            if value is not None
            else f"p({game.n},{game.k}) is {d} or {d + 1}: undecided"
        ),
        "parts": len(done_parts),
        "solvable": sum(p["state"] == "solvable" for p in done_parts),
        "refuted": sum(p["state"] == "refuted" for p in done_parts),
        "open": sum(p["state"] == "open" for p in done_parts),
        "units": len(rows),
        "splits": sum(r["split"] for r in rows.values()),
        "seconds": round(sum(r["seconds"] for r in rows.values()), 1),
        "nodes": sum(r["nodes"] for r in rows.values()),
        "open_units": len(dry.open),
    }
    return {
        "game": {"pegs": game.n, "colours": game.k},
        "question": f"can every secret be found within {d} guesses?",
        "guesses": d,
        "known": {
            "below_refuted": known["below_refuted"],
            "minmax": known["minmax"],
            "lower": d if known["below_refuted"] else None,
        },
        "focus": focus,
        "checkpoint": {
            "path": os.path.relpath(path, ROOT) if str(path).startswith(str(ROOT)) else str(path),
            "bytes": size,
            "memory_mb": memory_mb,
        },
        "summary": summary,
        "openings": openings,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_state(doc: dict[str, Any], path: str) -> None:
    tmp = path + ".tmp"
    Path(tmp).write_text(json.dumps(doc, indent=1) + "\n")
    os.replace(tmp, path)


def print_table(doc: dict[str, Any], out: Any) -> None:
    s = doc["summary"]
    out.write(f"{s['text']} (question: {doc['question']})\n")
    out.write(
        f"{s['parts']} parts of 3 codes or more: {s['solvable']} solvable, "
        f"{s['refuted']} refuted, {s['open']} open; {s['units']} units recorded "
        f"({s['splits']} splits), {s['seconds']:.0f} worker-s, {s['nodes']:,} nodes; "
        f"{s['open_units']} questions open\n"
    )
    for o in doc["openings"]:
        shown = [p for p in o["parts"] if p["size"] >= 3]
        solved = [p for p in shown if p["state"] == "solvable"]
        out.write(f"{o['opening']}: {o['state']}, {len(solved)}/{len(shown)} parts solvable\n")
        for p in shown:
            if p["state"] == "solvable" and p["units"] == 0:
                continue
            out.write(
                f"  {p['score']:>4} {p['size']:>6} {p['state']:<9} {p['units']:>6} units "
                f"{p['splits']:>4} splits {p['seconds']:>9.1f} s {p['nodes']:>12,} nodes"
                f" {p['open_units']:>6} open\n"
            )


def markdown_table(doc: dict[str, Any]) -> str:
    """One row per opening (docs/bounds.md): its parts solvable within 5 more (the
    largest), refuted, and open (codes; the work spent on each open part)."""
    lines = [
        "| opening | parts | solvable in 5 more (largest) | refuted | open (codes: units, worker-s) |",
        "| --- | ---: | --- | --- | --- |",
    ]
    for o in doc["openings"]:
        parts = [p for p in o["parts"] if p["size"] >= 3]
        solved = [p for p in parts if p["state"] == "solvable"]
        refuted = [p for p in parts if p["state"] == "refuted"]
        open_ = [p for p in parts if p["state"] == "open"]
        big = max((p["size"] for p in solved), default=0)
        lines.append(
            f"| {o['opening']} | {len(o['parts'])} | {len(solved)} ({big:,}) | "
            + (", ".join(f"{p['size']:,}" for p in refuted) or "none")
            + " | "
            + ", ".join(
                f"{p['size']:,}"
                + (f": {p['units']:,}, {p['seconds']:,.0f} s" if p["units"] else "")
                for p in open_
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- projection
def _level() -> dict[str, Any]:
    """A level's tallies (guesses left), all zero."""
    return {
        "units": 0,
        "split": 0,
        "solvable": 0,
        "refuted": 0,
        "solvable_s": 0.0,
        "refuted_s": 0.0,
        "guesses": 0,
        "subs": 0,
        "refuted_guesses": 0,
    }


def projection(
    game: Game,
    d: int,
    path: str,
    focus: Optional[str],
    memory_mb: int,
    workers: list[int],
    budget: float,
) -> dict[str, Any]:
    """The core-hours still needed, from the units measured (docs/bounds.md says how).

    Per level (guesses left): the answered units' mean seconds (solvable, refuted), the
    share s that split, and per split its guesses G, its sub-questions per guess P (from
    the split's expansion) and the guesses R refuted so far.  Bottom up, a question that
    splits costs, when solvable, ``budget + R * refuted(below) + P * solvable(below)``
    (R guesses refuted, then one whose P parts are all solvable), when refuted ``budget
    + G * refuted(below)`` (every guess, each refuted by the first part tried); any
    question costs ``(1 - s) * mean + s * that``.  The open parts at the root (each
    outlasted earlier runs) are counted as questions that split.  Lower estimates while
    the splits are in progress (R only grows).  A level with no answers costs one
    budget."""
    sys.path.insert(0, str(ROOT / "bench"))
    from simulate import simulate  # the engine's scheduling replayed (bench/simulate.py)

    rows = unit_rows(path)
    plan, dry = replay_checkpoint(game, d, path, memory_mb << 20, focus)
    # the guesses of each split refuted so far (a refuted part refutes its guess)
    refuted_guesses: dict[str, set[str]] = {}
    for k, r in rows.items():
        if r["parent"] and r["ok"] == 0:
            refuted_guesses.setdefault(r["parent"], set()).add(k.split("/")[-2])
    levels: dict[int, dict[str, Any]] = {}
    for k, r in rows.items():
        e = d - 1 - depth_of(k)
        lv = levels.setdefault(e, _level())
        lv["units"] += 1
        if r["split"]:
            lv["split"] += 1
            lv["refuted_guesses"] += len(refuted_guesses.get(k, ()))
            guesses, subs = plan.expansions.get(k, (0, 0))
            lv["guesses"] += guesses
            lv["subs"] += subs
        elif r["ok"]:
            lv["solvable"] += 1
            lv["solvable_s"] += r["seconds"]
        else:
            lv["refuted"] += 1
            lv["refuted_s"] += r["seconds"]
    solv: dict[int, float] = {}
    refu: dict[int, float] = {}
    split_solv: dict[int, float] = {}  # a question known to outlast its budget
    split_refu: dict[int, float] = {}
    model = {}
    lowest = min(levels, default=d - 1)
    for e in range(lowest, d):
        lv = levels.get(e) or _level()
        answered = lv["solvable"] + lv["refuted"]
        mean = (lv["solvable_s"] + lv["refuted_s"]) / answered if answered else budget
        ms = lv["solvable_s"] / lv["solvable"] if lv["solvable"] else mean
        mr = lv["refuted_s"] / lv["refuted"] if lv["refuted"] else mean
        share = lv["split"] / lv["units"] if lv["units"] else 0.0
        g = lv["guesses"] / lv["split"] if lv["split"] else 0.0
        per = lv["subs"] / lv["guesses"] if lv["guesses"] else 0.0
        tried = lv["refuted_guesses"] / lv["split"] if lv["split"] else 0.0
        below_s, below_r = solv.get(e - 1, budget), refu.get(e - 1, budget)
        split_solv[e] = budget + tried * below_r + per * below_s
        split_refu[e] = budget + g * below_r
        solv[e] = (1 - share) * ms + share * split_solv[e]
        refu[e] = (1 - share) * mr + share * split_refu[e]
        model[e] = {
            "units": lv["units"],
            "split": lv["split"],
            "solvable": lv["solvable"],
            "refuted": lv["refuted"],
            "mean_solvable_s": round(ms, 2),
            "mean_refuted_s": round(mr, 2),
            "split_share": round(share, 3),
            "guesses_per_split": round(g, 1),
            "parts_per_guess": round(per, 2),
            "refuted_guesses_per_split": round(tried, 1),
            "solvable_question_s": round(solv[e], 1),
            "refuted_question_s": round(refu[e], 1),
        }
    top = d - 1
    # p = 6: every open part of the focus opening (or of the opening with the fewest open
    # parts) solvable; what it has spent already counts against its estimate
    spent_of = {}
    for k, r in rows.items():
        root = "/".join(k.split("/")[:4])
        spent_of[root] = spent_of.get(root, 0.0) + r["seconds"]
    best = None
    for i, g0 in enumerate(plan.openings):
        if plan.state(i) is False:
            continue
        open_parts = [(s, part.size) for s, part in plan.parts[i] if s not in plan.answers[i]]
        need = sum(
            max(split_solv[top] - spent_of.get(f"exists/{g0}/{s}/{top}", 0.0), 0.0)
            for s, _ in open_parts
        )
        cand = (
            g0 != plan.search.game.code(focus) if focus not in (None, "engine") else 1,
            need,
            game.format_code(g0),
            len(open_parts),
        )
        if best is None or cand[:2] < best[:2]:
            best = cand
    open_openings = [i for i in range(len(plan.openings)) if plan.state(i) is None]
    spent = sum(r["seconds"] for r in rows.values())
    simulated = {}
    if rows:
        sim_rows = [(k, r["parent"], r["seconds"], r["split"]) for k, r in rows.items()]
        one = simulate(sim_rows, 1)
        for w in workers:
            wall = simulate(sim_rows, w)
            simulated[str(w)] = {"wall_s": round(wall, 1), "speedup": round(one / wall, 2)}
    return {
        "budget_s": budget,
        "spent_core_hours": round(spent / 3600, 3),
        "levels": {str(e): model[e] for e in sorted(model, reverse=True)},
        "open_questions": len(dry.open),
        "p6": None
        if best is None
        else {"opening": best[2], "open_parts": best[3], "core_hours": round(best[1] / 3600, 1)},
        "p7": {
            "openings": len(open_openings),
            "core_hours": round(len(open_openings) * split_refu[top] / 3600, 1),
        },
        "measured_units_on_workers": simulated,
    }
