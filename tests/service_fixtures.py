"""A running checkpoint service for tests: many tenants, one fresh schema each."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from langgraph_actionckpt.service import Server, serve

from .conftest import drop_schema


@dataclass
class Service:
    """A server and its tenants; :meth:`tenant` hands out an unused one."""

    server: Server
    dsn: str
    tokens: list[tuple[str, str, str]]  # (token, tenant, schema)
    _next: Iterator[int] = field(default_factory=itertools.count)

    @property
    def target(self) -> str:
        return self.server.target

    def tenant(self) -> tuple[str, str, str]:
        return self.tokens[next(self._next)]


def token_file(path: Path, n: int) -> list[tuple[str, str, str]]:
    """Write a token file of ``n`` tenants, each with a fresh schema."""
    tag = uuid.uuid4().hex[:8]
    tokens = [(f"tok-{tag}-{i}", f"tenant{i}", f"svc_{tag}_{i}") for i in range(n)]
    path.write_text("".join(f"{t} {name} {s}\n" for t, name, s in tokens))
    return tokens


@dataclass
class Running:
    """What :func:`running` yields."""

    service: Service
    schemas: list[str] = field(default_factory=list)


def running(dsn: str, tmp: Path, n: int = 200, **options: object) -> Iterator[Service]:
    """Start a service with ``n`` tenants; drop their schemas afterwards."""
    tokens = token_file(tmp / "tokens.txt", n)
    with serve(dsn, listen="127.0.0.1:0", token_file=tmp / "tokens.txt", **options) as server:
        yield Service(server, dsn, tokens)
    for _, _, schema in tokens:
        drop_schema(dsn, schema)
