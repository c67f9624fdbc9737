"""Distributed schemas: the distribution step, and what must hold on every server.

The tests taking ``dsn`` run on each server under test; under
``ACTIONCKPT_TEST_SERVERS=citus`` that is the coordinator of a real Citus
cluster with every schema distributed (see ``tests/conftest.py``). The tests
taking ``citus`` always start (or reuse) a cluster of their own.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from psycopg import sql

from langgraph_actionckpt import ActionRecord, ActionSaver, AsyncActionSaver
from langgraph_actionckpt.actions.records import JSON_THRESHOLD
from langgraph_actionckpt.db.distribute import DISTRIBUTED_TABLES
from langgraph_actionckpt.errors import MigrationError

from .conftest import (
    SERVERS,
    drop_schema,
    fetch,
    new_schema_name,
    require_server,
    server_dsn,
)


def _record(i: int, status: str = "completed") -> ActionRecord:
    return ActionRecord(
        thread_id=f"t{i % 7}", action_id=f"a{i}", action_type="tool", name="x", status=status
    )


def test_a_large_batch_meeting_stored_rows_loses_none(dsn: str, schema: str) -> None:
    """A batch taken to be new (inserted without merging) that meets stored rows.

    PostgreSQL reports the conflict as a unique violation (23505), Citus as an
    internal error (XX000) with the worker's message: either way the writer
    writes the batch again, merging, and every row lands.
    """
    n = JSON_THRESHOLD * 3
    with ActionSaver.from_conn_string(dsn, schema=schema, writer_interval=3600.0) as saver:
        saver.setup()
        for i in range(0, n, 5):  # some of the batch's rows are stored already
            saver.writer.enqueue(_record(i, "running"))
        saver.writer.flush()
        for i in range(n):
            saver.writer.enqueue(_record(i))
        saver.writer.flush()
        assert saver.writer.depth == 0
    rows = fetch(
        dsn,
        sql.SQL("SELECT status, count(*) FROM {}.actions GROUP BY status")
        .format(sql.Identifier(schema))
        .as_string(),
    )
    assert dict(rows) == {"completed": n}


async def test_a_large_batch_meeting_stored_rows_loses_none_async(dsn: str, schema: str) -> None:
    n = JSON_THRESHOLD * 2
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, writer_interval=3600.0
    ) as saver:
        await saver.setup()
        for i in range(0, n, 3):
            saver.writer.enqueue(_record(i, "running"))
        await saver.writer.aflush()
        for i in range(n):
            saver.writer.enqueue(_record(i))
        await saver.writer.aflush()
    rows = fetch(
        dsn,
        sql.SQL("SELECT count(*) FROM {}.actions WHERE status = 'completed'")
        .format(sql.Identifier(schema))
        .as_string(),
    )
    assert rows == [(n,)]


def test_distributing_without_citus_is_a_clear_error() -> None:
    pg15_dsn = require_server("pg15")  # the plain server, also when testing on Citus
    schema = new_schema_name()
    try:
        with (
            ActionSaver.from_conn_string(pg15_dsn, schema=schema) as saver,
            pytest.raises(MigrationError, match="no citus extension"),
        ):
            saver.setup(distributed=True)
    finally:
        drop_schema(pg15_dsn, schema)


# ------------------------------------------------------------------ on Citus


@pytest.fixture(scope="module")
def citus() -> Iterator[str]:
    """The coordinator of a Citus cluster (the session's, or one started here)."""
    from tests.citus_cluster import CitusCluster, missing_citus

    if "citus" in SERVERS or os.environ.get("ACTIONCKPT_TEST_CITUS"):
        yield server_dsn("citus")
        return
    reason = missing_citus()
    if reason is not None:
        if os.environ.get("ACTIONCKPT_REQUIRE_CITUS") == "1":
            pytest.fail(f"Citus required (ACTIONCKPT_REQUIRE_CITUS=1) but {reason}")
        pytest.skip(f"needs a Citus cluster: {reason}")
    cluster = CitusCluster()
    try:
        yield cluster.dsn
    finally:
        cluster.close()


def _distribution(dsn: str, schema: str) -> dict[str, str]:
    rows = fetch(
        dsn,
        "SELECT c.relname, p.partmethod FROM pg_dist_partition p "
        "JOIN pg_class c ON c.oid = p.logicalrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s",
        (schema,),
    )
    return dict(rows)


class _State(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _graph() -> Any:
    def step(state: _State) -> dict[str, Any]:
        return {"n": state["n"] + 1, "log": [f"s{state['n']}"]}

    g = StateGraph(_State)
    g.add_node("a", step)
    g.add_node("b", step)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g


def test_setup_distributes_every_per_thread_table_once(citus: str) -> None:
    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(citus, schema=schema) as saver:
            saver.setup(distributed=True)
        assert _distribution(citus, schema) == dict.fromkeys(DISTRIBUTED_TABLES, "h")
        # co-located with checkpoints: a thread's rows are on one node
        groups = fetch(
            citus,
            "SELECT DISTINCT colocationid FROM pg_dist_partition p JOIN pg_class c "
            "ON c.oid = p.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s",
            (schema,),
        )
        assert len(groups) == 1
        # again, by a second process's saver and by the CLI's runner: nothing changes
        with ActionSaver.from_conn_string(citus, schema=schema) as saver:
            saver.setup(distributed=True)
        from typer.testing import CliRunner

        from langgraph_actionckpt.ops.cli import app

        out = CliRunner().invoke(
            app, ["migrate", "--dsn", citus, "--schema", schema, "--distributed"]
        )
        assert out.exit_code == 0, out.output
        assert _distribution(citus, schema) == dict.fromkeys(DISTRIBUTED_TABLES, "h")
    finally:
        drop_schema(citus, schema)


def test_a_migration_applies_to_an_already_distributed_schema(citus: str) -> None:
    schema = new_schema_name()
    ident = sql.Identifier(schema)
    try:
        with ActionSaver.from_conn_string(citus, schema=schema) as saver:
            saver.setup(distributed=True)
        # as if the schema predated the newest migration
        with psycopg.connect(citus, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP FUNCTION {}.resumed_meta").format(ident))
            conn.execute(sql.SQL("DELETE FROM {}.migrations WHERE v = 9").format(ident))
        with ActionSaver.from_conn_string(citus, schema=schema) as saver:
            saver.setup(distributed=True)
            graph = _graph().compile(checkpointer=saver)
            out = graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "m"}})
        assert out == {"n": 2, "log": ["s0", "s1"]}
        assert fetch(citus, sql.SQL("SELECT max(v) FROM {}.migrations").format(ident).as_string())
    finally:
        drop_schema(citus, schema)


def test_threads_spread_over_both_workers(citus: str) -> None:
    from tests.citus_cluster import rows_per_worker

    schema = new_schema_name()
    try:
        with ActionSaver.from_conn_string(citus, schema=schema) as saver:
            saver.setup(distributed=True)
            graph = _graph().compile(checkpointer=saver)
            for i in range(20):
                cfg: Any = {"configurable": {"thread_id": f"thread-{i}"}}
                assert graph.invoke({"n": 0, "log": []}, cfg)["n"] == 2
            assert {t.config["configurable"]["thread_id"] for t in saver.list(None)} == {
                f"thread-{i}" for i in range(20)
            }
        placements = fetch(
            citus,
            "SELECT DISTINCT nodeport FROM pg_dist_shard s JOIN pg_dist_placement p "
            "ON p.shardid = s.shardid JOIN pg_dist_node d ON d.groupid = p.groupid "
            "WHERE s.logicalrelid = %s::regclass",
            (f'"{schema}".checkpoints',),
        )
        assert len(placements) == 2
        counts = rows_per_worker(citus, schema, "checkpoints")
        assert len([c for c in counts.values() if c > 0]) == 2, counts
    finally:
        drop_schema(citus, schema)
