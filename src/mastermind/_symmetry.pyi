"""Type stubs of the kernel's symmetry (src/mastermind/_symmetry.pyx); trusts its
arguments."""

import numpy as np
import numpy.typing as npt

from ._core import Kernel

I32 = npt.NDArray[np.int32]

def canonical_guesses(kernel: Kernel, guesses: I32, history: I32) -> I32: ...
def group_size(kernel: Kernel, history: I32) -> int: ...
