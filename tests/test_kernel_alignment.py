"""The kernel's memory and its alignment: every heap array of structs comes from the one
aligned allocator (``mm_new_structs`` in ``kernel/_kernel.h``, ``new_structs`` in Cython),
and no object Python allocates holds an over-aligned struct.

malloc, calloc and Python's object allocator promise 16 bytes of alignment.  A struct with
a member declared ``aligned(64)`` (``mm_hist64``) put there is undefined behaviour, which
one compiler target (AVX-512's aligned 64-byte stores) turned into a segmentation fault in
the optimal search; the other targets ran it by luck.  These checks read the kernel's
sources, so they hold on every CPU; the sanitizer run (.ci/sanitize) checks the same at
run time.
"""

import re
from pathlib import Path

import mastermind

PACKAGE = Path(mastermind.__file__).resolve().parent
KERNEL_C = sorted(PACKAGE.glob("kernel/*.h"))
CYTHON = sorted(p for ext in ("pyx", "pxd", "pxi") for p in PACKAGE.glob(f"*/*.{ext}"))
SCALARS = {
    "char",
    "int",
    "unsigned",
    "size_t",
    "Py_ssize_t",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "double",
    "float",
}
RAW_ALLOCATION = re.compile(r"<\s*(?:const\s+)?(\w+)\s*(\**)\s*\*\s*>\s*(malloc|calloc|realloc)\(")


def struct_allocations(text: str) -> list[tuple[str, str]]:
    """(type, allocator) of every ``<T*>malloc/calloc/realloc(...)`` whose element is not a
    C scalar or a pointer (an array of structs)."""
    found = []
    for element, stars, allocator in RAW_ALLOCATION.findall(text):
        if element not in SCALARS and not stars:
            found.append((element, allocator))
    return found


def over_aligned_types() -> set[str]:
    """The kernel's over-aligned types, by their Cython names: those the C declares
    ``aligned(N)`` with N > 16, and every Cython struct holding one (transitively)."""
    c_names = set()
    for header in KERNEL_C:
        for match in re.finditer(
            r"typedef struct __attribute__\(\(aligned\((\d+)\)\)\)\s*\{[^}]*\}\s*(\w+);",
            header.read_text(),
        ):
            if int(match.group(1)) > 16:
                c_names.add(match.group(2))
    cython_names = set()
    members: dict[str, str] = {}
    for path in CYTHON:
        text = path.read_text()
        for match in re.finditer(r'ctypedef struct (\w+) "(\w+)"', text):
            if match.group(2) in c_names:
                cython_names.add(match.group(1))
        for match in re.finditer(r"^cdef struct (\w+):\n((?:[ \t]+.*\n|\n)+)", text, re.M):
            members[match.group(1)] = match.group(2)
    grown = True
    while grown:
        grown = False
        for name, body in members.items():
            if name in cython_names:
                continue
            held = {line.split()[0] for line in body.splitlines() if line.split()}
            if held & cython_names:
                cython_names.add(name)
                grown = True
    return cython_names


def object_members(text: str) -> list[tuple[str, str]]:
    """(class, type) of every attribute a ``cdef class`` declares by value."""
    found = []
    for match in re.finditer(r"^cdef class (\w+).*:\n((?:[ \t]+.*\n|\n)+)", text, re.M):
        for line in match.group(2).splitlines():
            attribute = re.match(r"\s+cdef (?:public |readonly )?(\w+)\s+\w", line)
            if attribute and not line.rstrip().endswith(":"):
                found.append((match.group(1), attribute.group(1)))
    return found


def test_every_heap_array_of_structs_comes_from_the_aligned_allocator():
    assert CYTHON, "the kernel's Cython sources are installed with the package"
    offenders = [
        f"{path.relative_to(PACKAGE)}: <{element}*>{allocator}"
        for path in CYTHON
        for element, allocator in struct_allocations(path.read_text())
    ]
    assert not offenders, "use new_structs/free_structs: " + ", ".join(offenders)
    uses = sum(path.read_text().count("new_structs(") for path in CYTHON)
    assert uses >= 8  # nodes, workers, walks, memo tables, guess records, scan bests


def test_the_allocation_check_sees_a_struct_array_and_passes_scalars():
    """The check above is not vacuous."""
    assert struct_allocations("kept = <Node*>calloc(n, sizeof(Node))") == [("Node", "calloc")]
    assert struct_allocations("x = <const Info *>malloc(8)") == [("Info", "malloc")]
    assert struct_allocations("p = <int32_t*>malloc(m * 4)") == []
    assert struct_allocations("rows = <uint8_t**>malloc(m * 8)") == []


def test_no_python_object_holds_an_over_aligned_struct():
    aligned = over_aligned_types()
    assert {"Hist64", "Node"} <= aligned  # the histogram, and the node that holds one
    offenders = [
        f"{path.relative_to(PACKAGE)}: {cls}.{kind}"
        for path in CYTHON
        for cls, kind in object_members(path.read_text())
        if kind in aligned
    ]
    assert not offenders, offenders


def test_the_object_check_reads_cdef_class_members():
    text = "cdef class Optimizer:\n    cdef OData o\n    cdef public int x\n\n    def f(self):\n        pass\n"
    assert ("Optimizer", "OData") in object_members(text)
    assert ("Optimizer", "int") in object_members(text)


def test_the_aligned_allocator_is_the_only_free_of_what_it_allocates():
    """An array from new_structs is freed by free_structs (free() of it would hand the C
    library a pointer it never returned): the names assigned from one are freed by the
    other, file by file."""
    for path in CYTHON:
        text = path.read_text()
        made = set(re.findall(r"([\w.\[\]]+)\s*=\s*<\w+\*>new_structs\(", text))
        made |= set(re.findall(r"cdef \w+\* (\w+) = <\w+\*>new_structs\(", text))
        for name in made:
            assert f"free({name})" not in text, f"{path.name}: free({name})"
