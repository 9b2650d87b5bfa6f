"""Build the Cython kernel (``mastermind._core`` and the modules beside it); all metadata
lives in pyproject.toml.

Set ``MASTERMIND_DEBUG=1`` to build with bounds checks and without optimisation,
``MASTERMIND_PORTABLE=1`` to build for any x86-64 CPU instead of this machine's, and
``MASTERMIND_NO_OPENMP=1`` to build without threads.
"""
import os
import platform
import subprocess
import sysconfig

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup


def _assembler_accepts(flag: str) -> bool:
    """Whether the C compiler's assembler takes ``flag`` (binutils 2.34 and later)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        return subprocess.run([cc, "-Wa," + flag, "-x", "c", "-c", "-o", os.devnull, "-"],
                              input=b"int x;\n", capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


debug = os.environ.get("MASTERMIND_DEBUG", "") not in ("", "0")

compile_args = ["-O0", "-g"] if debug else ["-O3"]
link_args = []
portable = os.environ.get("MASTERMIND_PORTABLE", "") not in ("", "0")
if platform.machine().lower() in ("x86_64", "amd64"):
    # The package is compiled where it runs: tune for this CPU (popcount, BMI2 shifts).
    # MASTERMIND_PORTABLE=1 keeps to what every x86-64 CPU since 2008 has.
    compile_args.append("-mpopcnt" if portable else "-march=native")
    # Keep jumps off 32-byte boundaries (Intel's JCC erratum microcode makes loops that
    # straddle them slow): measured to steady the scans' speed from build to build.
    if _assembler_accepts("-mbranches-within-32B-boundaries"):
        compile_args.append("-Wa,-mbranches-within-32B-boundaries")
if os.environ.get("MASTERMIND_NO_OPENMP", "") in ("", "0"):
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")

directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": False,
    "initializedcheck": debug,
    "cdivision": True,
    "embedsignature": True,
}

# The kernel, one concern a module (docs/architecture.md): scoring and partitions, the
# choice-rule scan, symmetry, the strategy walk, the worst-case search.  They share
# declarations through .pxd files and the C of _kernel.h.
MODULES = ("_core", "_scan", "_symmetry", "_walk", "_memo", "_search", "_optimal")

extensions = [
    Extension(
        f"mastermind.{name}",
        [f"src/mastermind/{name}.pyx"],
        include_dirs=[np.get_include(), "src/mastermind"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        depends=["src/mastermind/_kernel.h"],
    )
    for name in MODULES
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            include_path=["src"]))
