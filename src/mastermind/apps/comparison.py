"""Every strategy in one table: :func:`compare` plays each strategy with each guess pool
against every secret of a game, and :class:`Comparison` holds the rows and writes them as
plain text, JSON, CSV, Markdown and HTML (for notebooks), or draws them
(:meth:`Comparison.plot`, with matplotlib).

A row (:class:`ComparisonRow`) is any exhaustive result with a name, a guess pool, a first
guess and a distribution: the one-step strategies' analyses here, and the same table takes
rows from other solvers (an exact optimum, say) through :meth:`ComparisonRow.of`.

>>> from mastermind.game import Game
>>> c = compare(Game(4, 6), ["minmax", "parts"])
>>> [(r.strategy, str(r.pool), r.first_guess, r.total, r.max) for r in c.rows]
[('minmax', 'all', '1122', 5801, 5), ('parts', 'all', '1123', 5668, 6), ('minmax', 'candidates', '1122', 5828, 6), ('parts', 'candidates', '1123', 5701, 7)]
>>> print(c.to_markdown(seconds=False))
| strategy | guesses from | first guess | total | average | exact average | max | secrets found in 1/2/3/... guesses |
| --- | --- | --- | ---: | ---: | ---: | ---: | --- |
| minmax | all codes | 1122 | 5801 | 4.4761 | 5801/1296 | 5 | 1/6/62/533/694 |
| parts | all codes | 1123 | 5668 | 4.3735 | 1417/324 | 6 | 1/12/72/635/569/7 |
| minmax | candidates only | 1122 | 5828 | 4.4969 | 1457/324 | 6 | 1/12/99/468/662/54 |
| parts | candidates only | 1123 | 5701 | 4.3989 | 5701/1296 | 7 | 1/13/115/556/563/46/2 |
"""

from __future__ import annotations

import csv
import enum
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

from ..errors import MastermindError
from ..rules import DistributionSummary, Strategy, secrets_text

if TYPE_CHECKING:
    from ..game import GameLike

__all__ = ["Comparison", "ComparisonError", "ComparisonRow", "Pool", "compare"]

Progress = Callable[[int, int], None]


class ComparisonError(MastermindError):
    """A comparison that cannot be made: an unknown guess pool, a strategy or a pool named
    twice, or none named."""


class Pool(str, enum.Enum):
    """Which codes a strategy may guess: every code of the guess set, or only the codes
    that can still be the secret."""

    ALL = "all"
    CANDIDATES = "candidates"

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """How a table names the pool: ``"all codes"``, ``"candidates only"``."""
        return "all codes" if self is Pool.ALL else "candidates only"

    @classmethod
    def parse(cls, value: Union[str, "Pool"]) -> "Pool":
        try:
            return cls(value)
        except ValueError:
            raise ComparisonError(
                f"unknown guess pool {value!r}; choose all or candidates"
            ) from None


@dataclass(frozen=True)
class ComparisonRow(DistributionSummary):
    """One line of a comparison: a strategy (or any other solver) with one guess pool.

    ``distribution`` maps a number of guesses to how many secrets need that many (the
    winning guess counts); ``first_guess`` is written as people write codes.
    """

    strategy: str
    pool: Pool
    first_guess: str
    distribution: dict[int, int]
    seconds: float = 0.0

    @classmethod
    def of(cls, result: Any, name: Optional[str] = None) -> "ComparisonRow":
        """The row of an exhaustive result: an :class:`~mastermind.analysis.exhaustive.Analysis`, or
        any object with its ``game``, ``strategy`` (or ``name``), ``candidates_only``,
        ``first_guess`` (a code index), ``distribution`` and ``seconds``."""
        label = name if name is not None else str(result.strategy)
        return cls(
            label,
            Pool.CANDIDATES if result.candidates_only else Pool.ALL,
            result.game.format_code(result.first_guess),
            dict(sorted(result.distribution.items())),
            float(getattr(result, "seconds", 0.0)),
        )

    def counts(self, upto: Optional[int] = None) -> list[int]:
        """Secrets found in 1, 2, ..., ``upto`` (default: the maximum) guesses."""
        return [self.distribution.get(d, 0) for d in range(1, (upto or self.max) + 1)]

    @property
    def distribution_text(self) -> str:
        """``"1/6/62/533/694"``: secrets found in 1, 2, 3... guesses."""
        return "/".join(map(str, self.counts()))

    @property
    def exact_average(self) -> str:
        """The average as a reduced fraction, ``"5801/1296"`` (a whole number alone,
        ``"4"``)."""
        return str(self.average)

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "pool": self.pool.value,
            "candidates_only": self.pool is Pool.CANDIDATES,
            "first_guess": self.first_guess,
            "secrets": self.secrets,
            "total": self.total,
            "average": float(self.average),
            "average_fraction": self.exact_average,
            "max": self.max,
            "distribution": {str(d): c for d, c in sorted(self.distribution.items())},
            "seconds": round(self.seconds, 6),
        }


