"""The layers only look down (cli -> library -> kernel), the library's modules import one
another without cycles and without reaching into each other's private names, and each
entry point loads only what it uses (docs/architecture.md)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import bare_environment

import mastermind

# the layers' table and the import reader, shared with scripts/docs/house.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "docs"))
from layers import FAMILY_LAYERS, LAYERS, ImportGraph, longest_chain, place  # noqa: E402

PACKAGE = Path(mastermind.__file__).resolve().parent
SRC = PACKAGE.parent
LIBRARY = sorted(
    p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py" and "cli" not in p.parts
)
COMMAND_LINE_ONLY = {"argparse", "rich", "readline"}


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports (at any depth of its code)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = ".".join(parts if path.name == "__init__.py" else parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                prefix = ".".join(base)
                module = f"{prefix}.{node.module}" if node.module else prefix
                names.add(module)
                if not node.module:  # from . import x: x may be a module
                    names.update(f"{prefix}.{a.name}" for a in node.names)
            else:
                names.add(node.module or "")
    return names


def test_the_library_never_imports_the_command_line():
    assert len(LIBRARY) >= 30  # the root's, and every family's
    assert {p.parent.name for p in LIBRARY} >= {"analysis", "worstcase", "optimum", "views"}
    for path in LIBRARY:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert not name.startswith("mastermind.cli"), f"{path.name} imports {name}"
            assert top not in COMMAND_LINE_ONLY, f"{path.name} imports {name}"


def test_the_ast_check_sees_relative_imports():
    """The check above is not vacuous: it resolves the command line's own imports."""
    names = imported_modules(PACKAGE / "cli" / "analyze.py")
    assert "mastermind.cli.common" in names and "mastermind.analysis.exhaustive" in names
    assert "argparse" in names


def loaded_after(code: str) -> list[str]:
    """The modules loaded in a fresh interpreter after running ``code``."""
    probe = f"import sys, io, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=bare_environment(PYTHONPATH=str(SRC)),
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_mastermind_loads_only_its_init():
    loaded = loaded_after("import mastermind")
    assert [m for m in loaded if m.startswith("mastermind")] == ["mastermind"]
    assert "numpy" not in loaded


def test_help_loads_no_kernel_and_no_numpy():
    loaded = loaded_after(
        "from mastermind.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as e:\n"
        "    assert e.code == 0"
    )
    assert "numpy" not in loaded
    assert not [m for m in loaded if m.startswith("mastermind.") and m.rpartition(".")[2][0] == "_"]
    assert not [
        m for m in loaded if m.startswith("mastermind.cli.") and m not in ("mastermind.cli.common",)
    ]


@pytest.mark.parametrize("command", ["analyze", "solve"])
def test_an_analysis_loads_no_bounds_play_tree_or_custom(command):
    argv = ["analyze", "--json"] if command == "analyze" else ["solve", "6543"]
    loaded = loaded_after(
        f"from mastermind.cli import main\nassert main({argv!r}, io.StringIO()) == 0"
    )
    assert "mastermind.analysis.exhaustive" in loaded
    for name in (
        "worstcase",
        "optimum",
        "play",
        "views.tree",
        "views.explorer",
        "views.plot",
        "views.notebook",
        "custom",
        "comparison",
        "cli.play",
        "cli.bound",
        "cli.tree",
        "cli.dialogue",
    ):  # nor anything inside them
        assert not [
            m for m in loaded if m == f"mastermind.{name}" or m.startswith(f"mastermind.{name}.")
        ]


@pytest.mark.parametrize(
    "argv", [["--help"], ["analyze", "--json"], ["solve", "6543"], ["compare", "-k", "3"]]
)
def test_rich_is_loaded_only_for_a_terminal(argv):
    """rich draws on terminals only: help and plain output never import it."""
    loaded = loaded_after(
        f"from mastermind.cli import main\n"
        f"try:\n    main({argv!r}, io.StringIO())\n"
        f"except SystemExit:\n    pass"
    )
    assert not [m for m in loaded if m.split(".")[0] == "rich"]
    assert not [m for m in loaded if m.split(".")[0] == "matplotlib"]


def test_no_public_name_is_also_a_submodule():
    """Importing a submodule sets the package attribute of its name: a function of the same
    name (``mastermind.optimal`` once was both) would then be shadowed by the module."""
    submodules = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()
    }
    assert not set(mastermind.__all__) & submodules


