"""The plan of scripts/p58.py: the package's worst-case units offered in the order the
run asks (:class:`FocusPlan`), the executor that replays a checkpoint without running
anything (:class:`DryExecutor`), and the steps around them (the question set up, what is
known around it, the witness put together).  Imported by scripts/p58.py and
scripts/p58_state.py; run scripts/p58.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from mastermind.analysis.exhaustive import analyze
from mastermind.analysis.strategies import symmetry_classes
from mastermind.engine.checkpoint import open_checkpoint
from mastermind.engine.run import Run
from mastermind.engine.units import Unit, spec_of
from mastermind.game import Game
from mastermind.stopping import new_flag
from mastermind.strategy_tree import Node, build_tree, split_by_score
from mastermind.worstcase.bounds import solution_exists
from mastermind.worstcase.search import Search, SearchUnfinished
from mastermind.worstcase.units import ExistsPlan, UnitSearch, checkpoint_params, root_openings

ROOT = Path(__file__).resolve().parents[1]
MEMORY_MB = 1024  # each unit's memo (part of the checkpoint's header: keep it fixed)
UNIT_SECONDS = 60.0


# --------------------------------------------------------------------------- the plan
class FocusPlan(ExistsPlan):
    """:class:`~mastermind.worstcase.units.ExistsPlan`'s units (same keys, same inputs, so
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


def setup(
    game: Game,
    d: int,
    store_run: Any,
    memory: int,
    unit_seconds: Optional[float],
    focus: Optional[str],
) -> tuple[FocusPlan, UnitSearch]:
    cands = np.ascontiguousarray(game.secrets)
    local = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory)
    search = UnitSearch(
        local,
        game,
        candidates_only=False,
        symmetry=True,
        memory=memory,
        run=store_run,
        progress=None,
        unit_seconds=unit_seconds,
    )
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


def replay_checkpoint(
    game: Game, d: int, path: str, memory: int, focus: Optional[str]
) -> tuple[FocusPlan, DryExecutor]:
    """The plan with every answer the checkpoint gives (merges of split units included),
    and the open questions left."""
    flag = new_flag()
    dry = DryExecutor(flag)
    store = open_checkpoint(
        path,
        "bound",
        spec_of(game).definition(),
        checkpoint_params(candidates_only=False, symmetry=True, memory=memory),
        read_only=True,  # (a run may be writing it meanwhile)
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
