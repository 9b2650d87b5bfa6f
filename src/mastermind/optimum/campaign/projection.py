"""The core-hours an optimum campaign (:mod:`mastermind.optimum.campaign`) still needs,
projected from the units it recorded, and the recorded units' wall time on W workers.

The cost of a part is modelled by its size: every part whose subtree is solved (its own
unit and every unit below it) is a point (size, CPU seconds), and a power law
``seconds = a * size ** b`` is fitted to them in log space (least squares; with one point,
or all of one size, ``b`` is taken as :data:`EXPONENT`).  What is left is then, for the
opening with the least bound still in the running (the cheapest way to the optimum:
every one of its parts solved), each open part's modelled cost less what its units have
spent already (``least``); and for every opening in the running (``all_openings``: an
upper estimate, since a ruled-out opening needs only part of its parts).  The wall time
on W workers divides the core-seconds by W times the efficiency the recorded units reach
on W workers when the engine's scheduling is replayed on them
(:func:`mastermind.engine.schedule.simulate`: list scheduling of the measured units, a
unit's parts offered when it splits).  A model, not a measurement: the spread of the
points (the ratio of the largest to the least residual) is given with it.  Beside it,
the measured pace (:func:`pace`): the worker-seconds per opening worked on so far, times
the openings in the running not yet worked on; its core-hours are divided on W workers
the same way (``pace`` among each worker count's wall hours).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import checks
from ...engine.schedule import simulate
from ..choice import INF
from .question import OptimumCampaign
from .state import by_part, raise_bounds, replayed, unit_rows

__all__ = [
    "EXPONENT",
    "MOST_WORKERS",
    "fit",
    "hours",
    "pace",
    "projection",
    "split_paces",
    "wall_times",
]

MOST_WORKERS = 1 << 20
"""The most workers a wall time is worked out for."""

EXPONENT = 3.0
"""The exponent taken when the points cannot give one (a part of twice the codes costing
eight times the seconds: about what the searches of [5,8]'s parts measured)."""


def fit(points: list[tuple[int, float]]) -> Optional[dict[str, float]]:
    """``seconds = a * size ** b`` fitted to (size, seconds) points in log space (None
    without a point); ``spread``: the largest over the least ratio of a point to the
    fit."""
    pts = [(math.log(n), math.log(max(s, 1e-3))) for n, s in points if n > 0]
    if not pts:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 1e-9 else EXPONENT
    a = math.exp(my - b * mx)
    ratios = [math.exp(y) / (a * math.exp(b * x)) for x, y in pts]
    return {"a": a, "b": b, "points": len(pts), "spread": max(ratios) / min(ratios)}


def hours(seconds: float) -> float:
    """Seconds as hours, to three significant figures (a model's figure: no more)."""
    h = seconds / 3600
    return 0.0 if h <= 0 else float(f"{h:.3g}")


def cost(model: Optional[dict[str, float]], size: int) -> float:
    """The modelled CPU seconds of a part of ``size`` codes (0 without a model)."""
    return 0.0 if model is None else model["a"] * size ** model["b"]


def _spent(rows: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The CPU seconds of each part of the root: its own unit's and its splits' units'."""
    return {part: sum(rows[k]["seconds"] for k in keys) for part, keys in by_part(rows).items()}


def solved_points(plan: Any, rows: dict[str, dict[str, Any]]) -> list[tuple[int, float]]:
    """(size, CPU seconds) of every part of the root solved exactly by its units."""
    out = []
    spent = _spent(rows)
    for o in getattr(getattr(plan, "root", None), "openings", []):
        for s, part, _ in o.parts or []:
            key = f"part/{o.guess}/{s}"
            if s in o.exact and key in rows:
                out.append((int(part.size), spent[key]))
    return out


def _left(plan: Any, rows: dict[str, dict[str, Any]], model: Any) -> dict[str, float]:
    """Core-seconds left: the least opening's open parts, and every opening's in the
    running."""
    root = getattr(plan, "root", None)
    if root is None or plan.done():
        return {"least": 0.0, "all_openings": 0.0}
    per = {}
    spent = _spent(rows)
    for i, o in enumerate(root.openings):
        if o.complete() or not root.alive(i):
            continue
        per[i] = sum(
            max(cost(model, int(p.size)) - spent.get(f"part/{o.guess}/{s}", 0.0), 0.0)
            for s, p, _ in root.parts(i)
            if s not in o.exact
        )
    alive = [i for i in per if root.openings[i].bound() < INF]
    least = min(alive, key=lambda i: (root.openings[i].bound(), i), default=None)
    return {"least": 0.0 if least is None else per[least], "all_openings": sum(per.values())}


def _pace_seconds(
    choice: Any, rows: dict[str, dict[str, Any]], prefix: str = "part"
) -> tuple[int, float, int]:
    """(openings of ``choice`` decided among those worked on, their worker-seconds each,
    openings still in the running and not decided): an opening worked on but still open
    is counted among those left, never in the pace, whose seconds would then be too few.
    ``prefix``: the key its openings' units start with (the root's ``part``, a split
    part's own key)."""
    spent: dict[str, float] = {}
    for k, r in rows.items():
        if k.startswith(prefix + "/"):
            g = k[len(prefix) + 1 :].split("/")[0]
            spent[g] = spent.get(g, 0.0) + r["seconds"]
    decided, left = [], 0
    for i, o in enumerate(choice.openings):
        done = o.complete() or not choice.alive(i)
        if done and str(o.guess) in spent:
            decided.append(spent[str(o.guess)])
        elif not done:
            left += 1
    per = sum(decided) / len(decided) if decided else 0.0
    return len(decided), per, left


def _pace_doc(worked: int, per: float, left: int) -> dict[str, Any]:
    return {
        "openings_worked": worked,
        "seconds_per_opening": round(per, 1) if worked else None,
        "openings_left": left,
        "left_core_hours": hours(per * left) if worked else None,
    }


def split_paces(plan: Any, rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The pace inside each part of the root that split and is still open: its second
    guesses decided, their worker-seconds each, those left (what a whole game's first
    part costs while no opening of the root is decided)."""
    return {k: _pace_doc(*_pace_seconds(sp.choice, rows, k)) for k, sp in _open_splits(plan)}


def _open_splits(plan: Any) -> list[tuple[str, Any]]:
    """The parts of the root that split and are still open, by key."""
    return [
        (k, sp)
        for k, sp in sorted(getattr(plan, "splits", {}).items())
        if k.count("/") == 2 and getattr(sp, "choice", None) is not None
    ]


def pace(plan: Any, rows: dict[str, dict[str, Any]]) -> Optional[dict[str, Any]]:
    """The measured pace, beside the model: the worker-seconds spent per opening worked
    on and decided (complete, or ruled out) so far, times the openings still in the
    running and not decided (None for a plan of one unit; the figures None before an
    opening is decided).  Openings are worked on in the search's order, the least bound
    first, so later ones are ruled out sooner: an upper estimate."""
    if getattr(plan, "root", None) is None:
        return None
    return _pace_doc(*_pace_seconds(plan.root, rows))


def wall_times(
    rows: dict[str, dict[str, Any]], workers: list[int], record: float = 0.0
) -> dict[str, dict[str, float]]:
    """The recorded units' wall time on each number of workers (the engine's scheduling
    replayed), and the speed-up and efficiency against one worker."""
    if not rows:
        return {}
    sim = [(k, r["parent"], r["seconds"], r["split"]) for k, r in rows.items()]
    one = simulate(sim, 1, record=record)
    out = {}
    for w in workers:
        wall = simulate(sim, w, record=record)
        speedup = one / wall if wall > 0 else float(w)
        out[str(w)] = {
            "wall_s": round(wall, 1),
            "speedup": round(speedup, 2),
            "efficiency": round(speedup / w, 3),
        }
    return out


def projection(
    campaign: OptimumCampaign, workers: list[int], *, record: float = 0.0
) -> dict[str, Any]:
    """The core-hours still needed (the module's docstring says how), and the recorded
    units' wall time on each number of ``workers`` (1 .. :data:`MOST_WORKERS`)."""
    if not isinstance(workers, (list, tuple)) or not 1 <= len(workers) <= 64:
        raise checks.ArgumentError("workers must be a list of 1 to 64 worker counts")
    workers = [checks.integer(w, "workers", 1, MOST_WORKERS) for w in workers]
    record = checks.seconds(record, "record", zero=True)
    rows = unit_rows(campaign.checkpoint)
    plan, dry = replayed(campaign)
    raise_bounds(plan)
    model = fit(solved_points(plan, rows))
    left = _left(plan, rows, model)
    walls = wall_times(rows, workers, record)
    paced = pace(plan, rows)
    if paced is not None and paced["openings_worked"]:
        worked, per, n = _pace_seconds(plan.root, rows)
        left = {**left, "pace": per * n}
    inside = [_pace_seconds(sp.choice, rows, k) for k, sp in _open_splits(plan)]
    if any(worked for worked, _, _ in inside):
        left = {**left, "split_paces": sum(per * n for _, per, n in inside)}
    ahead = {}
    for w in workers:
        eff = walls.get(str(w), {}).get("efficiency", 1.0) or 1.0
        ahead[str(w)] = {k: hours(v / (w * eff)) for k, v in left.items()}
    return {
        "budget_s": campaign.unit_seconds,
        "record_s": record,
        "spent_core_hours": round(sum(r["seconds"] for r in rows.values()) / 3600, 3),
        "units": len(rows),
        "open_units": len(dry.open),
        "model": model,
        "left_core_hours": {k: hours(v) for k, v in left.items() if k in ("least", "all_openings")},
        "pace": paced,
        "split_paces": split_paces(plan, rows),
        "left_wall_hours_on_workers": ahead,
        "measured_units_on_workers": walls,
    }