# ---------------------------------------------------------------------- the import graph
# The library's own modules import one another without cycles, and none reaches into
# another's private names (a leading underscore): what one module needs from another is
# part of that module's public surface.  The kernel's extension modules (``_core``,
# ``_scan``, ... : modules whose own name begins with an underscore) are private to the
# package as a whole, and the library uses them freely.
# (The reader, ImportGraph, is scripts/docs/layers.py's.)


def test_the_library_has_no_import_cycle_and_no_private_import():
    """Every cycle and every private import, one per line: the list of what to untangle."""
    graph = ImportGraph(PACKAGE, "mastermind")
    assert (
        "mastermind.cli.analyze" in graph.modules and graph.edges["mastermind.analysis.exhaustive"]
    )
    problems = graph.problems()
    assert not problems, "\n" + "\n".join(problems)


def fake_package(tmp_path: Path, files: dict[str, str]) -> ImportGraph:
    """A package ``pkg`` of the given files (path -> source) read by the checker."""
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return ImportGraph(root, "pkg")


def test_the_checker_finds_a_cycle_through_an_import_inside_a_function(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "a.py": "from .b import run\n",
            "b.py": "def run():\n    from . import c\n    return c.go()\n",
            "c.py": "import pkg.a\n",
            "d.py": "from .a import run\n",
        },
    )  # into the cycle, not part of it
    assert graph.cycles() == [["pkg.a", "pkg.b", "pkg.c"]]
    assert graph.problems() == ["import cycle: pkg.a -> pkg.b -> pkg.c -> pkg.a"]


def test_the_checker_resolves_relative_imports_in_subpackages(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "sub/__init__.py": "from .inner import thing\n",
            "sub/inner.py": "from ..top import other\nthing = 1\n",
            "top.py": "from .sub import thing\nother = 2\n",
        },
    )
    assert graph.edges["pkg.sub.inner"] == {"pkg.top"}
    assert graph.edges["pkg.top"] == {"pkg.sub"}
    assert graph.cycles() == [["pkg.sub", "pkg.sub.inner", "pkg.top"]]


def test_the_checker_finds_private_imports_and_private_attributes(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "a.py": "_hidden = 1\nvisible = 2\n",
            "b.py": "from .a import visible, _hidden\n",
            "c.py": "from . import a\n\ndef f():\n    return a._hidden\n",
            "sub/__init__.py": "",
            "sub/d.py": "import pkg.a as alias\nfrom .. import a\nx = alias._hidden + a.visible\n",
            "sub/e.py": "def f():\n    from ..a import _hidden\n    return _hidden\n",
        },
    )
    assert graph.cycles() == []
    assert graph.problems() == [
        "private import: pkg/b.py:1: from pkg.a import _hidden",
        "private import: pkg/c.py:4: pkg.a._hidden used",
        "private import: pkg/sub/d.py:3: pkg.a._hidden used",
        "private import: pkg/sub/e.py:2: from pkg.a import _hidden",
    ]


def test_the_checker_allows_kernel_modules_dunders_and_own_names(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "__init__.py": "__version__ = '1'\n",
            "_core.pyx": "cdef int _x = 1\n",
            "_helpers.py": "_y = 1\n",
            "a.py": (
                "from . import _core, __version__\nfrom ._core import _x\n"
                "from ._helpers import _y\nimport pkg._core\n"
                "z = _core._x + pkg._core._x + _y\n"
            ),
            "b.py": "from .b import _self\n_self = 1\nfrom .a import __doc__\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import T\n",
            "d.py": "from .c import TYPE_CHECKING\nT = int\n",
        },
    )
    assert graph.edges["pkg.a"] == {"pkg", "pkg._helpers"}  # the compiled one has no file
    assert graph.edges["pkg.c"] == set()  # read by type checkers only, never run
    assert graph.problems() == []


def test_the_faces_lazy_exports_each_name_a_module():
    """``mastermind.NAME`` imports NAME's module on first use (the face's table): each
    entry names a module of the package, and the reader sees every entry."""
    graph = ImportGraph(PACKAGE, "mastermind")
    assert not graph.unknown_exports
    assert {t for _, t in graph.lazy} >= {"mastermind.apps.play", "mastermind.optimum.solver"}
    assert len(graph.lazy) == len(set(mastermind._EXPORTS.values()))


