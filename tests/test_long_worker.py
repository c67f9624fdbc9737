"""A worker that runs for weeks: per-run cost that does not grow with the threads it ran.

Issue #28, finding 7: the lease keeper set its connection up again (a new JSON
dumper class each time) for every acquire and every heartbeat renewal, so every
run made the next slower. The soak figures are in ``benchmarks.soak_worker``;
these tests check the causes, without timings.
"""

from __future__ import annotations

from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from psycopg.types.json import Jsonb

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)
from langgraph_actionckpt.db import _sync_driver
from langgraph_actionckpt.db.driver import configure_connection
from langgraph_actionckpt.db.fence import LeaseKeeper

RUNS = 25


class S(TypedDict):
    n: int


def _graph(saver: Any) -> Any:
    def step(state: S) -> S:
        return {"n": state["n"] + 1}

    builder = StateGraph(S)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=saver)


@pytest.fixture
def setups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the connections the sync driver (the lease keeper's) set up, one per call."""
    seen: list[int] = []

    def counting(conn: Any) -> None:
        seen.append(id(conn))
        configure_connection(conn)

    monkeypatch.setattr(_sync_driver, "configure_connection", counting)
    return seen


def _check_keeper(keeper: LeaseKeeper | None, setups: list[int]) -> None:
    assert keeper is not None
    assert keeper._held == {}, "released leases must be forgotten"
    # one set-up per connection the keeper opened, not per acquire/release
    assert len(setups) == len(set(setups)) == 1


def test_sync_worker_sets_its_lease_connection_up_once(
    dsn: str, schema: str, setups: list[int]
) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema, setup=True) as saver:
        graph = _graph(saver)
        handler = ActionCallbackHandler(saver)
        for i in range(RUNS):
            config = {"configurable": {"thread_id": f"w-{i}"}, "callbacks": [handler]}
            assert graph.invoke({"n": i}, config) == {"n": i + 1}
        _check_keeper(saver.leases, setups)


async def test_async_worker_sets_its_lease_connection_up_once(
    dsn: str, schema: str, setups: list[int]
) -> None:
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, setup=True) as saver:
        graph = _graph(saver)
        handler = AsyncActionCallbackHandler(saver)
        for i in range(RUNS):
            config = {"configurable": {"thread_id": f"w-{i}"}, "callbacks": [handler]}
            assert await graph.ainvoke({"n": i}, config) == {"n": i + 1}
        _check_keeper(saver.leases, setups)
        saver.leases.renew_now()  # nothing held: nothing renewed, nothing remembered
        assert saver.leases._held == {}


def test_configure_connection_twice_keeps_the_dumper(dsn: str) -> None:
    with psycopg.connect(dsn) as conn:
        configure_connection(conn)
        first = conn.adapters.get_dumper(Jsonb, psycopg.adapt.PyFormat.BINARY)
        configure_connection(conn)
        assert conn.adapters.get_dumper(Jsonb, psycopg.adapt.PyFormat.BINARY) is first


def test_heartbeat_renews_only_live_leases(dsn: str, saver: ActionSaver) -> None:
    keeper = LeaseKeeper(dsn, saver.schema, ttl=30.0)
    renewed: list[str] = []
    real = keeper._renew

    def spy(thread_id: str, token: int) -> bool:
        renewed.append(thread_id)
        return real(thread_id, token)

    keeper._renew = spy  # type: ignore[method-assign]
    try:
        for t in ("a", "b", "c"):
            assert keeper.acquire(t)
        assert keeper.release("a") and keeper.release("c")
        keeper.renew_now()
        assert renewed == ["b"]
        assert set(keeper._held) == {"b"}
    finally:
        keeper.release_all()
