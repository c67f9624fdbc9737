"""A running checkpoint service for tests: many tenants, one fresh schema each."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
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


class Replica:
    """One ``actionckpt serve`` process on a port of its own, killed and started again at will.

    Args:
        dsn: The database every replica serves.
        tokens: The token file (the tenants and their schemas).
    """

    def __init__(self, dsn: str, tokens: Path) -> None:
        self.dsn = dsn
        self.tokens = tokens
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Replica:
        """Start the process; return once it accepts calls."""
        root = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "langgraph_actionckpt.service.cli", "--dsn", self.dsn,
             "serve", "--listen", self.target, "--token-file", str(self.tokens),
             "--log-level", "warning"],
            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("listening on"), (line, self.proc.poll())
        return self

    def kill(self) -> None:
        """SIGKILL the process (no graceful shutdown) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Replicas:
    """Service processes on one database, sharing a token file; :meth:`tenant` as for Service."""

    all: list[Replica]
    tokens: list[tuple[str, str, str]]  # (token, tenant, schema)
    _next: Iterator[int] = field(default_factory=itertools.count)

    def tenant(self) -> tuple[str, str, str]:
        return self.tokens[next(self._next)]

    @property
    def targets(self) -> str:
        """Every replica, as a remote saver's comma-separated target."""
        return ",".join(r.target for r in self.all)


def replicas(dsn: str, tmp: Path, n: int = 2, tenants: int = 16) -> Iterator[Replicas]:
    """``n`` service processes on one database, started in turn; their schemas dropped after."""
    tokens = token_file(tmp / "tokens.txt", tenants)
    running = Replicas([Replica(dsn, tmp / "tokens.txt") for _ in range(n)], tokens)
    try:
        for replica in running.all:
            replica.start()
        yield running
    finally:
        for replica in running.all:
            replica.kill()
        for _, _, schema in tokens:
            drop_schema(dsn, schema)
