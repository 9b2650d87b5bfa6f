"""Type stubs of the strategy walk (src/mastermind/_walk.pyx); trusts its arguments."""

from typing import Optional

import numpy as np
import numpy.typing as npt

from ._core import Kernel, StopFlag

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

def choose(kernel: Kernel, guesses: I32, cands: I32, kind: int, cands_only: bool,
           shortcut_ok: bool, threads: int = 1, blanks: bool = False) -> int: ...
def walk(kernel: Kernel, guesses: I32, cands: I32, kind: int, *, cands_only: bool,
         shortcut_ok: bool, first: int = -1, depth: int = 1, record: bool = False,
         history: Optional[I32] = None, symmetry: bool = False, threads: int = 1,
         blanks: bool = False, plain: bool = False, stop: Optional[StopFlag] = None
         ) -> tuple[I64, Optional[I32], int]: ...
def walk_many(kernel: Kernel, guesses: I32, cands: I32, offsets: I64, depths: I32,
              histories: I32, hlens: I32, kind: int, *, cands_only: bool,
              shortcut_ok: bool, record: bool = False, symmetry: bool = False,
              blanks: bool = False, threads: int = 1, plain: bool = False,
              glists: Optional[I32] = None, goffsets: Optional[I64] = None,
              task_glist: Optional[I32] = None, done: Optional[I64] = None,
              stop: Optional[StopFlag] = None) -> tuple[I64, Optional[list[I32]], int]: ...