def test_the_checker_reads_a_lazy_export_table(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "__init__.py": '_EXPORTS = {"f": "sub.a", "g": "b", "h": "gone"}\n',
            "sub/__init__.py": "",
            "sub/a.py": "def f(): ...\n",
            "b.py": "def g(): ...\n",
        },
    )
    assert graph.lazy == {("pkg", "pkg.sub.a"), ("pkg", "pkg.b")}
    assert graph.unknown_exports == ["pkg.gone"]
    assert graph.edges["pkg"] == set()  # (no chain counts them: they run on first use)


def test_the_checker_names_each_cycle_of_a_tangle(tmp_path):
    """Two cycles through one module are two lines, not one group."""
    graph = fake_package(
        tmp_path,
        {
            "a.py": "from . import b, c\n",
            "b.py": "from . import a\n",
            "c.py": "def f():\n    import pkg.a\n",
        },
    )
    assert graph.groups() == [["pkg.a", "pkg.b", "pkg.c"]]
    assert graph.problems() == [
        "import cycle: pkg.a -> pkg.b -> pkg.a",
        "import cycle: pkg.a -> pkg.c -> pkg.a",
    ]


# ---------------------------------------------------------------------- the house
# The table of layers (LAYERS, place) is scripts/docs/layers.py's.


def test_the_families_import_only_downward():
    graph = ImportGraph(PACKAGE, "mastermind")
    wrong = []
    for module, targets in graph.edges.items():
        if module == "mastermind.verify":
            assert not targets, f"verify imports {sorted(targets)}: it must stand alone"
            continue
        layer, family = place(module)
        for target in targets:
            to_layer, to_family = place(target)
            if to_layer > layer:
                wrong.append(f"{module} -> {target} (up from layer {layer} to {to_layer})")
            elif FAMILY_LAYERS <= to_layer == layer < len(LAYERS) - 1 and to_family != family:
                wrong.append(f"{module} -> {target} (between sibling families)")
    assert not wrong, "\n" + "\n".join(wrong)


def test_the_views_and_the_engine_know_nothing_of_each_other():
    """The views draw what the families computed; how work is run (the engine) is none
    of their business, nor are the views the engine's."""
    graph = ImportGraph(PACKAGE, "mastermind")
    crossing = [
        f"{module} -> {target}"
        for module, targets in graph.edges.items()
        for target in targets
        if {place(module)[1], place(target)[1]} == {"views", "engine"}
    ]
    assert not crossing, "\n" + "\n".join(crossing)


GAME_MODULES = {"game", "custom", "rules"}


def engine_imports_of_games(graph: ImportGraph) -> list[str]:
    """The engine's imports of a game module: a game gives the engine its wire form
    (``game.spec()``), and the engine hands the game to the units' functions unopened."""
    package = graph.package
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.edges.items()
        if module == f"{package}.engine" or module.startswith(f"{package}.engine.")
        for target in targets
        if target.split(".")[1:2] and target.split(".")[1] in GAME_MODULES
    )


def test_the_engine_imports_no_game_module():
    graph = ImportGraph(PACKAGE, "mastermind")
    assert "mastermind.engine.workers" in graph.modules and graph.edges["mastermind.engine.run"]
    found = engine_imports_of_games(graph)
    assert not found, "\n" + "\n".join(found)


def test_the_engine_check_sees_each_way_of_importing_a_game(tmp_path):
    graph = fake_package(
        tmp_path,
        {
            "game.py": "class Game: ...\n",
            "custom.py": "",
            "rules.py": "",
            "errors.py": "",
            "engine/__init__.py": "from .. import errors\n",
            "engine/run.py": "def f():\n    from ..game import Game\n    return Game\n",
            "engine/workers.py": "import pkg.custom\n",
            "engine/units.py": "from .. import rules\n",
            "views.py": "from .game import Game\n",
        },
    )
    assert engine_imports_of_games(graph) == [
        "pkg.engine.run -> pkg.game",
        "pkg.engine.units -> pkg.rules",
        "pkg.engine.workers -> pkg.custom",
    ]


