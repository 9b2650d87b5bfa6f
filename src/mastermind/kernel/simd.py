"""Which build of the kernel this process runs, chosen once, at the kernel's first import.

The default build on x86-64 compiles the kernel's modules three times (setup.py), into
``mastermind/_targets/<target>/``:

- ``baseline``: plain x86-64, which every x86-64 CPU runs (no POPCNT instruction even);
- ``avx2``: x86-64-v3 (AVX2, BMI2, POPCNT, ...), with the AVX2 kernels of ``_kernel.h``;
- ``avx512``: x86-64-v4 (AVX-512 F, BW, CD, DQ, VL), with the AVX-512 kernels.

The first import of a kernel module (``mastermind.kernel._core`` and every other module
of :data:`~mastermind.kernel.modules.MODULES`) goes through :func:`find_spec`, the one
loader of them all, which loads that module from the chosen target's folder
(``_targets/<target>/kernel/_core...so``, the module's path under the package): the
highest target this CPU runs, or the one the environment variable ``MASTERMIND_SIMD``
names (``baseline``, ``avx2`` or ``avx512``; a target above what the CPU runs, or one this
install was built without, falls back to the highest it does run, with a RuntimeWarning).  All the modules of a process come
from the same target.

A build for one machine (``MASTERMIND_NATIVE=1``, and every build off x86-64) puts the
modules in ``mastermind/_targets/native/``, found first when it is there: there is nothing
to choose, ``MASTERMIND_SIMD`` is ignored and :func:`target` says ``"native"``.

The package's ``__init__`` puts a finder ahead of the import system's own that hands the
kernel modules' names to :func:`find_spec` (and nothing else: it is asked about every
import of the process, and answers the others at once).

>>> target() in ("baseline", "avx2", "avx512", "native")
True
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import warnings
from pathlib import Path
from typing import Optional

from ..errors import MastermindError
from .modules import MODULES

TARGETS = ("baseline", "avx2", "avx512")  # lowest first
PACKAGE = Path(__file__).resolve().parents[1]
NATIVE = PACKAGE / "_targets" / "native"
NAMES = frozenset(f"mastermind.{module}" for module in MODULES)
"""The full names of the kernel's modules, which :func:`find_spec` loads."""
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
    return _extension(NATIVE / "kernel", "_core") is not None


def supported() -> tuple[str, ...]:
    """The targets this CPU runs, lowest first (always ``baseline``)."""
    from . import _cpu

    return TARGETS[: _cpu.level() + 1]


def available() -> tuple[str, ...]:
    """The targets this process may run, lowest first: those the CPU runs that this install
    holds a build of (every one, unless the build named some: ``MASTERMIND_TARGETS``)."""
    return tuple(t for t in supported() if _built(t)) or supported()


def target() -> str:
    """The build of the kernel this process runs (or will run): one of :data:`TARGETS`,
    or ``"native"`` for a build for one machine."""
    global _chosen
    if native_build():
        return "native"
    if _chosen is None:
        _chosen = _choose(os.environ.get("MASTERMIND_SIMD", ""), available())
    return _chosen


def _built(target: str) -> bool:
    """Whether this install holds the kernel's build for ``target`` (a build may hold only
    some targets: ``MASTERMIND_TARGETS`` in setup.py)."""
    return _extension(PACKAGE / "_targets" / target / "kernel", "_core") is not None


def _choose(wanted: str, runs: tuple[str, ...]) -> str:
    wanted = wanted.strip().lower()
    if not wanted:
        return runs[-1]
    if wanted not in TARGETS:
        raise MastermindError(f"MASTERMIND_SIMD={wanted!r}: expected one of {', '.join(TARGETS)}")
    if wanted not in runs:
        warnings.warn(
            f"MASTERMIND_SIMD={wanted}: this CPU does not run that build of the "
            f"kernel, or it was not built; using {runs[-1]}",
            RuntimeWarning,
            stacklevel=2,
        )
        return runs[-1]
    return wanted


def find_spec(name: str) -> Optional[importlib.machinery.ModuleSpec]:
    """How to load the kernel module ``name`` (``"mastermind.kernel._core"``, ...) from the
    build of :func:`target`; None for any other name."""
    if name not in NAMES:
        return None
    *folders, leaf = name.split(".")[1:]
    folder = PACKAGE.joinpath("_targets", target(), *folders)
    path = _extension(folder, leaf)
    if path is None:
        raise ImportError(
            f"{name}: no build for {target()} in {folder} (build the kernel: "
            f"python setup.py build_ext --inplace)",
            name=name,
        )
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    return importlib.util.spec_from_file_location(name, path, loader=loader)
