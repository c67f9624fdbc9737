"""The async driver keeps the last pooled connection for the next plan (``db.kept``).

A lone graph's plans then borrow from the pool about once per run instead of once per
superstep. The pool must still see every connection: an idle one goes back after
``KEEP_IDLE``, a busy one after ``KEEP_MAX``; a connection killed while kept is
replaced; closing the saver gives it back; a connection inside a transaction is never
kept; many graphs on a small pool never wait for a kept connection. The sync driver
keeps nothing (its plans run on the callers' threads).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.db import kept
from langgraph_actionckpt.db.kept import AsyncKeptConnection

from .test_saver import _tagged, _terminate_backends

NODES = 6


class State(TypedDict):
    x: int


def _chain(is_async: bool) -> Any:
    builder: StateGraph[State] = StateGraph(State)
    prev = START
    for i in range(NODES):
        if is_async:

            async def step(state: State) -> dict[str, Any]:
                return {"x": state["x"] + 1}

        else:

            def step(state: State) -> dict[str, Any]:  # type: ignore[misc]
                return {"x": state["x"] + 1}

        builder.add_node(f"n{i}", step)
        builder.add_edge(prev, f"n{i}")
        prev = f"n{i}"
    builder.add_edge(prev, END)
    return builder


def _config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def _requests(pool: Any) -> int:
    return int(pool.get_stats().get("requests_num", 0))


async def _run_alone(saver: AsyncActionSaver, thread: str) -> int:
    """Run the chain once; the pool's borrows it took."""
    pool = saver.driver.conn
    before = _requests(pool)
    graph = _chain(True).compile(checkpointer=saver)
    out = await graph.ainvoke({"x": 0}, _config(thread), durability="sync")
    assert out == {"x": NODES}
    return _requests(pool) - before


async def test_a_lone_graph_borrows_from_the_pool_about_once(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 30.0)  # no idle return under a slow CI machine
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        await _run_alone(saver, "warm")
        borrows = await _run_alone(saver, "t1")
        # one put per superstep (NODES + 2) and a read, on one kept connection
        assert borrows <= 1


async def test_without_keeping_every_plan_borrows(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(AsyncKeptConnection, "keep", lambda self, conn: False)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        assert await _run_alone(saver, "t1") >= NODES + 2


async def test_a_busy_connection_goes_back_to_the_pool_after_keep_max(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 30.0)
    monkeypatch.setattr(kept, "KEEP_MAX", 0.0)  # every other give-back goes to the pool
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        assert await _run_alone(saver, "t1") >= (NODES + 2) // 2


async def test_an_idle_kept_connection_goes_back_to_the_pool(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 0.05)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        await _run_alone(saver, "t1")
        pool = saver.driver.conn
        for _ in range(200):  # the timer gives it back within KEEP_IDLE
            stats = pool.get_stats()
            if stats["pool_available"] == stats["pool_size"]:
                break
            await asyncio.sleep(0.05)
        stats = pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"]


async def test_closing_the_saver_gives_the_kept_connection_back(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 30.0)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        await _run_alone(saver, "t1")
        pool = saver.driver.conn
        stats = pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"] - 1  # the kept one is out
        await saver.aclose()
        stats = pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"]


async def test_a_kept_connection_killed_while_idle_is_replaced(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 30.0)
    async with AsyncActionSaver.from_conn_string(
        _tagged(dsn, schema), schema=schema, pool_size=2
    ) as saver:
        await saver.setup()
        await _run_alone(saver, "before")
        assert await asyncio.to_thread(_terminate_backends, dsn, schema) >= 1
        await _run_alone(saver, "after")
        graph = _chain(True).compile(checkpointer=saver)
        state = await graph.aget_state(_config("after"))
        assert state.values == {"x": NODES}


async def test_a_connection_inside_a_transaction_is_never_kept(dsn: str) -> None:
    async with AsyncConnectionPool(dsn, min_size=1, max_size=1, open=False) as pool:
        keeper = AsyncKeptConnection(pool)
        conn = await pool.getconn()
        try:
            await conn.execute("SELECT 1")  # not autocommit: a transaction is open
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            assert not keeper.keep(conn)
            await conn.rollback()
            assert keeper.keep(conn)
            assert keeper.take() is conn
            assert keeper.take() is None
        finally:
            await pool.putconn(conn)
        await keeper.release()


async def test_many_graphs_on_a_small_pool_never_wait_for_the_kept_one(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "KEEP_IDLE", 30.0)  # a kept connection would never come back
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, pool_size=2, group_commit=False
    ) as saver:
        await saver.setup()
        await _run_alone(saver, "warm")  # one connection is kept now
        graph = _chain(True).compile(checkpointer=saver)
        outs = await asyncio.wait_for(
            asyncio.gather(*(graph.ainvoke({"x": 0}, _config(f"g{i}")) for i in range(8))),
            timeout=60,  # the pool's own timeout is 30 s: a stall would fail there first
        )
        assert outs == [{"x": NODES}] * 8


def test_the_sync_driver_keeps_nothing(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=2) as saver:
        saver.setup()
        pool = saver.driver.conn
        graph = _chain(False).compile(checkpointer=saver)
        before = _requests(pool)
        assert graph.invoke({"x": 0}, _config("t1"), durability="sync") == {"x": NODES}
        assert _requests(pool) - before >= NODES + 2
        stats = pool.get_stats()
        assert stats["pool_available"] == stats["pool_size"]
