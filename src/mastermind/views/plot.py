"""Pictures of distributions, drawn with matplotlib (the optional extra
``mastermind-analysis[plot]``): bars of how many secrets need 1, 2, 3... guesses, for one analysis
(:meth:`mastermind.analysis.exhaustive.Analysis.plot`) or for every row of a comparison
(:meth:`mastermind.apps.comparison.Comparison.plot`, one colour per strategy, the candidates-only
pool hatched), and :func:`save_plot` writing either to a PNG, SVG or PDF file.

matplotlib is imported only here and only when a picture is asked for; without it every
function raises :class:`PlotError`, one line naming the extra to install.  Files are drawn
on a figure of their own with the Agg canvas (no window, no pyplot state); ``plot()``
without axes draws on a new pyplot figure, which a notebook shows.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Optional

from ..errors import MastermindError, MissingTool
from ..files import Destination, OutputError
from ..rules import average_text, secrets_text

SUFFIXES = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
"""The files :func:`save_plot` writes, by suffix."""

STRATEGY_COLOURS = {
    "minmax": "#1f77b4",
    "entropy": "#ff7f0e",
    "parts": "#2ca02c",
    "expected-size": "#d62728",
    "first-candidate": "#9467bd",
    "optimal": "#333333",
}
_OTHER_COLOURS = ("#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
CANDIDATES_HATCH = "///"


class PlotError(MastermindError):
    """A picture that cannot be drawn: matplotlib missing, or a file that cannot be
    written."""


class MatplotlibMissing(PlotError, MissingTool):
    """matplotlib is not installed: a tool missing, not bad input."""


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MatplotlibMissing(
            "plots need matplotlib: pip install 'mastermind-analysis[plot]'"
        ) from None
    return matplotlib


def check_plot_file(path: str) -> str:
    """The format of ``path`` (``"png"``, ``"svg"`` or ``"pdf"``), once it is clear that
    the file can be drawn: a known suffix, an existing folder, matplotlib installed."""
    fmt = SUFFIXES.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        raise PlotError(f"cannot draw {path!r}: use a .png, .svg or .pdf file")
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise PlotError(f"cannot write {path}: no folder {folder}")
    _matplotlib()
    return fmt


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    _matplotlib()
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    return ax


def _colour(strategy: str, seen: dict[str, str]) -> str:
    if strategy not in seen:
        seen[strategy] = STRATEGY_COLOURS.get(
            strategy,
            _OTHER_COLOURS[
                len([s for s in seen if s not in STRATEGY_COLOURS]) % len(_OTHER_COLOURS)
            ],
        )
    return seen[strategy]


def _bars(
    ax: Any, series: Sequence[tuple[str, dict[int, int], str, Optional[str]]], *, labels: bool
) -> None:
    """Grouped bars: for each number of guesses, one bar per series."""
    longest = max(max(dist) for _, dist, _, _ in series)
    width = 0.8 / len(series)
    xs = range(1, longest + 1)
    for i, (label, dist, colour, hatch) in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        heights = [dist.get(d, 0) for d in xs]
        bars = ax.bar(
            [x + offset for x in xs],
            heights,
            width,
            label=label,
            color="white" if hatch else colour,
            edgecolor=colour,
            hatch=hatch,
            linewidth=1.0,
        )
        if labels:
            ax.bar_label(bars, labels=[str(h) if h else "" for h in heights], padding=2, fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xlabel("guesses needed (the winning guess included)")
    ax.set_ylabel("secrets")
    ax.margins(y=0.12)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def plot_analysis(result: Any, ax: Any = None) -> Any:
    """The distribution of one analysis as bars, the counts on top; the game, strategy,
    pool, first guess, average and maximum in the title.  Returns the axes."""
    ax = _axes(ax)
    game = result.game
    pool = "candidates only" if result.candidates_only else "all codes"
    colour = STRATEGY_COLOURS.get(str(result.strategy), _OTHER_COLOURS[0])
    _bars(ax, [(str(result.strategy), result.distribution, colour, None)], labels=True)
    avg = result.average
    ax.set_title(
        f"{game.name} {result.strategy}, {pool}, first guess "
        f"{game.format_code(result.first_guess)}\n{secrets_text(result.secrets)}: average "
        f"{average_text(avg)}, max {result.max}"
    )
    return ax


def plot_comparison(comparison: Any, ax: Any = None) -> Any:
    """Every row's distribution as grouped bars: one colour per strategy, the
    candidates-only rows hatched; each row's average in the legend, the game and the
    best average in the title.  Returns the axes."""
    rows = comparison.rows
    if not rows:
        raise PlotError("nothing to draw: the comparison has no rows")
    ax = _axes(ax)
    seen: dict[str, str] = {}
    series = []
    for r in rows:
        pool = str(r.pool)
        series.append(
            (
                f"{r.strategy}, {r.pool.label}: {float(r.average):.4f}",
                r.distribution,
                _colour(r.strategy, seen),
                CANDIDATES_HATCH if pool == "candidates" else None,
            )
        )
    _bars(ax, series, labels=False)
    best = min(rows, key=lambda r: r.average)
    ax.set_title(
        f"{comparison.game.name}, {secrets_text(rows[0].secrets)}: guesses needed; best "
        f"average {float(best.average):.4f} ({best.strategy}, {best.pool.label})"
    )
    # below the axes: inside, it would hide the tallest bars
    ax.legend(
        title="strategy, pool: average",
        fontsize=8,
        title_fontsize=8,
        ncols=2 if len(rows) > 3 else 1,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        frameon=False,
    )
    return ax


def save_plot(obj: Any, path: str, dpi: int = 120, fmt: Optional[str] = None) -> None:
    """Draw ``obj`` (anything with ``plot(ax)``: an analysis, a comparison) to ``path``
    (PNG, SVG or PDF: ``fmt``, else by suffix) on a figure of its own, written as every
    output of the package is (:class:`mastermind.files.Destination`)."""
    fmt = fmt or check_plot_file(path)
    with Destination(path, "the plot") as dest:
        draw_plot(obj, dest, fmt, dpi)


def draw_plot(obj: Any, dest: Destination, fmt: str, dpi: int = 120) -> None:
    """Draw ``obj`` into the open ``dest`` (not committed): :class:`OutputError` naming
    the file when it cannot take it (a full disk)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 5), layout="constrained")
    FigureCanvasAgg(fig)
    obj.plot(ax=fig.add_subplot())
    try:
        fig.savefig(dest.file, format=fmt, dpi=dpi)
    except OSError as e:
        raise OutputError(f"cannot write {dest.path}: {e.strerror or e}") from None
