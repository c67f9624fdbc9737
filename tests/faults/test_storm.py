"""A storm under a statement timeout: every thread resumable to its uninterrupted state.

Issue #28, finding 5: many concurrent async runs on a small pool, as a role with
a short ``statement_timeout``, while another session holds ACCESS EXCLUSIVE on
the checkpoints table. Runs fail with ``QueryCanceled`` (expected); afterwards a
fresh saver must resume every thread to the state an uninterrupted run ends in.
Correctness only: the latencies are ``benchmarks.storm``'s.
"""

from __future__ import annotations

import asyncio
import logging
import operator
import threading
import time
import uuid
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from psycopg import sql

from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver
from tests.faults.servers import PrivatePostgres

RUNS = 200  # the storm: 200 concurrent runs on a pool of 10
POOL = 10
STEPS = 4
LOCK_SECONDS = 1.5


class StormState(TypedDict):
    log: Annotated[list[str], operator.add]


def storm_graph(saver: Any) -> Any:
    """``STEPS`` nodes in a chain, then two in parallel; each appends its name."""
    builder: StateGraph[Any] = StateGraph(StormState)

    def make(name: str) -> Any:
        async def node(state: StormState) -> dict[str, list[str]]:
            await asyncio.sleep(0.005)
            return {"log": [name]}

        return node

    names = [f"s{i}" for i in range(STEPS)]
    for i, name in enumerate(names):
        builder.add_node(name, make(name))
        builder.add_edge(START if i == 0 else names[i - 1], name)
    for side in ("pa", "pb"):
        builder.add_node(side, make(side))
        builder.add_edge(names[-1], side)
        builder.add_edge(side, END)
    return builder.compile(checkpointer=saver)


def final_log(thread: str) -> list[str]:
    """What an uninterrupted run of ``thread`` ends with (its input, then every node)."""
    return [thread, *(f"s{i}" for i in range(STEPS)), "pa", "pb"]


def _lock_table(dsn: str, schema: str, started: threading.Event) -> None:
    with psycopg.connect(dsn) as conn:
        conn.execute(
            sql.SQL("LOCK TABLE {}.checkpoints IN ACCESS EXCLUSIVE MODE").format(
                sql.Identifier(schema)
            )
        )
        started.set()
        time.sleep(LOCK_SECONDS)
        conn.rollback()


@pytest.fixture
def timeout_role(private_pg: PrivatePostgres) -> str:
    """The DSN of a role whose statements time out after 50 ms."""
    role = f"storm_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN SUPERUSER").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("ALTER ROLE {} SET statement_timeout = '50ms'").format(sql.Identifier(role))
        )
    return private_pg.dsn.replace("postgres@", f"{role}@")


async def test_storm_under_statement_timeout_resumes_every_thread(
    private_pg: PrivatePostgres,
    fault_schema: str,
    timeout_role: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    async with AsyncActionSaver.from_conn_string(private_pg.dsn, schema=fault_schema) as s:
        await s.setup()
    threads = [f"t{i}" for i in range(RUNS)]
    failed: list[BaseException] = []
    locked = threading.Event()
    async with AsyncActionSaver.from_conn_string(
        timeout_role, schema=fault_schema, pool_size=POOL
    ) as saver:
        graph = storm_graph(saver)
        handler = AsyncActionCallbackHandler(saver)

        async def one(thread: str, delay: float) -> None:
            await asyncio.sleep(delay)
            config = {"configurable": {"thread_id": thread}, "callbacks": [handler]}
            try:
                await graph.ainvoke({"log": [thread]}, config)
            except Exception as exc:  # noqa: BLE001 - expected: the runs the timeout stopped
                failed.append(exc)

        locker = threading.Thread(
            target=_lock_table, args=(private_pg.dsn, fault_schema, locked), daemon=True
        )
        runs = [one(t, 0.002 * i) for i, t in enumerate(threads)]
        locker.start()
        await asyncio.gather(*runs)
        locker.join()
    assert locked.is_set()
    assert failed, "the lock and the timeout stopped no run: the storm tested nothing"

    async with AsyncActionSaver.from_conn_string(private_pg.dsn, schema=fault_schema) as fresh:
        graph = storm_graph(fresh)
        wrong = {}
        for thread in threads:
            config = {"configurable": {"thread_id": thread}}
            state = await graph.aget_state(config)
            if state.next or not state.values:
                out = await graph.ainvoke(None if state.values else {"log": [thread]}, config)
            else:
                out = state.values
            if sorted(out["log"]) != sorted(final_log(thread)):
                wrong[thread] = out["log"]
    assert wrong == {}, f"{len(wrong)} of {RUNS} threads not resumable to their final state"


async def test_timed_out_pipelined_flush_keeps_its_held_writes(
    private_pg: PrivatePostgres, fault_schema: str, timeout_role: str
) -> None:
    """The writer's tick stores held writes pipelined; a timeout there must put them back."""
    async with AsyncActionSaver.from_conn_string(
        timeout_role, schema=fault_schema, setup=True, pool_size=2
    ) as saver:
        config = {"configurable": {"thread_id": "held", "checkpoint_ns": "", "checkpoint_id": "c1"}}
        await saver.aput_writes(config, [("log", ["x"]), ("log", ["y"])], "task-1")
        assert saver.store.held.pending.threads() == ["held"]
        await asyncio.sleep(saver.writer.interval)  # old enough for the tick
        with psycopg.connect(private_pg.dsn) as blocker:
            blocker.execute(
                sql.SQL("LOCK TABLE {}.writes IN ACCESS EXCLUSIVE MODE").format(
                    sql.Identifier(fault_schema)
                )
            )
            with pytest.raises(psycopg.errors.QueryCanceled):
                await saver.runner.run(saver.store.held.plan_flush_on_tick, pipeline=True)
            blocker.rollback()
        assert saver.store.held.pending.threads() == ["held"], "the timed-out flush lost its writes"
        await saver.aflush_writes()
    with psycopg.connect(private_pg.dsn) as conn:
        stored = conn.execute(
            sql.SQL("SELECT count(*) FROM {}.writes").format(sql.Identifier(fault_schema))
        ).fetchone()
    assert stored == (1,)  # a task's call is one row


async def test_cancelled_flush_at_the_run_end_keeps_its_rows(
    private_pg: PrivatePostgres, fault_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handler's flush at the root run's end hit a timeout: the run ends, rows retried."""
    async with AsyncActionSaver.from_conn_string(
        private_pg.dsn, schema=fault_schema, setup=True
    ) as saver:
        graph = storm_graph(saver)
        handler = AsyncActionCallbackHandler(saver)
        real_write, real_flush = saver.writer._write, handler.aflush
        cancels = [psycopg.errors.QueryCanceled("canceling statement due to statement timeout")]
        armed: list[bool] = []

        async def flaky(rows: Any) -> None:
            if armed and cancels:
                raise cancels.pop()
            await real_write(rows)

        async def end_flush() -> None:  # the handler's flush at the root run's end
            armed.append(True)
            await real_flush()

        monkeypatch.setattr(saver.writer, "_write", flaky)
        monkeypatch.setattr(handler, "aflush", end_flush)
        out = await graph.ainvoke(
            {"log": ["t"]}, {"configurable": {"thread_id": "t"}, "callbacks": [handler]}
        )
        assert out["log"] == final_log("t")
        assert not cancels, "the flush at the run's end was not cancelled: nothing tested"
        await saver.writer.aflush()
        nodes = await saver.alist_actions("t")
    assert {a.name for a in nodes} >= {f"s{i}" for i in range(STEPS)}
