"""Strategies that find every secret within d guesses, looked for by budgeted rounds at the
top of the tree.

:func:`mastermind.worstcase.bounds.solution_exists` answers the question exactly, depth first: it
commits to the first guess of its order and must refute it before it looks at the next,
and one refutation with four or five guesses left can cost hours.  When the answer is
yes, a strategy is usually found much sooner by sharing the effort across the sibling
guesses of the top levels: :func:`find_strategy` keeps, at each set of its top ``levels``
levels, the list of that set's guesses (one per symmetry class of the history, the
hopeless ones dropped by the counting bound, in the order of a one-step valuation), and
works in rounds.  Round r gives each question below the top (a part with its guesses
left) ``budget * 2**r`` seconds of the exact search, and each top set its first
``width * 2**r`` guesses still open; a guess is dropped for good when one of its parts is
proved unsolvable, and kept open when a part ran out of time.  A top set is solved when
one guess has every part solved; it is refuted when every guess is dropped.

Every answer is exact: "solvable" comes with the strategy (the exact search's witness
below the top), which :func:`mastermind.worstcase.bounds.check_strategy` replays; "unsolvable" only
when every guess of the root was refuted by the exact search.  Only the time depends on
the budgets and orders.

>>> from mastermind.game import Game
>>> from mastermind.worstcase.bounds import check_strategy
>>> f = find_strategy(Game(4, 6), 5)
>>> f.status, check_strategy(f.game, f.tree)
('found', 5)
>>> find_strategy(Game(4, 6), 4).status
'refuted'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from .. import checks
from ..game import CodeLike
from ..kernel import _symmetry
from ..limits import DEFAULT_MEMORY
from ..strategy_tree import Node
from .search import (
    Search,
    SearchUnfinished,
    deadline,
    prepare,
    separable,
)

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = ["Finding", "find_strategy"]

ORDERS = ("minmax", "entropy", "parts")


@dataclass
class Finding:
    """The result of :func:`find_strategy`.

    ``status``: ``"found"`` (``tree`` is a strategy within ``max_guesses``),
    ``"refuted"`` (proved: none exists), ``"time-limit"`` or ``"interrupted"`` (not
    decided).  ``decided`` lists, for every set of the top levels that was decided, its
    path from the root (guess and score), size, guesses left, answer, the guess that
    works, and the round."""

    game: GameLike
    max_guesses: int
    candidates_only: bool
    status: str
    tree: Optional[Node]
    rounds: int
    nodes: int
    seconds: float
    decided: list[dict[str, Any]] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.status == "found"

    def summary(self) -> str:
        d = self.max_guesses
        head = {
            "found": f"a strategy finds every secret within {d} guesses",
            "refuted": f"no strategy finds every secret within {d} guesses (proved)",
        }.get(self.status, f"undecided within {d} guesses ({self.status})")
        return f"{head}   [{self.rounds} rounds, {self.nodes:,} nodes, {self.seconds:.1f} s]"


class _Top:
    """A set of the top levels: its guesses in order, and what is known of each."""

    def __init__(self, cands: np.ndarray, d: int, path: list[tuple[int, int]], level: int):
        self.cands = cands
        self.d = d
        self.path = path  # (guess, slot) from the root
        self.level = level
        self.guesses: Optional[np.ndarray] = None
        self.dropped: set[int] = set()
        self.parts: dict[int, list[tuple[int, np.ndarray]]] = {}
        self.proved: dict[int, set[int]] = {}
        self.result: Optional[bool] = None
        self.choice = -1


class _Finder:
    def __init__(
        self,
        game: GameLike,
        pool: np.ndarray,
        *,
        candidates_only: bool,
        symmetry: bool,
        levels: int,
        orders: Sequence[str],
        budget: float,
        width: int,
        memory: int,
        deadline: Optional[float],
        log: Optional[Callable[[str], None]],
        search: Optional[Search],
    ):
        self.game = game
        self.pool = pool
        self.candidates_only = candidates_only
        self.symmetry = symmetry and game.symmetric
        self.levels = levels
        self.orders = orders
        self.budget = budget
        self.width = width
        self.deadline = deadline
        self.log = log
        self.search = search or Search(
            game, pool, candidates_only=candidates_only, symmetry=symmetry, memory=memory
        )
        self.tops: dict[tuple[int, bytes], _Top] = {}
        self.decided: list[dict[str, Any]] = []
        self.round = 0

    # ---------------------------------------------------------------- a top set's guesses
    def _order(self, top: _Top) -> np.ndarray:
        """The guesses worth trying at ``top``: one per symmetry class of the history, no
        useless ones, none leaving a part larger than the counting bound allows
        (N_pnode(d-1), pnode the most parts any guess makes here), in the interleaved
        orders of ``self.orders``."""
        game, kernel, cands = self.game, self.game.kernel, top.cands
        pool = cands if self.candidates_only else self.pool
        if self.symmetry:
            history = np.array([g for g, _ in top.path], dtype=np.int32)
            pool = _symmetry.canonical_guesses(kernel, pool, history)
        hist = kernel.histograms(pool, cands).astype(np.int64)
        win = game.win_slot
        wins = hist[:, win]
        nonwin = np.delete(hist, win, axis=1)
        nparts = (nonwin > 0).sum(axis=1)
        maxpart = nonwin.max(axis=1)
        useful = (wins > 0) | (nparts > 1)
        pnode = int(nparts.max()) if nparts.size else 0
        cap = separable(pnode, top.d - 1)
        keep = useful & (maxpart <= cap)
        idx = np.flatnonzero(keep)
        if idx.size == 0:
            return np.zeros(0, dtype=np.int32)
        h = hist[idx]
        notcand = (wins[idx] == 0).astype(np.int64)
        lists = []
        for name in self.orders:
            if name == "minmax":
                key = (maxpart[idx], notcand)
            elif name == "parts":
                key = (-(h > 0).sum(axis=1), notcand)
            else:  # entropy: the least sum of p log p, candidates first at a tie
                with np.errstate(divide="ignore", invalid="ignore"):
                    plogp = np.where(h > 0, h * np.log2(np.maximum(h, 1)), 0.0).sum(axis=1)
                key = (np.round(plogp, 9), notcand)
            lists.append(idx[np.lexsort((pool[idx],) + tuple(reversed(key)))])
        seen: set[int] = set()
        out = []
        for row in zip(*lists):  # interleaved, each guess once
            for i in row:
                if int(i) not in seen:
                    seen.add(int(i))
                    out.append(int(pool[i]))
        return np.array(out, dtype=np.int32)

    def _parts(self, top: _Top, g: int) -> list[tuple[int, np.ndarray]]:
        """(slot, part) of every non-winning part of ``g`` at ``top``, largest first."""
        if g not in top.parts:
            labels = self.game.kernel.slots(g, top.cands)
            slots, counts = np.unique(labels, return_counts=True)
            parts = [
                (int(s), np.ascontiguousarray(top.cands[labels == s]))
                for s, c in sorted(zip(slots.tolist(), counts.tolist()), key=lambda x: -x[1])
                if s != self.game.win_slot
            ]
            top.parts[g] = parts
            top.proved[g] = set()
        return top.parts[g]

    # ---------------------------------------------------------------- the rounds
    def question(
        self,
        cands: np.ndarray,
        d: int,
        path: list[tuple[int, int]],
        level: int,
        budget: float,
        width: int,
    ) -> Optional[bool]:
        """Can ``cands`` be solved within d guesses?  True, False, or None (out of budget)."""
        m = int(cands.size)
        if m <= 1:
            return d >= 1 or m == 0
        if d <= 1:
            return False
        if m == 2:
            return True
        if level >= self.levels or d <= 3:
            return self._exact(cands, d, budget)
        key = (d, cands.tobytes())
        top = self.tops.get(key)
        if top is None:
            top = self.tops[key] = _Top(cands, d, path, level)
        return self.visit(top, budget, width)

    def _exact(self, cands: np.ndarray, d: int, budget: float) -> Optional[bool]:
        until = time.monotonic() + budget
        if self.deadline is not None:
            if time.monotonic() >= self.deadline:
                raise SearchUnfinished("time-limit", self.search.nodes, 0.0)
            until = min(until, self.deadline)
        try:
            return self.search.run(cands, d, until)[0]
        except SearchUnfinished as e:
            if e.reason != "time-limit":
                raise
            if self.deadline is not None and time.monotonic() >= self.deadline:
                raise
            return None

    def visit(self, top: _Top, budget: float, width: int) -> Optional[bool]:
        if top.result is not None:
            return top.result
        if top.guesses is None:
            top.guesses = self._order(top)
        tried = 0
        for i, g in enumerate(top.guesses.tolist()):
            if i in top.dropped:
                continue
            if tried >= width:
                break
            tried += 1
            # the parts largest first; one out of budget ends the guess's turn (trying the
            # others then costs more than it saves, measured: p(4,9) 97 s against 537 s)
            answer: Optional[bool] = True
            parts = self._parts(top, g)
            for j, (s, part) in enumerate(parts):
                if j in top.proved[g]:
                    continue
                r = self.question(
                    part, top.d - 1, top.path + [(g, s)], top.level + 1, budget, width
                )
                if r is None:
                    answer = None
                    break
                if not r:
                    answer = False
                    break
                top.proved[g].add(j)
            if answer is None:
                continue
            if answer:
                top.result, top.choice = True, g
                self._decided(top)
                return True
            top.dropped.add(i)
            del top.parts[g]  # the parts of a dropped guess are not needed
        if len(top.dropped) == len(top.guesses):
            top.result = False
            self._decided(top)
            return False
        return None

    def _decided(self, top: _Top) -> None:
        game = self.game
        rec: dict[str, Any] = {
            "path": [[game.format_code(g), str(game.slots[s])] for g, s in top.path],
            "secrets": int(top.cands.size),
            "guesses_left": top.d,
            "solvable": top.result,
            "guess": game.format_code(top.choice) if top.choice >= 0 else None,
            "round": self.round,
            "guesses_dropped": len(top.dropped),
        }
        self.decided.append(rec)
        if self.log is not None:
            where = " ".join(f"{g}:{s}" for g, s in rec["path"]) or "root"
            self.log(
                f"{where} ({rec['secrets']} secrets, {top.d} left): "
                + (f"solved by {rec['guess']}" if top.result else "refuted")
            )

    # ---------------------------------------------------------------- the strategy
    def tree(self, cands: np.ndarray, d: int) -> Node:
        """The strategy for a set proved solvable: the chosen guesses at the top, the
        exact search's witness below."""
        m = int(cands.size)
        if m == 1:
            return Node(int(cands[0]), 1)
        top = self.tops.get((d, cands.tobytes()))
        if top is None or top.result is not True:
            return self.search.witness(cands, d, None)
        node = Node(top.choice, m)
        for s, part in self._parts(top, top.choice):
            node.children[self.game.slots[s]] = self.tree(part, d - 1)
        return node


