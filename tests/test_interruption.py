"""Issue 28, finding 0: an interruption is not a failure; resolve_action settles only unknowns.

A non-idempotent ``@action`` or tool whose side effect happened, then stopped
from outside (an ``asyncio`` cancellation from a ``wait_for`` timeout, a
``KeyboardInterrupt``, a ``SystemExit``), is logged ``interrupted``: the resume stops with
``InFlightActionError`` as after a SIGKILL, and ``resolve_action`` lets it go
on without a second side effect. ``resolve_action`` refuses a completed or
failed action unless ``override=True``, which keeps what it replaced.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from langgraph_actionckpt import (
    ActionSaver,
    AsyncActionSaver,
    InFlightActionError,
    OutcomeKnownError,
    action,
)

from .conftest import drop_schema, new_schema_name


class State(TypedDict, total=False):
    result: Any


@pytest.fixture
def pg(pg15_dsn: str) -> Iterator[tuple[str, str]]:
    """The system PostgreSQL and a fresh schema on it."""
    schema = new_schema_name()
    yield pg15_dsn, schema
    drop_schema(pg15_dsn, schema)


def _graph(node: Callable[..., Any], saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("work", node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder.compile(checkpointer=saver)


class Effects:
    """Counts side effects; ``stop`` is raised right after the first one."""

    def __init__(self, stop: type[BaseException] | None) -> None:
        self.count = 0
        self.stop = stop

    def happen(self) -> str:
        self.count += 1
        if self.count == 1 and self.stop is not None:
            raise self.stop()
        return f"charged #{self.count}"


def _sync_callable(kind: str, fx: Effects) -> Callable[[], Any]:
    """A node body calling a non-idempotent ``@action`` or tool once."""
    if kind == "action":

        @action(idempotent=False, name="charge")
        def charge(amount: int) -> str:
            return fx.happen()

        return lambda: charge(5)

    def charge_tool(amount: int) -> str:
        """Charge a card."""
        return fx.happen()

    t = StructuredTool.from_function(
        func=charge_tool, name="charge", metadata={"idempotent": False}
    )
    return lambda: t.invoke({"amount": 5})


def _async_callable(kind: str, fx: Effects, wait: bool) -> Callable[[], Any]:
    """An async node body calling a non-idempotent ``@action`` or tool once."""

    async def effect() -> str:
        out = fx.happen()
        if wait and fx.count == 1:
            await asyncio.sleep(30)  # cancelled here by the wait_for timeout
        return out

    if kind == "action":

        @action(idempotent=False, name="charge")
        async def charge(amount: int) -> str:
            return await effect()

        return lambda: charge(5)

    async def charge_tool(amount: int) -> str:
        """Charge a card."""
        return await effect()

    t = StructuredTool.from_function(
        coroutine=charge_tool, name="charge", metadata={"idempotent": False}
    )
    return lambda: t.ainvoke({"amount": 5})


def _settle_and_resume_sync(saver: ActionSaver, graph: Any, config: Any, fx: Effects) -> None:
    with pytest.raises(InFlightActionError) as info:
        graph.invoke(None, config)
    assert fx.count == 1
    rows = saver.list_actions(
        config["configurable"]["thread_id"], action_type=["function", "tool_call"]
    )
    assert [r.status for r in rows] == ["interrupted"]
    saver.resolve_action(info.value.thread_id, info.value.action_id, output="charged #1")
    final = graph.invoke(None, config)
    assert final["result"] == "charged #1"
    assert fx.count == 1  # the side effect happened once across the resume


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("kind", ["action", "tool"])
def test_sync_keyboard_interrupt_is_not_a_failure(
    pg: tuple[str, str], kind: str, stop: type[BaseException]
) -> None:
    """Ctrl-C, or a ``sys.exit()`` from a signal handler, right after the side effect."""
    dsn, schema = pg
    fx = Effects(stop)
    call = _sync_callable(kind, fx)
    config = {"configurable": {"thread_id": f"ki-{uuid.uuid4().hex[:8]}"}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _graph(lambda s: {"result": call()}, saver)
        with pytest.raises(stop):
            graph.invoke({}, config)
        _settle_and_resume_sync(saver, graph, config, fx)


async def _settle_and_resume_async(
    saver: AsyncActionSaver, graph: Any, config: Any, fx: Effects
) -> None:
    with pytest.raises(InFlightActionError) as info:
        await graph.ainvoke(None, config)
    assert fx.count == 1
    thread = config["configurable"]["thread_id"]
    rows = await saver.alist_actions(thread, action_type=["function", "tool_call"])
    assert [r.status for r in rows] == ["interrupted"]
    await saver.aresolve_action(thread, info.value.action_id, output="charged #1")
    final = await graph.ainvoke(None, config)
    assert final["result"] == "charged #1"
    assert fx.count == 1


@pytest.mark.parametrize("kind", ["action", "tool"])
async def test_async_cancellation_is_not_a_failure(pg: tuple[str, str], kind: str) -> None:
    dsn, schema = pg
    fx = Effects(None)
    call = _async_callable(kind, fx, wait=True)

    async def node(state: State) -> State:
        return {"result": await call()}

    config = {"configurable": {"thread_id": f"cancel-{uuid.uuid4().hex[:8]}"}}
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
        await saver.setup()
        graph = _graph(node, saver)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(graph.ainvoke({}, config), timeout=1.0)
        await _settle_and_resume_async(saver, graph, config, fx)


@pytest.mark.parametrize("kind", ["action", "tool"])
def test_async_keyboard_interrupt_is_not_a_failure(pg: tuple[str, str], kind: str) -> None:
    dsn, schema = pg
    fx = Effects(KeyboardInterrupt)
    call = _async_callable(kind, fx, wait=False)

    async def node(state: State) -> State:
        return {"result": await call()}

    config = {"configurable": {"thread_id": f"aki-{uuid.uuid4().hex[:8]}"}}

    async def first() -> None:
        async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
            await saver.setup()
            await _graph(node, saver).ainvoke({}, config)

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(first())

    async def resume() -> None:
        async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
            await _settle_and_resume_async(saver, _graph(node, saver), config, fx)

    asyncio.run(resume())


@pytest.mark.parametrize("kind", ["action", "tool"])
def test_idempotent_interrupted_action_runs_again(pg: tuple[str, str], kind: str) -> None:
    dsn, schema = pg
    fx = Effects(KeyboardInterrupt)

    @action(name="lookup")
    def lookup(q: str) -> str:
        return fx.happen()

    def lookup_tool(q: str) -> str:
        """Look something up."""
        return fx.happen()

    t = StructuredTool.from_function(func=lookup_tool, name="lookup")
    call = (lambda: lookup("x")) if kind == "action" else (lambda: t.invoke({"q": "x"}))
    config = {"configurable": {"thread_id": f"idem-{uuid.uuid4().hex[:8]}"}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _graph(lambda s: {"result": call()}, saver)
        with pytest.raises(KeyboardInterrupt):
            graph.invoke({}, config)
        assert graph.invoke(None, config)["result"] == "charged #2"


# ------------------------------------------------------------- resolve_action


def _completed_and_failed(saver: ActionSaver, thread: str) -> tuple[str, str, list[int]]:
    """One thread with a completed and a failed non-idempotent action; their ids."""
    effects: list[int] = []

    @action(idempotent=False, name="pay")
    def pay(n: int) -> str:
        effects.append(n)
        return f"paid {n}"

    @action(idempotent=False, name="refund")
    def refund(n: int) -> str:
        effects.append(-n)
        raise ValueError("card declined")

    def node(state: State) -> State:
        out = pay(1)
        try:
            refund(2)
        except ValueError:
            pass
        return {"result": out}

    graph = _graph(node, saver)
    graph.invoke({}, {"configurable": {"thread_id": thread}})
    rows = {r.name: r for r in saver.list_actions(thread, action_type="function")}
    assert rows["pay"].status == "completed" and rows["refund"].status == "failed"
    return rows["pay"].action_id, rows["refund"].action_id, effects


def test_resolve_refuses_known_outcomes(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    thread = f"known-{uuid.uuid4().hex[:8]}"
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        paid, refunded, _ = _completed_and_failed(saver, thread)
        for action_id, status in ((paid, "completed"), (refunded, "failed")):
            for kwargs in ({"retry": True}, {"output": "other"}):
                with pytest.raises(OutcomeKnownError) as info:
                    saver.resolve_action(thread, action_id, **kwargs)  # type: ignore[arg-type]
                assert info.value.status == status
        rows = {r.name: r for r in saver.list_actions(thread, action_type="function")}
        assert rows["pay"].status == "completed" and rows["pay"].output == "paid 1"
        assert rows["refund"].status == "failed"


async def test_resolve_refuses_known_outcomes_async(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    thread = f"aknown-{uuid.uuid4().hex[:8]}"
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        paid, _, _ = _completed_and_failed(saver, thread)
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as asaver:
        with pytest.raises(OutcomeKnownError):
            await asaver.aresolve_action(thread, paid, retry=True)
        await asaver.aresolve_action(thread, paid, retry=True, override=True)
        row = await asaver.aget_action(thread, paid)
        assert row is not None and row.status == "failed"
        assert row.meta["overridden"] == {"status": "completed", "output": "paid 1"}


def test_resolve_override_is_recorded_and_never_reused(pg: tuple[str, str]) -> None:
    dsn, schema = pg
    thread = f"override-{uuid.uuid4().hex[:8]}"
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        paid, refunded, effects = _completed_and_failed(saver, thread)
        saver.resolve_action(thread, paid, output="paid by hand", override=True)
        saver.resolve_action(thread, refunded, output="refunded by hand", override=True)
        rows = {r.name: r for r in saver.list_actions(thread, action_type="function")}
        assert rows["pay"].output == "paid by hand"
        assert rows["pay"].meta["overridden"] == {"status": "completed", "output": "paid 1"}
        assert rows["refund"].status == "completed" and rows["refund"].error is None
        assert rows["refund"].meta["overridden"]["status"] == "failed"
        assert effects == [1, -2]


def test_overridden_result_is_never_reused(pg: tuple[str, str]) -> None:
    """A result set by override=True is this thread's decision: other threads run live."""
    from langgraph_actionckpt.reuse import ExactReuse

    dsn, schema = pg
    priced: list[str] = []

    @action(reusable=True, name=f"price_{uuid.uuid4().hex[:6]}")
    def price(item: str) -> str:
        priced.append(item)
        return f"{item}: 3 EUR"

    graph_of = lambda saver: _graph(lambda s: {"result": price("tea")}, saver)  # noqa: E731
    with ActionSaver.from_conn_string(dsn, schema=schema, reuse=ExactReuse()) as saver:
        saver.setup()
        graph = graph_of(saver)
        graph.invoke({}, {"configurable": {"thread_id": "p1"}})
        row = saver.list_actions("p1", action_type="function")[0]
        saver.resolve_action("p1", row.action_id, output="tea: 0 EUR", override=True)
        out = graph.invoke({}, {"configurable": {"thread_id": "p2"}})
        assert out["result"] == "tea: 3 EUR" and priced == ["tea", "tea"]
        mine = saver.get_action("p1", row.action_id)
        assert mine is not None and mine.output == "tea: 0 EUR"
        assert mine.meta["overridden"] == {"status": "completed", "output": "tea: 3 EUR"}


def test_remote_resolve_carries_override(pg15_dsn: str, tmp_path: Any) -> None:
    """The gRPC ResolveAction refuses a known outcome unless the override flag is sent."""
    from langgraph_actionckpt import RemoteActionSaver, ServiceError
    from langgraph_actionckpt.actions.record import ActionRecord

    from .service_fixtures import running

    for service in running(pg15_dsn, tmp_path, n=1):
        token = service.tenant()[0]
        with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
            done = ActionRecord(
                thread_id="remote",
                action_id="pay-1",
                action_type="function",
                name="pay",
                status="completed",
                idempotent=False,
                output="paid 1",
            )
            saver.record_actions([done])
            with pytest.raises(ServiceError) as info:
                saver.resolve_action("remote", "pay-1", retry=True)
            assert info.value.code == "FAILED_PRECONDITION" and "completed" in str(info.value)
            saver.resolve_action("remote", "pay-1", output="paid by hand", override=True)
            row = saver.get_action("remote", "pay-1")
            assert row is not None and row.output == "paid by hand"
            assert row.meta["overridden"] == {"status": "completed", "output": "paid 1"}
