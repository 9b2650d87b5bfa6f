"""Type stubs of the scoring and partition kernel (src/mastermind/_core.pyx): code indices
are int32, arrays are C-contiguous NumPy arrays, and every method trusts its arguments
(the Python layer validates them)."""

import numpy as np
import numpy.typing as npt

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

SIMD: str
MODE_NARROW: int
MODE_WIDE: int
MODE_TABLE: int
VAL_MINMAX: int
VAL_ENTROPY: int
VAL_PARTS: int
VAL_EXPECTED: int
VAL_FIRST: int
SLOTS_CAPACITY: int
DEPTH_CAPACITY: int
# why a kernel call stopped (a StopFlag's value, Searcher.aborted)
STOP_NONE: int
STOP_REQUESTED: int
STOP_DEADLINE: int
STOP_NODE_LIMIT: int
STOP_MEMORY: int
STOP_TOO_DEEP: int
STOP_CANCELLED: int

def build_xlogx(nmax: int) -> tuple[I64, int]: ...
def encode_codes(digits: npt.NDArray[np.uint8], k: int) -> npt.NDArray[np.uint64]: ...

class StopFlag:
    def __init__(self) -> None: ...
    def set(self) -> None: ...
    def clear(self) -> None: ...
    @property
    def value(self) -> int: ...
    def set_time_limit(self, seconds: float) -> None: ...

class Kernel:
    mode: int
    nslots: int
    win: int
    ncodes: int
    @staticmethod
    def from_codes(enc: npt.NDArray[np.uint64], digits: npt.NDArray[np.uint8], k: int,
                   slot_tab: npt.NDArray[np.uint8], nslots: int, win: int,
                   xlogx: I64) -> "Kernel": ...
    @staticmethod
    def from_table(table: npt.NDArray[np.uint8], nslots: int, win: int,
                   xlogx: I64) -> "Kernel": ...
    def slot(self, u: int, v: int) -> int: ...
    def slots(self, guess: int, cands: I32) -> npt.NDArray[np.uint8]: ...
    def histogram(self, guess: int, cands: I32) -> npt.NDArray[np.uint32]: ...
    def histograms(self, guesses: I32, cands: I32) -> npt.NDArray[np.uint32]: ...
    def keys(self, guesses: I32, cands: I32, kind: int) -> I64: ...
    def filter(self, guess: int, slot: int, cands: I32) -> I32: ...
