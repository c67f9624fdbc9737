"""The same-rows floors of ``benchmarks/floors.py`` store what ours stores (counts, never times)."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg

from benchmarks import same_rows
from benchmarks.bench_saver import build_chain, thread_config
from benchmarks.floors import capture_recorded
from benchmarks.savers import OUR_SCHEMA, BenchEnv, scratch_database
from langgraph_actionckpt import ActionSaver

NODES = 3
FLOOR = "floor_x"


def _per_thread(conn: psycopg.Connection[Any], schema: str, thread_id: str) -> dict[str, int]:
    out = {}
    for table in same_rows.TABLES:
        row = conn.execute(
            f"SELECT count(*) FROM {schema}.{table} WHERE thread_id = %s", [thread_id]
        ).fetchone()
        out[table] = int(row[0]) if row else 0
    row = conn.execute(
        f"SELECT sum(octet_length(checkpoint)) FROM {schema}.checkpoints WHERE thread_id = %s",
        [thread_id],
    ).fetchone()
    out["checkpoint bytes"] = int(row[0]) if row else 0
    return out


def test_floor_inserts_the_rows_ours_stored(pg15_dsn: str) -> None:
    with (
        scratch_database(BenchEnv(dsn=pg15_dsn)) as dsn,
        ActionSaver.from_conn_string(dsn, schema=OUR_SCHEMA) as saver,
        psycopg.Connection.connect(dsn, autocommit=True) as conn,
    ):
        saver.setup()
        build_chain(NODES, is_async=False).compile(checkpointer=saver).invoke(
            {"x": 0}, thread_config("ours"), durability="sync"
        )
        ours = _per_thread(conn, OUR_SCHEMA, "ours")
        steps = same_rows.capture_steps(conn, OUR_SCHEMA, "ours")
        assert len(steps) == NODES + 2  # the input checkpoint, START's, one per node
        assert sum(s.count() for s in steps) == sum(ours[t] for t in same_rows.TABLES)
        assert ours["actions"] == NODES

        same_rows.create_floor_schema(conn, FLOOR)
        assert same_rows.index_definitions(conn, FLOOR) == same_rows.index_definitions(
            conn, OUR_SCHEMA
        )
        prepared = same_rows.prepare(conn, FLOOR, steps)
        for shape in same_rows.SHAPES:
            floor = same_rows.SameRowsFloorSaver(conn, prepared, shape)
            graph = build_chain(NODES, is_async=False).compile(checkpointer=floor)
            assert graph.invoke({"x": 0}, thread_config(shape), durability="sync") == {"x": NODES}
            assert _per_thread(conn, FLOOR, shape) == ours, shape

        async def run_async() -> None:
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
                for shape in same_rows.SHAPES:
                    floor = same_rows.AsyncSameRowsFloorSaver(aconn, prepared, shape)
                    graph = build_chain(NODES, is_async=True).compile(checkpointer=floor)
                    config = thread_config(f"async-{shape}")
                    await graph.ainvoke({"x": 0}, config, durability="async")

        asyncio.run(run_async())
        for shape in same_rows.SHAPES:
            assert _per_thread(conn, FLOOR, f"async-{shape}") == ours, shape
        timings = same_rows.time_shapes(conn, prepared, rounds=1, threads=1)
        assert {t.shape for t in timings} == set(same_rows.SHAPES)


def test_copy_floor_loads_the_action_rows_the_handler_stored(pg15_dsn: str) -> None:
    with scratch_database(BenchEnv(dsn=pg15_dsn)) as dsn:
        columns, lines = capture_recorded(dsn, 30)
        assert len(lines) == 30
        assert "step_index" not in columns.names
        with psycopg.Connection.connect(dsn, autocommit=True) as conn:
            same_rows.create_floor_schema(conn, FLOOR)
            same_rows.copy_floor(conn, FLOOR, columns, lines)
            assert same_rows.row_counts(conn, FLOOR)["actions"] == 30
            stored = conn.execute(
                f"SELECT count(*) FROM {FLOOR}.actions WHERE status = 'completed'"
            )
            assert stored.fetchone() == (30,)
