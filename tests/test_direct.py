"""Direct statements (``db.direct``): hot prepared statements sent on libpq below the cursor.

They must be indistinguishable from the cursor path: the same values in and out,
the same errors, a connection left as usable, statements prepared again when the
server lost them, nothing prepared for pgbouncer (``prepare_threshold=None``),
and a failed group pipeline that commits nothing and leaves its connection clean.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

from langgraph_actionckpt.db import direct, group_commit
from langgraph_actionckpt.db._async_driver import run_op as async_run_op
from langgraph_actionckpt.db._driver_base import configure_connection
from langgraph_actionckpt.db._sync_driver import run_op as sync_run_op
from langgraph_actionckpt.db.arrays import TextArray
from langgraph_actionckpt.db.driver import Op
from langgraph_actionckpt.db.encoding import dumps

# --------------------------------------------------------------------- compiling


@pytest.mark.parametrize(
    ("query", "text", "names", "count"),
    [
        ("SELECT %(a)s, %(b)s, %(a)s", b"SELECT $1, $2, $1", ("a", "b"), 2),
        ("SELECT %s, %s", b"SELECT $1, $2", None, 2),
        ("SELECT 1", b"SELECT 1", None, 0),
        ("SELECT '100%%', %s", b"SELECT '100%', $1", None, 1),
    ],
)
def test_compile_query(query: str, text: bytes, names: Any, count: int) -> None:
    stmt = direct.compile_query(query, None)
    assert stmt is not None
    assert (stmt.text, stmt.names, stmt.count) == (text, names, count)


@pytest.mark.parametrize("query", ["SELECT %b", "SELECT %t", "SELECT %(a)s, %s", "SELECT %d"])
def test_compile_query_leaves_the_rest_to_psycopg(query: str) -> None:
    assert direct.compile_query(query, None) is None


def test_a_statement_without_parameters_goes_through_the_cursor(pg18_dsn: str) -> None:
    # psycopg sends it as it is ("%%" stays two characters); so must we: the cursor does
    with psycopg.connect(pg18_dsn, autocommit=True) as c:
        assert direct.usable(c, Op("SELECT '100%%'", None, "one", prepare=True)) is None
        assert direct.usable(c, Op("SELECT '100%%', %s", [1], "one", prepare=True))


def test_compile_query_is_cached_by_the_query_object() -> None:
    query = sql.SQL("SELECT %(x)s")
    first = direct.compile_query(query, None)
    assert direct.compile_query(query, None) is first


# ------------------------------------------------------------- one statement

TABLE = "direct_values"


@pytest.fixture
def conn(pg18_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(pg18_dsn, autocommit=True) as c:
        configure_connection(c)
        name = f"{TABLE}_{uuid.uuid4().hex[:8]}"
        c.execute(
            sql.SQL(
                "CREATE TEMP TABLE {} (k int PRIMARY KEY, t text, b bytea, j jsonb, "
                "a text[], f float8, ts timestamptz, u uuid, ok bool)"
            ).format(sql.Identifier(name))
        )
        c.__dict__["_test_table"] = name
        yield c


def _ops(c: Any) -> tuple[Op, Op, Op]:
    table = sql.Identifier(c.__dict__["_test_table"])
    insert = sql.SQL(
        "INSERT INTO {} VALUES (%(k)s, %(t)s, %(b)s, %(j)s::jsonb, %(a)s::text[], %(f)s, "
        "%(ts)s, %(u)s, %(ok)s)"
    ).format(table)
    one = sql.SQL("SELECT * FROM {} WHERE k = %s").format(table)
    every = sql.SQL("SELECT * FROM {} ORDER BY k").format(table)
    return (
        Op(insert, {}, prepare=True),
        Op(one, [], "one", prepare=True),
        Op(every, [], "all", prepare=True),
    )


def _row(k: int) -> dict[str, Any]:
    return {
        "k": k,
        "t": None if k % 3 == 0 else f"text é {k}",
        "b": bytes(range(256)) * k,
        "j": dumps({"k": k, "s": "x\x00y", "l": [1, 2.5, None]}).decode(),
        "a": TextArray(["a", "b,c", 'quote"', ""]),
        "f": k / 3,
        "ts": dt.datetime(2026, 12, 2, 1, 2, 3, tzinfo=dt.UTC),
        "u": uuid.UUID(int=k),
        "ok": k % 2 == 0,
    }


def _names(c: Any) -> list[str]:
    rows = c.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE '\\_lgac\\_%'")
    return [r[0] for r in rows.fetchall()]


def test_values_and_rows_are_the_cursors(conn: psycopg.Connection[Any]) -> None:
    insert, one, every = _ops(conn)
    cur = conn.cursor(binary=True)
    for k in range(1, 7):
        # the odd rows directly, the even ones through the cursor
        direct.ENABLED = k % 2 == 1
        try:
            sync_run_op(cur, Op(insert.query, _row(k), prepare=True))
        finally:
            direct.ENABLED = True
    assert _names(conn), "the direct path prepared nothing"
    got_direct = sync_run_op(cur, Op(every.query, [], "all", prepare=True))
    direct.ENABLED = False
    try:
        got_cursor = sync_run_op(cur, Op(every.query, [], "all", prepare=True))
        missing_cursor = sync_run_op(cur, Op(one.query, [99], "one", prepare=True))
    finally:
        direct.ENABLED = True
    assert got_direct == got_cursor
    assert [r[0] for r in got_direct] == [1, 2, 3, 4, 5, 6]
    assert got_direct[3][4] == ["a", "b,c", 'quote"', ""]
    assert sync_run_op(cur, Op(one.query, [4], "one", prepare=True)) == got_cursor[3]
    assert sync_run_op(cur, Op(one.query, [99], "one", prepare=True)) is missing_cursor is None


def test_a_deallocated_statement_is_prepared_again(conn: psycopg.Connection[Any]) -> None:
    _insert, one, _every = _ops(conn)
    cur = conn.cursor(binary=True)
    assert sync_run_op(cur, Op(one.query, [1], "one", prepare=True)) is None
    before = _names(conn)
    assert before
    conn.execute("DEALLOCATE ALL")  # what psycopg does after a ROLLBACK, or a pooler's reset
    assert sync_run_op(cur, Op(one.query, [1], "one", prepare=True)) is None
    after = _names(conn)
    assert after and not set(after) & set(before), "a name was reused"


def test_nothing_is_prepared_without_a_prepare_threshold(pg18_dsn: str) -> None:
    with psycopg.connect(pg18_dsn, autocommit=True, prepare_threshold=None) as c:
        configure_connection(c)
        cur = c.cursor(binary=True)
        op = Op("SELECT %s::int + 1", [41], "one", prepare=True)
        assert direct.usable(c, op) is not None
        assert [sync_run_op(cur, op) for _ in range(3)] == [(42,)] * 3
        assert _names(c) == []


def test_errors_are_psycopgs_and_the_connection_stays_usable(
    conn: psycopg.Connection[Any],
) -> None:
    insert, one, _every = _ops(conn)
    cur = conn.cursor(binary=True)
    sync_run_op(cur, Op(insert.query, _row(1), prepare=True))
    with pytest.raises(psycopg.errors.UniqueViolation):
        sync_run_op(cur, Op(insert.query, _row(1), prepare=True))
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        sync_run_op(cur, Op("SELECT %s::int", ["nope"], "one", prepare=True))
    assert conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert sync_run_op(cur, Op(one.query, [1], "one", prepare=True))[0] == 1


def test_a_missing_parameter_is_a_programming_error(conn: psycopg.Connection[Any]) -> None:
    insert, _one, _every = _ops(conn)
    row = _row(1)
    del row["u"]
    with pytest.raises(psycopg.ProgrammingError, match="u"):
        sync_run_op(conn.cursor(binary=True), Op(insert.query, row, prepare=True))


def test_inside_a_transaction_the_cursor_runs_it(conn: psycopg.Connection[Any]) -> None:
    _insert, one, _every = _ops(conn)
    op = Op(one.query, [1], "one", prepare=True)
    assert direct.usable(conn, op) is not None
    conn.execute("BEGIN")
    try:
        assert direct.usable(conn, op) is None  # a bind error would abort the transaction
    finally:
        conn.execute("ROLLBACK")


def test_a_killed_backend_is_a_lost_connection(pg18_dsn: str) -> None:
    with psycopg.connect(pg18_dsn, autocommit=True) as c:
        pid = c.info.backend_pid

        def kill() -> None:
            time.sleep(0.3)
            with psycopg.connect(pg18_dsn, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", [pid])

        killer = threading.Thread(target=kill)
        killer.start()
        try:
            with pytest.raises(psycopg.OperationalError):
                sync_run_op(
                    c.cursor(binary=True), Op("SELECT pg_sleep(%s)", [5], "one", prepare=True)
                )
        finally:
            killer.join()
        assert c.broken  # what the driver's retry looks at (is_connection_lost)


# ------------------------------------------------------------ group pipeline


@pytest.fixture
async def aconn(pg18_dsn: str) -> Any:
    async with await psycopg.AsyncConnection.connect(pg18_dsn, autocommit=True) as c:
        configure_connection(c)
        name = f"{TABLE}_{uuid.uuid4().hex[:8]}"
        await c.execute(
            sql.SQL(
                "CREATE TABLE {} (k int PRIMARY KEY, t text, b bytea, j jsonb, "
                "a text[], f float8, ts timestamptz, u uuid, ok bool)"
            ).format(sql.Identifier(name))
        )
        c.__dict__["_test_table"] = name
        try:
            yield c
        finally:
            await c.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(name)))


async def test_a_group_commits_together_and_reads_come_back(aconn: Any) -> None:
    insert, one, _every = _ops(aconn)
    writes = [Op(insert.query, _row(k), prepare=True) for k in range(1, 41)]
    assert await group_commit._direct_group(aconn, writes, reads=False) == []
    reads = [Op(one.query, [k], "one", prepare=True) for k in (1, 20, 40, 99)]
    rows = await group_commit._direct_group(aconn, reads, reads=True)
    direct.ENABLED = False
    try:
        assert await group_commit._direct_group(aconn, reads, reads=True) is None
        expected = [await async_run_op(aconn.cursor(binary=True), op) for op in reads]
    finally:
        direct.ENABLED = True
    assert rows == expected
    assert [r[0] if r else None for r in rows] == [1, 20, 40, None]


async def test_a_failed_group_commits_nothing_and_leaves_a_clean_connection(
    aconn: Any,
) -> None:
    insert, one, _every = _ops(aconn)
    await async_run_op(aconn.cursor(binary=True), Op(insert.query, _row(5), prepare=True))
    group = [Op(insert.query, _row(k), prepare=True) for k in (1, 2, 5, 7)]  # 5 exists
    with pytest.raises(psycopg.errors.UniqueViolation):
        await group_commit._direct_group(aconn, group, reads=False)
    assert aconn.pgconn.pipeline_status == psycopg.pq.PipelineStatus.OFF
    assert aconn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
    reads = [Op(one.query, [k], "one", prepare=True) for k in (1, 2, 5, 7)]
    rows = await group_commit._direct_group(aconn, reads, reads=True)
    assert [r[0] if r else None for r in rows] == [None, None, 5, None]


def test_a_direct_read_keeps_the_plans_cursor(conn: psycopg.Connection[Any]) -> None:
    # the rows of a direct read are the caller's, not the cursor's: the cursor stays reusable
    from langgraph_actionckpt.db._sync_driver import SyncDriver

    driver = SyncDriver(conn)

    def lone() -> Any:
        rows = yield Op("SELECT %s::int AS n", [1], "all", prepare=True)
        return rows

    # a plan's first statement that goes direct is sent by the driver itself: no cursor
    assert driver.run(lone) == [(1,)]
    assert "_actionckpt_cursor" not in conn.__dict__

    def plan() -> Any:
        yield Op("SET application_name = 'direct-test'")  # through the cursor, no rows
        rows = yield Op("SELECT %s::int AS n", [1], "all", prepare=True)
        return rows

    assert driver.run(plan) == [(1,)]
    kept = conn.__dict__.get("_actionckpt_cursor")
    assert kept is not None
    assert driver.run(plan) == [(1,)]
    assert conn.__dict__.get("_actionckpt_cursor") is kept
