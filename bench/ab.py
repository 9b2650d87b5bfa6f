"""Compare this checkout's benchmarks with another build's, by interleaved runs.

    python bench/ab.py OTHER_CHECKOUT [--rounds 3] [-k EXPR]
                       [-m MARKS] [--base-env NAME=VALUE ...] [--new-env NAME=VALUE ...]

OTHER_CHECKOUT is another clone or worktree of the project with its extension built in
place (``python setup.py build_ext --inplace``), e.g. ``git worktree add /tmp/base main``.
The two benchmark suites run one after the other, ``--rounds`` times each, alternating
(base, new, base, new, ...), so that both see the same phases of a machine whose speed
drifts; each run is a fresh ``python -m pytest bench/ --benchmark-only`` with
``PYTHONPATH`` set to that checkout's ``src``.  Benchmarks are matched by name.

``--base-env`` and ``--new-env`` set environment variables for one side's runs: e.g.
``python bench/ab.py . --base-env MASTERMIND_SIMD=avx2`` compares, in this checkout,
the kernel's avx2 build with the one its CPU picks (``mastermind.kernel.simd``).

Printed per benchmark: the median time of each side (the median over rounds of each
run's median) and the median over rounds of the ratio new / base of the same round: the
figure to quote (below 1: the new build is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def side_env(pairs: list[str]) -> dict[str, str]:
    """NAME=VALUE arguments as a dict."""
    if not all("=" in p for p in pairs):
        sys.exit(f"expected NAME=VALUE: {pairs}")
    return dict(p.split("=", 1) for p in pairs)


def run_suite(
    tree: Path, expr: str | None, out: Path, extra: dict[str, str], marks: str | None = None
) -> dict[str, float]:
    """One run of the tree's benchmark suite: {benchmark name: median seconds}."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), **extra)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "bench/",
        "--benchmark-only",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--benchmark-json={out}",
    ]
    if expr:
        cmd += ["-k", expr]
    if marks:
        cmd += ["-m", marks]
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"benchmarks failed in {tree}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    data = json.loads(out.read_text())
    return {b["fullname"].split("::", 1)[1]: b["stats"]["median"] for b in data["benchmarks"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the other checkout (built in place)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-k", dest="expr", default=None, help="pytest -k expression")
    parser.add_argument(
        "-m", dest="marks", default=None, help="pytest -m expression (e.g. 'slow or not slow')"
    )
    parser.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    envs = {"base": side_env(args.base_env), "new": side_env(args.new_env)}
    base, new = args.base.resolve(), HERE
    runs: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for side, tree in (("base", base), ("new", new)):
                print(f"round {r + 1}/{args.rounds}: {side} ({tree})", file=sys.stderr)
                runs[side].append(
                    run_suite(
                        tree, args.expr, Path(tmp) / f"{side}{r}.json", envs[side], args.marks
                    )
                )
    names = [n for n in runs["new"][0] if all(n in run for run in runs["base"])]
    width = max(len(n) for n in names)
    print(f"{'benchmark':<{width}}  {'base (s)':>10}  {'new (s)':>10}  {'new/base':>8}")
    ratios = []
    for name in names:
        b = statistics.median(run[name] for run in runs["base"])
        n = statistics.median(run[name] for run in runs["new"])
        ratio = statistics.median(nr[name] / br[name] for br, nr in zip(runs["base"], runs["new"]))
        ratios.append(ratio)
        print(f"{name:<{width}}  {b:10.5f}  {n:10.5f}  {ratio:8.3f}")
    print(
        f"{'all (median of the ratios)':<{width}}  {'':>10}  {'':>10}  "
        f"{statistics.median(ratios):8.3f}"
    )


if __name__ == "__main__":
    main()