def test_no_import_chain_is_longer_than_ten_modules():
    """A reader following one import to the next reaches the bottom within ten modules
    (the command line's included)."""
    chain = longest_chain(ImportGraph(PACKAGE, "mastermind"))
    assert len(chain) <= 10, " -> ".join(chain)


def test_the_package_root_holds_only_what_everything_shares():
    """At most 14 modules at the root; everything else lives in its family's folder."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 14, root
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders == {
        "kernel",
        "analysis",
        "worstcase",
        "optimum",
        "views",
        "engine",
        "apps",
        "cli",
    }
    for family in folders - {"cli", "engine", "views", "apps"}:
        assert list((PACKAGE / family).glob("_*.pyx")), f"{family}/ has no kernel room"


def positional_booleans(path: Path, public: set[str], root: Path = SRC) -> list[str]:
    """Parameters of ``path``'s functions that take a bool and may be given by position
    (functions and methods of the public API aside: their signatures stay as published)."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    owners = {id(f): c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if node.name in public or owners.get(id(node)) in public:
            continue
        params = node.args.posonlyargs + node.args.args
        defaults = [None] * (len(params) - len(node.args.defaults)) + node.args.defaults
        for arg, default in zip(params, defaults):
            typed = arg.annotation is not None and ast.unparse(arg.annotation) in (
                "bool",
                "Optional[bool]",
            )
            if typed or (isinstance(default, ast.Constant) and isinstance(default.value, bool)):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.name}({arg.arg})")
    return found


def test_no_boolean_is_passed_by_position():
    """A flag reads as what it is at every call (``walk(..., tree=True)``), never as a
    bare True in the fifth place: the library's bool parameters are keyword-only."""
    public = set(mastermind.__all__)
    found = [line for path in LIBRARY for line in positional_booleans(path, public)]
    assert not found, "\n" + "\n".join(found)


def test_the_boolean_check_sees_a_positional_flag(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text(
        "def f(a, b: bool, *, c: bool = False):\n    pass\n"
        "def g(x, y=True):\n    pass\n"
        "class C:\n    def h(self, z: bool): ...\n"
    )
    found = positional_booleans(fake, {"C"}, tmp_path)
    assert found == ["m.py:1: f(b)", "m.py:3: g(y)"]


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    """Lines of a function's body that hold code: its docstring, blank lines and
    comment lines aside (a nested function's lines count in its own and in the outer)."""
    body = node.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant):
        body = body[1:]
    if not body:
        return 0
    text = lines[body[0].lineno - 1 : node.end_lineno]
    return sum(1 for line in text if line.strip() and not line.strip().startswith("#"))


