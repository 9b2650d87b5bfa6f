"""Loads the kernel module ``_symmetry`` built for this CPU, or for this machine alone
(see mastermind.simd)."""

import sys

from mastermind.simd import load_kernel

sys.modules[__name__] = load_kernel(__name__)
