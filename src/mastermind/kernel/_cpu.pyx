# cython: language_level=3
"""What this CPU runs: the highest of the kernel's build targets (``mastermind.kernel.simd``).

Compiled for plain x86-64 in every build, so it loads on any x86-64 CPU; the checks
(GCC's and Clang's ``__builtin_cpu_supports``) include the operating system's support
for the wider registers.  Off x86 it answers 0 (only the one build exists there).
"""

cdef extern from *:
    """
    #if defined(__x86_64__) || defined(__i386__)
    /* the feature levels the targets are compiled for (setup.py's TARGETS): 2 when the
       CPU runs x86-64-v4 (AVX-512 F, BW, CD, DQ, VL), 1 for x86-64-v3 (AVX2, BMI1/2, FMA,
       F16C, LZCNT, MOVBE), else 0 */
    static int mm_cpu_level(void) {
        __builtin_cpu_init();
    #if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
        int v3 = __builtin_cpu_supports("x86-64-v3");
        int v4 = __builtin_cpu_supports("x86-64-v4");
    #else
        int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")
              && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma")
              && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("movbe")
              && __builtin_cpu_supports("popcnt");
        int v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
              && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq")
              && __builtin_cpu_supports("avx512vl");
    #endif
        return v4 ? 2 : v3 ? 1 : 0;
    }
    #else
    static int mm_cpu_level(void) { return 0; }
    #endif
    """
    int mm_cpu_level()


def level() -> int:
    """2: this CPU runs the avx512 build, 1: the avx2 build, 0: the baseline only."""
    return mm_cpu_level()
