"""Type stubs of the expected-case optimal search (_optimal.pyx beside it); trusts
its arguments (validated by mastermind.optimum.solver)."""

from typing import Any, Optional, TypeAlias

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ..kernel._core import Kernel, StopFlag

_I32: TypeAlias = npt.NDArray[np.int32]

NO_STRATEGY: int
FEW_CODES_MAX: int
GUESSES_UNLIMITED: int
# Optimizer.run's status
RUN_OPTIMUM: int
RUN_ABOVE_LIMIT: int
RUN_STOPPED: int

def est_table(m: int, b: int, dl: int) -> list[int]: ...
def canon_image(kernel: Kernel, cands: _I32) -> _I32: ...
def root_order(
    kernel: Kernel,
    guesses: _I32,
    cands: _I32,
    history: _I32,
    *,
    cands_only: bool,
    symmetry: bool,
    blanks: bool,
    max_guesses: int = 0,
    limit: int = 0,
) -> tuple[_I32, npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_], int]: ...

@disjoint_base
class Optimizer:
    last: Any
    canon: bool
    par_min: int
    rebuild_seconds: float
    def __init__(
        self,
        kernel: Kernel,
        guesses: _I32,
        *,
        cands_only: bool,
        symmetry: bool,
        blanks: bool,
        mem_limit: int,
        threads: int = 1,
    ) -> None: ...
    @property
    def progress(self) -> tuple[int, int]: ...
    @property
    def stats(self) -> dict[str, int]: ...
    def floor(
        self, cands: _I32, *, max_guesses: int = 0, parts: int = -1, scan: bool = False
    ) -> int: ...
    def run(
        self,
        cands: _I32,
        history: _I32,
        max_guesses: int,
        limit: int,
        first: int = -1,
        stop: Optional[StopFlag] = None,
    ) -> tuple[int, int, int, Any]: ...
