"""Where a campaign (:mod:`mastermind.worstcase.campaign`) stands, read from its checkpoint: every recorded
unit, the question replayed through the plan with nothing run (:func:`replay`), the
state per opening and part, each open part's guesses refuted, proved and open
(:func:`state`, written to ``state.json`` by every run and export, so that a look at a
campaign never has to rebuild its checkpoint), the tables people read, and the
projection of the core-hours still needed from the units measured (:func:`projection`;
docs/bounds.md says how).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

import numpy as np

from ...engine.checkpoint import open_checkpoint
from ...engine.own_files import OwnDestination
from ...engine.replay import DryExecutor, Replayed
from ...engine.rows import connect_read_only, decode
from ...engine.run import Run
from ...stopping import new_flag
from ...strategy_tree import split_by_score
from .certificates import certified as certified_parts
from .folder import CampaignFileError, read_json
from .question import Campaign, FocusPlan, checkpoint_params_of, setup
from .summary import summary_of

__all__ = [
    "DryExecutor",
    "markdown_table",
    "read_state",
    "recorded_since",
    "replay",
    "replayed",
    "state",
    "text_table",
    "unit_rows",
    "write_state",
]

STATES = {True: "solvable", False: "refuted", None: "open"}
NOT_NEEDED = "not needed"
"""The state of a part left unanswered because its opening (or the question) was decided
without it: nothing more is asked of it."""
WORDS = (*STATES.values(), NOT_NEEDED)


# --------------------------------------------------------------------------- replay
def replay(campaign: Campaign) -> tuple[FocusPlan, DryExecutor]:
    """The plan with every answer the checkpoint gives (merges of split units included),
    and the open questions left."""
    plan, dry, _ = replayed(campaign)
    return plan, dry


def replayed(campaign: Campaign) -> tuple[FocusPlan, DryExecutor, Any]:
    """:func:`replay`, and the plan's search (for the witness of a question proved)."""
    flag = new_flag()
    dry = DryExecutor()
    store = open_checkpoint(
        campaign.checkpoint,
        "bound",
        campaign.game.spec().definition(),
        checkpoint_params_of(campaign),
        read_only=True,  # (a run may be writing it meanwhile)
    )
    store.foreign_rows = True  # (made from the shards: a stranger's rows)
    try:
        run = Run(dry, store)
        plan, search = setup(campaign, run)
        if plan.openings:
            try:
                run.execute(plan, flag, None, None, campaign.unit_seconds)
            except Replayed:
                pass
    finally:
        store.close()
    return plan, dry, search


# --------------------------------------------------------------------------- rows
def recorded_since(path: str, since: float) -> int:
    """Units whose row was written at or after ``since`` (a wall-clock time): the units
    a run ran (a unit run again would replace its row, and count here)."""
    conn = connect_read_only(path)
    try:
        query = "SELECT COUNT(*) FROM units WHERE finished >= ?"
        return int(conn.execute(query, (since,)).fetchone()[0])
    finally:
        conn.close()


def unit_rows(path: str) -> dict[str, dict[str, Any]]:
    """Every recorded unit: key -> parent, size, seconds, split, ok, nodes."""
    conn = connect_read_only(path)
    try:
        rows = conn.execute(  # (read at once: a run writing the file waits for readers)
            "SELECT u.key, COALESCE(s.parent, ''), u.size, u.seconds, COALESCE(s.split, 0), "
            "u.result FROM units u LEFT JOIN splits s ON s.key = u.key ORDER BY u.finished"
        ).fetchall()
    finally:
        conn.close()
    out = {}
    for key, parent, size, secs, split, blob in rows:
        try:
            res = decode(blob)
        except Exception:  # (a damaged answer: the replay runs its unit again)
            res = {}
        ok, nodes = res.get("ok"), res.get("nodes", 0)
        out[key] = {
            "parent": parent,
            "size": int(size),
            "seconds": float(secs),
            "split": bool(split),
            "ok": None if split or ok not in (0, 1) else int(ok),
            "nodes": int(nodes) if isinstance(nodes, int) and nodes >= 0 else 0,
        }
    return out


