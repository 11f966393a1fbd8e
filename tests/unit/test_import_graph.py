"""No import circles inside the package, counting imports made inside functions (read from the source)."""

from __future__ import annotations

import ast
from pathlib import Path

import pathrag_gds

PACKAGE = Path(pathrag_gds.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = ["pathrag_gds", *f.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def _imports(source: str, modules: dict[str, Path]) -> set[str]:
    """Package modules `source` imports anywhere but under `if TYPE_CHECKING:`."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and (child.module or "").startswith("pathrag_gds"):
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    out.add(sub if sub in modules else str(child.module))
            elif isinstance(child, ast.Import):
                out.update(a.name for a in child.names if a.name.startswith("pathrag_gds"))
            visit(child)

    visit(ast.parse(source))
    return out & set(modules)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
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
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            connect(v)
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    mods = {"pathrag_gds.a": Path("a"), "pathrag_gds.b": Path("b"), "pathrag_gds.c": Path("c")}
    a = _imports("from pathrag_gds.b import x\n", mods)
    b = _imports("def f():\n    from pathrag_gds import a\n", mods)
    c = _imports("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pathrag_gds.a\n", mods)
    assert (a, b, c) == ({"pathrag_gds.b"}, {"pathrag_gds.a"}, set())
    graph = {"pathrag_gds.a": a, "pathrag_gds.b": b, "pathrag_gds.c": c}
    assert _circles(graph) == [["pathrag_gds.a", "pathrag_gds.b"]]


def test_no_import_circles() -> None:
    modules = _modules()
    assert len(modules) > 50
    graph = {name: _imports(path.read_text(encoding="utf-8"), modules) for name, path in modules.items()}
    assert _circles(graph) == []
