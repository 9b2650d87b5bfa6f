"""An exhaustive analysis as units of work.

The plan (:class:`AnalysisPlan`) starts from the opening alone and cuts the strategy tree
as it goes: a node whose guess takes a large scan (its guesses times its candidates) is
chosen by **scan units**, one per block of its guesses (:func:`~mastermind.analysis.unit_work.scan_unit`: the block's
best guess by the strategy's choice rule, with its key), the node's guess being the best
of the blocks' bests by the same rule (a total order: best key, then a candidate, then
the smallest index), so exactly the guess the in-process walk plays there; a small scan
is made on the client at once.  The node's parts become nodes again (the top two levels,
as :func:`mastermind.analysis.walk.expand_top` expands them; deeper, a part whose scan
would be longer than one block) or subtrees, walked by the kernel on a worker
(:func:`~mastermind.analysis.unit_work.walk_unit`), small ones grouped so that a unit carries at least
``max(64, secrets / 512)`` candidates.  So the client's top levels run on the workers,
in parallel, and no unit scans more than about one block of pairs at its first node.

A subtree's walk depends on that subtree alone; the distributions add up and the trees
hang where the plan left them, so the result is, bit for bit, that of the in-process
analysis, whatever the workers and the order in which units finish.  With a checkpoint,
each unit's answer (a scan's best guess, a walk's distribution and tree records) is
recorded as it finishes, and a rerun runs only the others: a unit's key names its place
(``scan/PATH:B``, ``walk/PATH:I``, ``walk/I`` for the units known at the start; PATH the
slots from the root, ``12.5``), a function of the game and the options alone.

The units' own work (the block scans, the walks, a split walk's answer folded back) is
:mod:`mastermind.analysis.unit_work`; this module makes the units and puts their
answers together.
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..engine.units import Unit
from ..kernel import _core, _symmetry
from ..rules import Strategy
from ..stopping import new_flag, stopped
from ..strategy_tree import Node, split_by_score
from . import _scan, _walk
from .splits import UNIT_FLOOR, child_groups, merge_split
from .walk import EXPAND_MIN, How, Task, graft

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = [
    "CLIENT_PAIRS",
    "SCAN_BLOCK",
    "SCAN_BLOCKS",
    "UNITS_TARGET",
    "AnalysisPlan",
    "checkpoint_params",
    "plan_units",
    "scan_block",
]

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
thousands of units, not a hundred thousand (the client plans and records each one)."""


def scan_block(game: GameLike) -> int:
    """The pairs a scan unit of ``game`` scores at most (:data:`SCAN_BLOCK`,
    :data:`SCAN_BLOCKS`): a function of the game alone, so that a checkpoint's units stay
    the same."""
    return max(SCAN_BLOCK, int(game.secrets.size) * int(game.guesses.size) // SCAN_BLOCKS)


CLIENT_PAIRS = 1 << 24
"""Scans up to this many pairs (milliseconds) are made on the client, at once; larger
ones are scan units."""


def checkpoint_params(
    game: GameLike,
    strategy: Strategy,
    g0: int,
    *,
    candidates_only: bool,
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

    def __init__(self, game: GameLike, g0: int, how: How, flag: Any = None):
        t0 = time.perf_counter()
        self.game = game
        self.how = how._replace(threads=1)  # (the client's scans, and each unit: one thread)
        self.candidates_only = bool(how.candidates_only)
        self.tree = bool(how.tree)
        self.symmetry = bool(how.symmetry)
        self.plain = bool(how.plain)
        self.flag = flag if flag is not None else new_flag()
        self.secrets = int(game.secrets.size)
        self.dist: dict[int, int] = {}
        self.root: Optional[Node] = Node(int(g0), self.secrets) if how.tree else None
        self.block = scan_block(game)
        # scans by units only for the kinds that scan, never in the plain reference walk
        self.cut = not self.plain and how.strategy.kind != _core.VAL_FIRST
        self.base: dict[str, Any] = {
            "strategy": how.strategy.value,
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
                    self.how.strategy.kind,
                    cands_only=self.candidates_only,
                    shortcut_ok=self.game.secrets_are_guesses,
                    threads=1,
                    blanks=self.how.blanks(self.game),
                    stop=self.flag,
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
                "strategy": self.how.strategy.value,
                "candidates_only": self.candidates_only,
                "symmetry": self.symmetry,
                "history": np.ascontiguousarray(task.history, dtype=np.int32),
                "slots": np.array(slots, dtype=np.int32),
                "lo": int(lo),
                "hi": int(hi),
            }
            self._scans.append(Unit(f"scan/{path}:{b}", "analysis.scan", args, m))
            self._made += 1

    def _chosen(self, g: int, task: Task, path: str, slots: list[int], batch: list[Task]) -> None:
        """A node's guess is known: its tree node hung, its parts planned."""
        node = None
        if self.tree:
            assert task.parent is not None and task.score is not None  # (the plan's own)
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
            unit = Unit(key, "analysis.walk", args, int(args["cands"].size))
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
            self.game.kernel, np.array([g], dtype=np.int32), pend.task.cands, self.how.strategy.kind
        )
        return int(key) == int(result["key"]) and int(cand) == int(result["cand"])

    # ------------------------------------------------------------ splits
    def expand(self, unit: Unit, split: dict[str, Any]) -> list[Unit]:
        """The sub-units of a split (:func:`~mastermind.analysis.unit_work.walk_unit` past its budget): the subtrees it
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
            children.append(Unit(f"{unit.key}/{first + lo}", unit.kind, args, int(cands.size)))
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
