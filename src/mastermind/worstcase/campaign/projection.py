"""The core-hours a campaign (:mod:`mastermind.worstcase.campaign`) still needs, projected from the units it
measured, and the wall time of its recorded units on W workers.

Per level (guesses left): the answered units' mean seconds (solvable, refuted), the
share s that split, and per split its guesses G, its sub-questions per guess P (from the
split's expansion) and the guesses R refuted so far.  Bottom up, a question that splits
costs, when solvable, ``budget + R * refuted(below) + P * solvable(below)`` (R guesses
refuted, then one whose P parts are all solvable), when refuted ``budget + G *
refuted(below)`` (every guess, each refuted by the first part tried); any question
costs ``(1 - s) * mean + s * that``.  The open parts at the root (each outlasted earlier
runs) are counted as questions that split.  Lower estimates while the splits are in
progress (R only grows).  A level with no answers costs one budget.

The wall times replay the engine's scheduling (:func:`mastermind.engine.schedule.simulate`)
with the client's own cost of recording each unit (``record``, seconds) included.
"""

from __future__ import annotations

from typing import Any

from ... import checks
from ...engine.schedule import simulate
from .question import Campaign, FocusPlan
from .state import replay, unit_rows

__all__ = ["MOST_WORKERS", "projection"]

MOST_WORKERS = 1 << 20
"""The most workers a wall time is worked out for."""


def depth_of(key: str) -> int:
    """Guesses played above a question, beyond the opening (0 for a root part)."""
    return (len(key.split("/")) - 4) // 2


def _tallies(rows: dict[str, dict[str, Any]], plan: FocusPlan, d: int) -> dict[int, dict]:
    """Per level (guesses left): units, splits, answers and their seconds, and the
    splits' guesses, sub-questions and guesses refuted so far."""
    refuted_guesses: dict[str, set[str]] = {}  # a refuted part refutes its guess
    for k, r in rows.items():
        if r["parent"] and r["ok"] == 0:
            refuted_guesses.setdefault(r["parent"], set()).add(k.split("/")[-2])
    levels: dict[int, dict[str, Any]] = {}
    for k, r in rows.items():
        lv = levels.setdefault(d - 1 - depth_of(k), dict.fromkeys(_FIELDS, 0))
        lv["units"] += 1
        if r["split"]:
            lv["split"] += 1
            lv["refuted_guesses"] += len(refuted_guesses.get(k, ()))
            guesses, subs = plan.expansions.get(k, (0, 0))
            lv["guesses"] += guesses
            lv["subs"] += subs
        else:
            kind = "solvable" if r["ok"] else "refuted"
            lv[kind] += 1
            lv[kind + "_s"] += r["seconds"]
    return levels


_FIELDS = [
    "units",
    "split",
    "solvable",
    "refuted",
    "solvable_s",
    "refuted_s",
    "guesses",
    "subs",
    "refuted_guesses",
]


def _model(levels: dict[int, dict], d: int, budget: float) -> tuple[dict, dict]:
    """Each level's costs, bottom up; and what a question known to split costs at each
    level ({level: (solvable, refuted)})."""
    solv: dict[int, float] = {}
    refu: dict[int, float] = {}
    split: dict[int, tuple[float, float]] = {}
    model = {}
    for e in range(min(levels, default=d - 1), d):
        lv = levels.get(e) or dict.fromkeys(_FIELDS, 0)
        answered = lv["solvable"] + lv["refuted"]
        mean = (lv["solvable_s"] + lv["refuted_s"]) / answered if answered else budget
        ms = lv["solvable_s"] / lv["solvable"] if lv["solvable"] else mean
        mr = lv["refuted_s"] / lv["refuted"] if lv["refuted"] else mean
        share = lv["split"] / lv["units"] if lv["units"] else 0.0
        g = lv["guesses"] / lv["split"] if lv["split"] else 0.0
        per = lv["subs"] / lv["guesses"] if lv["guesses"] else 0.0
        tried = lv["refuted_guesses"] / lv["split"] if lv["split"] else 0.0
        below_s, below_r = solv.get(e - 1, budget), refu.get(e - 1, budget)
        split[e] = (budget + tried * below_r + per * below_s, budget + g * below_r)
        solv[e] = (1 - share) * ms + share * split[e][0]
        refu[e] = (1 - share) * mr + share * split[e][1]
        model[e] = {
            **{k: lv[k] for k in ("units", "split", "solvable", "refuted")},
            "mean_solvable_s": round(ms, 2),
            "mean_refuted_s": round(mr, 2),
            "split_share": round(share, 3),
            "guesses_per_split": round(g, 1),
            "parts_per_guess": round(per, 2),
            "refuted_guesses_per_split": round(tried, 1),
            "solvable_question_s": round(solv[e], 1),
            "refuted_question_s": round(refu[e], 1),
        }
    return model, split


