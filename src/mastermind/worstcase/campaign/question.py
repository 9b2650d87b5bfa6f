"""A campaign's question: its file (``campaign.json``, :class:`Campaign`), its plan
(:class:`FocusPlan`, :func:`setup`) and the witness of a question proved."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Optional

import numpy as np

from ... import checks
from ...analysis.strategies import symmetry_classes
from ...checks import ArgumentError
from ...engine.folder import FolderFiles, question_errors, read_question
from ...engine.own_files import OwnDestination
from ...engine.units import Unit
from ...game import Game, check_game
from ...limits import MAX_GUESSES
from ...strategy_tree import Node, build_tree, split_by_score
from ..search import Search
from ..units import ExistsPlan, UnitSearch, checkpoint_params, root_openings

__all__ = ["FORMAT", "Campaign", "FocusPlan", "checkpoint_params_of", "setup", "witness_tree"]

FORMAT = 1
"""The version of ``campaign.json``."""

MOST_BYTES = 1 << 16
"""The most bytes ``campaign.json`` may hold (it holds a few lines)."""


@dataclass(frozen=True)
class Campaign(FolderFiles):
    """A campaign's question and folder (``campaign.json``)."""

    folder: str
    pegs: int
    colours: int
    variant: str
    guesses: int
    memory_mb: int = 1024
    unit_seconds: float = 60.0
    focus: Optional[str] = None

    @property
    def game(self) -> Game:
        return Game(self.pegs, self.colours, self.variant)

    @classmethod
    def new(cls, folder: str, **question: Any) -> "Campaign":
        """A new campaign's question, checked: the game, the guesses (1 ..
        :data:`~mastermind.limits.MAX_GUESSES`), each unit's memo (MB) and budget (seconds
        >= 0), the focus (a code of the game, written as the game writes it, or
        ``"engine"``: the engine's order)."""
        _known_fields(cls, question)
        # everything checked before the game is built (a [8,8] game takes a gigabyte)
        pegs, colours, variant = check_game(
            question["pegs"], question["colours"], question.get("variant", "classic")
        )
        question.update(pegs=pegs, colours=colours, variant=variant.value)
        question["guesses"] = checks.integer(question["guesses"], "guesses", 1, MAX_GUESSES)
        memory = checks.integer(question.get("memory_mb", cls.memory_mb), "memory (MB)", 1)
        question["memory_mb"] = checks.memory(memory << 20) >> 20
        question["unit_seconds"] = checks.seconds(
            question.get("unit_seconds", cls.unit_seconds), "unit_seconds", zero=True
        )
        focus = question.get("focus")
        if focus is not None and focus != "engine":
            if not isinstance(focus, str) or len(focus) > 4 * pegs:
                raise ArgumentError(f"the focus must be a code, not {focus!r:.40}")
            game = Game(pegs, colours, variant)
            question["focus"] = game.format_code(game.guess(focus))
        return cls(folder=str(folder), **question)

    def save(self) -> None:
        """``campaign.json`` written whole (never through a link)."""
        doc = {"format": FORMAT, **asdict(self)}
        del doc["folder"]
        Path(self.folder).mkdir(parents=True, exist_ok=True)
        with OwnDestination(self.path("campaign.json"), "the campaign's question") as out:
            out.write(json.dumps(doc, indent=1) + "\n")

    @classmethod
    def load(cls, folder: str) -> "Campaign":
        """The campaign of ``folder``, checked as :meth:`new` checks a new one
        (:class:`ArgumentError` when it holds none, or one that is not a campaign's)."""
        what = "a campaign's file"
        path, doc = read_question(folder, FORMAT, MOST_BYTES, what)
        with question_errors(path, what):
            _known_fields(cls, doc)
            for name in ("pegs", "colours", "guesses"):
                if name not in doc:
                    raise ArgumentError(f"no {name}")
            return cls.new(folder, **doc)


def _known_fields(cls: type, question: dict[str, Any]) -> None:
    """A campaign's question names its own fields only (``folder`` is not one)."""
    unknown = set(question) - ({f.name for f in fields(cls)} - {"folder"})
    if unknown:
        raise ArgumentError(f"a campaign has no {', '.join(sorted(map(str, unknown)))[:80]}")


def checkpoint_params_of(campaign: Campaign) -> dict[str, Any]:
    """The checkpoint's parameters (its header): those of ``solution_exists``'s units."""
    return checkpoint_params(candidates_only=False, symmetry=True, memory=campaign.memory_mb << 20)


