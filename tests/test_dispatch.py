"""The kernel built for several CPUs (setup.py's targets) and chosen at its first import
(mastermind.kernel.simd): only through its one loader, whatever an older build left in the
package;
the forced target is honoured and reported, a target above the CPU
falls back with a warning, a name that is no target is refused, and every target this
CPU runs gives the same answers (scores, partitions, choice-rule scans, analyses, a
worst case, an optimum)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mastermind.kernel import simd

SRC = Path(simd.__file__).resolve().parents[2]

# the tests of the choice of a target (a build for one machine has nothing to choose)
choosing = pytest.mark.skipif(
    simd.native_build(), reason="a build for one machine: there is nothing to choose"
)


def run(code: str, target: str | None = None) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter on this checkout, MASTERMIND_SIMD set to ``target``."""
    env = {k: v for k, v in os.environ.items() if k != "MASTERMIND_SIMD"}
    env["PYTHONPATH"] = str(SRC)
    if target is not None:
        env["MASTERMIND_SIMD"] = target
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )


REPORT = """
import json, warnings
warnings.simplefilter("error")
from mastermind.kernel import simd, _core
from mastermind.analysis import _scan
from mastermind.worstcase import _search
print(json.dumps({"target": simd.target(), "simd": _core.SIMD, "core": _core.__file__,
                  "scan": _scan.__file__, "search": _search.__file__}))
"""

# the kernels each target compiles in (_kernel.h's MM_SIMD)
VECTORS = {"baseline": "none", "avx2": "avx2", "avx512": "avx512"}


@choosing
def test_the_cpu_runs_the_baseline_and_the_targets_are_ordered():
    runs = simd.supported()
    assert runs == simd.TARGETS[: len(runs)] and runs[0] == "baseline"


@choosing
@pytest.mark.parametrize("target", simd.TARGETS)
def test_a_forced_target_is_honoured_and_reported(target):
    if target not in simd.available():
        pytest.skip(f"this CPU does not run {target}, or it was not built")
    done = run(REPORT, target)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["target"] == target and got["simd"] == VECTORS[target]
    for module in ("core", "scan", "search"):  # every module from the same build
        assert Path(got[module]).parents[1].name == target
        assert Path(got[module]).parents[2].name == "_targets"


