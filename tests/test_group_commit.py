"""Group commit: checkpoints of graphs running at once share one transaction.

``AsyncActionSaver`` on a pool queues the puts that arrive while others are being
written and commits them together. Each caller must still get its own outcome:
a failing write in a group is written again alone and fails alone.
"""

from __future__ import annotations

import asyncio
import logging
import operator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import AsyncActionSaver
from langgraph_actionckpt.db.driver import Op, Plan

THREADS = 32
NODES = 5


class ChainState(TypedDict):
    x: int
    trail: Annotated[list[str], operator.add]


def _chain() -> StateGraph[ChainState]:
    builder: StateGraph[ChainState] = StateGraph(ChainState)
    prev = START
    for i in range(NODES):

        async def step(state: ChainState, i: int = i) -> dict[str, Any]:
            await asyncio.sleep(0)
            return {"x": state["x"] + 1, "trail": [f"n{i}"]}

        builder.add_node(f"n{i}", step)
        builder.add_edge(prev, f"n{i}")
        prev = f"n{i}"
    builder.add_edge(prev, END)
    return builder


@pytest.mark.parametrize("durability", ["sync", "async"])
async def test_concurrent_graphs_share_commits_and_keep_their_state(
    dsn: str, schema: str, durability: str
) -> None:
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        graph = _chain().compile(checkpointer=saver)
        configs: list[Any] = [{"configurable": {"thread_id": f"t{i}"}} for i in range(THREADS)]
        outs = await asyncio.gather(
            *(graph.ainvoke({"x": 0, "trail": []}, c, durability=durability) for c in configs)
        )
        expected = {"x": NODES, "trail": [f"n{i}" for i in range(NODES)]}
        assert outs == [expected] * THREADS
        assert saver.driver.grouped > 0  # the grouped path ran
        # a fresh graph reads every thread's whole history back
        reader = _chain().compile(checkpointer=saver)
        for config in configs:
            history = [s async for s in reader.aget_state_history(config)]
            assert [s.values.get("x") for s in history] == [5, 4, 3, 2, 1, 0, None]
        nodes = [a for a in await saver.alist_actions() if a.action_type == "node"]
        assert len(nodes) == THREADS * NODES


async def test_writes_arriving_while_one_is_in_flight_go_out_as_one_group(
    dsn: str, schema: str
) -> None:
    """One write in flight at a time: the others wait for it, then share one commit."""
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=10) as saver:
        await saver.setup()
        configs: list[Any] = [
            {"configurable": {"thread_id": f"w{i}", "checkpoint_ns": ""}} for i in range(10)
        ]
        await asyncio.gather(
            *(saver.aput(c, empty_checkpoint(), {"step": -1}, {}) for c in configs)
        )
        assert saver.driver.grouped == 9  # the first went alone, the nine others together
        for config in configs:
            assert await saver.aget_tuple(config) is not None


