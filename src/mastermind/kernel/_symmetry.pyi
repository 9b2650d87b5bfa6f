"""Type stubs of the kernel's symmetry (_symmetry.pyx beside it); trusts its
arguments."""

from typing import Optional, TypeAlias

import numpy as np
import numpy.typing as npt

from ._core import Kernel, StopFlag

_I32: TypeAlias = npt.NDArray[np.int32]

def canonical_guesses(
    kernel: Kernel, guesses: _I32, history: _I32, stop: Optional[StopFlag] = None
) -> _I32: ...
def group_size(kernel: Kernel, history: _I32) -> int: ...