@dataclass
class Comparison:
    """Rows of exhaustive results on one game (see :func:`compare`)."""

    game: GameLike
    rows: list[ComparisonRow] = field(default_factory=list)

    COLUMNS = (
        "strategy",
        "guesses from",
        "first guess",
        "total",
        "average",
        "exact average",
        "max",
        "secrets found in 1/2/3/... guesses",
        "seconds",
    )
    """The columns of the text, Markdown and HTML tables (CSV and JSON name them in
    snake_case and give the distribution one column per number of guesses)."""

    @property
    def max(self) -> int:
        """The longest game of any row."""
        return max(r.max for r in self.rows)

    def row(self, strategy: str, pool: Union[str, Pool] = Pool.ALL) -> ComparisonRow:
        """The row of ``strategy`` with ``pool``; KeyError when there is none."""
        pool = Pool.parse(pool)
        for r in self.rows:
            if r.strategy == str(strategy) and r.pool is pool:
                return r
        raise KeyError(f"no row for {strategy} with {pool.label}")

    def cells(self, seconds: bool = True) -> list[list[str]]:
        """The table as text cells, one list per row, in :attr:`COLUMNS` order."""
        out = []
        for r in self.rows:
            cells = [
                r.strategy,
                r.pool.label,
                r.first_guess,
                str(r.total),
                f"{float(r.average):.4f}",
                r.exact_average,
                str(r.max),
                r.distribution_text,
            ]
            if seconds:
                cells.append(f"{r.seconds:.3f}")
            out.append(cells)
        return out

    def headers(self, *, seconds: bool = True) -> list[str]:
        return list(self.COLUMNS if seconds else self.COLUMNS[:-1])

    # the columns holding numbers, right-aligned in every table
    NUMERIC = frozenset({"total", "average", "exact average", "max", "seconds"})

    def title(self) -> str:
        """``"[4,6]: 1296 secrets"``."""
        return f"{self.game.name}: {secrets_text(int(self.game.secrets.size))}"

    def to_text(self, seconds: bool = True) -> str:
        """A plain table with aligned columns, under :meth:`title`."""
        heads, rows = self.headers(seconds=seconds), self.cells(seconds)
        widths = [
            max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)
        ]

        def line(cells: Sequence[str]) -> str:
            return "  ".join(
                c.rjust(w) if h in self.NUMERIC else c.ljust(w)
                for c, w, h in zip(cells, widths, heads)
            ).rstrip()

        return "\n".join([self.title(), "", line(heads)] + [line(r) for r in rows])

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, seconds: bool = True) -> str:
        """A GitHub-flavoured Markdown table (numbers right-aligned)."""
        heads = self.headers(seconds=seconds)
        rule = ["---:" if h in self.NUMERIC else "---" for h in heads]
        lines = ["| " + " | ".join(r) + " |" for r in [heads, rule] + self.cells(seconds)]
        return "\n".join(lines)

    def to_csv(self, seconds: bool = True) -> str:
        """CSV with a header line; the distribution in columns ``guesses_1`` ...
        ``guesses_D`` (D the longest game of any row)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        upto = self.max
        w.writerow(
            [
                "strategy",
                "pool",
                "first_guess",
                "secrets",
                "total",
                "average",
                "average_fraction",
                "max",
            ]
            + [f"guesses_{d}" for d in range(1, upto + 1)]
            + (["seconds"] if seconds else [])
        )
        for r in self.rows:
            w.writerow(
                [
                    r.strategy,
                    r.pool.value,
                    r.first_guess,
                    r.secrets,
                    r.total,
                    f"{float(r.average):.6f}",
                    r.exact_average,
                    r.max,
                ]
                + r.counts(upto)
                + ([f"{r.seconds:.6f}"] if seconds else [])
            )
        return buf.getvalue()

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "pegs": self.game.n,
            "colours": self.game.k,
            "variant": self.game.variant.value,
            "secrets": int(self.game.secrets.size),
            "rows": [r.to_json() for r in self.rows],
        }

    def _repr_html_(self) -> str:
        from ..views.notebook import comparison_html

        return comparison_html(self)

    def plot(self, ax: Any = None) -> Any:
        """Bars of every row's distribution (one colour per strategy, the candidates-only
        pool hatched) on ``ax`` (default: a new figure); returns the axes.  Needs
        matplotlib (``pip install 'mastermind-analysis[plot]'``)."""
        from ..views.plot import plot_comparison

        return plot_comparison(self, ax)


def _names(
    values: Union[str, Iterable[Any], None],
    default: Sequence[Any],
    parse: Callable[[Any], Any],
    what: str,
) -> list[Any]:
    if values is None:
        return list(default)
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values:
        p = parse(v)
        if p in out:
            raise ComparisonError(f"{what} {p} is named twice")
        out.append(p)
    if not out:
        raise ComparisonError(f"name at least one {what}")
    return out


def compare(
    game: GameLike,
    strategies: Union[str, Iterable[Union[str, Strategy]], None] = None,
    pools: Union[str, Iterable[Union[str, Pool]], None] = None,
    *,
    optimal: bool = False,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> Comparison:
    """Play every strategy with every guess pool against every secret of ``game``.

    Each strategy opens with its own first guess (the rule's choice over the pool).  The
    rows come pool by pool, in the order given, strategies in the order given.

    Parameters
    ----------
    strategies : names of :class:`~mastermind.rules.Strategy` (default: all five, in
        their order).
    pools : ``"all"`` and/or ``"candidates"`` (default: both).
    optimal : also a row ``"optimal"`` per pool: the least total any strategy reaches
        (:func:`mastermind.optimum.solver.optimal`, proved; it can take long on big games).
    jobs : threads for each analysis (default: all cores); results never depend on it.
    progress : called as ``progress(secrets_done, secrets_total)`` over all the rows.

    >>> from mastermind.game import Game
    >>> c = compare(Game(4, 6), "first-candidate", "all")
    >>> c.rows[0].total, c.rows[0].first_guess
    (7471, '1111')
    """
    from .. import checks
    from ..analysis.exhaustive import analyze

    checks.game(game, "compare")
    checks.threads(jobs)
    checks.progress(progress)
    chosen = _names(strategies, list(Strategy), Strategy.parse, "strategy")
    chosen_pools = _names(pools, list(Pool), Pool.parse, "pool")
    if not isinstance(optimal, bool):
        raise checks.ArgumentError(f"optimal must be True or False, not {optimal!r}")
    secrets = int(game.secrets.size)
    total = secrets * (len(chosen) + optimal) * len(chosen_pools)
    result = Comparison(game)
    for pool in chosen_pools:
        for strategy in chosen:
            done = len(result.rows) * secrets
            report = (
                None if progress is None else (lambda d, t, done=done: progress(done + d, total))
            )
            a = analyze(
                game, strategy, candidates_only=pool is Pool.CANDIDATES, jobs=jobs, progress=report
            )
            result.rows.append(ComparisonRow.of(a))
        if optimal:
            result.rows.append(
                _optimal_row(game, pool, jobs, progress, len(result.rows) * secrets, total)
            )
    if progress is not None:
        progress(total, total)
    return result


def _optimal_row(
    game: GameLike,
    pool: Pool,
    jobs: Optional[int],
    progress: Optional[Progress],
    done: int,
    total: int,
) -> ComparisonRow:
    """The row of the exact optimum with ``pool`` (its progress, the root's guesses tried,
    shown as a share of the row's secrets)."""
    from ..optimum.solver import optimal

    secrets = int(game.secrets.size)
    report = (
        None
        if progress is None
        else (lambda d, t: progress(done + (secrets * d // t if t else 0), total))
    )
    best = optimal(game, candidates_only=pool is Pool.CANDIDATES, jobs=jobs, progress=report)
    if not best.exact:  # only Ctrl-C stops a search without a time limit
        raise KeyboardInterrupt
    return ComparisonRow.of(best, name="optimal")
