"""No import cycles (issue 23): a static check of rulekit's own import graph.

Module-level imports (including those in class bodies and ``try`` blocks; not ``if TYPE_CHECKING``)
must form a graph without cycles. An import inside a function is allowed for start-up time or an
optional library, but not to hide a cycle: a function-level import that would close a cycle if it
were at the top fails here (the last ones were cut in issue 23: importers/sklearn_tree.py,
rules/conditions.py and the lazy ``RuleBase``/parser exports of ``rulekit.rules``/``rulekit.dsl``).
The checker itself is tested on planted packages.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# rulekit's package roots (pyproject's package-dir): the exporters and grammars live outside rulekit/.
ROOTS = {"rulekit": REPO / "rulekit", "rulekit.exporters": REPO / "exporters",
         "rulekit.grammars": REPO / "grammars"}



def module_files(roots: dict[str, Path]) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` under the package roots."""
    out: dict[str, Path] = {}
    for pkg, root in roots.items():
        nested = {name.split(".")[-1] for name in roots if name.startswith(pkg + ".")}
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[0] in nested:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([pkg, *parts])] = path
    return out


def _imported(name: str, files: dict[str, Path], node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules one import statement names (``from p import m`` names p and, if a module, p.m)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        here = name.split(".") if files[name].name == "__init__.py" else name.split(".")[:-1]
        here = here[: len(here) - (node.level - 1)]
        base = ".".join(here + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [base] + [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]


def _loaded(target: str, importer: str, files: dict[str, Path]) -> list[str]:
    """Our modules that importing ``target`` runs: it and its parent packages, except the
    importer's own packages (already being imported when it runs)."""
    parts = target.split(".")
    names = (".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return [n for n in names if n in files and not (importer == n or importer.startswith(n + "."))]


def import_edges(name: str, files: dict[str, Path]):
    """``(top, inner)``: module-level and function-level imports of one module, each a list of
    ``(stated module, line, [modules it loads])``."""
    tree = ast.parse(files[name].read_text(encoding="utf-8"), str(files[name]))
    top, inner = [], []
    stack = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.append((child, True))
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend((c, in_function) for c in child.orelse)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for stated in _imported(name, files, child):
                    loads = _loaded(stated, name, files)
                    if loads:
                        (inner if in_function else top).append((stated, child.lineno, loads))
            else:
                stack.append((child, in_function))
    return top, inner


def module_graph(roots: dict[str, Path]):
    """``(graph, inner)``: module -> modules its top level loads; module -> its function-level imports."""
    files = module_files(roots)
    graph, inner = {}, {}
    for name in files:
        top, late = import_edges(name, files)
        graph[name] = sorted({m for _, _, loads in top for m in loads})
        inner[name] = late
    return graph, inner


def path_between(graph: dict[str, list[str]], start: str, goal: str) -> list[str] | None:
    """A shortest import path ``start -> ... -> goal`` along module-level imports, or None."""
    before: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            path = [goal]
            while before[path[-1]] is not None:
                path.append(before[path[-1]])
            return path[::-1]
        for nxt in graph.get(here, ()):
            if nxt not in before:
                before[nxt] = here
                queue.append(nxt)
    return None


def top_level_cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """One cycle through each module-level import edge that closes one."""
    return [[name, *back] for name, targets in graph.items() for t in targets
            if (back := path_between(graph, t, name))]


def cycle_dodges(graph, inner) -> dict[tuple[str, str], str]:
    """Function-level imports that would close a cycle at the top: (importer, stated) -> 'file:line: path'."""
    found = {}
    for name, imports in inner.items():
        for stated, line, loads in imports:
            for target in loads:
                back = path_between(graph, target, name)
                if back:
                    found.setdefault((name, stated), f"{name}:{line}: {' -> '.join([name, *back])}")
    return found


@pytest.fixture(scope="module")
def rulekit_graph():
    return module_graph(ROOTS)


def test_the_graph_sees_every_package(rulekit_graph):
    graph, _ = rulekit_graph
    for name in ("rulekit", "rulekit.ir.model", "rulekit.exporters", "rulekit.exporters.sql.walker",
                 "rulekit.rules.engine", "rulekit.dsl.parser", "rulekit.grammars"):
        assert name in graph
    assert "rulekit.ir.schema" in graph["rulekit.ir.model"]  # from rulekit.ir.schema import ...
    assert "rulekit.ir.compiled" in graph["rulekit.ir.model"]  # from rulekit.ir import compiled


def test_module_level_imports_have_no_cycle(rulekit_graph):
    graph, _ = rulekit_graph
    cycles = top_level_cycles(graph)
    assert not cycles, "import cycles among module-level imports:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_new_function_level_import_hides_a_cycle(rulekit_graph):
    found = sorted(cycle_dodges(*rulekit_graph).values())
    assert not found, ("function-level imports that hide a cycle (move the shared piece to a module "
                     "both can import at the top):\n" + "\n".join(found))


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return {"pkg": root}


def test_the_checker_finds_a_planted_top_level_cycle(tmp_path):
    roots = _package(tmp_path, {"a.py": "from pkg.b import f\n", "b.py": "from . import a\ndef f(): pass\n",
                                "c.py": "import pkg.a\n"})
    graph, _ = module_graph(roots)
    cycles = top_level_cycles(graph)
    assert ["pkg.a", "pkg.b", "pkg.a"] in cycles and ["pkg.b", "pkg.a", "pkg.b"] in cycles
    assert all("pkg.c" not in c for c in cycles)


def test_the_checker_finds_a_planted_cycle_dodge(tmp_path):
    roots = _package(tmp_path, {
        "a.py": "from pkg.b import f\n\ndef g():\n    from pkg import c\n    return c\n",
        "b.py": "def f():\n    from pkg.a import g\n    return g\n",  # hides a -> b -> a
        "c.py": "X = 1\n",  # lazy, no cycle
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import g\n"})
    graph, inner = module_graph(roots)
    assert top_level_cycles(graph) == []
    assert set(cycle_dodges(graph, inner)) == {("pkg.b", "pkg.a")}


def test_the_checker_sees_a_cycle_through_a_package_init(tmp_path):
    # pkg.sub.base lazily imports pkg.other, which imports pkg.sub.cond; importing pkg.sub.cond runs
    # pkg/sub/__init__, which imports pkg.sub.base at the top: a dodge. With the package's export of
    # base made lazy (as rulekit.rules does for RuleBase) the same lazy import hides no cycle.
    eager = {"sub/__init__.py": "from pkg.sub.base import B\n", "sub/cond.py": "C = 1\n",
             "sub/base.py": "from pkg.sub.cond import C\n\nclass B:\n    def f(self):\n"
                            "        from pkg import other\n        return other\n",
             "other.py": "from pkg.sub.cond import C\n"}
    graph, inner = module_graph(_package(tmp_path / "eager", eager))
    assert set(cycle_dodges(graph, inner)) == {("pkg.sub.base", "pkg.other")}
    lazy = {**eager, "sub/__init__.py": "def __getattr__(name):\n    from pkg.sub.base import B\n    return B\n"}
    graph, inner = module_graph(_package(tmp_path / "lazy", lazy))
    assert cycle_dodges(graph, inner) == {}
