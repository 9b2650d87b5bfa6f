"""The layers only look down (cli -> library -> kernel), and each entry point loads only
what it uses (docs/architecture.md)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import mastermind

PACKAGE = Path(mastermind.__file__).resolve().parent
SRC = PACKAGE.parent
LIBRARY = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__main__.py")
COMMAND_LINE_ONLY = {"argparse", "rich", "readline"}


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports (at any depth of its code)."""
    package = "mastermind" if path.parent == PACKAGE else "mastermind.cli"
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
    assert len(LIBRARY) >= 9  # game, rules, strategies, analysis, bounds, play, tree, ...
    for path in LIBRARY:
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert not name.startswith("mastermind.cli"), f"{path.name} imports {name}"
            assert top not in COMMAND_LINE_ONLY, f"{path.name} imports {name}"


def test_the_ast_check_sees_relative_imports():
    """The check above is not vacuous: it resolves the command line's own imports."""
    names = imported_modules(PACKAGE / "cli" / "analyze.py")
    assert "mastermind.cli.common" in names and "mastermind.analysis" in names
    assert "argparse" in names


def loaded_after(code: str) -> list[str]:
    """The modules loaded in a fresh interpreter after running ``code``."""
    probe = f"import sys, io, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": ""}, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_mastermind_loads_only_its_init():
    loaded = loaded_after("import mastermind")
    assert [m for m in loaded if m.startswith("mastermind")] == ["mastermind"]
    assert "numpy" not in loaded


def test_help_loads_no_kernel_and_no_numpy():
    loaded = loaded_after("from mastermind.cli import main\n"
                          "try:\n    main(['--help'])\nexcept SystemExit as e:\n"
                          "    assert e.code == 0")
    assert "numpy" not in loaded
    assert not [m for m in loaded if m.startswith("mastermind._")]
    assert not [m for m in loaded if m.startswith("mastermind.cli.") and
                m not in ("mastermind.cli.common",)]


@pytest.mark.parametrize("command", ["analyze", "solve"])
def test_an_analysis_loads_no_bounds_play_tree_or_custom(command):
    argv = ["analyze", "--json"] if command == "analyze" else ["solve", "6543"]
    loaded = loaded_after(f"from mastermind.cli import main\n"
                          f"assert main({argv!r}, io.StringIO()) == 0")
    assert "mastermind.analysis" in loaded
    for name in ("bounds", "play", "tree", "custom", "_search", "cli.play", "cli.bound",
                 "cli.tree", "cli.dialogue"):
        assert f"mastermind.{name}" not in loaded


@pytest.mark.parametrize("argv", [["--help"], ["analyze", "--json"], ["solve", "6543"],
                                  ["compare", "-k", "3"]])
def test_rich_is_loaded_only_for_a_terminal(argv):
    """rich draws on terminals only: help and plain output never import it."""
    loaded = loaded_after(f"from mastermind.cli import main\n"
                          f"try:\n    main({argv!r}, io.StringIO())\n"
                          f"except SystemExit:\n    pass")
    assert not [m for m in loaded if m.split(".")[0] == "rich"]
    assert not [m for m in loaded if m.split(".")[0] == "matplotlib"]


def test_no_public_name_is_also_a_submodule():
    """Importing a submodule sets the package attribute of its name: a function of the same
    name (``mastermind.optimal`` once was both) would then be shadowed by the module."""
    submodules = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir()
                                                           if (p / "__init__.py").exists()}
    assert not set(mastermind.__all__) & submodules
