"""Exhaustive analysis: play a strategy against every secret at once, and get the
distribution of the number of guesses; or play one game against one secret.

>>> from mastermind.game import Game
>>> a = analyze(Game(4, 6), "minmax")
>>> a.total, a.max, a.distribution, str(a.average)
(5801, 5, {1: 1, 2: 6, 3: 62, 4: 533, 5: 694}, '5801/1296')
>>> [(str(s.guess_text), str(s.score)) for s in solve(Game(4, 6), "6543")][:2]
[('1122', '0 0'), ('3345', '1 2')]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from .. import checks
from ..engine.options import RunOptions
from ..engine.run import open_run
from ..game import CodeLike, Game, Score
from ..limits import UNIT_SECONDS
from ..rules import DistributionSummary
from ..stopping import new_flag, run_stoppable
from ..strategy_tree import Node, build_tree, in_score_order
from . import _walk
from .strategies import Strategy, Valuations, next_guess, symmetry_classes
from .units import AnalysisPlan, checkpoint_params
from .walk import How, expand_top, graft, resolve_first, walk_tasks

if TYPE_CHECKING:
    from ..game import GameLike

Progress = Callable[[int, int], None]


@dataclass
class Analysis(DistributionSummary):
    """The result of :func:`analyze`."""

    game: GameLike
    strategy: Strategy
    candidates_only: bool
    first_guess: int
    distribution: dict[int, int]
    seconds: float = 0.0
    tree: Optional[Node] = None
    units: Optional[int] = None  # with a scheduler or a checkpoint: units of work,
    units_resumed: Optional[int] = None  # and how many of them a checkpoint held
    units_split: Optional[int] = None  # and how many split past their budget
    unit_records: Optional[list] = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pegs": self.game.n,
            "colours": self.game.k,
            "variant": self.game.variant.value,
            "strategy": self.strategy.value,
            "candidates_only": self.candidates_only,
            "first_guess": self.game.format_code(self.first_guess),
            "secrets": self.secrets,
            "total": self.total,
            "average": float(self.average),
            "average_fraction": f"{self.average.numerator}/{self.average.denominator}",
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "seconds": round(self.seconds, 6),
        }
        if self.units is not None:
            out["units"] = self.units
            out["units_resumed"] = self.units_resumed
            out["units_split"] = self.units_split
        if self.tree is not None:
            out["tree"] = self.tree.to_json(self.game)
        return out

    def plot(self, ax: Any = None) -> Any:
        """The distribution as bars on ``ax`` (default: a new figure), the game and the
        average in the title; returns the axes.  Needs matplotlib (``pip install
        'mastermind-analysis[plot]'``); :func:`mastermind.views.plot.save_plot` draws it to a file."""
        from ..views.plot import plot_analysis

        return plot_analysis(self, ax)

    def _repr_html_(self) -> str:
        from ..views.notebook import analysis_html

        return analysis_html(self)


def analyze(
    game: GameLike,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    *,
    candidates_only: bool = False,
    first: Optional[CodeLike] = None,
    tree: bool = False,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
    symmetry: bool = True,
    plain: bool = False,
    time_limit: Optional[float] = None,
    scheduler: Optional[str] = None,
    client: Any = None,
    checkpoint: Optional[str] = None,
    unit_seconds: Optional[float] = UNIT_SECONDS,
    recheck: float = 0.0,
) -> Analysis:
    """Play ``strategy`` against every secret of ``game``.

    Parameters
    ----------
    candidates_only : only candidates may be guessed (else every code of the guess set).
    first : the opening guess; by default the one the rule chooses.
    tree : also return the strategy tree (:class:`Node`).
    jobs : threads sharing the work (default: all cores, at most
        :data:`mastermind.checks.MAX_JOBS`); the result does not depend on it.
    progress : called as ``progress(secrets_done, secrets_total)`` (with a scheduler or
        a checkpoint: ``progress(units_done, units_to_run)``).
    symmetry : scan one guess per symmetry class at each node (colour and position
        permutations that fix the guesses played so far); the result is identical
        either way, only the time differs.
    plain : score every allowed guess in full at every node: no symmetry, bound or
        shortcut (slow; the reference the fast path is tested against).
    time_limit : seconds; :class:`mastermind.stopping.TimeLimitReached` is raised when
        they run out.  Ctrl-C (KeyboardInterrupt) stops the kernel's threads too.
    scheduler : run the subtrees as units of work on a Dask cluster: its address
        (``"tcp://host:8786"``), or ``"local:N"`` for N worker processes on this machine
        (needs ``pip install 'mastermind-analysis[distributed]'``; docs/distributed.md).
    client : an existing ``distributed.Client`` to run the units on instead.
    checkpoint : an SQLite file recording each finished unit; the same call again
        resumes (:mod:`mastermind.engine.checkpoint`).
    unit_seconds : with units, each unit's budget: a unit still walking after it hands
        back its subtrees one level down as units of their own (recursively), so no unit
        runs much longer (:data:`UNIT_SECONDS` by default; 0 splits every unit at once
        down to subtrees of fewer than three candidates; None never splits).  The result
        never depends on it, nor on the three before.
    recheck : with units, the fraction of them (0 to 1) spot-checked: re-run here and
        compared with the answer of the worker or checkpoint that gave it; a mismatch
        is a :class:`~mastermind.engine.spotcheck.SpotCheckWarning` and the re-run's answer
        is used (docs/distributed.md: the trust model).
    """
    candidates_only = checks.flag(candidates_only, "candidates_only")
    strategy = Strategy.parse(strategy)
    checks.game(game, "analyze")
    options = RunOptions.of(
        jobs=jobs,
        time_limit=time_limit,
        progress=progress,
        unit_seconds=unit_seconds,
        recheck=recheck,
        scheduler=scheduler,
        client=client,
        checkpoint=checkpoint,
    )
    start = time.perf_counter()
    how = How(
        strategy,
        candidates_only=candidates_only,
        tree=tree,
        symmetry=symmetry and game.symmetric and not plain,
        plain=plain,
        threads=options.threads,
    )
    flag = new_flag(options.time_limit)
    g0 = resolve_first(game, strategy, first, candidates_only=candidates_only, plain=plain)
    if options.as_units:
        with open_run(
            game,
            kind="analyze",
            params=checkpoint_params(
                game,
                strategy,
                g0,
                candidates_only=candidates_only,
                tree=tree,
                symmetry=symmetry,
                plain=plain,
            ),
            options=options,
        ) as run:
            dist, root = _as_units(game, how, g0, run, flag, options)
        return Analysis(
            game,
            strategy,
            candidates_only,
            g0,
            dist,
            time.perf_counter() - start,
            root,
            units=run.units,
            units_resumed=run.resumed,
            units_split=run.split,
            unit_records=run.records,
        )
    if game.secrets.size <= _DIRECT_MAX:
        dist, root = _whole(game, how, g0, flag, options.progress)
    else:
        dist, root = _here(game, how, g0, flag, options.progress)
    return Analysis(game, strategy, candidates_only, g0, dist, time.perf_counter() - start, root)


_DIRECT_MAX = 2500  # games this small are walked whole by one thread ([4,7] and smaller)


def _whole(
    game: GameLike, how: How, g0: int, flag: Any, progress: Optional[Progress]
) -> tuple[dict[int, int], Optional[Node]]:
    """A small game walked whole by the kernel in this thread: cheaper than expanding its
    top in Python and waking threads for work this small."""
    total = int(game.secrets.size)
    # every code may be guessed: colours absent from all candidates act as one blank
    if progress:
        progress(0, total)
    counts, recs, _ = run_stoppable(
        lambda f: _walk.walk(
            game.kernel,
            game.guesses,
            game.secrets,
            how.strategy.kind,
            cands_only=how.candidates_only,
            shortcut_ok=game.secrets_are_guesses,
            first=g0,
            depth=1,
            record=how.tree,
            symmetry=how.symmetry,
            blanks=how.blanks(game),
            plain=how.plain,
            stop=f,
        ),
        flag,
        inline=True,
    )
    if progress:
        progress(total, total)
    dist = {d: int(c) for d, c in enumerate(counts.tolist()) if c}
    return dist, (in_score_order(build_tree(game, recs)) if how.tree and recs is not None else None)


def _here(
    game: GameLike, how: How, g0: int, flag: Any, progress: Optional[Progress]
) -> tuple[dict[int, int], Optional[Node]]:
    """The top expanded here, then every subtree below it in one kernel call, largest
    first so that every thread stays busy to the end; the call runs in a helper thread
    (the kernel releases the GIL) while this one reports progress from its counter."""
    total = int(game.secrets.size)
    top = expand_top(game, how, g0, flag)
    sel = top.tasks
    done = total - sum(t.cands.size for t in sel)
    if progress:
        progress(done, total)
    if sel:
        counter = np.zeros(1, dtype=np.int64)

        def report() -> None:
            if progress:
                progress(done + int(counter[0]), total)

        dists, recs = run_stoppable(
            lambda f: walk_tasks(game, how, sel, f, counter=counter),
            flag,
            every=report,
        )
        graft(game, sel, dists, recs, top.dist)
        if progress:
            progress(total, total)
    if top.root is not None:
        in_score_order(top.root)
    return dict(sorted(top.dist.items())), top.root


def _as_units(
    game: GameLike,
    how: How,
    g0: int,
    run: Any,
    flag: Any,
    options: RunOptions,
) -> tuple[dict[int, int], Optional[Node]]:
    """The strategy tree from ``g0`` as units of ``run``: its top too (the large scans
    of its nodes by blocks of guesses, on the workers), as ``options`` say."""
    plan = AnalysisPlan(game, g0, how, flag)
    run.execute(plan, flag, options.progress, options.time_limit, options.unit_seconds)
    if plan.root is not None:
        in_score_order(plan.root)
    return dict(sorted(plan.dist.items())), plan.root


@dataclass(frozen=True)
class Step:
    """One guess of a solved game: the guess, its score, and the candidates left after."""

    guess: int
    score: Score
    remaining: int
    guess_text: str


def solve(
    game: Game,
    secret: CodeLike,
    strategy: Union[str, Strategy] = Strategy.MINMAX,
    *,
    candidates_only: bool = False,
    first: Optional[CodeLike] = None,
    jobs: Optional[int] = None,
) -> list[Step]:
    """The trace of one game against ``secret``: a list of :class:`Step`.  Ctrl-C stops it
    (within a fraction of a second, even on [8,8])."""
    candidates_only = checks.flag(candidates_only, "candidates_only")
    strategy = Strategy.parse(strategy)
    checks.game(game, "solve")
    checks.threads(jobs)
    target = game.secret(secret)
    cands = game.secrets
    g = resolve_first(game, strategy, first, candidates_only=candidates_only)
    steps: list[Step] = []
    win = game.slots[game.win_slot]
    while True:
        score = game.score_index(g, target)
        cands = game.kernel.filter(g, game.slot(score), cands)
        steps.append(Step(g, score, int(cands.size), game.format_code(g)))
        if score == win:
            return steps
        if len(steps) > 64:  # pragma: no cover - every strategy here splits or wins
            raise RuntimeError("the strategy does not terminate")
        g = next_guess(
            game,
            cands,
            strategy,
            candidates_only=candidates_only,
            history=[st.guess for st in steps],
            jobs=jobs,
        ).guess


@dataclass(frozen=True)
class FirstGuessRow:
    """The four valuations of one first-guess symmetry class."""

    guess: int
    code: str
    table: tuple[int, ...]
    values: Valuations


def first_guess_table(game: Game) -> list[FirstGuessRow]:
    """All four valuations of every first-guess class (for [4,6], the published table of
    Knuth's, Neuwirth's, Irving's and Kooi's first-guess values).

    >>> from mastermind.game import Game
    >>> [(r.code, r.values.max_part, r.values.parts) for r in first_guess_table(Game(4, 6))]
    [('1111', 625, 5), ('1112', 317, 11), ('1122', 256, 13), ('1123', 276, 14), ('1234', 312, 14)]
    """
    rows = []
    for g in symmetry_classes(game):
        table = game.partition(g)
        rows.append(
            FirstGuessRow(
                g, game.format_code(g), tuple(int(x) for x in table), Valuations.of(table)
            )
        )
    return rows
