"""Plots: the bars are the distribution, the title names the game and the average, files
are written in the format their suffix names, and a missing matplotlib is one clear line."""

import io
import sys

import pytest

from mastermind import Game, analyze
from mastermind.apps.comparison import compare
from mastermind.cli import main
from mastermind.views.plot import PlotError, check_plot_file, save_plot

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

MAGIC = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}


def bar_heights(ax) -> list[float]:
    return [p.get_height() for p in ax.patches]


def test_analysis_plot_is_the_distribution():
    a = analyze(Game(4, 6), "minmax")
    ax = a.plot(ax=Figure().add_subplot())
    assert bar_heights(ax) == [1, 6, 62, 533, 694]
    assert [p.get_x() + p.get_width() / 2 for p in ax.patches] == [1, 2, 3, 4, 5]
    title = ax.get_title()
    assert "[4,6] minmax" in title and "4.4761" in title and "5801/1296" in title
    assert "max 5" in title and "first guess 1122" in title
    assert ax.get_xlabel().startswith("guesses") and ax.get_ylabel() == "secrets"
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["1", "6", "62", "533", "694"]


def test_analysis_plot_without_axes_makes_a_figure():
    import matplotlib.pyplot as plt

    a = analyze(Game(3, 3), "parts")
    ax = a.plot()
    try:
        assert ax.figure is plt.gcf()
        assert bar_heights(ax) == [a.distribution.get(d, 0) for d in range(1, a.max + 1)]
    finally:
        plt.close("all")


def test_comparison_plot_one_colour_per_strategy():
    c = compare(Game(4, 6), ["minmax", "entropy", "parts"])
    ax = c.plot(ax=Figure().add_subplot())
    longest = c.max
    assert len(ax.patches) == len(c.rows) * longest
    for i, r in enumerate(c.rows):  # bars come row by row, 1..longest guesses each
        bars = ax.patches[i * longest : (i + 1) * longest]
        assert [b.get_height() for b in bars] == r.counts(longest)
        hatched = bool(bars[0].get_hatch())
        assert hatched == (str(r.pool) == "candidates")
    edge = {r.strategy: [] for r in c.rows}
    for i, r in enumerate(c.rows):
        edge[r.strategy].append(tuple(ax.patches[i * longest].get_edgecolor()))
    colours = {s: set(v) for s, v in edge.items()}
    assert all(len(v) == 1 for v in colours.values())  # both pools: the same colour
    assert len({next(iter(v)) for v in colours.values()}) == 3  # strategies differ
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "minmax, all codes: 4.4761" and len(legend) == 6
    assert "[4,6]" in ax.get_title() and "4.3735" in ax.get_title()  # parts is best


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_save_plot_formats(tmp_path, fmt):
    target = tmp_path / f"d.{fmt}"
    save_plot(analyze(Game(3, 3), "entropy"), str(target))
    head = target.read_bytes()[:5]
    assert head.startswith(MAGIC[fmt])


def test_cli_plot_files(tmp_path):
    a, c = tmp_path / "a.png", tmp_path / "c.svg"
    out = io.StringIO()
    assert main(["analyze", "-k", "4", "--plot", str(a), "--json"], out) == 0
    assert a.read_bytes().startswith(MAGIC["png"]) and '"total"' in out.getvalue()
    assert main(["compare", "-k", "4", "--plot", str(c)], io.StringIO()) == 0
    svg = c.read_text()
    assert "minmax, all codes" in svg and "first-candidate, candidates only" in svg


def test_errors_are_one_line(tmp_path, monkeypatch, capsys):
    with pytest.raises(PlotError, match="use a .png, .svg or .pdf"):
        check_plot_file("x.jpg")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(PlotError, match=r"pip install 'mastermind-analysis\[plot\]'"):
        analyze(Game(2, 2)).plot()
    for argv in (
        ["analyze", "--plot", str(tmp_path / "a.png")],
        ["compare", "--plot", str(tmp_path / "c.pdf")],
    ):
        assert main(argv, io.StringIO()) == 3  # a tool missing, not bad input
        err = capsys.readouterr().err
        assert (
            err
            == "mastermind: error: plots need matplotlib: pip install 'mastermind-analysis[plot]'\n"
        )
    assert not list(tmp_path.iterdir())