def long_functions(path: Path, most: int, root: Path = SRC) -> list[str]:
    """The functions of ``path`` whose body holds more than ``most`` lines of code."""
    source = path.read_text()
    lines = source.splitlines()
    return [
        f"{path.relative_to(root)}:{node.lineno}: {node.name} ({n} lines)"
        for node in ast.walk(ast.parse(source, str(path)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (n := body_lines(node, lines)) > most
    ]


def test_no_function_body_is_longer_than_60_lines():
    """A routine reads at once: every function of the package (the command line's too)
    is at most 60 lines of code, its docstring aside; a longer one is cut into named
    steps.  (.ci/static runs this check too.)"""
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in long_functions(path, 60)]
    assert not found, "\n" + "\n".join(found)


def test_the_length_check_counts_code_only(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text(
        'def f():\n    """Doc\n\n    more doc."""\n    # a comment\n\n    a = 1\n    return a\n'
        "def g():\n" + "    x = 1\n" * 3
    )
    assert long_functions(fake, 2, tmp_path) == ["m.py:9: g (3 lines)"]
    assert long_functions(fake, 3, tmp_path) == []


# The kernel's Cython routines are held to the same 60 lines of code, counted the same
# way.  A Cython function: a def, cdef or cpdef line with a parameter list, whose
# signature ends with a colon (a body follows; a .pxd's declarations and `cdef int x =
# f(y)` do not); these words after cdef make something else.
NOT_CYTHON_FUNCTIONS = {"class", "struct", "union", "enum", "extern", "packed", "fused"}
# The longer ones, each with its reason; a name here that is no longer long fails too.
LONG_CYTHON_FUNCTIONS = {
    "analysis/_scan.pyx: _eval_narrow": "one loop per valuation, inlined into the scans: "
    "the package's hottest code (its docstring says why it is not cut)",
    "optimum/_optimal.pyx: _solve": "the optimal search's recursive step, run at every "
    "node: its cuts in one frame, the helpers it calls already inline",
}


def cython_body_lines(body: list[str]) -> int:
    """Lines of a Cython function's body that hold code: as body_lines counts a Python
    function's, its docstring, blank lines and comment lines aside."""
    code = [line.strip() for line in body]
    while code and not code[0]:
        code.pop(0)
    first = code[0].lstrip("rbu") if code else ""
    if first.startswith('"""') and first.count('"""') == 1:  # a docstring of lines
        code = code[next(i for i, line in enumerate(code[1:], 2) if '"""' in line) :]
    elif first.startswith('"'):  # a docstring of one line
        code = code[1:]
    return sum(1 for line in code if line and not line.startswith("#"))


def cython_functions(text: str) -> list[tuple[int, str, int]]:
    """The functions a .pyx, .pxd or .pxi file defines: (line, name, lines of code in its
    body), the body being the lines after the signature indented deeper than its first
    (and the lines of a triple-quoted string begun there)."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        words = line.split()
        if len(words) < 2 or words[0] not in ("def", "cdef", "cpdef") or "(" not in line:
            continue
        if words[1] in NOT_CYTHON_FUNCTIONS:
            continue
        end, depth = i, line.count("(") - line.count(")")
        while depth > 0 and end + 1 < len(lines):
            end += 1
            depth += lines[end].count("(") - lines[end].count(")")
        if not lines[end].split("#")[0].rstrip().endswith(":"):
            continue
        indent = len(line) - len(line.lstrip())
        body: list[str] = []
        in_string = False
        for after in lines[end + 1 :]:
            if after.strip() and len(after) - len(after.lstrip()) <= indent and not in_string:
                break
            body.append(after)
            in_string = in_string != (after.count('"""') % 2 == 1)
        name = line.split("(")[0].split()[-1].lstrip("*&")
        found.append((i + 1, name, cython_body_lines(body)))
    return found


def long_cython_functions(root: Path, most: int) -> dict[str, str]:
    """{"family/file: name": "line N, M lines"} for the Cython functions under ``root``
    whose body holds more than ``most`` lines of code."""
    return {
        f"{path.relative_to(root).as_posix()}: {name}": f"line {line}, {n} lines"
        for path in sorted(root.rglob("*"))
        if path.suffix in (".pyx", ".pxd", ".pxi")
        for line, name, n in cython_functions(path.read_text())
        if n > most
    }


def test_no_cython_function_body_is_longer_than_60_lines():
    """The kernel's routines read at once too: every def, cdef and cpdef function of the
    .pyx, .pxd and .pxi files is at most 60 lines of code, its docstring aside, but for
    the few named above with their reasons.  (.ci/static runs this check too.)"""
    found = long_cython_functions(PACKAGE, 60)
    assert sorted(found) == sorted(LONG_CYTHON_FUNCTIONS), found


def test_the_cython_length_check_counts_code_only(tmp_path):
    fake = tmp_path / "m.pyx"
    fake.write_text(
        "cdef extern from *:\n"
        '    """\n    #define TWO 2\n    """\n'
        "    int TWO\n"
        "cdef struct S:\n    int a\n    int b\n"
        "cdef class K(object):\n    cdef int x\n"
        "    cpdef int f(self, int a,\n                int b):\n"
        '        """Doc\n\n        more doc."""\n'
        "        # a comment\n\n"
        "        cdef int c = max(a,\n                         b)\n"
        "        return c\n"
        "cdef int g(int a) noexcept nogil\n"
        "cdef inline int h(int a) noexcept nogil:\n"
        '    """One line."""\n' + "    a += 1\n" * 3 + "    return a\n"
        'def p(x):\n    s = """\nat the margin\n"""\n    return s\n'
        "cdef int y = h(1)\n"
    )
    assert cython_functions(fake.read_text()) == [(11, "f", 3), (22, "h", 4), (28, "p", 4)]
    assert long_cython_functions(tmp_path, 3) == {
        "m.pyx: h": "line 22, 4 lines",
        "m.pyx: p": "line 28, 4 lines",
    }
    assert long_cython_functions(tmp_path, 4) == {}
