"""The kernel every family shares (Cython and C): codes and scoring, partition tables and
valuations (``_core``), the symmetries of a position (``_symmetry``), the memo of exact
sets the searches share (``_memo``), the C of ``_kernel.h``, the CPU probe (``_cpu``),
and which build of all the kernel's modules a process loads (:mod:`.simd`).

The families' own kernel modules sit in their folders (``analysis/_scan``,
``analysis/_walk``, ``worstcase/_search``, ``optimum/_optimal``) and cimport what they
need from here through the ``.pxd`` files; :mod:`.modules` lists them all, once.
"""