# --------------------------------------------------------------------------- the plan
class FocusPlan(ExistsPlan):
    """:class:`~mastermind.worstcase.units.ExistsPlan`'s units (same keys, same inputs, so
    the same checkpoint rows), offered in the order the campaign asks:

    * side by side (``focus`` None, the default): every opening at once, one part of
      each at a time, its largest first (the part most likely refuted: six guesses
      fail at the largest part of six of [5,8]'s seven openings, and a refuted part is
      all an opening needs), the next only when that one proved solvable; the openings
      whose refutation looks costliest first (``cost``: the largest part's codes times
      the second guesses to refute, one per symmetry class of the opening), so that
      the last to end is a cheap one;
    * ``focus`` (an opening): that opening's parts first, smallest first (the first to
      be solved), then the others in the engine's order;
    * ``engine``: the engine's order (opening by opening, each's parts largest first).

    Done as soon as the question at the root is decided (one opening with every part
    solvable, or every opening with a part refuted); an opening refuted lets go of its
    other parts still running.  Keeps each solvable part's witness records, and each
    split's guesses and sub-questions (for the projection)."""

    def __init__(
        self,
        search: UnitSearch,
        cands: np.ndarray,
        openings: list[int],
        d: int,
        focus: Optional[int] = None,
        *,
        engine: bool = False,
        cost: Optional[list[float]] = None,
    ):
        super().__init__(search, cands, openings, d)
        self.recs: dict[tuple[int, int], np.ndarray] = {}
        order = list(range(len(openings)))
        self.side = focus is None and not engine
        if self.side and cost is not None:
            order.sort(key=lambda i: -cost[i])
        self.rank = order
        self.flying: set[tuple[int, int]] = set()  # parts offered, not answered yet
        queue: list[tuple[int, int]] = []
        if focus is not None and focus in openings:
            i = openings.index(focus)
            order = [j for j in order if j != i]
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
        if self.side:
            return self._next_side()
        while self.pos < len(self.queue):
            i, t = self.queue[self.pos]
            self.pos += 1
            s, part = self.parts[i][t]
            if s in self.answers[i] or self.state(i) is False:
                continue
            return self.question(i, s, part)
        return None

    def snapshot(self) -> list[dict[str, Any]]:
        """Where each opening stands, for a progress display: its state (True proved,
        False refuted, None open), its parts running (score, codes, and for one that
        split its guesses refuted, solvable and open) and a part refuted (score, codes)."""
        game = self.search.game
        out = []
        for i in self.rank:
            running = []
            for j, s in sorted(self.flying):
                if j == i:
                    size = next(int(p.size) for t, p in self.parts[i] if t == s)
                    counts = self.guess_counts(self.key(i, s))
                    running.append({"score": str(game.slots[s]), "size": size, "guesses": counts})
            refuted = [(str(game.slots[t]), int(p.size)) for t, p in self.parts[i]
                       if self.answers[i].get(t) is False]  # fmt: skip
            out.append(
                {
                    "opening": game.format_code(self.openings[i]),
                    "state": self.state(i),
                    "running": running,
                    "refuted": refuted[0] if refuted else None,
                }
            )
        return out

    def _next_side(self) -> Optional[Unit]:
        """Side by side: the next part of the first opening (by ``rank``) that is open
        and has none running: its largest part not answered yet."""
        for i in self.rank:
            if self.state(i) is not None or any(j == i for j, _ in self.flying):
                continue
            for s, part in self.parts[i]:
                if s not in self.answers[i]:
                    return self.question(i, s, part)
        return None

    def question(self, i: int, s: int, part: np.ndarray) -> Unit:
        self.flying.add((i, s))
        return super().question(i, s, part)

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        i, s = self.units[unit.key]
        self.flying.discard((i, s))
        if int(result["ok"]):
            self.recs[(i, s)] = np.asarray(result["recs"])
        self.part_nodes[(i, s)] = int(result.get("nodes", 0))
        drop = super().take(unit, result)
        if self.decided():  # nothing else is needed
            drop = [k for k in self.units if k != unit.key]
        elif self.state(i) is False:  # the opening is refuted: its other parts let go
            drop = [k for k, (j, _) in self.units.items() if j == i and k != unit.key]
        self.flying -= {self.units[k] for k in drop}
        return drop


def setup(campaign: Campaign, run: Any) -> tuple[FocusPlan, UnitSearch]:
    """The campaign's plan on ``run`` (an open :class:`~mastermind.engine.run.Run`)."""
    game = campaign.game
    memory = campaign.memory_mb << 20
    cands = np.ascontiguousarray(game.secrets)
    local = Search(game, game.guesses, candidates_only=False, symmetry=True, memory=memory)
    search = UnitSearch(
        local,
        game,
        candidates_only=False,
        symmetry=True,
        memory=memory,
        run=run,
        progress=None,
        unit_seconds=campaign.unit_seconds,
    )
    pool = np.array(symmetry_classes(game), dtype=np.int32)
    d = campaign.guesses
    openings = root_openings(game, cands, pool, d, local.core.order, game.kernel.nslots - 1)
    focus = None if campaign.focus in (None, "engine") else game.code(campaign.focus)
    engine = campaign.focus == "engine"
    cost = None if focus is not None or engine else _costs(game, local, openings or [])
    return FocusPlan(search, cands, openings or [], d, focus, engine=engine, cost=cost), search


def _costs(game: Game, local: Search, openings: list[int]) -> list[float]:
    """Per opening, what refuting its largest part is guessed to cost: the part's codes
    times the second guesses to refute (one per symmetry class of the opening)."""
    cands = np.ascontiguousarray(game.secrets)
    out = []
    for g in openings:
        largest = max(int(p.size) for _, p in split_by_score(game, g, cands))
        pool = local.root_pool(np.array([g], dtype=np.int32))
        out.append(float(largest * (game.guesses.size if pool is None else pool.size)))
    return out


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