# --------------------------------------------------------------------------- the state
def _part_entry(
    campaign: Campaign,
    plan: FocusPlan,
    dry: DryExecutor,
    rows: dict[str, dict[str, Any]],
    i: int,
    s: int,
    part: np.ndarray,
) -> dict[str, Any]:
    """One part of opening i: its state, the work spent on it, and what is open in it."""
    game, size = campaign.game, int(part.size)
    key = plan.key(i, s)
    mine = [r for k, r in rows.items() if k == key or k.startswith(key + "/")]
    ans = plan.answers[i].get(s) if size >= 3 else (size <= campaign.guesses - 1)
    word = STATES[ans]
    if ans is None and (plan.state(i) is not None or plan.decided()):
        # decided without it: its own answer, when one was recorded before (and holds)
        ans = _kept_answer(campaign, plan, i, s, part, rows.get(key))
        word = NOT_NEEDED if ans is None else STATES[ans]
    entry: dict[str, Any] = {
        "score": str(game.slots[s]),
        "size": size,
        "state": word,
        "units": len(mine),
        "splits": sum(r["split"] for r in mine),
        "seconds": round(sum(r["seconds"] for r in mine), 2),
        "nodes": sum(r["nodes"] for r in mine),
        "open_units": sum(1 for k in dry.open if k == key or k.startswith(key + "/")),
    }
    if ans is not None and s not in plan.answers[i] and size >= 3:
        entry["note"] = "answered before the decision; not needed for it"
    counts = plan.guess_counts(key)
    if counts is not None:
        entry["guesses"] = dict(zip(("refuted", "solvable", "open"), counts))
    if ans and (i, s) in plan.recs:
        recs = plan.recs[(i, s)]
        entry["witness"] = {"guess": game.format_code(int(recs[0, 2])), "records": len(recs)}
    return entry


def _kept_answer(
    campaign: Campaign,
    plan: FocusPlan,
    i: int,
    s: int,
    part: np.ndarray,
    row: Optional[dict[str, Any]],
) -> Optional[bool]:
    """The answer recorded for part s of opening i that the replay never took (its
    opening was decided first): True or False when its row holds a whole answer that
    holds for the part (a yes's witness replayed, as a run checks it), else None."""
    if row is None or row["ok"] is None or part.size < 3:
        return None
    conn = connect_read_only(campaign.checkpoint)
    try:
        got = conn.execute("SELECT result FROM units WHERE key = ?", (plan.key(i, s),)).fetchone()
    finally:
        conn.close()
    try:
        result = decode(got[0]) if got is not None else None
    except Exception:  # (a damaged answer: none)
        return None
    if result is None or not plan.valid(plan.unit_of(i, s, part), result):
        return None
    return bool(int(result["ok"]))


