"""The kernel's memory and its alignment: every heap array of structs comes from the one
aligned allocator (``mm_new_structs`` in ``kernel/_kernel.h``, ``new_structs`` in Cython),
and no object Python allocates holds an over-aligned struct.

malloc, calloc and Python's object allocator promise 16 bytes of alignment.  A struct with
a member declared ``aligned(64)`` (``mm_hist64``) put there is undefined behaviour, which
one compiler target (AVX-512's aligned 64-byte stores) turned into a segmentation fault in
the optimal search; the other targets ran it by luck.  These checks read the kernel's
sources, so they hold on every CPU; the sanitizer run (.ci/sanitize) checks the same at
run time.

The AVX-512 kernels read their callers' buffers in whole groups of eight codes; their
AVX2 and scalar twins read the same memory (in the sanitizer build, the bytes only the
AVX-512 kernel reads too), so every target the CPU runs must give the same answers at
every candidate count around those groups' tails, and every function with an AVX-512-only
path is named in docs/architecture.md with its twins.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import reference as ref

import mastermind
from mastermind import Game
from mastermind.kernel import simd

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


# --------------------------------------------------------------------------- the twins

ROOT = Path(__file__).resolve().parents[1]
TWINS_DOC = ROOT / "docs" / "architecture.md"
# games whose codes are two words at shift 3, so with byte forms on the vector targets:
# colours up to 8 (D, K) and up to 16 (D, K, H), and the most pegs (7: one byte of D
# past n); the single histograms count the word forms (mm_count64 on AVX-512)
TAIL_GAMES = ((4, 6), (4, 12), (3, 16), (7, 3))
TAIL_MAX = 70  # every remainder of 8 and of 4, and the first codes of a second group of 64
KINDS = ("minmax", "entropy", "parts", "expected-size")  # _core.VAL_* 0 to 3

TAILS = """
import json
import numpy as np
from mastermind import Game
from mastermind.analysis import _scan
out = {}
for name, (pool, order) in json.loads(SETS).items():
    n, k = map(int, name.split(","))
    kernel = Game(n, k).kernel
    pool = np.array(pool, dtype=np.int32)
    for m in range(1, len(order) + 1):
        cands = np.sort(np.array(order[:m], dtype=np.int32))
        out[f"{name} {m}"] = {
            "tables": kernel.histograms(pool, cands).tolist(),
            "one": [kernel.histogram(int(g), cands).tolist() for g in pool[:4]],
            "best": [int(_scan.best_guess(kernel, pool, cands, kind)[0]) for kind in range(4)],
        }
print(json.dumps(out))
"""


def tail_sets() -> dict[str, tuple[list[int], list[int]]]:
    """Per game, a pool of 120 guesses (ascending) and 70 codes whose first m are the
    candidates at count m (the first 60 of them in the pool too)."""
    rng = np.random.default_rng(2024)
    sets = {}
    for n, k in TAIL_GAMES:
        order = rng.permutation(k**n)
        sets[f"{n},{k}"] = (sorted(order[:120].tolist()), order[60 : 60 + TAIL_MAX].tolist())
    return sets


def run_on(target: str | None, code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter on this checkout, the kernel's ``target`` forced."""
    env = {k: v for k, v in os.environ.items() if k != "MASTERMIND_SIMD"}
    env["PYTHONPATH"] = str(PACKAGE.parent)
    if target is not None:
        env["MASTERMIND_SIMD"] = target
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900
    )


def plain_answers(pool: list[int], order: list[int], m: int, slots, width: int) -> dict:
    """What the kernel must say at count m, from the slots pair by pair (pool x order)."""
    tables = [np.bincount(row[:m], minlength=width).tolist() for row in slots]
    cands = set(order[:m])

    def rule(kind: str, i: int):
        return (ref.key(kind, [t for t in tables[i] if t]), pool[i] not in cands, pool[i])

    best = [pool[min(range(len(pool)), key=lambda i: rule(kind, i))] for kind in KINDS]
    return {"tables": tables, "one": tables[:4], "best": best}


def test_every_target_gives_the_plain_answers_at_every_tail():
    sets = tail_sets()
    expected = {}
    for name, (pool, order) in sets.items():
        kernel = Game(*map(int, name.split(","))).kernel
        cands = np.array(order, dtype=np.int32)
        slots = [kernel.slots(g, cands).astype(np.int64) for g in pool]
        for m in range(1, TAIL_MAX + 1):
            expected[f"{name} {m}"] = plain_answers(pool, order, m, slots, kernel.nslots)
    targets = [None] if simd.native_build() else list(simd.available())
    code = f"SETS = {json.dumps(json.dumps(sets))}\n" + TAILS
    for target in targets:
        done = run_on(target, code)
        assert done.returncode == 0, (target, done.stderr[-3000:])
        got = json.loads(done.stdout)
        assert got.keys() == expected.keys()
        for key, want in expected.items():
            assert got[key] == want, (target, key)


def avx512_functions() -> set[str]:
    """The functions of the kernel's C with code compiled for AVX-512 only: defined in an
    ``#if defined(__AVX512BW__)`` block, or holding one in their body (read by braces:
    the headers' comments hold none)."""
    found = set()
    for header in KERNEL_C:
        current, inside, depth = None, False, 0
        for line in header.read_text().splitlines():
            if line.startswith("#if defined(__AVX512BW__)"):
                inside = True
                if current is not None and depth > 0:
                    found.add(current)
            elif line.startswith(("#elif", "#else", "#endif")):
                inside = False
            start = re.match(r"static\b.*?\b(mm_\w+)\(", line)
            if start and depth == 0:
                current = start.group(1)
                if inside:
                    found.add(current)
            depth += line.count("{") - line.count("}")
    return found


def test_every_avx512_only_function_is_named_with_its_twins():
    names = avx512_functions()
    assert {"mm_lanes_body", "mm_count64", "mm_cellvec64b", "mm_separates64"} <= names
    section = TWINS_DOC.read_text().split("## The vector kernels and their twins")[1]
    section = section.split("\n## ")[0]
    missing = sorted(name for name in names if f"`{name}`" not in section)
    assert not missing, missing
