"""Type stubs of the choice-rule scan (_scan.pyx beside it); trusts its arguments."""

from typing import Optional, TypeAlias

import numpy as np
import numpy.typing as npt

from ..kernel._core import Kernel, StopFlag

_I32: TypeAlias = npt.NDArray[np.int32]

def best_guess(
    kernel: Kernel,
    guesses: _I32,
    cands: _I32,
    kind: int,
    threads: int = 1,
    stop: Optional[StopFlag] = None,
) -> tuple[int, int, bool]: ...
def pairs_scored() -> int: ...
def guesses_scored() -> int: ...