def _p6(campaign: Campaign, plan: FocusPlan, rows: dict[str, dict], solvable_split: float) -> Any:
    """The cheapest way to d: every open part of one opening solvable (the focus first),
    what its parts have spent counting against the estimate."""
    game, top = campaign.game, campaign.guesses - 1
    spent: dict[str, float] = {}
    for k, r in rows.items():
        root = "/".join(k.split("/")[:4])
        spent[root] = spent.get(root, 0.0) + r["seconds"]
    focus = None if campaign.focus in (None, "engine") else game.code(campaign.focus)
    best = None
    for i, g0 in enumerate(plan.openings):
        if plan.state(i) is False:
            continue
        open_parts = [s for s, _ in plan.parts[i] if s not in plan.answers[i]]
        need = sum(
            max(solvable_split - spent.get(f"exists/{g0}/{s}/{top}", 0.0), 0.0) for s in open_parts
        )
        cand = (g0 != focus if focus is not None else True, need, g0, len(open_parts))
        if best is None or cand[:2] < best[:2]:
            best = cand
    if best is None:
        return None
    return {
        "opening": game.format_code(best[2]),
        "open_parts": best[3],
        "core_hours": round(best[1] / 3600, 1),
    }


def projection(campaign: Campaign, workers: list[int], *, record: float = 0.0) -> dict[str, Any]:
    """The core-hours still needed (the module's docstring says how), and the recorded
    units' wall time on each number of ``workers`` (the client spending ``record``
    seconds on each unit): each 1 .. :data:`MOST_WORKERS`, ``record`` >= 0."""
    if not isinstance(workers, (list, tuple)) or not 1 <= len(workers) <= 64:
        raise checks.ArgumentError("workers must be a list of 1 to 64 worker counts")
    workers = [checks.integer(w, "workers", 1, MOST_WORKERS) for w in workers]
    record = checks.seconds(record, "record", zero=True)
    rows = unit_rows(campaign.checkpoint)
    plan, dry = replay(campaign)
    budget = campaign.unit_seconds
    model, split = _model(_tallies(rows, plan, campaign.guesses), campaign.guesses, budget)
    top = campaign.guesses - 1
    open_openings = sum(plan.state(i) is None for i in range(len(plan.openings)))
    simulated = {}
    if rows:
        sim = [(k, r["parent"], r["seconds"], r["split"]) for k, r in rows.items()]
        one = simulate(sim, 1, record=record)
        for w in workers:
            wall = simulate(sim, w, record=record)
            simulated[str(w)] = {"wall_s": round(wall, 1), "speedup": round(one / wall, 2)}
    return {
        "budget_s": budget,
        "record_s": record,
        "spent_core_hours": round(sum(r["seconds"] for r in rows.values()) / 3600, 3),
        "levels": {str(e): model[e] for e in sorted(model, reverse=True)},
        "open_questions": len(dry.open),
        "p_low": _p6(campaign, plan, rows, split[top][0]),
        "p_high": {
            "openings": open_openings,
            "core_hours": round(open_openings * split[top][1] / 3600, 1),
        },
        "measured_units_on_workers": simulated,
    }
