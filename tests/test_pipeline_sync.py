"""A plan's SYNC op after a value larger than a socket buffer, in a pipeline, completes.

psycopg's ``Pipeline.sync()`` stops sending once its command queue is empty and then
waits for results; with megabytes of a large value still in libpq's output buffer the
server waits for them and the client for its results, forever (psycopg #685, fixed for
the pipeline's exit only). The writer's tick flushes held writes this way, so a 50 MB
value in a held write hung its flush. The drivers send everything before the sync.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from langgraph_actionckpt.db.driver import AsyncDriver, Op, Plan, SyncDriver
from langgraph_actionckpt.db.sqlid import q

from .conftest import drop_schema, new_schema_name

pytestmark = pytest.mark.timeout(120)  # a regression hangs: fail it instead

BIG = "x" * (30 * 1024 * 1024)  # several times what a loopback socket buffers


@pytest.fixture
def table(pg15_dsn: str) -> Iterator[tuple[str, str]]:
    """A fresh schema on the system PostgreSQL with a one-column table."""
    schema = new_schema_name()
    with psycopg.connect(pg15_dsn, autocommit=True) as conn:
        conn.execute(q(schema, "CREATE SCHEMA {s}"))
        conn.execute(q(schema, "CREATE TABLE {s}.big (v text)"))
    yield pg15_dsn, schema
    drop_schema(pg15_dsn, schema)


def _plan(schema: str) -> Plan[int]:
    yield Op(q(schema, "INSERT INTO {s}.big VALUES (%s)"), (BIG,))
    yield Op(None, None, "sync")
    row = yield Op(q(schema, "SELECT length(v) FROM {s}.big"), None, "one")
    assert row is not None
    return int(row[0])


def test_sync_op_after_a_large_value_in_a_pipeline(table: tuple[str, str]) -> None:
    dsn, schema = table
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert SyncDriver(conn).run(lambda: _plan(schema), pipeline=True) == len(BIG)


async def test_sync_op_after_a_large_value_in_a_pipeline_async(table: tuple[str, str]) -> None:
    dsn, schema = table
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        got = await AsyncDriver(conn).run(lambda: _plan(schema), pipeline=True)
    assert got == len(BIG)
