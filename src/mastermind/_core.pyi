"""Type stubs of the Cython kernel (src/mastermind/_core.pyx): code indices are int32,
arrays are C-contiguous NumPy arrays, and every method trusts its arguments (the Python
layer validates them)."""

from typing import Optional

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

def pairs_scored() -> int: ...
def guesses_scored() -> int: ...
def build_xlogx(nmax: int) -> tuple[I64, int]: ...
def encode_codes(digits: npt.NDArray[np.uint8], k: int) -> npt.NDArray[np.uint64]: ...

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
    def best_guess(self, guesses: I32, cands: I32, kind: int,
                   threads: int = 1) -> tuple[int, int, bool]: ...
    def choose(self, guesses: I32, cands: I32, kind: int, cands_only: bool,
               shortcut_ok: bool, threads: int = 1, blanks: bool = False) -> int: ...
    def walk(self, guesses: I32, cands: I32, kind: int, cands_only: bool,
             shortcut_ok: bool, first: int, depth: int, record: bool,
             history: Optional[I32] = None, symmetry: bool = False, threads: int = 1,
             blanks: bool = False, plain: bool = False
             ) -> tuple[I64, Optional[I32], int]: ...
    def walk_many(self, guesses: I32, cands: I32, offsets: I64, depths: I32,
                  histories: I32, hlens: I32, kind: int, cands_only: bool,
                  shortcut_ok: bool, record: bool, symmetry: bool, blanks: bool,
                  threads: int = 1, plain: bool = False, glists: Optional[I32] = None,
                  goffsets: Optional[I64] = None, task_glist: Optional[I32] = None
                  ) -> tuple[I64, Optional[list[I32]], int]: ...
    def canonical_guesses(self, guesses: I32, history: I32) -> I32: ...
    def group_size(self, history: I32) -> int: ...
