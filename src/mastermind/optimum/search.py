"""What the expected-case optimum's search gives, and what its in-process run and its
units share: the result (:class:`Optimum`), the kernel's search built for a game
(:func:`new_optimizer`), the one-step strategy to fall back on (:func:`fallback_strategy`)
and the result assembled from the search's answer (:func:`optimum_from`).

:func:`mastermind.optimum.solver.optimal` and its plan of units (:mod:`mastermind.optimum.units`)
both build on these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np

from ..rules import Strategy
from ..strategy_tree import Node, build_tree, in_score_order
from . import _optimal

if TYPE_CHECKING:
    from ..game import GameCore, GameLike

__all__ = ["SEEDS", "Answer", "Optimum", "new_optimizer", "optimum_from"]

#: the one-step strategies whose trees give the search its first upper bound
SEEDS = (Strategy.ENTROPY, Strategy.EXPECTED_SIZE, Strategy.PARTS, Strategy.MINMAX)


class Answer(NamedTuple):
    """The kernel search's answer: ``status`` (``_optimal.RUN_OPTIMUM``,
    ``RUN_ABOVE_LIMIT``: no strategy within the guesses or below the limit, or
    ``RUN_STOPPED``), ``value`` (the total, or a bound), ``lower`` (a proved
    lower bound) and the tree's records (parent, slot, guess, size, depth) or None."""

    status: int
    value: int
    lower: int
    recs: Optional[np.ndarray]


def new_optimizer(game: GameCore, *, candidates_only: bool, memory: int, threads: int) -> Any:
    """The kernel's optimal search over ``game`` (its symmetry, and absent colours merged
    when every code may be guessed), a memo of ``memory`` bytes, on ``threads`` threads."""
    return _optimal.Optimizer(
        game.kernel,
        game.guesses,
        cands_only=candidates_only,
        symmetry=game.symmetric,
        blanks=game.symmetric and game.guesses.size == game.size,
        mem_limit=int(memory),
        threads=threads,
    )


