"""The savers' shape: each public saver has its parts rather than a tower of bases.

A saver's method resolution order holds at most three of the package's own
classes: the saver, its body (the one shared base) and the public API
declaration. Everything else (the checkpoint store, the driver, the writer,
the lease keeper) is an object the saver has. And no class or module grows past
what a reader takes in: 300 and 600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import langgraph_actionckpt
from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.service.remote import AsyncRemoteActionSaver, RemoteActionSaver


@pytest.mark.parametrize(
    "cls", [ActionSaver, AsyncActionSaver, RemoteActionSaver, AsyncRemoteActionSaver]
)
def test_a_saver_inherits_at_most_three_classes_of_the_package(cls: type) -> None:
    own = [c.__qualname__ for c in cls.__mro__ if c.__module__.startswith("langgraph_actionckpt")]
    assert len(own) <= 3, own


def test_no_class_over_300_lines_and_no_module_over_600() -> None:
    """Split by job: a class over 300 lines or a module over 600 (generated code aside)."""
    root = Path(langgraph_actionckpt.__file__).parent
    too_big = []
    for path in sorted(root.rglob("*.py")):
        if "_pb" in path.parts:  # protoc's output
            continue
        source = path.read_text(encoding="utf-8")
        if (lines := len(source.splitlines())) > 600:
            too_big.append(f"{path.relative_to(root)}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ClassDef) or node.end_lineno is None:
                continue
            if (size := node.end_lineno - node.lineno + 1) > 300:
                too_big.append(f"{path.relative_to(root)}:{node.name}: {size} lines")
    assert not too_big, too_big


def test_no_import_circle_type_only_and_function_level_imports_counted() -> None:
    """No module reaches itself through imports, counting those inside functions and
    under ``TYPE_CHECKING`` (a lazy circle is still one a reader has to untangle)."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter ([dev])")
    graph = grimp.build_graph("langgraph_actionckpt", exclude_type_checking_imports=False)
    circles = [
        (module, other)
        for module in sorted(graph.modules)
        for other in graph.find_modules_directly_imported_by(module)
        if other != module and graph.chain_exists(importer=other, imported=module)
    ]
    assert not circles, circles
