"""Where an optimum campaign (:mod:`mastermind.optimum.campaign`) stands, read from its
checkpoint: the question replayed through the plan with nothing run
(:func:`replayed`), the bounds of the parts still open raised to what their splits
prove (:func:`raise_bounds`), and, per opening and part, an exact total or a proved
lower bound (:func:`state`, written to ``state.json`` by every run and export), and the
tables people read.

What each number is: a part's ``exact`` total is the optimum of its set, from a search
that finished (its tree replayed on the set when it was recorded); a part's ``lower`` is
proved: the bound its search proved when it was solved below a limit (``above limit``),
the least bound over the guesses still in the running at its set while it is split and
open (``split``), or the counting estimate (``estimate``).  An opening's bound is its
set's size plus its parts' totals or bounds; the campaign's lower bound is the least
bound of an opening still in the running (docs/optimal.md, "Why every cut is sound").
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

from ...engine.checkpoint import open_checkpoint, read_units
from ...engine.folder import CampaignFileError, read_json
from ...engine.own_files import OwnDestination
from ...engine.replay import DryExecutor, Replayed
from ...engine.run import Run
from ...stopping import new_flag
from ..choice import INF
from .question import OptimumCampaign, plan_of

__all__ = [
    "by_part",
    "raise_bounds",
    "read_state",
    "replayed",
    "state",
    "text_table",
    "unit_rows",
    "write_state",
]


def replayed(campaign: OptimumCampaign) -> tuple[Any, DryExecutor]:
    """The plan with every answer the checkpoint gives (merges of split units included),
    and the units left open (none recorded: a fresh plan, everything open)."""
    dry = DryExecutor()
    recorded: set[str] = set()
    store = None
    if os.path.exists(campaign.checkpoint):
        want = campaign.run_of()
        store = open_checkpoint(
            campaign.checkpoint, "optimal", want["game"], want["params"], read_only=True
        )
        store.foreign_rows = True  # (made from the shards: a stranger's rows)
        recorded = store.keys()
    try:
        plan = plan_of(campaign, recorded)
        budget = campaign.unit_seconds if hasattr(plan, "expand") else None
        try:
            Run(dry, store).execute(plan, new_flag(), None, None, budget)
        except Replayed:
            pass
    finally:
        if store is not None:
            store.close()
    return plan, dry


def raise_bounds(plan: Any) -> None:
    """Each part being solved by a split (its own choice still open) given the bound its
    choice proves so far, deepest first, so that every opening's bound above it counts
    it (a proved lower bound, as an answer above a limit is: bounds only rise)."""
    splits = getattr(plan, "splits", {})
    for key in sorted(splits, key=lambda k: -k.count("/")):
        low = splits[key].choice.lower()
        parent = splits.get(key.rsplit("/", 2)[0])
        where = plan.inflight.get(key) if parent is None else parent.keys.get(key)
        if where is None:
            continue
        choice = plan.root if parent is None else parent.choice
        i, s = where
        o = choice.openings[i]
        est = next(e for t, _, e in choice.parts(i) if t == s)
        if s not in o.exact and low > o.lower.get(s, est):
            o.lower[s] = low
            o.changed()


def unit_rows(path: str) -> dict[str, dict[str, Any]]:
    """Every recorded unit: key -> parent, size, seconds, split."""
    if not os.path.exists(path):
        return {}
    return {
        k: {"parent": p, "size": int(n), "seconds": float(t), "split": bool(sp)}
        for k, p, n, t, sp in read_units(path)
    }


def by_part(keys: Any) -> dict[str, list[str]]:
    """Unit keys grouped by the part of the root they belong to (``part/G/S``: the
    part's own unit and every unit its splits made), in one pass."""
    out: dict[str, list[str]] = {}
    for k in keys:
        out.setdefault("/".join(k.split("/", 3)[:3]), []).append(k)
    return out


def _part_entry(plan: Any, i: int, s: int, size: int, work: dict[str, Any]) -> dict[str, Any]:
    """One part of opening i: its exact total or proved bound, how, and its work."""
    root, game = plan.root, plan.game
    o = root.openings[i]
    key = f"part/{o.guess}/{s}"
    entry: dict[str, Any] = {"score": str(game.slots[s]), "size": size}
    if s in o.exact:
        entry.update(state="exact", value=int(o.exact[s]), how="solved")
    else:
        est = next(e for t, _, e in root.parts(i) if t == s)
        how = "estimate"
        if s in o.lower:
            how = "split" if key in plan.splits else "above limit"
        entry.update(state="bound", value=int(o.lower.get(s, est)), how=how)
    rows = work["rows"]
    mine = work["rows_by_part"].get(key, [])
    entry.update(
        units=len(mine),
        splits=sum(rows[k]["split"] for k in mine),
        seconds=round(sum(rows[k]["seconds"] for k in mine), 1),
        open_units=len(work["open_by_part"].get(key, [])),
    )
    return entry


def _openings(plan: Any, work: dict[str, Any]) -> list[dict[str, Any]]:
    """Each opening worked on (or the only one): its state, bound and parts.  An opening
    none of whose parts has a unit recorded is left out (its bound is the counting
    estimates'; :func:`_untouched` sums them up)."""
    root, game = plan.root, plan.game
    chosen = plan.chosen() if plan.done() else None
    out = []
    for i, o in enumerate(root.openings):
        if o.parts is None and len(root.openings) > 1:
            continue  # (never looked at: its bound is the scan's)
        parts = sorted(root.parts(i), key=lambda p: (-p[1].size, p[0]))
        entries = [_part_entry(plan, i, s, int(p.size), work) for s, p, _ in parts]
        if len(root.openings) > 1 and not any(p["units"] for p in entries):
            continue
        words = "optimal" if o is chosen else "exact" if o.complete() else "open"
        if not o.complete() and not root.alive(i):
            words = "ruled out"
        out.append(
            {
                "opening": game.format_code(o.guess),
                "state": words,
                "bound": int(min(o.bound(), INF)),
                "parts": entries,
            }
        )
    return out


def _untouched(plan: Any, listed: list[dict[str, Any]]) -> dict[str, Any]:
    """The openings of the root not listed (no unit of theirs recorded): how many are
    still in the running, and the least bound among them."""
    root, game = plan.root, plan.game
    seen = {o["opening"] for o in listed}
    rest = [
        (o.bound(), i)
        for i, o in enumerate(root.openings)
        if game.format_code(o.guess) not in seen and root.alive(i)
    ]
    least = min(rest, default=None)
    return {
        "openings": len(root.openings),
        "listed": len(listed),
        "untouched_in_running": len(rest),
        "untouched_least_bound": None if least is None else int(min(least[0], INF)),
    }


def _summary(plan: Any, rows: dict[str, dict[str, Any]], dry: DryExecutor) -> dict[str, Any]:
    """The answer: exact with its total, or the proved lower bound and the least total
    known, or no strategy at all (within the most guesses); the work recorded."""
    done = plan.done()
    answer = plan.answer(done=done)
    feasible = not (done and answer is not None and answer.value >= INF)
    if answer is None or not feasible:  # (a plan of one unit not answered yet, or none)
        exact, total, lower, upper = not feasible, None, None, None
    else:
        exact = done
        total = int(answer.value) if exact else None
        lower = int(answer.lower) if 0 <= answer.lower < INF else None
        best = plan.best()[0] if hasattr(plan, "best") else INF
        upper = total if exact else (int(best) if best < INF else None)
    return {
        "done": bool(done),
        "exact": bool(exact),
        "feasible": feasible,
        "total": total,
        "lower": lower,
        "upper": upper,
        "units": len(rows),
        "splits": sum(r["split"] for r in rows.values()),
        "seconds": round(sum(r["seconds"] for r in rows.values()), 1),
        "open_units": len(dry.open),
    }


def question_text(campaign: OptimumCampaign) -> str:
    game = campaign.game
    text = f"the least total number of guesses of {game.name}"
    if campaign.after:
        text += " after " + ", ".join(f"{g} = ({s})" for g, s in campaign.after)
    if campaign.first:
        text += f", opening {campaign.first}"
    if campaign.max_guesses:
        text += f", within {campaign.max_guesses} guesses"
    return text + (", candidates only" if campaign.candidates_only else "")


def state(campaign: OptimumCampaign) -> dict[str, Any]:
    """Where the campaign stands (its checkpoint replayed), as ``state.json`` holds it."""
    plan, dry = replayed(campaign)
    raise_bounds(plan)
    rows = unit_rows(campaign.checkpoint)
    work = {"rows": rows, "rows_by_part": by_part(rows), "open_by_part": by_part(dry.open)}
    game = campaign.game
    path = campaign.checkpoint
    listed = _openings(plan, work) if hasattr(plan, "root") else []
    return {
        "game": {"pegs": game.n, "colours": game.k, "variant": game.variant.value},
        "question": question_text(campaign),
        "after": [list(p) for p in campaign.after],
        "first": campaign.first,
        "secrets": int(plan.root.cands.size) if hasattr(plan, "root") else int(plan.unit.size),
        "summary": _summary(plan, rows, dry),
        "openings": listed,
        "untouched": _untouched(plan, listed) if hasattr(plan, "root") else None,
        "checkpoint": {"bytes": os.path.getsize(path) if os.path.exists(path) else 0},
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


MOST_BYTES = 64 << 20
"""The most bytes ``state.json`` may hold when it is read."""


def write_state(doc: dict[str, Any], path: str) -> None:
    """``doc`` to ``path``, replaced whole (never through a link)."""
    with OwnDestination(path, "the campaign's state") as out:
        out.write(json.dumps(doc, indent=1) + "\n")


def read_state(campaign: OptimumCampaign) -> Optional[dict[str, Any]]:
    """The campaign's ``state.json`` (None when there is none), read bounded;
    :class:`CampaignFileError` for one that is not a JSON object."""
    path = campaign.path("state.json")
    doc = read_json(path, "the campaign's state", MOST_BYTES)
    if doc is not None and not isinstance(doc, dict):
        raise CampaignFileError(f"{path}: the campaign's state is not a JSON object")
    return doc


def text_table(doc: dict[str, Any], *, brief: bool = False) -> str:
    """The state as lines of text: the answer, the openings not worked on, then each
    opening worked on (the parts of those still in the running); with ``brief``, the
    first three lines only."""
    s = doc["summary"]
    if s.get("feasible") is False:
        head = "no strategy at all (proved)"
    elif s["exact"]:
        head = f"optimum {s['total']:,} (exact)"
    else:
        low = "?" if s["lower"] is None else f"{s['lower']:,}"
        up = "" if s["upper"] is None else f", a strategy of {s['upper']:,} known"
        head = f"optimum at least {low} (proved){up}; not finished"
    lines = [
        f"{doc['question']}: {head}",
        f"{s['units']} units recorded ({s['splits']} splits), {s['seconds']:.0f} worker-s; "
        f"{s['open_units']} units open",
    ]
    u = doc.get("untouched")
    if u:
        least = u["untouched_least_bound"]
        lines.append(
            f"{u['openings']} openings: {u['listed']} worked on (below), "
            f"{u['untouched_in_running']} not yet, still in the running"
            + ("" if least is None else f" (the least bound among them {least:,})")
        )
    if brief:
        return "\n".join(lines) + "\n"
    for o in doc["openings"]:
        exact = sum(p["state"] == "exact" for p in o["parts"])
        lines.append(
            f"{o['opening']}: {o['state']}, bound {o['bound']:,}, "
            f"{exact}/{len(o['parts'])} parts exact"
        )
        for p in o["parts"] if o["state"] != "ruled out" else ():
            if p["state"] == "exact" and p["units"] == 0:
                continue
            lines.append(
                f"  {p['score']:>4} {p['size']:>6} {p['state']:<5} {p['value']:>8,} "
                f"({p['how']}) {p['units']:>6} units {p['splits']:>4} splits "
                f"{p['seconds']:>9.1f} s {p['open_units']:>5} open"
            )
    return "\n".join(lines) + "\n"
