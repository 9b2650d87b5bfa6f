"""The package's house drawn from its code: docs/house.svg.

Reads every module's imports with the same reader and the same table of layers that
tests/test_layers.py holds the package to (scripts/docs/layers.py: so the picture shows
what the tests enforce), folds the modules into their families (a folder is one box, a
root module one box; no sizes, so that the picture changes only when the structure
does), and draws the families layer by layer, the command line at the top and what
everything shares at the bottom, with an arrow from each family to each one it imports
directly (an import that a longer path of arrows already implies is left out: the
drawing is the transitive reduction of the families' imports).  The package's face
(``__init__.py``) imports its public names lazily, on first use: an arrow that only such
a lazy export makes is dashed.  Needs Graphviz's ``dot``.

    python scripts/docs/house.py            # writes docs/house.svg (and prints the figures)
    python scripts/docs/house.py --check    # exit 1 if docs/house.svg is not up to date
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from layers import LAYERS, ImportGraph, longest_chain, place  # (this folder's layers.py)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "mastermind"
OUT = ROOT / "docs" / "house.svg"

TITLES = [
    "shared: errors, limits, the kernel, the checker",
    "the game and its rules",
    "the engine (units, executors, checkpoints)",
    "what people look at",
    "one-step strategies",
    "worst case | expected case",
    "sessions, comparisons",
    "the command line",
]


def family(module: str) -> str:
    """The box a module is drawn in: its folder, or itself at the root."""
    name = module.split(".")[1] if "." in module else "__init__"
    return name + "/" if (PACKAGE / name).is_dir() else name + ".py"


def reduced(arrows: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The arrows that no longer path implies (the graph has no cycle)."""
    out = set()
    for a, b in arrows:
        others = {(x, y) for x, y in arrows if (x, y) != (a, b)}
        seen, todo = {a}, [a]
        while todo:
            x = todo.pop()
            for u, v in others:
                if u == x and v not in seen:
                    seen.add(v)
                    todo.append(v)
        if b not in seen:
            out.add((a, b))
    return out


def dot_source(graph: ImportGraph) -> str:
    """The Graphviz source: a cluster per layer, a box per family, the arrows."""
    boxes: dict[str, int] = {}
    for module in graph.modules:
        boxes[family(module)] = place(module)[0]
    imports = {(m, t) for m, ts in graph.edges.items() for t in ts}
    arrows = {(family(m), family(t)) for m, t in imports | graph.lazy if family(m) != family(t)}
    out = [
        "digraph house {",
        "  rankdir=TB; newrank=true; ranksep=0.45; nodesep=0.25;",
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#52637a",'
        ' fontname="Helvetica", fontsize=11];',
        '  edge [color="#6b7a90", arrowsize=0.7];',
    ]
    for layer in reversed(range(len(LAYERS))):
        names = sorted(b for b, n in boxes.items() if n == layer)
        out.append(f"  subgraph cluster_{layer} {{")
        out.append(f'    label="{TITLES[layer]}"; labeljust=l; fontname="Helvetica";')
        out.append('    fontsize=10; style="dashed"; color="#b8c2d0";')
        out.append("    " + " ".join(f'"{b}";' for b in names))
        out.append(
            f"    {{ rank=same; {' '.join(repr(b).replace(chr(39), chr(34)) for b in names)} }}"
        )
        out.append("  }")
    eager = {(family(m), family(t)) for m, t in imports}
    for a, b in sorted(reduced(arrows)):
        style = "" if (a, b) in eager else " [style=dashed]"  # (only a lazy export)
        out.append(f'  "{a}" -> "{b}"{style};')
    out.append("}")
    return "\n".join(out) + "\n"


def figures(graph: ImportGraph) -> str:
    """What the picture shows, in numbers."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    chain = longest_chain(graph)
    return (
        f"{len(graph.modules)} modules, {len(root)} at the root; {len(LAYERS)} layers; "
        f"the longest import chain {len(chain)} modules: {' -> '.join(chain)}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only say whether the SVG is current")
    args = ap.parse_args(argv)
    graph = ImportGraph(PACKAGE, "mastermind")
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=dot_source(graph), capture_output=True, text=True, check=True
    ).stdout
    if args.check:
        current = OUT.exists() and OUT.read_text() == svg
        print("docs/house.svg is " + ("up to date" if current else "out of date"))
        return 0 if current else 1
    OUT.write_text(svg)
    print(figures(graph))
    print(f"written: {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