@choosing
def test_the_default_is_the_highest_target_the_cpu_runs():
    done = run(REPORT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == simd.available()[-1]


@choosing
def test_a_target_above_the_cpu_falls_back_with_a_warning():
    """A CPU that runs the baseline only (the probe made to say so) asked for avx512."""
    if "baseline" not in simd.available():
        pytest.skip("this install holds no baseline build (MASTERMIND_TARGETS)")
    code = (
        "import warnings\nfrom mastermind.kernel import _cpu, simd\n_cpu.level = lambda: 0\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    from mastermind.kernel import _core\n"
        "print(simd.target(), _core.SIMD)\nprint(w[0].category.__name__, w[0].message)"
    )
    done = run(code, "avx512")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "baseline none"
    assert second.startswith("RuntimeWarning MASTERMIND_SIMD=avx512: this CPU does not run")


@choosing
def test_a_name_that_is_no_target_is_refused():
    done = run("from mastermind.kernel import _core", "sse9")
    assert done.returncode != 0
    assert (
        "MastermindError: MASTERMIND_SIMD='sse9': expected one of baseline, avx2, avx512"
        in done.stderr
    )


@choosing
def test_the_command_line_refuses_it_in_one_line():
    done = run(
        "import sys\nfrom mastermind.cli import main\n"
        "sys.exit(main(['analyze', '-n', '3', '-k', '3']))",
        "AVX-512",
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "mastermind: error: MASTERMIND_SIMD='avx-512': expected one of baseline, avx2, avx512"
    ]


# Answers that go through every vector kernel and its scalar twin: the histograms of
# whole partitions (two-word codes, and byte forms with colours 9 to 16), the keys of
# every valuation, the choice-rule scan on many candidates and on few (the eight-guess
# lanes), whole analyses, a worst case with its proof and optima on one thread and two.
ANSWERS = """
import json
import numpy as np
from mastermind import Game, analyze, optimal, worst_case
from mastermind.kernel import simd, _core
from mastermind.analysis import _scan
out = {"target": simd.target()}
rng = np.random.default_rng(7)
for n, k in ((4, 6), (5, 8), (4, 12)):
    g = Game(n, k)
    guesses = np.unique(rng.integers(0, g.size, 40)).astype(np.int32)
    for m in (20, 300):
        cands = np.unique(rng.integers(0, g.size, m)).astype(np.int32)
        out[f"hist {n},{k},{m}"] = g.kernel.histograms(guesses, cands).tolist()
        for kind in (_core.VAL_MINMAX, _core.VAL_ENTROPY, _core.VAL_PARTS, _core.VAL_EXPECTED):
            out[f"keys {n},{k},{m},{kind}"] = g.kernel.keys(guesses, cands, kind).tolist()
            out[f"best {n},{k},{m},{kind}"] = [
                int(x) for x in _scan.best_guess(g.kernel, g.guesses, cands, kind)[:1]]
g = Game(4, 6)
for s in ("minmax", "entropy", "parts", "expected-size"):
    for c in (False, True):
        a = analyze(g, s, candidates_only=c)
        out[f"analyze {s} {c}"] = sorted(a.distribution.items())
w = worst_case(g)
out["worst case"] = [w.lower, w.upper, w.status]
out["optimum 3,5"] = sorted(optimal(Game(3, 5)).distribution.items())
# the searches whose nodes and parts' floors live in arrays of 64-byte aligned structs
# (the AVX-512 build once crashed on [4,5] and [4,6]), on one thread and on two
for n, k in ((4, 5), (4, 6)):
    for jobs in (1, 2):
        o = optimal(Game(n, k), jobs=jobs)
        out[f"optimum {n},{k} jobs {jobs}"] = [o.total, sorted(o.distribution.items())]
w = worst_case(Game(5, 4))
out["worst case 5,4"] = [w.lower, w.upper, w.status]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    got = {}
    for target in simd.available():
        done = run(ANSWERS, target)
        assert done.returncode == 0, done.stderr
        got[target] = json.loads(done.stdout)
        assert got[target].pop("target") == target
    return got


@choosing
def test_every_target_gives_the_same_answers(answers):
    base = answers[simd.available()[0]]
    assert sum(d * c for d, c in base["analyze entropy False"]) == 5722  # published
    assert base["worst case"] == [5, 5, "exact"]
    for jobs in (1, 2):  # published: Koyama and Lai 1993 for [4,6]
        assert base[f"optimum 4,6 jobs {jobs}"][0] == 5625
        assert base[f"optimum 4,5 jobs {jobs}"][0] == 2463
    for target, got in answers.items():
        assert got.keys() == base.keys()
        for key in base:
            assert got[key] == base[key], (target, key)


def test_the_kernel_modules_are_listed_once():
    """setup.py, the loader and the static checks read mastermind/kernel/modules.py; it
    names every .pyx of the package (the CPU probe aside, built for any CPU), each at its
    family's folder."""
    from mastermind.kernel.modules import MODULES

    root = Path(__file__).resolve().parents[1]  # the repository (the package may be installed)
    package = root / "src" / "mastermind"
    assert 'run_path("src/mastermind/kernel/modules.py")' in (root / "setup.py").read_text()
    assert "src/mastermind/kernel/modules.py" in (root / ".ci" / "static").read_text()
    assert {f"mastermind.{m}" for m in MODULES} == simd.NAMES
    pyx = {
        ".".join(p.relative_to(package).with_suffix("").parts)
        for p in package.rglob("*.pyx")
        if p.name != "_cpu.pyx"
    }
    assert pyx == set(MODULES)
    assert MODULES[0] == "kernel._core"  # what every other module cimports


def test_a_compiled_module_left_elsewhere_in_the_package_is_never_loaded(tmp_path):
    """An older install or build may leave a compiled kernel module where the import
    system would find it first: beside its .pyx in its family's folder, or at the
    package's root (the earlier layout).  The package still loads its build's modules,
    from their target's folder (a copy of the package, with copies of two of them left
    beside their sources)."""
    import shutil

    from mastermind.analysis import _walk
    from mastermind.kernel import _core

    copy = tmp_path / "mastermind"
    shutil.copytree(SRC / "mastermind", copy, ignore=shutil.ignore_patterns("__pycache__"))
    targets = Path(_core.__file__).parents[1]  # _targets/<the build this process runs>
    own = targets.name
    left = []
    for module, family in ((_core, "kernel"), (_walk, "analysis")):
        built = copy / "_targets" / own / family / Path(module.__file__).name
        for where in (copy / family, copy):
            left.append(where / built.name)
            shutil.copy(built, left[-1])
    code = (
        "import json; from mastermind.kernel import simd, _core; "
        "from mastermind.analysis import _walk; "
        "print(json.dumps([simd.native_build(), _core.__file__, _walk.__file__]))"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))  # (the same MASTERMIND_SIMD, if set)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    native, core, walk = json.loads(done.stdout)
    assert native == (own == "native")
    assert Path(core).parent == copy / "_targets" / own / "kernel"
    assert Path(walk).parent == copy / "_targets" / own / "analysis"
    assert not {Path(core), Path(walk)} & set(left)
