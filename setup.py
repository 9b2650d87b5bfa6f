"""Build the Cython kernel (the modules ``mastermind/kernel/modules.py`` lists: ``_core``
and the others beside it in ``kernel/``, each family's own in its folder); all metadata
lives in pyproject.toml.

On x86-64 the default build runs on any x86-64 CPU at the speed of a build for this one:
the kernel's modules are compiled once per target of ``TARGETS`` below (plain x86-64,
x86-64-v3 with the AVX2 kernels, x86-64-v4 with the AVX-512 kernels) into
``mastermind/_targets/<target>/`` (each module at its path under the package:
``_targets/avx2/kernel/_core...so``), and ``mastermind.kernel.simd`` loads, at the first
import of the kernel, the highest target the CPU runs (``MASTERMIND_SIMD=baseline|avx2|avx512``
at run time forces a lower one).  The C is generated once by Cython; each target
compiles it with its own flags, through a one-line file in build/ that includes it.

Set ``MASTERMIND_NATIVE=1`` to build once, for this machine only (``-march=native``,
into ``mastermind/_targets/native/``), as every build off x86-64 does (with the
compiler's default target there, or ``-mcpu=native`` with ``MASTERMIND_NATIVE=1``).
``MASTERMIND_DEBUG=1`` builds with bounds checks and without optimisation,
``MASTERMIND_NO_OPENMP=1`` without threads, ``MASTERMIND_OPT_LEVEL=0|1|2|3`` at that
optimisation level instead of 3 (1 compiles in about half the time: the continuous
integration's builds for the other Python versions, whose tests do not measure speed).

``MASTERMIND_SANITIZE=undefined``, ``address`` or ``undefined,address`` builds the kernel
with those sanitizers (every report fatal, ``-fno-sanitize-recover=all``; at -O1 unless
``MASTERMIND_OPT_LEVEL`` says otherwise, and with ``MM_SANITIZE`` defined: the AVX2 and
scalar twins of the AVX-512 kernels then also read the memory only those read, see
docs/architecture.md); ``MASTERMIND_TARGETS=baseline,avx2`` builds only
the targets named (the loader then runs the highest of them the CPU runs).  The
continuous integration's sanitizer run (.ci/sanitize) uses both; AddressSanitizer's
runtime must then be loaded first (``LD_PRELOAD``), as that script does.
"""

import os
import platform
import runpy
import subprocess
import sysconfig
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _assembler_accepts(flag: str) -> bool:
    """Whether the C compiler's assembler takes ``flag`` (binutils 2.34 and later)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        return (
            subprocess.run(
                [cc, "-Wa," + flag, "-x", "c", "-c", "-o", os.devnull, "-"],
                input=b"int x;\n",
                capture_output=True,
                timeout=60,
            ).returncode
            == 0
        )
    except (OSError, subprocess.SubprocessError):
        return False


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


debug = _flag("MASTERMIND_DEBUG")
native = _flag("MASTERMIND_NATIVE")
x86 = platform.machine().lower() in ("x86_64", "amd64")

# The targets of the default x86-64 build, lowest first, and their flags.  _cpu.pyx checks
# the same feature levels at run time: change both together.  Loops and jump targets are
# aligned on 16 bytes whatever the padding (generic tuning pads at most 11 bytes): the
# scans' loops measured 5-9% slower without it, as fast as -march=native with it.
ALIGN = ["-mtune=generic", "-falign-loops=16", "-falign-jumps=16"]
TARGETS = {
    "baseline": ["-march=x86-64", *ALIGN],
    "avx2": ["-march=x86-64-v3", *ALIGN],
    "avx512": ["-march=x86-64-v4", *ALIGN],
}

SANITIZERS = ("undefined", "address")
sanitize = [s for s in os.environ.get("MASTERMIND_SANITIZE", "").split(",") if s.strip()]
if any(s not in SANITIZERS for s in sanitize):
    raise SystemExit(
        f"MASTERMIND_SANITIZE={','.join(sanitize)!r}: a list of {', '.join(SANITIZERS)}"
    )
level = os.environ.get("MASTERMIND_OPT_LEVEL", "1" if sanitize else "3")
if level not in ("0", "1", "2", "3"):
    raise SystemExit(f"MASTERMIND_OPT_LEVEL={level!r}: 0, 1, 2 or 3")
compile_args = ["-O0", "-g"] if debug else [f"-O{level}"]
link_args = []
# Keep jumps off 32-byte boundaries (Intel's JCC erratum microcode makes loops that
# straddle them slow): measured to steady the scans' speed from build to build.
if x86 and _assembler_accepts("-mbranches-within-32B-boundaries"):
    compile_args.append("-Wa,-mbranches-within-32B-boundaries")
if not _flag("MASTERMIND_NO_OPENMP"):
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")
if native:
    compile_args.append("-march=native" if x86 else "-mcpu=native")
if sanitize:
    # every report fatal; the alignment of every access through a typed pointer checked
    # (-fsanitize=undefined includes alignment): what one target's code generation turns
    # into a crash is reported on every target
    wanted = "-fsanitize=" + ",".join(sanitize)
    compile_args += [wanted, "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
    # the AVX2 and scalar twins of the AVX-512 kernels also read what only those read
    # (_kernel.h's MM_TWIN_READ), so a run on any CPU checks that memory too
    compile_args.append("-DMM_SANITIZE=1")
    link_args.append(wanted)

directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": False,
    "initializedcheck": debug,
    "cdivision": True,
    "embedsignature": True,
}

# The kernel's modules, listed once (the loader and the stub tests read the same list):
# dotted names under mastermind, "kernel._core", "analysis._scan", ...  They share
# declarations through .pxd files and the C of kernel/_kernel.h (and _labels.h).
MODULES = runpy.run_path("src/mastermind/kernel/modules.py")["MODULES"]
KERNEL_H = "src/mastermind/kernel/_kernel.h"
LABELS_H = "src/mastermind/kernel/_labels.h"  # (included by _kernel.h)
COMMON = dict(
    include_dirs=[np.get_include(), "src/mastermind/kernel"],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    extra_link_args=link_args,
)

kernel = cythonize(
    [
        Extension(
            f"mastermind.{name}",
            [f"src/mastermind/{name.replace('.', '/')}.pyx"],
            extra_compile_args=compile_args,
            depends=[KERNEL_H, LABELS_H],
            **COMMON,
        )
        for name in MODULES
    ],
    compiler_directives=directives,
    include_path=["src"],
)
# The CPU probe of mastermind.kernel.simd: compiled for any CPU in every build.
probe = cythonize(
    [
        Extension(
            "mastermind.kernel._cpu", ["src/mastermind/kernel/_cpu.pyx"], extra_compile_args=["-O2"]
        )
    ],
    compiler_directives=directives,
)


def _including(c_file: str, target: str, name: str) -> str:
    """A file of build/ that includes ``c_file``: the target's own source (and object)."""
    path = Path("build", "targets", target, *name.split(".")).with_suffix(".c")
    # (relative to the including file: a copy of the tree with its build/ keeps it)
    text = f'#include "{os.path.relpath(c_file, path.parent)}"\n'
    if not path.is_file() or path.read_text() != text:  # unchanged: no rebuild
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(path)


