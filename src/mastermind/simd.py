"""Which build of the kernel this process runs, chosen once, at the kernel's first import.

The default build on x86-64 compiles the kernel's modules three times (setup.py), into
``mastermind/_targets/<target>/``:

- ``baseline``: plain x86-64, which every x86-64 CPU runs (no POPCNT instruction even);
- ``avx2``: x86-64-v3 (AVX2, BMI2, POPCNT, ...), with the AVX2 kernels of ``_kernel.h``;
- ``avx512``: x86-64-v4 (AVX-512 F, BW, CD, DQ, VL), with the AVX-512 kernels.

The first import of a kernel module (``mastermind._core`` and the modules beside it) runs
its loader (``_core.py``), which loads that module from the chosen target's folder: the
highest target this CPU runs, or the one the environment variable ``MASTERMIND_SIMD``
names (``baseline``, ``avx2`` or ``avx512``; a target above what the CPU runs falls back
to the highest it does run, with a RuntimeWarning).  All the modules of a process come
from the same target.

A build for one machine (``MASTERMIND_NATIVE=1``, and every build off x86-64) puts the
modules in ``mastermind/_targets/native/``, found first when it is there: there is nothing
to choose, ``MASTERMIND_SIMD`` is ignored and :func:`target` says ``"native"``.

The package's ``__init__`` sends the import of each kernel module to its loader even when
a compiled module of the same name lies beside the loader (the import system's own
finder would take that one first): only an older install or build leaves one there, of
another version of the kernel.

>>> target() in ("baseline", "avx2", "avx512", "native")
True
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

from .errors import MastermindError

TARGETS = ("baseline", "avx2", "avx512")  # lowest first
HERE = Path(__file__).resolve().parent
NATIVE = HERE / "_targets" / "native"
_chosen: str | None = None


def _extension(folder: Path, name: str) -> Path | None:
    """The extension module ``name`` in ``folder``, as the import system would find it."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return path
    return None


def native_build() -> bool:
    """Whether the kernel was built for one machine (in ``_targets/native/``)."""
    return _extension(NATIVE, "_core") is not None


def supported() -> tuple[str, ...]:
    """The targets this CPU runs, lowest first (always ``baseline``)."""
    from . import _cpu

    return TARGETS[: _cpu.level() + 1]


def target() -> str:
    """The build of the kernel this process runs (or will run): one of :data:`TARGETS`,
    or ``"native"`` for a build for one machine."""
    global _chosen
    if native_build():
        return "native"
    if _chosen is None:
        _chosen = _choose(os.environ.get("MASTERMIND_SIMD", ""), supported())
    return _chosen


def _choose(wanted: str, runs: tuple[str, ...]) -> str:
    wanted = wanted.strip().lower()
    if not wanted:
        return runs[-1]
    if wanted not in TARGETS:
        raise MastermindError(f"MASTERMIND_SIMD={wanted!r}: expected one of {', '.join(TARGETS)}")
    if wanted not in runs:
        warnings.warn(
            f"MASTERMIND_SIMD={wanted}: this CPU does not run that build of the "
            f"kernel; using {runs[-1]}",
            RuntimeWarning,
            stacklevel=2,
        )
        return runs[-1]
    return wanted


def load_kernel(name: str) -> ModuleType:
    """Load the kernel module ``name`` (``"mastermind._core"``, ...) from the build of
    :func:`target`, under its own name (its loader calls this once)."""
    folder = HERE / "_targets" / target()
    path = _extension(folder, name.rsplit(".", 1)[-1])
    if path is None:
        raise ImportError(
            f"{name}: no build for {target()} in {folder} (build the kernel: "
            f"python setup.py build_ext --inplace)",
            name=name,
        )
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