async def test_reads_arriving_while_one_is_in_flight_share_a_round_trip(
    dsn: str, schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Each read gets its own thread's checkpoint (or None); a failing one fails alone."""
    caplog.set_level(logging.DEBUG, logger="langgraph_actionckpt")

    def bad_read() -> Plan[Any]:
        return (yield Op("SELECT 1/0", fetch="one"))

    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        configs: list[Any] = [
            {"configurable": {"thread_id": f"r{i}", "checkpoint_ns": ""}} for i in range(12)
        ]
        for config in configs[::2]:
            await saver.aput(config, empty_checkpoint(), {"step": -1}, {})
        reads = [saver.aget_tuple(c) for c in configs]
        bad = [saver.driver.run_read(bad_read) for _ in range(2)]
        results = await asyncio.gather(*reads[:5], *bad, *reads[5:], return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        assert len(errors) == 2
        assert all(isinstance(e, psycopg.errors.DivisionByZero) for e in errors)
        tuples = [r for r in results if not isinstance(r, BaseException)]
        for config, got in zip(configs, tuples, strict=True):
            stored = configs.index(config) % 2 == 0
            assert (got is not None) == stored
            if got is not None:
                assert (
                    got.config["configurable"]["thread_id"] == config["configurable"]["thread_id"]
                )
        # they did meet in a batch, which failed as a whole first
        assert any("running them one by one" in r.getMessage() for r in caplog.records)
        found = await asyncio.gather(*(saver.aget_tuple(c) for c in configs))
        assert [t is not None for t in found] == [i % 2 == 0 for i in range(12)]
        assert saver.driver.batched_reads >= 11


async def test_a_put_takes_its_held_writes_when_called(dsn: str, schema: str) -> None:
    """Held writes leave the buffer when ``put`` is called, not when its group starts.

    While the put waits for the write in flight, the writer's tick cannot store them
    on their own; a put that fails before any plan of it ran puts them back.
    """

    def in_flight() -> Plan[None]:
        yield Op(params=[0.2], fetch="sleep")

    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        config: Any = {"configurable": {"thread_id": "h", "checkpoint_ns": ""}}
        first = await saver.aput(config, empty_checkpoint(), {"step": -1}, {})
        await saver.aput_writes(first, [("x", 1)], "task-1")
        assert len(saver.store.held.pending) == 1
        blocker = asyncio.create_task(saver.driver.run_grouped(in_flight))
        await asyncio.sleep(0)
        put = asyncio.create_task(saver.aput(first, empty_checkpoint(), {"step": 0}, {}))
        await asyncio.sleep(0.05)
        assert not put.done()  # queued behind the write in flight
        assert len(saver.store.held.pending) == 0  # its writes went with it
        await blocker
        await put
        stored = await saver.aget_tuple(first)
        assert stored is not None
        assert [(task, ch, value) for task, ch, value in stored.pending_writes] == [
            ("task-1", "x", 1)
        ]

        await saver.aput_writes(first, [("y", 2)], "task-2")

        async def no_connection(factory: Any) -> Any:
            raise psycopg.OperationalError("no connection")

        saver.driver.run_write = no_connection  # type: ignore[method-assign]
        with pytest.raises(psycopg.OperationalError):
            await saver.aput(first, empty_checkpoint(), {"step": 0}, {})
        assert len(saver.store.held.pending) == 1  # back in the buffer


async def test_a_failing_write_fails_alone(
    dsn: str, schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A group with one bad statement is rolled back and written again one by one."""
    caplog.set_level(logging.DEBUG, logger="langgraph_actionckpt")

    def bad_plan() -> Plan[None]:
        yield Op("SELECT 1/0")

    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        configs: list[Any] = [
            {"configurable": {"thread_id": f"g{i}", "checkpoint_ns": ""}} for i in range(12)
        ]
        puts = [saver.aput(c, empty_checkpoint(), {"step": -1}, {}) for c in configs]
        bad = [saver.driver.run_grouped(bad_plan) for _ in range(3)]
        results = await asyncio.gather(*puts[:6], *bad, *puts[6:], return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        assert len(errors) == 3
        assert all(isinstance(e, psycopg.errors.DivisionByZero) for e in errors)
        for config in configs:
            assert await saver.aget_tuple(config) is not None
        # they did meet in a group, which failed as a whole first
        assert any("writing them one by one" in r.getMessage() for r in caplog.records)


async def test_concurrent_agents_with_the_handler_do_not_deadlock(
    dsn: str, schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Grouped puts and the action writer both upsert node rows of many threads;
    both lock them thread by thread in ascending order, so neither waits on the
    other in a cycle (a deadlock would show as a failed group or writer flush)."""
    from langchain_core.messages import HumanMessage

    from langgraph_actionckpt import AsyncActionCallbackHandler

    from .test_actions import _check_log, _normalized, build_graph

    caplog.set_level(logging.DEBUG, logger="langgraph_actionckpt")
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=4) as saver:
        await saver.setup()
        graph = build_graph(is_async=True).compile(checkpointer=saver)
        handler = AsyncActionCallbackHandler(saver)
        threads = [f"agent-{i:02d}" for i in range(24)]
        outs = await asyncio.gather(
            *(
                graph.ainvoke(
                    {"messages": [HumanMessage("add some numbers")]},
                    {"configurable": {"thread_id": t}, "callbacks": [handler]},
                )
                for t in threads
            )
        )
        assert all(o["messages"][-1].content.startswith("answer-") for o in outs)
        logs = [await saver.alist_actions(t) for t in threads]
        for rows in logs:
            _check_log(rows)
            assert _normalized(rows) == _normalized(logs[0])
        assert saver.driver.grouped > 0
    problems = [
        r.getMessage()
        for r in caplog.records
        if "one by one" in r.getMessage() or "flush failed" in r.getMessage()
    ]
    assert problems == []


async def test_groups_survive_killed_backends(dsn: str, schema: str) -> None:
    """Every pooled backend killed between two waves (a server restart, a proxy
    reaping idle connections): grouped and lone puts retry on fresh connections."""
    from .test_saver import _tagged, _terminate_backends

    async with AsyncActionSaver.from_conn_string(
        _tagged(dsn, schema), schema=schema, pool_size=4
    ) as saver:
        await saver.setup()
        graph = _chain().compile(checkpointer=saver)

        async def wave(prefix: str) -> list[Any]:
            return await asyncio.gather(
                *(
                    graph.ainvoke(
                        {"x": 0, "trail": []}, {"configurable": {"thread_id": f"{prefix}{i}"}}
                    )
                    for i in range(16)
                )
            )

        expected = {"x": NODES, "trail": [f"n{i}" for i in range(NODES)]}
        assert await wave("before-") == [expected] * 16
        assert await asyncio.to_thread(_terminate_backends, dsn, schema) >= 1
        assert await wave("after-") == [expected] * 16
        for i in range(16):
            state = await graph.aget_state({"configurable": {"thread_id": f"after-{i}"}})
            assert state.values == expected


@pytest.mark.parametrize(
    ("prepare_threshold", "pipeline"), [(None, False), (0, True)], ids=["no-prepare", "pipeline"]
)
async def test_groups_with_connection_variants(
    dsn: str, schema: str, prepare_threshold: int | None, pipeline: bool
) -> None:
    """Statements never prepared (as behind pgbouncer) and the saver's own pipeline mode."""
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, pool_size=4, prepare_threshold=prepare_threshold, pipeline=pipeline
    ) as saver:
        await saver.setup()
        graph = _chain().compile(checkpointer=saver)
        outs = await asyncio.gather(
            *(
                graph.ainvoke({"x": 0, "trail": []}, {"configurable": {"thread_id": f"v{i}"}})
                for i in range(16)
            )
        )
        assert all(o["x"] == NODES for o in outs)
        assert saver.driver.grouped > 0
