"""p(5,8), the worst case of [5,8], decided resumably by the package's engine.

p(5,8) is 6 or 7: 5 guesses never suffice (``solution_exists(Game(5, 8), 5)`` is False,
a fraction of a second) and the minmax strategy needs 7.  6 suffice exactly when one of
the 7 openings (one per symmetry class, as the kernel's search ranks them) has every
part of its partition solvable within 5 more guesses.  Each (opening, part, 5 guesses
left) question is a unit of :mod:`mastermind.units_bounds` (``exists_unit``, the same
key, input and answer as ``worst_case``'s units), run on the engine with a unit budget:
a unit past it splits into its guesses' parts within 4, recursively, and the SQLite
checkpoint records every answered unit (a solvable one with its witness records) and
every split, so a stopped run (Ctrl-C, SIGTERM, ``--time-limit``) resumes where it
stopped, on this machine or any other (the file is the state; ``mastermind bound -n 5
-k 8 --checkpoint FILE`` reads the same file).

The only difference from ``worst_case``'s own plan is the order in which the root's
units are offered (``--focus``): the engine's order tries the openings one after the
other, each one's parts largest first (the first to be refuted); ``--focus CODE`` offers
that opening's parts first, smallest first (the first to be solved), then the others in
the engine's order.  The answer does not depend on the order: the question at the root
is decided when one opening has every part solvable (p = 6, the witness is put together,
checked by ``check_strategy`` and written) or every opening has a refuted part (p = 7).

    python scripts/p58.py run [--time-limit S] [--unit-seconds S] [--jobs N | --scheduler ADDR]
    python scripts/p58.py status [--json]
    python scripts/p58.py projection [--json] [--workers 1,16,64,512]
    python scripts/p58.py export FILE.jsonl.gz / import FILE.jsonl.gz

``status`` replays the checkpoint through the same plan (no search: every unit not
recorded is counted as open) and writes ``state.json`` beside it; ``projection`` turns
the units measured into the core-hours still needed (docs/bounds.md says how);
``export``/``import`` move the checkpoint's rows to and from a compressed JSON lines file.
``-n``/``-k``/``--guesses`` run the same question on another game (the tests use [4,6]).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

from mastermind.analysis import analyze
from mastermind.bounds import check_strategy, solution_exists
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.run import Run, open_run
from mastermind.engine.units import Unit, spec_of
from mastermind.errors import MastermindError
from mastermind.game import Game
from mastermind.search import Search, SearchUnfinished
from mastermind.stopping import TimeLimitReached, new_flag
from mastermind.strategies import symmetry_classes
from mastermind.strategy_walk import Node, build_tree, split_by_score
from mastermind.units_bounds import ExistsPlan, UnitSearch, checkpoint_params, root_openings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results" / "p58"
MEMORY_MB = 1024  # each unit's memo (part of the checkpoint's header: keep it fixed)
UNIT_SECONDS = 60.0


# --------------------------------------------------------------------------- the plan
class FocusPlan(ExistsPlan):
    """:class:`~mastermind.units_bounds.ExistsPlan`'s units (same keys, same inputs, so
    the same checkpoint rows), offered in the order ``focus`` asks, and done as soon as
    the question at the root is decided: one opening with every part solvable, or
    every opening with a part refuted.  Keeps each solvable part's witness records."""

    def __init__(
        self,
        search: UnitSearch,
        cands: np.ndarray,
        openings: list[int],
        d: int,
        focus: Optional[int] = None,
    ):
        super().__init__(search, cands, openings, d)
        self.recs: dict[tuple[int, int], np.ndarray] = {}
        order = list(range(len(openings)))
        queue: list[tuple[int, int]] = []
        if focus is not None and focus in openings:
            i = openings.index(focus)
            order.remove(i)
            queue.extend((i, t) for t in reversed(range(len(self.parts[i]))))
        for i in order:
            queue.extend((i, t) for t in range(len(self.parts[i])))
        self.queue = queue
        self.pos = 0
        self.part_nodes: dict[tuple[int, int], int] = {}
        self.expansions: dict[str, tuple[int, int]] = {}  # split key -> (guesses, subs)

    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        children = super().expand(unit, split)  # none: made one at a time (``more``)
        game = self.search.game
        guesses = np.ascontiguousarray(split["openings"], dtype=np.int32)
        sizes = np.delete(game.kernel.histograms(guesses, unit.args["cands"]), game.win_slot, 1)
        # (guesses, sub-questions it can ask: the parts of 3 codes or more of every guess)
        self.expansions[unit.key] = (int(guesses.size), int((sizes >= 3).sum()))
        return children

    def decided(self) -> bool:
        states = [self.state(i) for i in range(len(self.openings))]
        return True in states or all(s is False for s in states)

    def done(self) -> bool:
        return self.decided()

    def answer(self) -> int:
        for i, g in enumerate(self.openings):
            if self.state(i) is True:
                return g
        if all(self.state(i) is False for i in range(len(self.openings))):
            return -1
        raise RuntimeError("the question is not decided")

    def next(self) -> Optional[Unit]:
        if self.decided():
            return None
        while self.pos < len(self.queue):
            i, t = self.queue[self.pos]
            self.pos += 1
            s, part = self.parts[i][t]
            if s in self.answers[i] or self.state(i) is False:
                continue
            return self.question(i, s, part)
        return None

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        i, s = self.units[unit.key]
        if int(result["ok"]):
            self.recs[(i, s)] = np.asarray(result["recs"])
        self.part_nodes[(i, s)] = int(result.get("nodes", 0))
        drop = super().take(unit, result)
        if self.decided():  # nothing else is needed
            drop = [k for k in self.units if k != unit.key]
        return drop


