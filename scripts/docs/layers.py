"""The package's layers and its import reader: the table of layers (:data:`LAYERS`,
:func:`place`), the imports between a package's modules read with ``ast``
(:class:`ImportGraph`) and the longest chain of them (:func:`longest_chain`).

tests/test_layers.py holds the package to them, and scripts/docs/house.py draws the house
from them, so the picture shows what the tests enforce.  Plain Python: it reads source
files and imports nothing of the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

# ---------------------------------------------------------------------- the import graph
# The library's own modules import one another without cycles, and none reaches into
# another's private names (a leading underscore): what one module needs from another is
# part of that module's public surface.  The kernel's extension modules (``_core``,
# ``_scan``, ... : modules whose own name begins with an underscore) are private to the
# package as a whole, and the library uses them freely.


def package_modules(root: Path, package: str) -> dict[str, Path]:
    """Every ``.py`` module under ``root`` (subpackages included) by its dotted name."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def compiled_modules(root: Path, package: str) -> set[str]:
    """The extension modules under ``root`` (Cython sources or built libraries)."""
    names = set()
    for path in root.rglob("*"):
        if path.suffix in (".pyx", ".so", ".pyd"):
            stem = path.name.split(".")[0]
            parts = [package, *path.relative_to(root).parent.parts, stem]
            names.add(".".join(parts))
    return names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _runtime_nodes(tree: ast.AST):
    """Every node that can run: the whole tree but the bodies of ``if TYPE_CHECKING:``
    (those imports are read by type checkers only, never executed)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
            else:
                stack.append(child)


class ImportGraph:
    """The imports between the modules of one package, read with ``ast`` (imports inside
    functions included), and the private names each module takes from another."""

    def __init__(self, root: Path, package: str):
        self.package = package
        self.modules = package_modules(root, package)
        self.known = set(self.modules) | compiled_modules(root, package)
        self.edges: dict[str, set[str]] = {m: set() for m in self.modules}
        self.private: list[tuple[str, int, str]] = []  # (file, line, what)
        self.lazy: set[tuple[str, str]] = set()  # (package, module) of a lazy export
        self.unknown_exports: list[str] = []  # lazy exports naming no module
        for name, path in self.modules.items():
            self._read(name, path, root)
        self._read_exports(root)

    def _is_kernel(self, module: str) -> bool:
        return module.rsplit(".", 1)[-1].startswith("_")

    def _resolve(self, name: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        here = name.split(".")
        if self.modules[name].name != "__init__.py":
            here = here[:-1]  # a module's relative imports start from its package
        base = here[: len(here) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    def _mine(self, module: str) -> bool:
        return module == self.package or module.startswith(self.package + ".")

    def _read(self, name: str, path: Path, root: Path) -> None:
        tree = ast.parse(path.read_text(), str(path))
        where = path.relative_to(root.parent)
        bound: dict[str, str] = {}  # local name -> package module it stands for
        nodes = list(_runtime_nodes(tree))
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if not self._mine(alias.name):
                        continue
                    target = alias.name
                    while target not in self.known and "." in target:
                        target = target.rsplit(".", 1)[0]
                    self._edge(name, target)
                    if alias.asname:
                        bound[alias.asname] = target
                    else:
                        top = alias.name.split(".")[0]
                        bound[top] = top
            elif isinstance(node, ast.ImportFrom):
                source = self._resolve(name, node)
                if not self._mine(source):
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in self.known:  # a module: ``from . import x``
                        self._edge(name, sub)
                        bound[alias.asname or alias.name] = sub
                        continue
                    self._edge(name, source)
                    if _is_private(alias.name) and source != name and not self._is_kernel(source):
                        self.private.append(
                            (str(where), node.lineno, f"from {source} import {alias.name}")
                        )
        for node in nodes:
            if isinstance(node, ast.Attribute):
                chain = []
                base = node
                while isinstance(base, ast.Attribute):
                    chain.append(base.attr)
                    base = base.value
                if not isinstance(base, ast.Name) or base.id not in bound:
                    continue
                module = bound[base.id]
                for attr in reversed(chain):
                    if f"{module}.{attr}" in self.known:
                        module = f"{module}.{attr}"
                        continue
                    if _is_private(attr) and module != name and not self._is_kernel(module):
                        self.private.append((str(where), node.lineno, f"{module}.{attr} used"))
                    break

    def _read_exports(self, root: Path) -> None:
        """The package's lazy exports: a table ``_EXPORTS = {"name": "module", ...}`` in
        its ``__init__.py`` that ``__getattr__`` imports from on first use.  Kept apart
        from the imports (:attr:`lazy`): the first use of a name makes the import, not the
        import of the package, so they count in no chain; the drawing shows them."""
        tree = ast.parse((root / "__init__.py").read_text())
        for node in tree.body:
            if not (
                isinstance(node, (ast.Assign, ast.AnnAssign))
                and "_EXPORTS"
                in ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target)
                and isinstance(node.value, ast.Dict)
            ):
                continue
            for value in node.value.values:
                target = f"{self.package}.{ast.literal_eval(value)}"
                if target not in self.modules:
                    self.unknown_exports.append(target)
                    continue
                self.lazy.add((self.package, target))

    def _edge(self, name: str, target: str) -> None:
        if target in self.modules and target != name:
            self.edges[name].add(target)

    def groups(self) -> list[list[str]]:
        """The strongly connected groups of more than one module (Tarjan), sorted."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        groups: list[list[str]] = []

        def visit(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            for w in sorted(self.edges[v]):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

        for v in sorted(self.edges):
            if v not in index:
                visit(v)
        return sorted(groups)

    def cycles(self, most: int = 100) -> list[list[str]]:
        """Every elementary import cycle (up to ``most``), each from its smallest module
        name: ``[a, b, c]`` is a imports b, b imports c, c imports a."""
        found: list[list[str]] = []
        for group in self.groups():
            for i, start in enumerate(group):
                allowed = set(group[i + 1 :])

                def extend(
                    path: list[str], start: str = start, allowed: set[str] = allowed
                ) -> None:
                    for w in sorted(self.edges[path[-1]]):
                        if len(found) >= most:
                            return
                        if w == start:
                            found.append(list(path))
                        elif w in allowed and w not in path:
                            extend(path + [w])

                extend([start])
        return found

    def problems(self) -> list[str]:
        lines = [f"import cycle: {' -> '.join(c + [c[0]])}" for c in self.cycles()]
        found = sorted(set(self.private))  # a.b._c is met twice: as itself and in a.b._c.d
        return lines + [f"private import: {file}:{line}: {what}" for file, line, what in found]


# ---------------------------------------------------------------------- the house
# The package's layers, lowest first: what everything shares at the root, the engine,
# the views, the computing families, the sessions and comparisons, the command line.
# A module imports only modules of its own layer or lower ones, and two families of
# one layer never import each other.  (verify, the independent checker, imports nothing.)
LAYERS = [
    {"errors", "limits", "version", "interrupts", "files", "kernel", "verify"},
    {"rules", "game", "custom", "checks", "stopping", "strategy_tree"},
    {"engine"},
    {"views"},
    {"analysis"},
    {"worstcase", "optimum"},
    {"apps"},
    {"cli", "__main__", ""},
]
FAMILY_LAYERS = 3  # from this layer up (the command line's aside), each name a family


def place(module: str) -> tuple[int, str]:
    """(layer, family) of ``mastermind.<family>[.<...>]``."""
    family = module.split(".")[1] if "." in module else ""
    for number, names in enumerate(LAYERS):
        if family in names:
            return number, family
    raise AssertionError(f"{module} belongs to no layer: add its family to LAYERS")


def longest_chain(graph: ImportGraph) -> list[str]:
    """The longest path of imports (the graph has no cycle)."""
    best: dict[str, list[str]] = {}

    def chain(module: str) -> list[str]:
        if module not in best:
            tails = [chain(t) for t in graph.edges[module]]
            best[module] = [module, *max(tails, key=len, default=[])]
        return best[module]

    return max((chain(m) for m in graph.edges), key=len)
