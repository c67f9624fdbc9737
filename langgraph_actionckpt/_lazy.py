"""Module attributes imported on first use (PEP 562), so optional extras load lazily."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_attributes(
    module_name: str, lazy: Mapping[str, str], exported: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Args:
        module_name: The package (``__name__``).
        lazy: Attribute name -> module (relative to the package) that defines it.
        exported: The package's ``__all__``.
    """
    names = set(exported)

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, module_name), name)
        setattr(sys.modules[module_name], name, value)  # later lookups skip this hook
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[module_name])) | names)

    return __getattr__, __dir__
