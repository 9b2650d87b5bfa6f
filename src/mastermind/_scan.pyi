"""Type stubs of the choice-rule scan (src/mastermind/_scan.pyx); trusts its arguments."""

import numpy as np
import numpy.typing as npt

from ._core import Kernel

I32 = npt.NDArray[np.int32]

def best_guess(kernel: Kernel, guesses: I32, cands: I32, kind: int,
               threads: int = 1) -> tuple[int, int, bool]: ...
def pairs_scored() -> int: ...
def guesses_scored() -> int: ...
