"""The CPU probe (built for any CPU): which of the kernel's targets this CPU runs."""

def level() -> int:
    """2: this CPU runs the avx512 build, 1: the avx2 build, 0: the baseline only."""