class Replayed(Exception):
    """The end of a replay (not a Ctrl-C, which still interrupts it)."""


class DryExecutor:
    """Runs nothing: every unit offered to it is an open question.  With it the engine
    replays a checkpoint (recorded answers, splits and their merges, exactly as a run
    would) and stops at once; ``open`` is the frontier left."""

    def __init__(self, flag: Any):
        self.flag = flag
        self.open: dict[str, Unit] = {}
        self.ending = False

    def slots(self) -> int:
        return 1 << 30

    def submit(self, unit: Unit, budget: Optional[float] = None) -> Any:
        self.open[unit.key] = unit
        return unit.key

    def wait(self, handles: list, timeout: float) -> list:
        self.ending = True
        raise Replayed  # everything recorded has been taken: the frontier is left

    def cancel(self, handles: list) -> None:
        if not self.ending:
            for key in handles:
                self.open.pop(key, None)


# --------------------------------------------------------------------------- the run
def make_game(args: argparse.Namespace) -> Game:
    return Game(args.n, args.k)


def checkpoint_path(args: argparse.Namespace) -> str:
    return args.checkpoint or str(RESULTS / f"p{args.n}{args.k}.sqlite")


def export_path(args: argparse.Namespace) -> str:
    """The compressed rows kept in git beside the checkpoint (pNK.jsonl.gz)."""
    return str(Path(checkpoint_path(args)).with_suffix(".jsonl.gz"))


def restore(args: argparse.Namespace) -> None:
    """No checkpoint but its export beside it (a fresh clone): the checkpoint made again."""
    if not os.path.exists(checkpoint_path(args)) and os.path.exists(export_path(args)):
        args.file = export_path(args)
        cmd_import(args)


def state_path(args: argparse.Namespace) -> str:
    return args.state or str(Path(checkpoint_path(args)).with_name("state.json"))


def setup(
    game: Game,
    d: int,
    store_run: Any,
    memory: int,
    unit_seconds: Optional[float],
    focus: Optional[str],
) -> tuple[FocusPlan, UnitSearch]:
    cands = np.ascontiguousarray(game.secrets)
    local = Search(game, game.guesses, False, True, memory)
    search = UnitSearch(local, game, False, True, memory, store_run, None, unit_seconds)
    pool = np.array(symmetry_classes(game), dtype=np.int32)
    openings = root_openings(game, cands, pool, d, local.core.order, game.kernel.nslots - 1)
    if openings is None:
        openings = []
    g = None if focus in (None, "engine") else game.code(focus)
    return FocusPlan(search, cands, openings, d, g), search


def bounds_known(game: Game, d: int) -> dict[str, Any]:
    """What is proved around the question: d - 1 refuted (in-process, quickly), and the
    minmax strategy's worst case (an upper bound)."""
    try:
        below = solution_exists(game, d - 1, time_limit=120)
    except SearchUnfinished:
        below = None
    heuristic = analyze(game, "minmax", jobs=1).max
    return {"below_refuted": below is False, "minmax": int(heuristic)}