def _openings(
    campaign: Campaign, plan: FocusPlan, dry: DryExecutor, rows: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each opening with its parts (the largest first)."""
    game = campaign.game
    out = []
    for i, g in enumerate(plan.openings):
        parts = sorted(
            split_by_score(game, g, np.ascontiguousarray(game.secrets)), key=lambda p: -p[1].size
        )
        entries = [
            _part_entry(campaign, plan, dry, rows, i, s, part)
            for s, part in parts
            if s != game.win_slot
        ]
        out.append(
            {"opening": game.format_code(g), "state": STATES[plan.state(i)], "parts": entries}
        )
    return out


def state(
    campaign: Campaign,
    known: dict[str, Any],
    checked: Optional[dict[str, str]] = None,
    replay_done: Optional[tuple[FocusPlan, DryExecutor, Any]] = None,
) -> dict[str, Any]:
    """Where the campaign stands (its checkpoint replayed), as ``state.json`` holds it.
    ``checked``: the SHA-256 of the certificates already checked (by name), not checked
    again (:func:`.certificates.certified`).  ``replay_done``: :func:`replayed`'s answer
    when the caller has it (a replay of a big campaign takes a while)."""
    plan, dry, _ = replay_done if replay_done is not None else replayed(campaign)
    path = campaign.checkpoint
    rows = unit_rows(path) if os.path.exists(path) else {}
    openings = _openings(campaign, plan, dry, rows)
    parts = [p for o in openings for p in o["parts"] if p["size"] >= 3]
    certified, sums = certified_parts(campaign, checked)
    summary = summary_of(campaign, plan, known, certified)
    summary.update(
        parts=len(parts),
        **{word: sum(p["state"] == word for p in parts) for word in WORDS},
        units=len(rows),
        splits=sum(r["split"] for r in rows.values()),
        seconds=round(sum(r["seconds"] for r in rows.values()), 1),
        nodes=sum(r["nodes"] for r in rows.values()),
        open_units=len(dry.open),
    )
    game, d = campaign.game, campaign.guesses
    return {
        "game": {"pegs": game.n, "colours": game.k, "variant": game.variant.value},
        "question": f"can every secret be found within {d} guess{'es' if d != 1 else ''}?",
        "guesses": d,
        "known": {**known, "lower": summary["lower"], "upper": summary["upper"]},
        "focus": campaign.focus,
        "certificates": sums,
        "checkpoint": {"bytes": os.path.getsize(path) if os.path.exists(path) else 0},
        "summary": summary,
        "openings": openings,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


MOST_BYTES = 64 << 20
"""The most bytes ``state.json`` may hold when it is read (a campaign of [5,8] writes
20 kB)."""


def write_state(doc: dict[str, Any], path: str) -> None:
    """``doc`` to ``path``, replaced whole (a temporary file beside it first, never
    through a link)."""
    with OwnDestination(path, "the campaign's state") as out:
        out.write(json.dumps(doc, indent=1) + "\n")


def read_state(campaign: Campaign) -> Optional[dict[str, Any]]:
    """The campaign's ``state.json`` (None when there is none): read without following a
    link, at most :data:`MOST_BYTES`, NaN read as null; :class:`CampaignFileError` for
    one that is not a JSON object."""
    path = campaign.path("state.json")
    doc = read_json(path, "the campaign's state", MOST_BYTES)
    if doc is not None and not isinstance(doc, dict):
        raise CampaignFileError(f"{path}: the campaign's state is not a JSON object")
    return doc


# --------------------------------------------------------------------------- tables
def text_table(doc: dict[str, Any]) -> str:
    """The state as lines of text: the summary, then each opening and its parts."""
    s = doc["summary"]
    answer = {True: "yes", False: "no"}.get(s.get("answer"), "not decided")
    if "answer" not in s:  # (its words about p, of an earlier version, may be wrong)
        answer = "decided" if s.get("decided") else "not decided"
        answer += "; a state of an earlier version: status --replay works it out again"
    lines = [
        f"{s['text']} (question: {doc['question']} {answer})",
        *([f"WARNING: {s['warning']}"] if s.get("warning") else []),
        f"{s['parts']} parts of 3 codes or more: {s['solvable']} solvable, "
        f"{s['refuted']} refuted, {s['open']} open"
        + (f", {s[NOT_NEEDED]} not needed" if s.get(NOT_NEEDED) else "")
        + f"; {s['units']} units recorded "
        f"({s['splits']} splits), {s['seconds']:.0f} worker-s, {s['nodes']:,} nodes; "
        f"{s['open_units']} questions open",
    ]
    for o in doc["openings"]:
        shown = [p for p in o["parts"] if p["size"] >= 3]
        solved = sum(p["state"] == "solvable" for p in shown)
        lines.append(f"{o['opening']}: {o['state']}, {solved}/{len(shown)} parts solvable")
        idle = [p for p in shown if p["state"] == NOT_NEEDED and not p["units"]]
        # (an opening still open when the question was decided by another)
        whose = "the question" if o["state"] == "open" else "its opening"
        for p in shown:
            if (p["state"] == "solvable" and p["units"] == 0) or p in idle:
                continue
            g = p.get("guesses")
            guesses = (
                f"  guesses: {g['refuted']} refuted, {g['solvable']} solvable, {g['open']} open"
                if g
                else ""
            )
            note = f"  (before {whose} was decided)" if p.get("note") else ""
            lines.append(
                f"  {p['score']:>4} {p['size']:>6} {p['state']:<10} {p['units']:>7} units "
                f"{p['splits']:>5} splits {p['seconds']:>9.1f} s {p['nodes']:>12,} nodes"
                f" {p['open_units']:>6} open{guesses}{note}"
            )
        if idle:
            sizes = ", ".join(f"{p['size']:,}" for p in idle)
            why = "the question" if o["state"] == "open" else "the opening"
            lines.append(f"  not needed ({why} decided without them): {sizes} codes")
    return "\n".join(lines) + "\n"


def markdown_table(doc: dict[str, Any]) -> str:
    """One row per opening (docs/bounds.md): its parts solvable within d - 1 more (the
    largest), refuted, open (codes; the work spent on each open part), and not needed
    (how many: the opening was decided without them)."""
    lines = [
        "| opening | parts | solvable (largest) | refuted | open (codes: units, worker-s) "
        "| not needed |",
        "| --- | ---: | --- | --- | --- | ---: |",
    ]
    for o in doc["openings"]:
        parts = [p for p in o["parts"] if p["size"] >= 3]
        by = {w: [p for p in parts if p["state"] == w] for w in WORDS}
        big = max((p["size"] for p in by["solvable"]), default=0)
        refuted = ", ".join(f"{p['size']:,}" for p in by["refuted"]) or "none"
        open_ = ", ".join(
            f"{p['size']:,}" + (f": {p['units']:,}, {p['seconds']:,.0f} s" if p["units"] else "")
            for p in by["open"]
        )
        lines.append(
            f"| {o['opening']} | {len(o['parts'])} | {len(by['solvable'])} ({big:,}) | "
            f"{refuted} | {open_} | {len(by[NOT_NEEDED])} |"
        )
    return "\n".join(lines) + "\n"
