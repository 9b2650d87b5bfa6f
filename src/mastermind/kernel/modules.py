"""The kernel's compiled modules, listed once: the build (setup.py), the loader
(:mod:`mastermind.kernel.simd`) and the stub tests read this list.  Plain Python with no
imports, so that setup.py can read it without importing the package."""

MODULES = (
    "kernel._core",
    "kernel._symmetry",
    "kernel._memo",
    "analysis._scan",
    "analysis._walk",
    "worstcase._search",
    "optimum._optimal",
)
"""Each module's dotted name under ``mastermind``, in build order (``_core`` first)."""
