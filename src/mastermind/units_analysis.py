"""An exhaustive analysis as units of work.

The plan (:class:`AnalysisPlan`) starts from the opening alone and cuts the strategy tree
as it goes: a node whose guess takes a large scan (its guesses times its candidates) is
chosen by **scan units**, one per block of its guesses (:func:`scan_unit`: the block's
best guess by the strategy's choice rule, with its key), the node's guess being the best
of the blocks' bests by the same rule (a total order: best key, then a candidate, then
the smallest index), so exactly the guess the in-process walk plays there; a small scan
is made on the client at once.  The node's parts become nodes again (the top two levels,
as :func:`mastermind.strategy_walk.expand_top` expands them; deeper, a part whose scan
would be longer than one block) or subtrees, walked by the kernel on a worker
(:func:`walk_unit`), small ones grouped so that a unit carries at least
``max(64, secrets / 512)`` candidates.  So the client's top levels run on the workers,
in parallel, and no unit scans more than about one block of pairs at its first node.

A subtree's walk depends on that subtree alone; the distributions add up and the trees
hang where the plan left them, so the result is, bit for bit, that of the in-process
analysis, whatever the workers and the order in which units finish.  With a checkpoint,
each unit's answer (a scan's best guess, a walk's distribution and tree records) is
recorded as it finishes, and a rerun runs only the others: a unit's key names its place
(``scan/PATH:B``, ``walk/PATH:I``, ``walk/I`` for the units known at the start; PATH the
slots from the root, ``12.5``), a function of the game and the options alone.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections import deque
from typing import Any, Optional

import numpy as np

from . import _core, _scan, _symmetry, _walk
from .engine.units import Unit
from .rules import Strategy
from .stopping import Stopped, TimeLimitReached, new_flag, stopped
from .strategy_walk import (
    EXPAND_MIN,
    Node,
    Task,
    graft,
    guess_lists,
    split_by_score,
    walk_tasks,
)

__all__ = [
    "CLIENT_PAIRS",
    "SCAN_BLOCK",
    "SCAN_BLOCKS",
    "SPLIT_MIN",
    "UNIT_FLOOR",
    "UNITS_TARGET",
    "AnalysisPlan",
    "checkpoint_params",
    "child_groups",
    "merge_split",
    "plan_units",
    "scan_block",
    "scan_unit",
    "walk_unit",
]

PROBE = 0.125
"""The share of its budget a unit first spends walking its subtrees whole (one kernel
call, no overhead); only a unit still walking then is walked in batches, able to split
(what the probe walked is lost: at most this share of the budget)."""

SPLIT_MIN = 3
"""A unit of one subtree splits one level down only if the subtree has at least this
many candidates (a smaller one is walked whole in any budget)."""

UNIT_FLOOR = 64
"""Candidates a unit gathers at least (subtrees this small are grouped)."""

UNITS_TARGET = 512
"""About how many units the small subtrees are grouped into (each gathers at least
secrets / UNITS_TARGET candidates); larger subtrees are units of their own."""

SCAN_BLOCK = 1 << 29
"""Pairs (guesses x candidates) a scan unit scores at most (about 0.4 s on this
package's machine), in games up to [7,7]; a node below the top two levels whose scan is
larger than a block is chosen by scan units (and its parts planned in turn) rather than
walked in one unit.  Larger games have larger blocks (:func:`scan_block`)."""

SCAN_BLOCKS = 1 << 16
"""A game's block holds at least 1 / SCAN_BLOCKS of its whole first scan (secrets x
guesses): [8,8]'s blocks are 4.4e9 pairs (a few seconds), so that its scans make
thousands of units, not a hundred thousand (a client records about 60 units a second)."""


def scan_block(game: Any) -> int:
    """The pairs a scan unit of ``game`` scores at most (:data:`SCAN_BLOCK`,
    :data:`SCAN_BLOCKS`): a function of the game alone, so that a checkpoint's units stay
    the same."""
    return max(SCAN_BLOCK, int(game.secrets.size) * int(game.guesses.size) // SCAN_BLOCKS)


CLIENT_PAIRS = 1 << 24
"""Scans up to this many pairs (milliseconds) are made on the client, at once; larger
ones are scan units."""


def checkpoint_params(
    game: Any,
    strategy: Strategy,
    candidates_only: bool,
    g0: int,
    tree: bool,
    symmetry: bool,
    plain: bool,
) -> dict[str, Any]:
    """What an analysis unit's answer depends on, beside the game: its checkpoint's
    parameters."""
    return {
        "strategy": strategy.value,
        "candidates_only": bool(candidates_only),
        "first": game.format_code(g0),
        "tree": bool(tree),
        "symmetry": bool(symmetry),
        "plain": bool(plain),
    }


def plan_units(tasks: list[Task], secrets: int) -> list[list[int]]:
    """The tasks (largest first) grouped into units: consecutive tasks until a unit
    holds ``max(UNIT_FLOOR, secrets // UNITS_TARGET)`` candidates.  A function of the
    tasks alone (never of the workers), so a checkpoint's units stay the same."""
    least = max(UNIT_FLOOR, secrets // UNITS_TARGET)
    groups: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, t in enumerate(tasks):
        current.append(i)
        size += int(t.cands.size)
        if size >= least:
            groups.append(current)
            current, size = [], 0
    if current:
        groups.append(current)
    return groups


class _Pending:
    """A node whose guess its scan units are choosing: the subtree, its path and slots
    from the root, its guess list and the blocks' answers so far."""

    def __init__(self, task: Task, path: str, slots: list[int], glist: np.ndarray, cuts: list):
        self.task = task
        self.path = path
        self.slots = slots
        self.glist = glist
        self.cuts = cuts  # (lo, hi) of each block
        self.best: list[Optional[tuple[int, int, int]]] = [None] * len(cuts)
        self.left = len(cuts)


class AnalysisPlan:
    """The strategy tree from its opening ``g0``: scan units for the nodes with large
    scans, walk units for the subtrees below (module docstring); ``dist`` and ``root``
    (with ``tree``) hold the result once :meth:`done`.  Scan units are offered first
    (the work after them waits for them), then the walk units, largest first.
    ``client_seconds``: the time the plan spent on the client (its small scans, the
    splits by score, the guess lists)."""

    kind = "analyze"

    def __init__(
        self,
        game: Any,
        g0: int,
        strategy: Strategy,
        candidates_only: bool,
        tree: bool,
        symmetry: bool,
        plain: bool,
        flag: Any = None,
    ):
        t0 = time.perf_counter()
        self.game = game
        self.how = strategy
        self.candidates_only = bool(candidates_only)
        self.tree = bool(tree)
        self.symmetry = bool(symmetry)
        self.plain = bool(plain)
        self.flag = flag if flag is not None else new_flag()
        self.secrets = int(game.secrets.size)
        self.dist: dict[int, int] = {}
        self.root: Optional[Node] = Node(int(g0), self.secrets) if tree else None
        self.blanks = self.symmetry and game.guesses.size == game.size
        self.block = scan_block(game)
        # scans by units only for the kinds that scan, never in the plain reference walk
        self.cut = not self.plain and strategy.kind != _core.VAL_FIRST
        self.base: dict[str, Any] = {
            "strategy": strategy.value,
            "candidates_only": self.candidates_only,
            "tree": self.tree,
            "symmetry": self.symmetry,
            "plain": self.plain,
        }
        self._scans: deque[Unit] = deque()
        self._walks: list[tuple[int, int, Unit]] = []  # heap: (-size, number, unit)
        self._nodes: dict[str, _Pending] = {}
        self._tasks: dict[str, list[Task]] = {}  # walk unit key -> its subtrees
        self._made = 0
        self._out = 0  # units offered, not yet taken
        self._glist: tuple[bytes, Optional[np.ndarray]] = (b"", None)
        batch: list[Task] = []
        self._children(
            int(g0), game.secrets, 1, np.zeros(0, dtype=np.int32), [], self.root, "", batch
        )
        self._walk_units("", batch)
        self.client_seconds = time.perf_counter() - t0

    # ------------------------------------------------------------ the tree, planned
    def _children(
        self,
        guess: int,
        cands: np.ndarray,
        depth: int,
        history: np.ndarray,
        slots: list[int],
        node: Optional[Node],
        path: str,
        batch: list[Task],
    ) -> None:
        """Guess ``guess`` (number ``depth``) played at a node: its win counted, its parts
        planned (:meth:`_place`)."""
        game = self.game
        h = np.append(history, np.int32(guess)).astype(np.int32)
        for s, part in split_by_score(game, guess, cands):
            if s == game.win_slot:
                self.dist[depth] = self.dist.get(depth, 0) + 1
                continue
            task = Task(part, depth + 1, h, node, game.slots[s])
            self._place(task, f"{path}.{s}" if path else str(s), slots + [s], batch)

    def _guesses(self, history: np.ndarray) -> np.ndarray:
        """The guesses the walk scans after ``history`` (one per symmetry class)."""
        game = self.game
        if not (self.symmetry and not self.candidates_only):
            return game.guesses
        key = history.tobytes()
        if self._glist[0] != key or self._glist[1] is None:  # siblings share it
            gl = _symmetry.canonical_guesses(game.kernel, game.guesses, history, self.flag)
            stopped(self.flag)
            self._glist = (key, gl)
        return self._glist[1]  # type: ignore[return-value]

    def _place(self, task: Task, path: str, slots: list[int], batch: list[Task]) -> None:
        """A part: walked (into ``batch``), or a node whose guess is chosen here (a small
        scan) or by scan units (a large one)."""
        m = int(task.cands.size)
        top = task.depth == 2  # the top two levels are expanded, as expand_top does
        if (
            not self.cut
            or m <= EXPAND_MIN
            or (not top and m * int(self.game.guesses.size) <= self.block)
        ):
            batch.append(task)
            return
        glist = task.cands if self.candidates_only else self._guesses(task.history)
        pairs = m * int(glist.size)
        if not top and pairs <= self.block:
            batch.append(task)
            return
        if pairs <= CLIENT_PAIRS:
            g = int(
                _walk.choose(
                    self.game.kernel,
                    glist,
                    task.cands,
                    self.how.kind,
                    self.candidates_only,
                    self.game.secrets_are_guesses,
                    1,
                    self.blanks,
                    self.flag,
                )
            )
            stopped(self.flag)  # a deadline leaves choose's answer partial
            self._chosen(g, task, path, slots, batch)
            return
        blocks = -(-pairs // self.block)
        per = -(-int(glist.size) // blocks)
        cuts = [(lo, min(lo + per, int(glist.size))) for lo in range(0, int(glist.size), per)]
        self._nodes[path] = _Pending(task, path, slots, glist, cuts)
        for b, (lo, hi) in enumerate(cuts):
            args = {
                "strategy": self.how.value,
                "candidates_only": self.candidates_only,
                "symmetry": self.symmetry,
                "history": np.ascontiguousarray(task.history, dtype=np.int32),
                "slots": np.array(slots, dtype=np.int32),
                "lo": int(lo),
                "hi": int(hi),
            }
            self._scans.append(
                Unit(f"scan/{path}:{b}", "mastermind.units_analysis:scan_unit", args, m)
            )
            self._made += 1

    def _chosen(self, g: int, task: Task, path: str, slots: list[int], batch: list[Task]) -> None:
        """A node's guess is known: its tree node hung, its parts planned."""
        node = None
        if self.tree:
            node = Node(g, int(task.cands.size))
            task.parent.children[task.score] = node
        self._children(g, task.cands, task.depth, task.history, slots, node, path, batch)

    def _walk_units(self, path: str, batch: list[Task]) -> None:
        """The subtrees of ``batch`` grouped into walk units (largest first)."""
        if not batch:
            return
        order = sorted(range(len(batch)), key=lambda i: -batch[i].cands.size)
        tasks = [batch[i] for i in order]
        for number, group in enumerate(plan_units(tasks, self.secrets)):
            sel = [tasks[i] for i in group]
            width = max(1, max(t.history.size for t in sel))
            histories = np.zeros((len(sel), width), dtype=np.int32)
            for row, t in enumerate(sel):
                histories[row, : t.history.size] = t.history
            args = dict(self.base)
            args.update(
                cands=np.concatenate([t.cands for t in sel]).astype(np.int32),
                sizes=np.array([t.cands.size for t in sel], dtype=np.int64),
                depths=np.array([t.depth for t in sel], dtype=np.int32),
                histories=histories,
                hlens=np.array([t.history.size for t in sel], dtype=np.int32),
            )
            key = f"walk/{path}:{number}" if path else f"walk/{number}"
            unit = Unit(key, "mastermind.units_analysis:walk_unit", args, int(args["cands"].size))
            self._tasks[key] = sel
            heapq.heappush(self._walks, (-unit.size, self._made, unit))
            self._made += 1

    # ------------------------------------------------------------ the engine's side
    def next(self) -> Optional[Unit]:
        if self._scans:
            unit = self._scans.popleft()
        elif self._walks:
            unit = heapq.heappop(self._walks)[2]
        else:
            return None
        self._out += 1
        return unit

    def take(self, unit: Unit, result: dict[str, Any]) -> list[str]:
        t0 = time.perf_counter()
        self._out -= 1
        if unit.key.startswith("scan/"):
            path, b = unit.key[5:].rsplit(":", 1)
            pend = self._nodes[path]
            pend.best[int(b)] = (int(result["key"]), 1 - int(result["cand"]), int(result["guess"]))
            pend.left -= 1
            if pend.left == 0:
                del self._nodes[path]
                g = min(pend.best)[2]  # type: ignore[type-var,index]
                batch: list[Task] = []
                self._chosen(g, pend.task, path, pend.slots, batch)
                self._walk_units(path, batch)
        else:
            sel = self._tasks.pop(unit.key)
            recs = None
            if "recs" in result:
                cuts = np.cumsum(result["rec_counts"])[:-1]
                recs = np.split(result["recs"], cuts)
            graft(self.game, sel, result["dists"], recs, self.dist)
        self.client_seconds += time.perf_counter() - t0
        return []

    def done(self) -> bool:
        return self._out == 0 and not self._scans and not self._walks

    def known(self) -> int:
        return self._made

    def valid(self, unit: Unit, result: dict[str, Any]) -> bool:
        """Whether a recorded answer holds for its unit: one distribution per subtree,
        each summing to its subtree's secrets; with a tree, one run of records per
        subtree, each opening with a node of that size.  A scan's answer: a guess of its
        block, with the key and candidacy the kernel gives it at the node."""
        if unit.key.startswith("scan/"):
            return self._valid_scan(unit, result)
        sizes = np.asarray(unit.args["sizes"])
        dists = np.asarray(result["dists"])
        if (
            dists.ndim != 2
            or dists.shape[0] != sizes.size
            or dists.dtype.kind not in "iu"
            or (dists < 0).any()
            or not np.array_equal(dists.sum(axis=1), sizes)
        ):
            return False
        if not unit.args["tree"]:
            return True
        recs, counts = np.asarray(result["recs"]), np.asarray(result["rec_counts"])
        if (
            recs.ndim != 2
            or recs.shape[1] != 5
            or counts.shape != sizes.shape
            or (counts < 1).any()
            or int(counts.sum()) != recs.shape[0]
        ):
            return False
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        return bool(np.array_equal(recs[starts, 3], sizes) and (recs[starts, 0] == -1).all())

    def _valid_scan(self, unit: Unit, result: dict[str, Any]) -> bool:
        """A scan's recorded answer: its guess in its block of the node's guesses, its
        key and candidacy those the kernel gives that guess at the node (scored again
        here: one guess against the node's candidates)."""
        pend = self._nodes.get(unit.key[5:].rsplit(":", 1)[0])
        if pend is None:
            return False
        g = int(result["guess"])
        block = pend.glist[int(unit.args["lo"]) : int(unit.args["hi"])]
        i = int(np.searchsorted(block, g))
        if not (i < block.size and int(block[i]) == g):
            return False
        _, key, cand = _scan.best_guess(
            self.game.kernel, np.array([g], dtype=np.int32), pend.task.cands, self.how.kind
        )
        return int(key) == int(result["key"]) and int(cand) == int(result["cand"])

    # ------------------------------------------------------------ splits
    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """The sub-units of a split (:func:`walk_unit` past its budget): the subtrees it
        had not walked (:func:`child_groups`: below a node it played, neighbours grouped
        up to :data:`UNIT_FLOOR` candidates; one each otherwise), keyed ``PARENT/I`` (I
        the place of its first subtree among the split's subtrees)."""
        first = int(split["done"])
        rsizes = np.asarray(split["rsizes"], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(rsizes)]).astype(np.int64)
        children = []
        for lo, hi in child_groups(split):
            sel = range(lo, hi)
            width = max(1, max(int(split["rhlens"][i]) for i in sel))
            histories = np.zeros((hi - lo, width), dtype=np.int32)
            for row, i in enumerate(sel):
                hl = int(split["rhlens"][i])
                histories[row, :hl] = split["rhist"][i][:hl]
            cands = np.ascontiguousarray(split["rcands"][starts[lo] : starts[hi]], dtype=np.int32)
            args = dict(unit.args)
            args.update(
                cands=cands,
                sizes=np.ascontiguousarray(rsizes[lo:hi], dtype=np.int64),
                depths=np.ascontiguousarray(split["rdepths"][lo:hi], dtype=np.int32),
                histories=histories,
                hlens=np.ascontiguousarray(split["rhlens"][lo:hi], dtype=np.int32),
            )
            children.append(Unit(f"{unit.key}/{first + lo}", unit.func, args, int(cands.size)))
        return children

    def valid_split(self, unit: Unit, split: dict[str, Any]) -> bool:
        """Whether a recorded split adds up: its subtrees hold the unit's candidates (less
        the one its guess found), the walked ones' distributions their sizes."""
        wsizes = np.asarray(split["wsizes"])
        done = int(split["done"])
        sizes = np.asarray(unit.args["sizes"])
        if int(split["guess"]) >= 0:
            ok = sizes.size == 1 and int(wsizes.sum()) + int(split["won"]) == int(sizes[0])
        else:
            ok = np.array_equal(wsizes, sizes)
        dists = np.asarray(split["dists"])
        return bool(
            ok
            and 0 <= done <= wsizes.size
            and dists.shape[0] == done
            and np.array_equal(dists.sum(axis=1), wsizes[:done])
            and np.array_equal(np.asarray(split["rsizes"]), wsizes[done:])
        )

    def merge(
        self, unit: Unit, split: dict[str, Any], answers: dict[str, dict[str, Any]]
    ) -> Optional[dict[str, Any]]:
        """The unit's answer once every sub-unit has its own (:func:`merge_split`)."""
        return merge_split(unit.key, unit.args, split, answers)


_NODES: dict[tuple, tuple] = {}
_NODES_LOCK = threading.Lock()


def _node_lists(
    game: Any,
    candidates_only: bool,
    symmetry: bool,
    history: np.ndarray,
    slots: np.ndarray,
    flag: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """A node's candidates (the secrets left by its history's scores) and the guesses
    the walk scans there (its candidates, one guess per symmetry class of its history, or
    every guess); the last few nodes kept per process (a node's blocks share them)."""
    key = (id(game), candidates_only, symmetry, history.tobytes(), slots.tobytes())
    with _NODES_LOCK:
        hit = _NODES.get(key)
    if hit is not None and hit[0] is game:
        return hit[1], hit[2]
    cands = game.secrets
    for g, s in zip(history.tolist(), slots.tolist()):
        cands = game.kernel.filter(int(g), int(s), cands)
    if candidates_only:
        glist = cands
    elif symmetry:
        glist = _symmetry.canonical_guesses(game.kernel, game.guesses, history, flag)
        if flag.value != _core.STOP_NONE:  # the list is void
            raise Stopped("the scan was stopped")
    else:
        glist = game.guesses
    with _NODES_LOCK:
        if len(_NODES) >= 4:
            _NODES.clear()
        _NODES[key] = (game, cands, glist)
    return cands, glist


def scan_unit(
    game: Any,
    *,
    stop: Any,
    strategy: str,
    candidates_only: bool,
    symmetry: bool,
    history: np.ndarray,
    slots: np.ndarray,
    lo: int,
    hi: int,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """One block of a node's scan, on a worker: the node (after the guesses ``history``
    answered by the scores ``slots``), the guesses ``lo:hi`` of its guess list; the best
    of them by the strategy's choice rule (``guess``), its ``key`` and whether it is a
    candidate (``cand``).  The node's guess is the least (key, not a candidate, guess)
    over its blocks.  Never splits (``budget`` is not needed: a block is small)."""
    flag = stop if stop is not None else new_flag()
    how = Strategy.parse(strategy)
    history = np.ascontiguousarray(history, dtype=np.int32)
    cands, glist = _node_lists(
        game, candidates_only, symmetry, history, np.asarray(slots, dtype=np.int32), flag
    )
    block = np.ascontiguousarray(glist[int(lo) : int(hi)])
    g, key, cand = _scan.best_guess(game.kernel, block, cands, how.kind, 1, flag)
    if flag.value != _core.STOP_NONE:  # stopped or past a deadline: the answer is partial
        raise Stopped("the scan was stopped")
    return {"guess": int(g), "key": int(key), "cand": int(bool(cand))}


def walk_unit(
    game: Any,
    *,
    stop: Any,
    strategy: str,
    candidates_only: bool,
    tree: bool,
    symmetry: bool,
    plain: bool,
    cands: np.ndarray,
    sizes: np.ndarray,
    depths: np.ndarray,
    histories: np.ndarray,
    hlens: np.ndarray,
    budget: Optional[float] = None,
) -> dict[str, Any]:
    """One unit, on a worker: its subtrees walked by the kernel in one thread; their
    distributions (one row each) and, with ``tree``, their records (concatenated, with
    each subtree's number of rows).

    With a ``budget`` (seconds) the unit first walks its subtrees whole for
    :data:`PROBE` of it; past that, it may split: a unit of one subtree (of
    :data:`SPLIT_MIN` candidates or more) plays its node's guess here and walks the
    subtrees below it, a unit of several walks them, in small batches; past the budget
    it stops and hands back a split (``split=1``): the rows of the subtrees walked so
    far and the subtrees left (:meth:`AnalysisPlan.expand` makes them units).  The
    probe and the batch in progress when the budget ran out are the only work lost."""
    flag = stop if stop is not None else new_flag()
    how = Strategy.parse(strategy)
    cuts = np.cumsum(sizes)[:-1]
    sel = [
        Task(np.ascontiguousarray(c), int(d), np.ascontiguousarray(h[:hl]), None, None)
        for c, d, h, hl in zip(np.split(cands, cuts), depths, histories, hlens)
    ]
    if budget is None or (len(sel) == 1 and sel[0].cands.size < SPLIT_MIN):
        # (a subtree too small to split is walked whole: a split must make progress)
        dists, recs = walk_tasks(
            game, how, candidates_only, tree, symmetry, plain, 1, sel, None, flag
        )
        return _answer(dists, recs if tree else None)
    deadline = _core.monotonic() + max(0.0, budget)
    if budget > 0:  # most units are far below their budget: first, the plain walk
        flag.set_time_limit(budget * PROBE)
        try:
            dists, recs = walk_tasks(
                game, how, candidates_only, tree, symmetry, plain, 1, sel, None, flag
            )
            return _answer(dists, recs if tree else None)
        except (Stopped, TimeLimitReached):
            if flag.value != _core.STOP_DEADLINE:
                raise
            flag.clear()
        finally:
            flag.set_time_limit(0)
    guess, won, slots = -1, 0, [-1] * len(sel)
    if len(sel) == 1 and sel[0].cands.size >= SPLIT_MIN:
        t = sel[0]
        guess = _node_guess(game, how, candidates_only, symmetry, plain, t, flag)
        history = np.append(t.history, np.int32(guess)).astype(np.int32)
        sel, slots = [], []
        for slot, part in split_by_score(game, guess, t.cands):
            if slot == game.win_slot:
                won = 1
            else:
                sel.append(Task(part, t.depth + 1, history, None, None))
                slots.append(slot)
        depth = t.depth
    else:
        depth = int(depths[0]) if depths.size else 0
    rows: list[np.ndarray] = []
    recs_done: list[np.ndarray] = []
    done = 0
    total = sum(int(t.cands.size) for t in sel)
    # each history's guesses computed once for the unit, not once per batch
    lists = (
        guess_lists(game, sel, symmetry and not candidates_only, flag)
        if sel
        else (None, None, None)
    )
    for batch in _batches(sel, max(UNIT_FLOOR, total // 16)):
        left = deadline - _core.monotonic()
        if left <= 0:
            break
        flag.set_time_limit(left)
        try:
            dists, recs = walk_tasks(
                game,
                how,
                candidates_only,
                tree,
                symmetry,
                plain,
                1,
                sel[done : done + batch],
                None,
                flag,
                lists=lists,
                first=done,
            )
        except (Stopped, TimeLimitReached):  # (the kernel's, or a check between calls)
            if flag.value != _core.STOP_DEADLINE:
                raise
            flag.clear()
            break
        finally:
            flag.set_time_limit(0)
        rows.extend(dists)
        if tree and recs is not None:
            recs_done.extend(recs)
        done += batch
    if guess < 0 and done == len(sel):  # walked whole within its budget
        return _answer(np.array(rows), recs_done if tree else None)
    width = max([r.size for r in rows], default=1)
    dists = np.zeros((done, width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    rest = sel[done:]
    hwidth = max([t.history.size for t in rest], default=1)
    rhist = np.zeros((len(rest), max(1, hwidth)), dtype=np.int32)
    for i, t in enumerate(rest):
        rhist[i, : t.history.size] = t.history
    out = _answer(dists, recs_done if tree else None)
    out.update(
        {
            "split": 1,
            "guess": int(guess),
            "won": int(won),
            "depth": int(depth),
            "done": done,
            "wsizes": np.array([t.cands.size for t in sel], dtype=np.int64),
            "wslots": np.array(slots, dtype=np.int32),
            "rcands": (
                np.concatenate([t.cands for t in rest]).astype(np.int32)
                if rest
                else np.zeros(0, dtype=np.int32)
            ),
            "rsizes": np.array([t.cands.size for t in rest], dtype=np.int64),
            "rdepths": np.array([t.depth for t in rest], dtype=np.int32),
            "rhist": rhist,
            "rhlens": np.array([t.history.size for t in rest], dtype=np.int32),
        }
    )
    if not rest:  # split one level down and walked whole within its budget
        return merge_split("", {"tree": tree, "sizes": sizes}, out, {})  # type: ignore
    return out


def child_groups(split: dict[str, Any]) -> list[tuple[int, int]]:
    """The sub-units of a split, as runs (lo, hi) of the subtrees it left: below a node
    the unit played (its parts, in score order), neighbours together until a run holds
    :data:`UNIT_FLOOR` candidates (a unit of a few candidates costs more to send than to
    walk); a unit of several subtrees that split hands each back alone (so that a split
    always makes smaller units, whatever the budget)."""
    sizes = [int(x) for x in np.asarray(split["rsizes"]).tolist()]
    if int(split["guess"]) < 0:
        return [(i, i + 1) for i in range(len(sizes))]
    groups: list[tuple[int, int]] = []
    lo, size = 0, 0
    for i, n in enumerate(sizes):
        size += n
        if size >= UNIT_FLOOR:
            groups.append((lo, i + 1))
            lo, size = i + 1, 0
    if lo < len(sizes):
        groups.append((lo, len(sizes)))
    return groups


def merge_split(
    key: str, args: dict[str, Any], split: dict[str, Any], answers: dict[str, dict[str, Any]]
) -> Optional[dict[str, Any]]:
    """The answer of unit ``key`` (arguments ``args``) that split, once every sub-unit
    has its own (None before): the walked subtrees' and the sub-units' rows in order,
    folded back into the split node when the unit had split one level down (its guess,
    its win, its records on top).  Exactly the answer of the unit walked whole."""
    done = int(split["done"])
    groups = child_groups(split)
    if len(answers) < len(groups):
        return None
    tree = bool(args["tree"])
    rows = list(np.asarray(split["dists"]))
    recs: list[np.ndarray] = []
    if tree:
        cuts = np.cumsum(split["rec_counts"])[:-1]
        recs = [r for r in np.split(split["recs"], cuts)] if done else []
    for lo, hi in groups:
        answer = answers[f"{key}/{done + lo}"]
        rows.extend(np.asarray(answer["dists"])[: hi - lo])
        if tree:
            cuts = np.cumsum(answer["rec_counts"])[:-1]
            recs.extend(np.split(np.asarray(answer["recs"]), cuts))
    width = max(r.size for r in rows) if rows else 1
    dists = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        dists[i, : r.size] = r
    g = int(split["guess"])
    if g >= 0:  # one subtree, split below its node: fold the rows back into it
        depth = int(split["depth"])
        row = dists.sum(axis=0)
        if row.size <= depth:
            row = np.concatenate([row, np.zeros(depth + 1 - row.size, dtype=np.int64)])
        row[depth] += int(split["won"])
        dists = row[None, :]
        if tree:
            top = np.array([[-1, -1, g, int(args["sizes"][0]), depth]], dtype=np.int32)
            parts = [top]
            offset = 1
            for slot, r in zip(np.asarray(split["wslots"]).tolist(), recs):
                r = np.array(r, dtype=np.int32, copy=True)
                root = r[:, 0] < 0
                r[~root, 0] += offset
                r[root, 0] = 0
                r[root, 1] = slot
                parts.append(r)
                offset += r.shape[0]
            recs = [np.concatenate(parts)]
    out: dict[str, Any] = {"dists": dists}
    if tree:
        out["recs"] = (
            np.concatenate(recs).astype(np.int32) if recs else np.zeros((0, 5), dtype=np.int32)
        )
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out


def _answer(dists: Any, recs: Optional[list]) -> dict[str, Any]:
    """A unit's answer: the distribution rows and, for a tree, the records."""
    out: dict[str, Any] = {"dists": np.asarray(dists, dtype=np.int64)}
    if recs is not None:
        out["recs"] = (
            np.concatenate(recs).astype(np.int32) if recs else np.zeros((0, 5), dtype=np.int32)
        )
        out["rec_counts"] = np.array([r.shape[0] for r in recs], dtype=np.int64)
    return out


def _node_guess(
    game: Any, how: Strategy, candidates_only: bool, symmetry: bool, plain: bool, t: Task, flag: Any
) -> int:
    """The guess the kernel's walk plays at the root of subtree ``t``: the rule's scan
    over the guesses the walk scans there (one per symmetry class of the history)."""
    guesses = game.guesses
    if symmetry and not candidates_only:
        guesses = _symmetry.canonical_guesses(game.kernel, game.guesses, t.history, flag)
    blanks = symmetry and game.guesses.size == game.size
    return int(
        _walk.choose(
            game.kernel,
            guesses,
            t.cands,
            how.kind,
            candidates_only,
            game.secrets_are_guesses,
            1,
            blanks,
            flag,
        )
    )


def _batches(sel: list[Task], most: int) -> list[int]:
    """``sel`` cut into runs of consecutive subtrees walked in one kernel call: one
    subtree alone when large, else neighbours up to ``most`` candidates."""
    out: list[int] = []
    i = 0
    while i < len(sel):
        j, size = i + 1, int(sel[i].cands.size)
        while j < len(sel) and size + sel[j].cands.size <= most:
            size += int(sel[j].cands.size)
            j += 1
        out.append(j - i)
        i = j
    return out
