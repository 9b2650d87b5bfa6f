"""Type stubs of the strategy walk (_walk.pyx beside it); trusts its arguments."""

from typing import Optional, TypeAlias

import numpy as np
import numpy.typing as npt

from ..kernel._core import Kernel, StopFlag

_I32: TypeAlias = npt.NDArray[np.int32]
_I64: TypeAlias = npt.NDArray[np.int64]

def choose(
    kernel: Kernel,
    guesses: _I32,
    cands: _I32,
    kind: int,
    *,
    cands_only: bool,
    shortcut_ok: bool,
    threads: int = 1,
    blanks: bool = False,
    stop: Optional[StopFlag] = None,
) -> int: ...
def walk(
    kernel: Kernel,
    guesses: _I32,
    cands: _I32,
    kind: int,
    *,
    cands_only: bool,
    shortcut_ok: bool,
    first: int = -1,
    depth: int = 1,
    record: bool = False,
    history: Optional[_I32] = None,
    symmetry: bool = False,
    threads: int = 1,
    blanks: bool = False,
    plain: bool = False,
    stop: Optional[StopFlag] = None,
) -> tuple[_I64, Optional[_I32], int]: ...
def walk_many(
    kernel: Kernel,
    guesses: _I32,
    cands: _I32,
    offsets: _I64,
    depths: _I32,
    histories: _I32,
    hlens: _I32,
    kind: int,
    *,
    cands_only: bool,
    shortcut_ok: bool,
    record: bool = False,
    symmetry: bool = False,
    blanks: bool = False,
    threads: int = 1,
    plain: bool = False,
    glists: Optional[_I32] = None,
    goffsets: Optional[_I64] = None,
    task_glist: Optional[_I32] = None,
    done: Optional[_I64] = None,
    stop: Optional[StopFlag] = None,
) -> tuple[_I64, Optional[list[_I32]], int]: ...