def find_strategy(
    game: GameLike,
    max_guesses: int,
    candidates: Union[Iterable[CodeLike], np.ndarray, None] = None,
    *,
    candidates_only: bool = False,
    levels: int = 2,
    orders: Union[str, Sequence[str]] = ("minmax", "entropy"),
    budget: float = 0.25,
    width: int = 4,
    time_limit: Optional[float] = None,
    memory: int = DEFAULT_MEMORY,
    max_rounds: int = 64,
    log: Optional[Callable[[str], None]] = None,
    search: Optional[Search] = None,
) -> Finding:
    """Look for a strategy finding every candidate within ``max_guesses`` guesses.

    Parameters
    ----------
    candidates : codes, optional
        The codes that may be the secret (default: every secret).
    levels : int
        How many levels of the tree get the budgeted rounds (1: only the root's guesses;
        2: also the guesses after each answer to the first); below them, and at every
        set with 3 guesses left or fewer, the exact search answers.
    orders : valuations ("minmax", "entropy", "parts")
        The guess orders at the top sets, interleaved.
    budget, width : the first round's seconds per question below the top, and guesses
        per top set; both double every round.
    time_limit : seconds for the whole call; ``status`` "time-limit" when it runs out.
    max_rounds : rounds before giving up (``status`` "time-limit").
    log : called with a line of text each time a top set is decided.
    search : Search, optional
        The exact search (and memo) to use below the top, shared with the caller: it
        must be a search of ``game`` over the same guesses and rules (``worst_case``
        passes its own, so that what the finder proved stays known afterwards).
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    d = checks.max_guesses(max_guesses)
    levels = checks.integer(levels, "levels", 1, 4)
    orders = (orders,) if isinstance(orders, str) else tuple(orders)
    if not orders or any(o not in ORDERS for o in orders):
        raise checks.ArgumentError(f"orders must name some of {', '.join(ORDERS)}, not {orders!r}")
    budget = checks.seconds(budget, "budget")
    width = checks.integer(width, "width", 1)
    until = deadline(time_limit)
    start = time.monotonic()
    cands, pool, sym, guessable = prepare(
        game, candidates, None, candidates_only=candidates_only, symmetry=True
    )
    finder = _Finder(
        game,
        pool,
        candidates_only=candidates_only,
        symmetry=sym,
        levels=levels,
        orders=orders,
        budget=float(budget),
        width=width,
        memory=checks.memory(memory),
        deadline=until,
        log=log,
        search=search,
    )
    status, tree = "time-limit", None
    try:
        if not guessable:
            status = "refuted"
        else:
            for r in range(max_rounds):
                finder.round = r
                answer = finder.question(cands, d, [], 0, budget * 2**r, width * 2**r)
                if answer is not None:
                    status = "found" if answer else "refuted"
                    break
        if status == "found":
            tree = finder.tree(cands, d) if cands.size else None
    except SearchUnfinished as e:
        status = e.reason
    except KeyboardInterrupt:
        status = "interrupted"
    return Finding(
        game,
        d,
        candidates_only,
        status,
        tree,
        finder.round + 1,
        finder.search.nodes,
        time.monotonic() - start,
        finder.decided,
    )