@dataclass
class Optimum:
    """The result of :func:`optimal`.

    ``exact`` is True when the total is proved least; otherwise (a time limit, Ctrl-C)
    ``lower`` is the proved lower bound and the strategy the best found.  ``feasible`` is
    False when no strategy finds every secret within ``max_guesses`` (then there is no
    tree and no total).  ``source`` tells where the strategy comes from: ``"search"`` or
    the one-step strategy the search could not improve on in time.
    """

    game: GameLike
    candidates_only: bool
    max_guesses: Optional[int]
    first_guess: Optional[int]
    distribution: dict[int, int]
    exact: bool
    lower: Optional[int]
    tree: Optional[Node]
    status: str  # "exact", "time-limit" or "interrupted"
    source: str
    nodes: int = 0
    seconds: float = 0.0
    strategy: str = "optimal"  # how tree exports name it
    history: list[tuple[int, int]] = field(default_factory=list)  # (guess, slot) played before
    secrets_left: int = 0  # the secrets the history leaves (all, without one)
    units: Optional[int] = None  # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held
    units_split: Optional[int] = None  # and how many split past their budget

    @property
    def feasible(self) -> bool:
        return bool(self.distribution) or not self.exact

    @property
    def secrets(self) -> int:
        return self.secrets_left or sum(self.distribution.values())

    @property
    def total(self) -> Optional[int]:
        return sum(d * c for d, c in self.distribution.items()) if self.distribution else None

    @property
    def average(self) -> Optional[Fraction]:
        total = self.total
        return None if total is None else Fraction(total, self.secrets)

    @property
    def max(self) -> Optional[int]:
        return max(self.distribution) if self.distribution else None

    def summary(self) -> str:
        """One line: the total, the average, the maximum, whether it is proved."""
        if not self.feasible:
            return f"no strategy finds every secret within {self.max_guesses} guesses (proved)"
        if self.total is None:
            return f"no strategy found yet ({self.status}); the optimum is at least {self.lower}"
        avg = self.average
        assert avg is not None
        each = (
            str(avg)
            if avg.denominator == 1
            else f"{avg.numerator}/{avg.denominator} = {float(avg):.4f}"
        )
        head = f"total {self.total} ({each} a secret), max {self.max}"
        if self.exact:
            return f"{head}: the least possible"
        return f"{head}: the least is between {self.lower} and {self.total} ({self.status})"

    def to_json(self, *, tree: bool = False) -> dict[str, Any]:
        game = self.game
        avg = self.average
        out: dict[str, Any] = {
            "pegs": game.n,
            "colours": game.k,
            "variant": game.variant.value,
            "candidates_only": self.candidates_only,
            "max_guesses": self.max_guesses,
            "total": self.total,
            "secrets": self.secrets,
            "average": None if avg is None else float(avg),
            "average_fraction": None if avg is None else f"{avg.numerator}/{avg.denominator}",
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "first_guess": (
                None if self.first_guess is None else game.format_code(self.first_guess)
            ),
            "history": [[game.format_code(g), str(game.slots[s])] for g, s in self.history],
            "exact": self.exact,
            "lower": self.lower,
            "feasible": self.feasible,
            "status": self.status,
            "source": self.source,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
            out["units_split"] = self.units_split
        if tree and self.tree is not None:
            out["tree"] = self.tree.to_json(game)
        return out


def least_total(game: GameCore, secrets: int, max_guesses: Optional[int]) -> int:
    """A lower bound of any strategy's total over ``secrets`` codes, known without a
    search: the kernel's complete-tree estimate (no guess splits a set into more parts
    than the game has non-winning scores), or for very large sets ``2 m - 1`` (one
    secret at most is found by the first guess)."""
    if secrets <= 0:
        return 0
    if secrets > 1 << 20:
        return 2 * secrets - 1
    est = int(_optimal.est_table(secrets, int(game.nslots) - 1, int(max_guesses or 100))[secrets])
    return est if 0 < est < _optimal.NO_STRATEGY else 2 * secrets - 1


def optimum_from(
    game: GameLike,
    *,
    candidates_only: bool,
    max_guesses: Optional[int],
    g0: Optional[int],
    seed: Any,
    found: Optional[Answer],
    status: str,
    deadline_passed: bool,
    nodes: int,
    seconds: float,
    secrets: int,
    history: list[tuple[int, int]],
) -> Optimum:
    """The Optimum from the search's answer ``found`` (None: stopped before it had one),
    or from the seed strategy when the search did not improve on it."""
    code, value, lower, recs = (
        found if found is not None else Answer(_optimal.RUN_STOPPED, -1, 0, None)
    )
    if code == _optimal.RUN_ABOVE_LIMIT and seed is None:
        # nothing at all: no strategy within max_guesses
        return Optimum(
            game,
            candidates_only,
            max_guesses,
            g0,
            {},
            True,
            None,
            None,
            status,
            "search",
            nodes,
            seconds,
            history=history,
            secrets_left=secrets,
        )
    if code == _optimal.RUN_ABOVE_LIMIT:  # pragma: no cover - the seed is within the limit
        raise RuntimeError("the optimal search lost its seed strategy")
    if code == _optimal.RUN_OPTIMUM or (value >= 0 and (seed is None or value < seed.total)):
        assert recs is not None  # (the kernel records the tree it proves or finds)
        tree = in_score_order(build_tree(game, recs))
        source = "search"
    elif seed is not None:
        tree, source = seed.tree, f"{seed.strategy.value} strategy"
    else:
        tree, source = None, "search"
    dist: dict[int, int] = {}
    if tree is not None:
        for depth, node in tree.walk():
            won = node.size - sum(c.size for c in node.children.values())
            if won:
                dist[depth] = dist.get(depth, 0) + won
    total = sum(d * c for d, c in dist.items()) if dist else None
    exact = code == _optimal.RUN_OPTIMUM
    low = int(value) if exact else max(int(lower), least_total(game, secrets, max_guesses))
    if not exact and status == "exact":
        status = "time-limit" if deadline_passed else "interrupted"
    if total is not None and low >= total:
        exact, low = True, total
    return Optimum(
        game,
        candidates_only,
        max_guesses,
        None if tree is None else tree.guess,
        dict(sorted(dist.items())),
        exact,
        low,
        tree,
        "exact" if exact else status,
        source,
        nodes,
        seconds,
        history=history,
        secrets_left=secrets,
    )