def per_target(ext: Extension, targets: dict[str, list[str]]) -> list[Extension]:
    """``ext`` (Cython's C) compiled once per target, as
    mastermind._targets.<target>.<family>.<name>."""
    name = ext.name.removeprefix("mastermind.")
    [c_file] = ext.sources
    return [
        Extension(
            f"mastermind._targets.{target}.{name}",
            [_including(c_file, target, name)],
            extra_compile_args=compile_args + flags,
            depends=[c_file, KERNEL_H, LABELS_H],
            **COMMON,
        )
        for target, flags in targets.items()
    ]


class BuildExt(build_ext):
    """build_ext that compiles on every core and clears, where it builds (the source tree
    in place, build/lib for a wheel, which packs what it finds there), the kernel modules
    of another kind of build (a native build's folder hides the targets', and the other way
    round) and those of the package's earlier layout (the modules side by side at the
    package's root and its targets' roots: never loaded now)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:  # the modules side by side on every core (pip passes no -j)
            self.parallel = os.cpu_count() or 1

    def run(self):
        folder = Path("src" if self.inplace else self.build_lib, "mastermind")
        targets = folder / "_targets"
        if self.inplace:
            for target in built:
                for name in MODULES:
                    targets.joinpath(target, *name.split(".")[:-1]).mkdir(
                        parents=True, exist_ok=True
                    )
        stale = [targets / t for t in ("native", *TARGETS) if t not in built]
        for name in MODULES:
            leaf = name.rsplit(".", 1)[1]
            wheres = [folder, *(targets / t for t in ("native", *TARGETS))]  # the earlier layout
            wheres += [t.joinpath(*name.split(".")[:-1]) for t in stale]
            for where in wheres:
                for old in where.glob(f"{leaf}.*.so"):
                    print(f"removing {old} (another build's module)")
                    old.unlink()
        super().run()


# A build for one machine is one more target, with no flags of its own: the loader finds
# it first when it is there (mastermind.kernel.simd).
only = [t.strip() for t in os.environ.get("MASTERMIND_TARGETS", "").split(",") if t.strip()]
if any(t not in TARGETS for t in only):
    raise SystemExit(f"MASTERMIND_TARGETS={','.join(only)!r}: a list of {', '.join(TARGETS)}")
built = (
    {"native": []}
    if native or not x86
    else {t: flags for t, flags in TARGETS.items() if not only or t in only}
)
extensions = [t for ext in kernel for t in per_target(ext, built)] + probe

setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
