"""Type stubs of the worst-case search (worstcase/_search.pyx); trusts its
arguments (validated by mastermind.worstcase.bounds)."""

from typing import Any, Optional, TypeAlias

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ..kernel._core import Kernel, StopFlag

_I32: TypeAlias = npt.NDArray[np.int32]

LROW_BYTES: int

def separable(p: int, d: int) -> int: ...
def root_openings(
    kernel: Kernel, pool: _I32, cands: _I32, d: int, order: int, nonwin: int
) -> Optional[_I32]: ...

@disjoint_base
class Searcher:
    order: int
    matrix_after: int
    row_cap: int
    canonical_lists: bool
    label_classes: bool
    label_counts: bool
    multiset_counts: bool
    memo_evicts: bool
    def __init__(
        self,
        kernel: Kernel,
        digits: npt.NDArray[np.uint8],
        n: int,
        k: int,
        guesses: _I32,
        cands_only: bool,
        symmetry: bool,
        merge_dead: bool,
        mem_limit: int,
    ) -> None: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def aborted(self) -> int: ...
    @property
    def root_progress(self) -> Optional[tuple[_I32, int]]: ...
    def run(
        self,
        cands: _I32,
        d: int,
        node_limit: int = 0,
        stop: Optional[StopFlag] = None,
        pool: Optional[_I32] = None,
        tries: Optional[_I32] = None,
    ) -> tuple[int, int]: ...
    def multiset_bounds(
        self, cands: _I32, cap: int
    ) -> Optional[tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]]: ...

def label_counts(
    kernel: Kernel, cands: _I32, cap: int, want: Optional[npt.NDArray[np.uint32]] = None
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
]: ...