def decided_value(d: int, answer: Optional[bool], known: dict[str, Any]) -> Optional[int]:
    """p(n,k) when the question at d settles it (d - 1 refuted; a strategy within d + 1)."""
    if answer is None or not known["below_refuted"]:
        return None
    if answer:
        return d
    return d + 1 if known["minmax"] <= d + 1 else None


def witness_tree(game: Game, plan: FocusPlan, search: UnitSearch, g: int) -> Node:
    """The strategy proving the question: opening g, each part's witness below it."""
    i = plan.openings.index(g)
    node = Node(g, int(game.secrets.size))
    for s, part in split_by_score(game, g, np.ascontiguousarray(game.secrets)):
        if s == game.win_slot:
            continue
        if part.size <= 2:
            node.children[game.slots[s]] = search.local.witness(part, plan.d - 1, None)
        else:
            node.children[game.slots[s]] = build_tree(game, plan.recs[(i, s)])
    return node


def cmd_run(args: argparse.Namespace) -> int:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started with &
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    game = make_game(args)
    path = checkpoint_path(args)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    restore(args)
    memory = args.memory << 20
    known = bounds_known(game, args.guesses)
    t0 = time.monotonic()
    status = "decided"
    flag = new_flag()
    ran = [0]

    def progress(done: int, total: int) -> None:
        ran[0] = done
        if args.stop_after_units and done >= args.stop_after_units:
            flag.set()  # a stop request: the engine ends as on Ctrl-C

    with open_run(
        game,
        kind="bound",
        params=checkpoint_params(False, True, memory),
        scheduler=args.scheduler,
        client=None,
        threads=args.jobs,
        checkpoint=path,
    ) as run:
        plan, search = setup(game, args.guesses, run, memory, args.unit_seconds, args.focus)
        log(
            f"{game.name}: within {args.guesses}? {len(plan.openings)} openings, "
            f"checkpoint {path} ({len(run.store)} units recorded)"
        )
        before = len(run.store)
        wall0 = time.time()
        try:
            if plan.openings:
                run.execute(plan, flag, progress, args.time_limit, args.unit_seconds)
        except TimeLimitReached:
            status = "time-limit"
        except KeyboardInterrupt:
            status = "interrupted"
        run.store.flush()  # (read below through a connection of its own)
        counts = {
            "ran": recorded_since(path, wall0),
            "recorded_before": before,
            "recorded_after": len(run.store),
        }
        answer = None
        if not plan.openings:
            answer = False
        elif plan.decided():
            answer = plan.answer() >= 0
        if answer:
            tree = witness_tree(game, plan, search, plan.answer())
            worst = check_strategy(game, tree)
            Path(path).with_name("witness.json").write_text(
                json.dumps(
                    {
                        "pegs": game.n,
                        "colours": game.k,
                        "variant": game.variant.value,
                        "candidates_only": False,
                        "max_guesses": worst,
                        "tree": tree.to_json(game),
                    }
                )
                + "\n"
            )
    log(
        f"{status}: {counts['ran']} units run, {counts['recorded_after']} recorded "
        f"({counts['recorded_before']} before), {time.monotonic() - t0:.1f} s"
    )
    args.file = export_path(args)
    cmd_export(args)
    doc = state(game, args.guesses, path, args.focus, known, args.memory)
    doc["last_run"] = {"status": status, "seconds": round(time.monotonic() - t0, 1), **counts}
    write_state(doc, state_path(args))
    print_table(doc, sys.stdout)
    if answer is not None:
        log(f"p({game.n},{game.k}) = {decided_value(args.guesses, answer, known)}")
    return 0 if status == "decided" else 1


# --------------------------------------------------------------------------- the state
def recorded_since(path: str, since: float) -> int:
    """Units whose row was written at or after ``since`` (a wall-clock time): the units
    this run ran (a unit run again would replace its row, and count here)."""
    conn = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
    try:
        return int(
            conn.execute("SELECT COUNT(*) FROM units WHERE finished >= ?", (since,)).fetchone()[0]
        )
    finally:
        conn.close()


def unit_rows(path: str) -> dict[str, dict[str, Any]]:
    """Every recorded unit: key -> parent, size, seconds, split, ok, nodes."""
    conn = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)
    try:
        from mastermind.engine.checkpoint import decode

        out = {}
        for key, parent, size, secs, split, blob in conn.execute(
            "SELECT u.key, COALESCE(s.parent, ''), u.size, u.seconds, COALESCE(s.split, 0), "
            "u.result FROM units u LEFT JOIN splits s ON s.key = u.key ORDER BY u.finished"
        ):
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


