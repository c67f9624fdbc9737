"""No import circle between the project's modules, counting every import a reader follows.

import-linter sees the module-level graph; this walk also counts imports inside functions, under
``TYPE_CHECKING`` and ``importlib.import_module("literal")``, because a reader following one of
those lands in a circle all the same.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("langgraph_actionckpt", "benchmarks")


def module_files() -> dict[str, Path]:
    """Every module of the walked packages, by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(module: str, path: Path) -> Iterator[str]:
    """The dotted names each import statement of ``module`` may load, relative ones resolved."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            # importlib.import_module("a.literal.name") is an import a reader follows too
            yield node.args[0].value


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (``from pkg import mod`` counts ``mod`` only)."""
    files = module_files()
    graph: dict[str, set[str]] = {name: set() for name in files}
    for module, path in files.items():
        names = set(imported_names(module, path))
        for name in names:
            if name not in files or name == module:
                continue
            # ``from pkg import mod`` names the submodule; the package itself is not the target.
            if any(other.startswith(name + ".") and other in files for other in names):
                continue
            graph[module].add(name)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def shortest_cycle(graph: dict[str, set[str]], start: str, within: set[str]) -> list[str]:
    """The shortest circle from ``start`` back to itself inside one component."""
    parents: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(graph[node] & within):
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(parents[path[-1]])
                return [*reversed(path), start]
            if target not in parents:
                parents[target] = node
                queue.append(target)
    raise AssertionError(f"{start} is in no circle")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each module of each component, each circle listed once."""
    seen: set[frozenset[tuple[str, str]]] = set()
    found: list[list[str]] = []
    for component in strongly_connected(graph):
        for member in component:
            cycle = shortest_cycle(graph, member, set(component))
            edges = frozenset(pairwise(cycle))
            if edges not in seen:
                seen.add(edges)
                found.append(cycle)
    return found


def test_the_walk_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert len(graph) > 100
    # a relative import, a function-level one and a TYPE_CHECKING one all resolve to modules
    assert all(target in graph for targets in graph.values() for target in targets)
    assert "langgraph_actionckpt.errors" in graph["langgraph_actionckpt._config"]
    assert "langgraph_actionckpt.actions.otel" in graph["langgraph_actionckpt.actions.tracing"]


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    for cycle in found:
        print("cycle:", " -> ".join(cycle))
    assert not found, f"{len(found)} import cycle(s), listed above"
