"""Loads the kernel module ``_optimal`` built for this CPU (see mastermind.simd).  A build for one
machine (MASTERMIND_NATIVE=1) puts the extension beside this file, where it is found first."""

import sys

from mastermind.simd import load_kernel

sys.modules[__name__] = load_kernel(__name__)