def replay_checkpoint(
    game: Game, d: int, path: str, memory: int, focus: Optional[str]
) -> tuple[FocusPlan, DryExecutor]:
    """The plan with every answer the checkpoint gives (merges of split units included),
    and the open questions left."""
    flag = new_flag()
    dry = DryExecutor(flag)
    store = open_checkpoint(
        path, "bound", spec_of(game).definition(), checkpoint_params(False, True, memory)
    )
    try:
        run = Run(dry, store)
        plan, _ = setup(game, d, run, memory, UNIT_SECONDS, focus)
        if plan.openings:
            try:
                run.execute(plan, flag, None, None, UNIT_SECONDS)
            except Replayed:
                pass
    finally:
        store.close()
    return plan, dry


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


def cmd_status(args: argparse.Namespace) -> int:
    game = make_game(args)
    path = checkpoint_path(args)
    restore(args)
    if not os.path.exists(path):
        sys.stderr.write(f"p58: no checkpoint {path}\n")
        return 2
    old = {}
    if os.path.exists(state_path(args)):
        old = json.loads(Path(state_path(args)).read_text())
    known = old.get("known") if old.get("guesses") == args.guesses else None
    known = known or bounds_known(game, args.guesses)
    doc = state(game, args.guesses, path, args.focus, known, args.memory)
    if "last_run" in old:
        doc["last_run"] = old["last_run"]
    if args.write:
        write_state(doc, state_path(args))
    if args.json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
    elif args.markdown:
        sys.stdout.write(markdown_table(doc))
    else:
        print_table(doc, sys.stdout)
    return 0


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


def cmd_projection(args: argparse.Namespace) -> int:
    game = make_game(args)
    path = checkpoint_path(args)
    restore(args)
    workers = [int(w) for w in args.workers.split(",")]
    doc = projection(game, args.guesses, path, args.focus, args.memory, workers, args.unit_seconds)
    if args.json:
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(
        f"spent: {doc['spent_core_hours']} core-hours; {doc['open_questions']} questions "
        f"open (budget {doc['budget_s']:g} s a unit)"
    )
    print(
        f"{'left':>4} {'units':>6} {'split':>5} {'solv':>5} {'ref':>5} {'solv s':>8} "
        f"{'ref s':>8} {'split%':>6} {'G':>7} {'P':>5} {'R':>6} {'solvable q':>11} "
        f"{'refuted q':>11}"
    )
    for e, m in doc["levels"].items():
        print(
            f"{e:>4} {m['units']:>6} {m['split']:>5} {m['solvable']:>5} {m['refuted']:>5} "
            f"{m['mean_solvable_s']:>8} {m['mean_refuted_s']:>8} "
            f"{100 * m['split_share']:>5.1f}% {m['guesses_per_split']:>7} "
            f"{m['parts_per_guess']:>5} {m['refuted_guesses_per_split']:>6} "
            f"{m['solvable_question_s']:>11} "
            f"{m['refuted_question_s']:>11}"
        )
    if doc["p6"]:
        p6 = doc["p6"]
        print(
            f"p = 6 (opening {p6['opening']}, {p6['open_parts']} open parts solvable): "
            f"at least {p6['core_hours']} core-hours"
        )
    p7 = doc["p7"]
    print(
        f"p = 7 (one part refuted in each of {p7['openings']} openings): at least "
        f"{p7['core_hours']} core-hours"
    )
    for w, s in doc["measured_units_on_workers"].items():
        print(
            f"  the recorded units on {w:>5} workers: {s['wall_s']} s wall, speed-up {s['speedup']}"
        )
    return 0


