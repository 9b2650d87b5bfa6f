"""A worst-case proof as units of work: the question "can every secret be found within
d guesses?" split at the root into (opening, part, d - 1) questions.

An opening proves d guesses iff each of its non-winning parts can be solved within d - 1;
a part refuted refutes its opening.  The openings are those the kernel's search tries at
the root (one per symmetry class), in its order (the search's valuation, candidates
first, the largest part, the index), so the opening that proves d is the one the
in-process search finds: the first that works.  Each part of three codes or more is a
unit (:func:`exists_unit`: a search of its own on a worker, and its witness when it is
solvable); smaller parts are solved at once.  :class:`UnitSearch` stands in for the
in-process :class:`~mastermind.worstcase.search.Search` in :func:`mastermind.worstcase.bounds.worst_case` and
:func:`~mastermind.worstcase.bounds.solution_exists`, so the steps, the bounds and their proofs are
those of the in-process run.

With a checkpoint (kind ``bound``), every decided question is recorded as it is decided,
under the key ``exists/OPENING/SLOT/GUESSES_LEFT``; a part refuted within e guesses is
refuted within fewer, so a later question takes that answer from the file too.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, cast

import numpy as np

from ..engine.checkpoint import DamagedRow
from ..engine.units import Unit, is_split
from ..kernel import _core, _symmetry
from ..stopping import Stopped, TimeLimitReached, new_flag
from ..strategy_tree import Node, build_tree, replay_records, split_by_score
from . import _search
from .search import Search, SearchUnfinished

if TYPE_CHECKING:
    from ..game import GameCore, GameLike

__all__ = ["ExistsPlan", "UnitSearch", "checkpoint_params", "exists_unit", "root_openings"]


def checkpoint_params(*, candidates_only: bool, symmetry: bool, memory: int) -> dict[str, Any]:
    """What a proof's unit answers (and witnesses) depend on, beside the game: its
    checkpoint's parameters.  Not ``memory``: a search's answer is exact whatever its
    memo's budget (files that record it are still read:
    :data:`mastermind.engine.checkpoint.LOOSE_PARAMS`)."""
    return {"candidates_only": bool(candidates_only), "symmetry": bool(symmetry)}


def root_openings(
    game: GameCore, cands: np.ndarray, pool: np.ndarray, d: int, order: int, nonwin: int
) -> Optional[list[int]]:
    """The openings the kernel's search tries at the root for d guesses, in its order
    (:func:`mastermind.worstcase._search.root_openings`, the ranking the search makes at a node);
    None when it refutes d before trying any (no unit needed)."""
    found = _search.root_openings(game.kernel, pool, cands, d, order, nonwin)
    return None if found is None else found.tolist()


class UnitSearch:
    """The root's questions answered by the units of ``run`` (an open
    :class:`~mastermind.engine.run.Run`); the interface of
    :class:`mastermind.worstcase.search.Search` that :func:`~mastermind.worstcase.bounds.worst_case` uses
    (``run``, ``witness``, ``nodes``)."""

    def __init__(
        self,
        local: Search,
        game: GameLike,
        *,
        candidates_only: bool,
        symmetry: bool,
        memory: int,
        run: Any,
        progress: Optional[Callable[[int, int], None]] = None,
        unit_seconds: Optional[float] = None,
    ):
        self.local = local  # an in-process search for the tiny questions
        self.game = game
        self.candidates_only = candidates_only
        self.symmetry = symmetry
        self.memory = int(memory)
        self.engine = run
        self.store = run.store
        self.progress = progress
        self.unit_seconds = unit_seconds  # each unit's budget (None: never split)
        self._nodes = 0
        self._answers: dict[tuple[int, int, int], tuple[bool, Optional[np.ndarray]]] = {}
        self._proved: dict[tuple[bytes, int], int] = {}
        self._refuted = self._refutations()
        # what the in-process search's memo would hold for the root's parts: the most
        # guesses a part was refuted within, the fewest it was proved within (and how)
        self._lo: dict[tuple[int, int], int] = {}
        self._hi: dict[tuple[int, int], int] = {}

    @property
    def nodes(self) -> int:
        return self._nodes + self.local.nodes

    def _refutations(self) -> dict[tuple[int, int], int]:
        """(opening, slot) -> the most guesses left a recorded unit refuted."""
        out: dict[tuple[int, int], int] = {}
        if self.store is None:
            return out
        for key in self.store.keys():
            parts = key.split("/")
            if parts[0] != "exists" or len(parts) != 4:
                continue
            try:
                rec = self.store.get(key)
            except DamagedRow:  # said and run again when its unit comes up
                continue
            if rec is not None and not is_split(rec.result) and not rec.result["ok"]:
                g, s, e = int(parts[1]), int(parts[2]), int(parts[3])
                out[(g, s)] = max(out.get((g, s), -1), e)
        return out

    def known(self, g: int, s: int, e: int) -> Optional[bool]:
        """The answer for part s of opening g within e guesses if already known: from
        this run, or a refutation within e or more recorded in the checkpoint."""
        if (g, s, e) in self._answers:
            return self._answers[(g, s, e)][0]
        if self._refuted.get((g, s), -1) >= e:
            return False
        return None

    def learn(self, g: int, s: int, e: int, *, ok: bool, recs: Optional[np.ndarray]) -> None:
        self._answers[(g, s, e)] = (ok, recs)

    def _replay(self, plan: "ExistsPlan") -> None:
        """Update the memo the in-process search would have after this question: it
        tries the openings in order, skips one with a part its memo knows refuted, tries
        the others' parts largest first until one is refuted, stops at the first opening
        that works."""
        e = plan.d - 1
        for i, g in enumerate(plan.openings):
            parts = [s for s, _ in plan.parts[i]]
            if any(self._lo.get((g, s), -1) >= e for s in parts):
                continue
            works = True
            for s in parts:
                ok = plan.answers[i][s]
                if ok and e < self._hi.get((g, s), 1 << 30):
                    self._hi[(g, s)] = e
                elif not ok and e > self._lo.get((g, s), -1):
                    self._lo[(g, s)] = e
                if not ok:
                    works = False
                    break
            if works:
                return

    def _pool(self, cands: np.ndarray) -> np.ndarray:
        from ..analysis.strategies import symmetry_classes

        game = self.game
        if self.symmetry and game.symmetric:
            pool = np.array(symmetry_classes(game), dtype=np.int32)
        else:
            pool = np.ascontiguousarray(game.guesses, dtype=np.int32)
        if self.candidates_only:
            pool = pool[np.isin(pool, cands)]
        return pool

    def run(
        self, cands: np.ndarray, d: int, deadline: Optional[float] = None, node_limit: int = 0
    ) -> tuple[bool, int]:
        """(whether every code of ``cands`` can be found within d guesses, the opening
        that proves it, or -1); :class:`~mastermind.worstcase.search.SearchUnfinished` when stopped
        by ``deadline`` (a monotonic time) or Ctrl-C."""
        if cands.size <= 2 or d <= 2 or cands.size != self.game.secrets.size:
            return self.local.run(cands, d, deadline, node_limit)
        start = time.monotonic()
        seconds = None if deadline is None else deadline - start
        if seconds is not None and seconds <= 0:
            raise SearchUnfinished("time-limit", 0, 0.0)
        openings = root_openings(
            self.game,
            cands,
            self._pool(cands),
            d,
            self.local.core.order,
            self.game.kernel.nslots - 1,
        )
        if not openings:
            self._proved[(cands.tobytes(), d)] = -1
            return False, -1
        plan = ExistsPlan(self, cands, openings, d)
        nodes0 = self._nodes
        try:
            self.engine.execute(plan, new_flag(), self.progress, seconds, self.unit_seconds)
        except TimeLimitReached:
            raise SearchUnfinished(
                "time-limit", self._nodes - nodes0, time.monotonic() - start
            ) from None
        except KeyboardInterrupt:
            raise SearchUnfinished(
                "interrupted", self._nodes - nodes0, time.monotonic() - start
            ) from None
        self._replay(plan)
        g = plan.answer()
        self._proved[(cands.tobytes(), d)] = g
        return g >= 0, g

    def witness(self, cands: np.ndarray, d: int, deadline: Optional[float]) -> Node:
        """The strategy tree proving d: the opening found, each part's witness from its
        unit (the small parts' here)."""
        if cands.size <= 2 or d <= 2 or cands.size != self.game.secrets.size:
            return self.local.witness(cands, d, deadline)
        g = self._proved.get((cands.tobytes(), d))
        if g is None:
            ok, g = self.run(cands, d, deadline)
        if g < 0:  # pragma: no cover - worst_case asks only for proved sets
            raise RuntimeError("the search lost a solvable set")
        game = self.game
        node = Node(g, int(cands.size))
        for s, part in split_by_score(game, g, cands):
            if s == game.win_slot:
                continue
            if part.size <= 2:
                node.children[game.slots[s]] = self.local.witness(part, d - 1, deadline)
            else:
                node.children[game.slots[s]] = build_tree(game, self._records(g, s, d - 1))
        return node

    def _records(self, g: int, s: int, e: int) -> np.ndarray:
        """The witness of part s of opening g within e guesses: the one found when the
        part was proved with the fewest guesses, as the in-process search's memo has it
        (the in-process witness of a part is the guess its memo holds)."""
        f = min(self._hi.get((g, s), e), e)
        recs = self._answers[(g, s, f)][1]
        assert recs is not None
        return recs


class ExistsPlan:
    """The units of one question at the root: the openings' parts, offered opening by
    opening in the search's order, each opening's parts largest first.

    The answer is the first opening not refuted whose parts are all solvable (True), or
    None of them (False).  Like the in-process search, which tries an opening's parts
    one by one and stops at the first refuted, this plan lets the parts before a refuted
    one finish (those after it are dropped): the in-process search would have tried
    them, and its memo would hold what they proved (:meth:`UnitSearch._replay`)."""

    kind = "bound"
    settles = True  # a decided question keeps its answer, not the rows below it

    def __init__(self, search: UnitSearch, cands: np.ndarray, openings: list[int], d: int):
        game = search.game
        self.search = search
        self.d = d
        self.openings = openings
        self.parts: list[list[tuple[int, np.ndarray]]] = []
        self.answers: list[dict[int, bool]] = []  # per opening: slot -> answer
        self.units: dict[str, tuple[int, int]] = {}
        self.offered: list[int] = []
        self._split_parts: dict[str, _Ors] = {}
        for g in openings:
            parts = [
                (s, part)
                for s, part in split_by_score(game, g, cands)
                if s != game.win_slot and part.size >= 3
            ]
            parts.sort(key=lambda p: -p[1].size)  # the largest first, as the search does
            self.parts.append(parts)
            self.answers.append({})
            self.offered.append(0)
        for i in range(len(openings)):
            for s, _ in self.parts[i]:
                known = search.known(openings[i], s, d - 1)
                if known is not None:
                    self.answers[i][s] = known

    def _first_false(self, i: int) -> int:
        """The place (largest first) of opening i's first refuted part; len if none."""
        for t, (s, _) in enumerate(self.parts[i]):
            if self.answers[i].get(s) is False:
                return t
        return len(self.parts[i])

    def state(self, i: int) -> Optional[bool]:
        """False refuted, True proved, None open."""
        stop = self._first_false(i)
        if stop < len(self.parts[i]):
            return False
        return True if len(self.answers[i]) == len(self.parts[i]) else None

    def _settled(self, i: int) -> bool:
        """Decided, and every part the in-process search would have tried answered."""
        stop = self._first_false(i)
        return all(s in self.answers[i] for s, _ in self.parts[i][:stop])

    def answer(self) -> int:
        """The opening that proves d, or -1 (every opening refuted)."""
        for i, g in enumerate(self.openings):
            st = self.state(i)
            if st is None:  # pragma: no cover - asked before done()
                raise RuntimeError("the question is not decided")
            if st:
                return g
        return -1

    def done(self) -> bool:
        for i in range(len(self.openings)):
            st = self.state(i)
            if st is None or not self._settled(i):
                return False
            if st:
                return True
        return True

    def known(self) -> int:
        return len(self.units)

    def next(self) -> Optional[Unit]:
        for i in range(len(self.openings)):
            st = self.state(i)
            stop = self._first_false(i)
            while self.offered[i] < stop:
                s, part = self.parts[i][self.offered[i]]
                self.offered[i] += 1
                if s in self.answers[i]:
                    continue
                return self.question(i, s, part)
            if st is True:
                return None  # later openings are not needed
        return None

    def question(self, i: int, s: int, part: np.ndarray) -> Unit:
        """The unit of part ``s`` (codes ``part``) of opening i within one guess fewer
        (:meth:`unit_of`), registered as offered."""
        unit = self.unit_of(i, s, part)
        self.units[unit.key] = (i, s)
        return unit

    def key(self, i: int, s: int) -> str:
        """The key of part s of opening i: ``exists/OPENING/SLOT/GUESSES``."""
        return f"exists/{self.openings[i]}/{s}/{self.d - 1}"

    def unit_of(self, i: int, s: int, part: np.ndarray) -> Unit:
        """The unit of part ``s`` (codes ``part``) of opening i within one guess fewer."""
        return Unit(
            self.key(i, s),
            "worstcase.exists",
            {
                "cands": part,
                "d": self.d - 1,
                "candidates_only": self.search.candidates_only,
                "symmetry": self.search.symmetry,
                "memory": self.search.memory,
                "history": np.array([self.openings[i]], dtype=np.int32),
            },
            int(part.size),
        )

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit: a yes or a no, and with a yes a
        witness that finds every code of the unit's set within its guesses.  (A no, a
        refutation, cannot be checked so cheaply: it is taken as it is.)"""
        ok, nodes = int(result["ok"]), int(result["nodes"])
        if ok not in (0, 1) or nodes < 0:
            return False
        if not ok:
            return True
        played = replay_records(
            self.search.game,
            result["recs"],
            unit.args["cands"],
            candidates_only=bool(unit.args["candidates_only"]),
        )
        return played is not None and played[1] <= int(unit.args["d"])

    def differs(self, unit: Unit, a: dict[str, Any], b: dict[str, Any]) -> Optional[str]:
        """How two answers of ``unit`` disagree (a spot-check's comparison), or None:
        their verdicts, and with a yes each one's witness.  Not their nodes or the
        witness itself: a question decided from its split's sub-answers (a settled row)
        counts other nodes, and may hold another witness, than its run in one piece."""
        if int(a["ok"]) != int(b["ok"]):
            return "ok"
        for answer in (a, b):
            if not self.valid(unit, answer):
                return "recs"
        return None

    # ------------------------------------------------------------ splits
    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """The sub-questions of a question that split (:func:`exists_unit` past its
        budget) are made one at a time (:meth:`more`): none at once."""
        self._split_parts[unit.key] = _Ors(self.search.game, unit, split)
        return []

    def more(self, unit: Unit, split: dict[str, Any], answers: dict[str, Any]) -> Optional[Unit]:
        """The next sub-question of a split question.  With more than one guess left,
        the guesses it would try (one per symmetry class of its history, in the search's
        order) not refuted by its own search before it split, in about :data:`RANGES`
        ranges of consecutive guesses: the same question, its root trying only those
        (``tries``: one search, one memo for them all), keyed ``PARENT/rA-B``.  With one:
        its parts of three codes or more within one guess fewer, the largest first,
        keyed ``PARENT/GUESS/SLOT``.  None once a guess is proved (the question is
        decided) or everything is asked."""
        ors = self._ors(unit, split)
        ors.update(answers)
        if ors.decided() is not None:
            return None
        if ors.chunk:
            return ors.next_range(unit)
        e = ors.e
        while ors.at < len(ors.guesses):
            i = ors.at
            verdict = ors.reach(i, answers)
            if verdict is True:
                return None
            parts = ors.parts(i)
            if verdict is None:
                while ors.pos < len(parts):
                    key, _s, part = parts[ors.pos]
                    ors.pos += 1
                    if part.size >= 3 and key not in answers:
                        history = np.append(unit.args["history"], np.int32(ors.guesses[i]))
                        args = {k: v for k, v in unit.args.items() if k != "tries"}
                        args.update(cands=part, d=e, history=history.astype(np.int32))
                        return Unit(key, unit.kind, args, int(part.size))
            ors.at, ors.pos = i + 1, 0
        return None

    def _ors(self, unit: Unit, split: dict[str, Any]) -> "_Ors":
        ors = self._split_parts.get(unit.key)
        if ors is None:
            ors = self._split_parts[unit.key] = _Ors(self.search.game, unit, split)
        return ors

    def guess_counts(self, key: str) -> Optional[tuple[int, int, int]]:
        """How many of the guesses of question ``key`` (one that split, not decided yet)
        are refuted, proved and open; None for any other question."""
        ors = self._split_parts.get(key)
        if ors is None:
            return None
        refuted, proved = len(ors.refuted), len(ors.proved)
        return refuted, proved, len(ors.guesses) - refuted - proved

    def valid_split(self, unit: Unit, split: dict[str, Any]) -> bool:
        """A recorded split names guesses of the game, how many of the first its
        search refuted (at most all but one; the sub-questions are checked one by one as
        they are answered), and whether they go out in ranges (0 or 1)."""
        openings = np.asarray(split["openings"])
        guesses = self.search.game.guesses
        refuted = split.get("refuted", 0)
        ranges = split.get("ranges", 0)
        return bool(
            openings.ndim == 1
            and np.isin(openings, guesses).all()
            and isinstance(refuted, int)
            and 0 <= refuted < max(openings.size, 1)
            and isinstance(ranges, int)
            and ranges in (0, 1)
        )

    def merge(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> Optional[dict[str, Any]]:
        """The question's answer as soon as it is decided: solvable when some guess has
        every part solvable (its witness: the first such guess in the order, each part's
        witness below it, replayed before it is used), unsolvable when every guess has a
        part that is not.  Either way the same verdict as the question's own search."""
        ors = self._ors(unit, split)
        ors.update(answers)
        verdict = ors.decided()
        if verdict is None:
            return None
        nodes = int(split.get("nodes", 0)) + sum(int(a.get("nodes", 0)) for a in answers.values())
        del self._split_parts[unit.key]
        if verdict:
            i = min(ors.proved)
            if i in ors.proof:  # a range proved it: its witness is the question's
                recs = np.asarray(answers[ors.proof[i]]["recs"], dtype=np.int32)
                if not self.valid(unit, {"ok": 1, "nodes": 0, "recs": recs}):
                    raise RuntimeError(f"the witness of {ors.proof[i]} does not hold")
            else:
                recs = self._witness(unit, ors.guesses[i], ors.parts(i), answers)
            return {"ok": 1, "nodes": nodes, "recs": recs}
        return {"ok": 0, "nodes": nodes}

    def unneeded(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> list[str]:
        """The sub-questions of guesses refuted since the last call, not answered yet."""
        ors = self._ors(unit, split)
        ors.update(answers)
        return ors.drop(answers)

    def _witness(
        self,
        unit: Unit,
        g: int,
        parts: list[tuple[str, int, np.ndarray]],
        answers: dict[str, dict[str, Any]],
    ) -> np.ndarray:
        """Guess g on top, each part's witness hung below it (records, depth-first),
        replayed against the question's set: a witness that does not hold is an error."""
        game = self.search.game
        cands = unit.args["cands"]
        rows = [np.array([[-1, -1, g, int(cands.size), 1]], dtype=np.int32)]
        count = 1
        for key, s, part in sorted(parts, key=lambda p: p[1]):
            if part.size <= 2:
                r = [[-1, -1, int(part[0]), int(part.size), 1]]
                if part.size == 2:
                    r.append(
                        [0, int(game.kernel.slots(int(part[0]), part[1:])[0]), int(part[1]), 1, 2]
                    )
                sub = np.array(r, dtype=np.int32)
            else:
                sub = np.array(answers[key]["recs"], dtype=np.int32, copy=True)
            root = sub[:, 0] < 0
            sub[~root, 0] += count
            sub[root, 0] = 0
            sub[root, 1] = s
            sub[:, 4] += 1
            rows.append(sub)
            count += sub.shape[0]
        recs = np.concatenate(rows)
        played = replay_records(
            game, recs, cands, candidates_only=bool(unit.args["candidates_only"])
        )
        if played is None or played[1] > int(unit.args["d"]):  # pragma: no cover - a bug
            raise RuntimeError(f"the witness put together for {unit.key} does not hold")
        return recs

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        i, s = self.units[unit.key]
        ok = bool(result["ok"])
        g = self.openings[i]
        self.search._nodes += int(result.get("nodes", 0))
        self.search.learn(g, s, self.d - 1, ok=ok, recs=result.get("recs") if ok else None)
        self.answers[i][s] = ok
        drop = []
        stop = self._first_false(i)
        after = {t for t, _ in self.parts[i][stop + 1 :]}
        for key, (j, t) in self.units.items():
            if key == unit.key:
                continue
            if (j == i and t in after) or (self.state(i) is True and j > i):
                drop.append(key)
        return drop


RANGES = 16
"""A split question with more than one guess left hands them out in about this many
ranges of consecutive guesses, each a unit searching them with one memo (a memo shared
by a question's guesses saves about a third of the work: the same sets come back under
other guesses)."""


class _Ors:
    """A split question's guesses (an OR), each with its parts (an AND), the parts worked
    out when a guess is first reached, and forgotten once it is refuted (only a proved
    guess's parts are needed again, for the witness); each reached guess's verdict kept
    up to date answer by answer (a 4-left question of p(5,8) has some 15,000 guesses);
    how far :meth:`ExistsPlan.more` has gone (guess ``at``, its part ``pos``)."""

    def __init__(self, game: GameLike, unit: Unit, split: dict[str, Any]):
        self.game = game
        self.key = unit.key
        self.e = int(unit.args["d"]) - 1
        self.cands = unit.args["cands"]
        self.guesses = [int(g) for g in np.asarray(split["openings"]).tolist()]
        self.index = {g: i for i, g in enumerate(self.guesses)}
        self._parts: dict[int, list[tuple[str, int, np.ndarray]]] = {}
        self.state: dict[int, Optional[bool]] = {}  # reached guess -> its verdict
        self.proved: set[int] = set()
        self.refuted: set[int] = set()
        self.fresh: list[int] = []  # refuted, parts not yet forgotten
        self.taken = 0  # answers looked at (the engine only ever adds answers)
        # the first guesses, refuted by the question's own search before it split
        first = min(max(int(split.get("refuted", 0)), 0), len(self.guesses))
        for i in range(first):
            self.state[i] = False
            self.refuted.add(i)
        self.at = first
        self.pos = 0
        left = len(self.guesses) - first
        # guesses a range (0: none; a split recorded before ranges, without the field,
        # goes on guess by guess, so that the sub-answers its checkpoint holds serve)
        ranged = bool(int(split.get("ranges", 0)))
        self.chunk = -(-left // RANGES) if left > 1 and ranged else 0
        self.proof: dict[int, str] = {}  # a guess a range proved -> the range's key

    def next_range(self, unit: Unit) -> Optional[Unit]:
        """The next range of guesses, as a unit (None when every guess is handed out)."""
        if self.at >= len(self.guesses):
            return None
        a, b = self.at, min(self.at + self.chunk, len(self.guesses))
        self.at = b
        args = dict(unit.args)
        args["tries"] = np.array(self.guesses[a:b], dtype=np.int32)
        return Unit(f"{self.key}/r{a}-{b}", unit.kind, args, int(self.cands.size))

    def _ranged(self, seg: str, answer: dict[str, Any]) -> None:
        """A range's answer (``seg``: rA-B): its guesses refuted, or the one proved."""
        a, b = (int(x) for x in seg[1:].split("-"))
        if int(answer["ok"]):
            g = int(np.asarray(answer["recs"])[0, 2])
            i = self.index.get(g, a)  # (its own search's guess: one of the range)
            self.state[i] = True
            self.proved.add(i)
            self.proof[i] = f"{self.key}/{seg}"
            return
        for i in range(a, min(b, len(self.guesses))):
            self.state[i] = False
            self.refuted.add(i)

    def parts(self, i: int) -> list[tuple[str, int, np.ndarray]]:
        """Guess i's non-winning parts as (key, slot, codes), the largest first."""
        parts = self._parts.get(i)
        if parts is None:
            g = self.guesses[i]
            parts = [
                (f"{self.key}/{g}/{s}", s, part)
                for s, part in split_by_score(self.game, g, self.cands)
                if s != self.game.win_slot
            ]
            parts.sort(key=lambda p: -p[2].size)
            self._parts[i] = parts
        return parts

    def reach(self, i: int, answers: dict[str, Any]) -> Optional[bool]:
        """Guess i reached: its parts worked out, its verdict."""
        if i not in self.state:
            self.parts(i)
            self._judge(i, answers)
        return self.state[i]

    def _judge(self, i: int, answers: dict[str, Any]) -> None:
        """Guess i's verdict: True (every part solvable within e), False (a part is
        not), None (open)."""
        if i in self.refuted:
            return
        verdict: Optional[bool] = True
        for key, _s, part in self._parts[i]:
            if part.size <= 2:
                ok: Optional[bool] = part.size <= self.e
            else:
                a = answers.get(key)
                ok = None if a is None else bool(a["ok"])
            if ok is False:
                verdict = False
                break
            if ok is None:
                verdict = None
        self.state[i] = verdict
        if verdict is True:
            self.proved.add(i)
        elif verdict is False:
            self.refuted.add(i)
            self.fresh.append(i)

    def update(self, answers: dict[str, Any]) -> None:
        """The answers that came since the last look: their guesses judged again."""
        if len(answers) == self.taken:
            return
        start = len(self.key) + 1
        # the newest answers, from the end (the engine only ever adds answers, in order):
        # a slice from the front would walk past every answer taken before, each time
        fresh = list(itertools.islice(reversed(answers), len(answers) - self.taken))
        for key in reversed(fresh):
            seg = key[start:].split("/", 1)[0]
            if seg.startswith("r"):
                self._ranged(seg, answers[key])
                continue
            i = self.index.get(int(seg))
            if i is not None and i in self.state:
                self._judge(i, answers)
        self.taken = len(answers)

    def decided(self) -> Optional[bool]:
        if self.proved:
            return True
        if len(self.refuted) == len(self.guesses):
            return False
        return None

    def drop(self, answers: dict[str, Any]) -> list[str]:
        """The guesses refuted since the last call: their parts forgotten; the keys of
        those asked and not answered."""
        out: list[str] = []
        for i in self.fresh:
            parts = self._parts.get(i, [])
            self._parts[i] = []  # reached, refuted: nothing left to ask
            out.extend(key for key, _, part in parts if part.size >= 3 and key not in answers)
        self.fresh = []
        return out


def exists_unit(
    game: GameCore,
    *,
    stop: Any,
    cands: np.ndarray,
    d: int,
    candidates_only: bool,
    symmetry: bool,
    memory: int,
    history: Optional[np.ndarray] = None,
    budget: Optional[float] = None,
    tries: Optional[np.ndarray] = None,
) -> dict[str, Any]:
    """One question, on a worker: can every code of ``cands`` be found within ``d``
    guesses (with ``tries``: starting with one of those guesses)?  A search of its own (a fresh memo: the answer and the witness depend on
    the question alone), whose root tries one guess per symmetry class of ``history``
    (the guesses played before it: more symmetry than the set's own); when solvable,
    the witness as records (parent, slot, guess, size, depth).

    With a ``budget`` (seconds) a search still running past it stops and the question
    splits (``split=1``): the guesses the search would try at its set (one per
    symmetry class of ``history``, the guesses played before it, in the search's
    order; :meth:`ExistsPlan.expand` makes their parts sub-questions within d - 1)."""
    flag = stop if stop is not None else new_flag()
    search = Search(
        cast("GameLike", game),  # (a worker's custom game is its table: all a search reads)
        game.guesses,
        candidates_only=candidates_only,
        symmetry=symmetry and game.symmetric,
        memory=memory,
    )
    search.stop = flag  # a stop request reaches the search
    splits = budget is not None and cands.size >= 3 and d >= 3
    if budget is not None and splits:
        flag.set_time_limit(max(float(budget), 1e-9))
    try:
        ok, _ = search.run(cands, d, pool=search.root_pool(history), tries=tries)
        flag.set_time_limit(0)  # a witness, once proved, is found in full
        recs = search.witness_records(cands, d) if ok else None
    except (SearchUnfinished, TimeLimitReached):
        if not (splits and flag.value == _core.STOP_DEADLINE):
            raise Stopped("the unit was stopped") from None
        flag.clear()
        flag.set_time_limit(0)
        return _split_question(
            game,
            search,
            cands,
            d,
            candidates_only=candidates_only,
            symmetry=symmetry,
            history=history,
            tries=tries,
        )
    out: dict[str, Any] = {"ok": int(ok), "nodes": search.nodes}
    if recs is not None:
        out["recs"] = recs
    return out


def _split_question(
    game: GameCore,
    search: Search,
    cands: np.ndarray,
    d: int,
    *,
    candidates_only: bool,
    symmetry: bool,
    history: Optional[np.ndarray],
    tries: Optional[np.ndarray] = None,
) -> dict[str, Any]:
    """A question that ran past its budget: the guesses its search tries at its set (or
    its refutation, when none can work; only those of ``tries``, when given), and how
    many of the first it had refuted (``refuted``: their parts are not asked again);
    ``ranges``: its guesses are handed out in ranges (a split recorded before ranges has
    no such field, and is followed guess by guess)."""
    progress = search.core.root_progress
    if progress is not None:
        ranked, refuted = progress
        if refuted >= ranked.size:  # (every guess refuted as it stopped)
            return {"ok": 0, "nodes": search.nodes}
        tried = np.ascontiguousarray(ranked, dtype=np.int32)
        return {
            "split": 1,
            "nodes": search.nodes,
            "openings": tried,
            "refuted": refuted,
            "ranges": 1,
        }
    if symmetry and game.symmetric and history is not None:
        pool = _symmetry.canonical_guesses(
            game.kernel, game.guesses, np.ascontiguousarray(history, dtype=np.int32)
        )
    else:
        pool = np.ascontiguousarray(game.guesses, dtype=np.int32)
    if candidates_only:
        pool = np.ascontiguousarray(pool[np.isin(pool, cands)], dtype=np.int32)
    openings = root_openings(game, cands, pool, d, search.core.order, game.kernel.nslots - 1)
    if openings and tries is not None:
        openings = [g for g in openings if g in set(np.asarray(tries).tolist())]
    if not openings:
        return {"ok": 0, "nodes": search.nodes}
    tried = np.array(openings, dtype=np.int32)
    return {"split": 1, "nodes": search.nodes, "openings": tried, "ranges": 1}