# --------------------------------------------------------------------------- export / import
def cmd_export(args: argparse.Namespace) -> int:
    """Every row of the checkpoint (header, units, splits) as compressed JSON lines."""
    conn = sqlite3.connect(f"file:{os.path.abspath(checkpoint_path(args))}?mode=ro", uri=True)
    n = 0
    tmp = args.file + ".tmp"
    with gzip.open(tmp, "wt") as out:
        for name, value in conn.execute("SELECT name, value FROM header"):
            out.write(json.dumps({"header": name, "value": value}) + "\n")
        for row in conn.execute(
            "SELECT key, digest, size, seconds, worker, finished, result, checksum FROM units"
        ):
            rec = dict(zip(("key", "digest", "size", "seconds", "worker", "finished"), row[:6]))
            rec["result"] = base64.b64encode(row[6]).decode()
            rec["checksum"] = row[7]
            out.write(json.dumps(rec) + "\n")
            n += 1
        for key, parent, split in conn.execute("SELECT key, parent, split FROM splits"):
            out.write(json.dumps({"split_of": key, "parent": parent, "split": split}) + "\n")
    conn.close()
    os.replace(tmp, args.file)
    sys.stderr.write(f"{n} units written to {args.file}\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """A checkpoint made again from an export (refused if the file exists)."""
    from mastermind.version import __version__

    path = checkpoint_path(args)
    if os.path.exists(path):
        sys.stderr.write(f"p58: {path} exists; give another --checkpoint\n")
        return 2
    with gzip.open(args.file, "rt") as src:
        header = {}
        for line in src:
            rec = json.loads(line)
            if "header" not in rec:
                break
            header[rec["header"]] = json.loads(rec["value"])
    if header.get("version") != __version__:
        sys.stderr.write(
            f"p58: {args.file} was written by mastermind "
            f"{header.get('version')}, this is {__version__}\n"
        )
        return 2
    # the engine makes the file (its tables, its header), then the rows go in
    open_checkpoint(path, header["kind"], header["game"], header["params"]).close()
    conn = sqlite3.connect(path)
    n = 0
    with conn, gzip.open(args.file, "rt") as src:
        for line in src:
            rec = json.loads(line)
            if "header" in rec:
                continue
            elif "split_of" in rec:
                conn.execute(
                    "INSERT INTO splits VALUES (?, ?, ?)",
                    (rec["split_of"], rec["parent"], rec["split"]),
                )
            else:
                conn.execute(
                    "INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        rec["key"],
                        rec["digest"],
                        rec["size"],
                        rec["seconds"],
                        rec["worker"],
                        rec["finished"],
                        base64.b64decode(rec["result"]),
                        rec["checksum"],
                    ),
                )
                n += 1
    conn.close()
    sys.stderr.write(f"{n} units imported into {path}\n")
    return 0


# --------------------------------------------------------------------------- main
def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ", time.gmtime()) + msg, flush=True)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("-n", type=int, default=5, help="pegs (default 5)")
        p.add_argument("-k", type=int, default=8, help="colours (default 8)")
        p.add_argument(
            "--guesses",
            type=int,
            default=6,
            help="the question: can every secret be found within this many (default 6)",
        )
        p.add_argument("--checkpoint", help="default results/p58/pNK.sqlite")
        p.add_argument("--state", help="default state.json beside the checkpoint")
        p.add_argument(
            "--memory",
            type=int,
            default=MEMORY_MB,
            metavar="MB",
            help=f"each unit's memo (default {MEMORY_MB}; part of the checkpoint's header)",
        )
        p.add_argument(
            "--focus",
            default="11234",
            help="the opening whose parts go first, smallest first ('engine': "
            "the engine's order; default 11234)",
        )
        p.add_argument(
            "--unit-seconds",
            type=float,
            default=UNIT_SECONDS,
            help=f"a unit's budget before it splits (default {UNIT_SECONDS:g})",
        )

    p = sub.add_parser("run", help="decide, resuming from the checkpoint")
    common(p)
    p.add_argument("--time-limit", type=float, default=None, metavar="S")
    p.add_argument("--jobs", type=int, default=1, help="threads here (default 1)")
    p.add_argument("--scheduler", default=None, help="a Dask scheduler or local:N")
    p.add_argument(
        "--stop-after-units",
        type=int,
        default=0,
        metavar="N",
        help="stop (as on Ctrl-C) once N units have run",
    )
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("status", help="the state per opening and part")
    common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--markdown", action="store_true", help="the table of docs/bounds.md")
    p.add_argument("--write", action="store_true", help="also write state.json")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("projection", help="core-hours to finish, from the units measured")
    common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--workers", default="1,16,64,512")
    p.set_defaults(func=cmd_projection)
    p = sub.add_parser("export", help="the checkpoint as compressed JSON lines")
    common(p)
    p.add_argument("file")
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("import", help="a checkpoint made from an export")
    common(p)
    p.add_argument("file")
    p.set_defaults(func=cmd_import)
    args = ap.parse_args(argv)
    if args.focus != "engine" and (args.n, args.k) != (5, 8) and args.focus == "11234":
        args.focus = "engine"  # the default focus is a [5,8] code
    try:
        return int(args.func(args))
    except MastermindError as e:  # a checkpoint of another run, a bad code: one line
        sys.stderr.write(f"p58: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
