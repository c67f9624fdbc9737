"""The remote savers' lease: one worker per thread through the service, writes fenced."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import ActionCallbackHandler, RemoteActionSaver, ThreadBusyError
from langgraph_actionckpt.errors import LeaseLostError

from .service_fixtures import Service, running


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("svc"), n=4)


class S(TypedDict):
    n: int


def _graph(saver: Any, gate: threading.Event | None = None, entered: Any = None) -> Any:
    def node(state: S) -> dict[str, int]:
        if entered is not None:
            entered.set()
        if gate is not None:
            assert gate.wait(30)
        return {"n": state["n"] + 1}

    b: StateGraph[S] = StateGraph(S)
    b.add_node("node", node)
    b.add_edge(START, "node")
    b.add_edge("node", END)
    return b.compile(checkpointer=saver)


def test_a_second_worker_finds_the_thread_busy(service: Service) -> None:
    token, _, _ = service.tenant()
    cfg = {"configurable": {"thread_id": "L"}}
    gate, entered = threading.Event(), threading.Event()
    with (
        RemoteActionSaver.from_target(service.target, token, lease="error", setup=True) as a,
        RemoteActionSaver.from_target(service.target, token, lease="error", setup=True) as b,
    ):
        results: list[Any] = []
        first = threading.Thread(
            target=lambda: results.append(
                _graph(a, gate, entered).invoke(
                    {"n": 0}, {**cfg, "callbacks": [ActionCallbackHandler(a)]}
                )
            )
        )
        first.start()
        assert entered.wait(30)
        with pytest.raises(ThreadBusyError):
            _graph(b).invoke({"n": 10}, {**cfg, "callbacks": [ActionCallbackHandler(b)]})
        gate.set()
        first.join(30)
        assert results == [{"n": 1}]
        # the first worker's root run ended: its lease is back, the second one may run
        out = _graph(b).invoke(None, {**cfg, "callbacks": [ActionCallbackHandler(b)]})
        assert out == {"n": 1}  # continued from the first worker's final state


def test_a_stalled_worker_taken_over_has_its_writes_refused(service: Service) -> None:
    token, _, _ = service.tenant()
    with (
        RemoteActionSaver.from_target(
            service.target, token, lease="wait", lease_ttl=0.3, setup=True
        ) as a,
        RemoteActionSaver.from_target(
            service.target, token, lease="wait", lease_ttl=5, lease_timeout=10, setup=True
        ) as b,
    ):
        assert a.lease_keeper.acquire("T")
        a.lease_keeper._stop.set()  # a stalls: no heartbeat
        a.lease_keeper.renew_now = lambda: None
        assert b.lease_keeper.acquire("T")  # waits for a's lease to expire, then takes it
        assert b.lease_keeper.token("T") > a.lease_keeper.token("T")
        cp = empty_checkpoint()
        conf = {"configurable": {"thread_id": "T", "checkpoint_ns": ""}}
        with pytest.raises(LeaseLostError) as err:
            a.put(conf, cp, {}, {})  # type: ignore[arg-type]
        assert err.value.thread_id == "T"
        assert b.get_tuple({"configurable": {"thread_id": "T"}}) is None  # nothing stored
        b.put(conf, cp, {}, {})  # type: ignore[arg-type]
        assert b.get_tuple({"configurable": {"thread_id": "T"}}) is not None


def test_the_limits_hold_through_the_service(service: Service) -> None:
    """Issue 28.3: the remote saver refuses an over-long id before any call, as the direct one."""
    from langgraph_actionckpt import ConfigurationError
    from langgraph_actionckpt.errors import ServiceError

    token, _, _ = service.tenant()
    huge = "t" * (1 << 20)
    with RemoteActionSaver.from_target(service.target, token, setup=True) as remote:
        graph = _graph(remote)
        cfg: Any = {
            "configurable": {"thread_id": huge},
            "callbacks": [ActionCallbackHandler(remote)],
        }
        with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
            graph.invoke({"n": 0}, cfg)
        with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
            remote.list_actions(huge)
        # a client of its own that sends one anyway: INVALID_ARGUMENT, not a server error
        with pytest.raises(ServiceError, match="thread id of 5000 bytes") as caught:
            remote.acquire_lease("x" * 5000, "me")
        assert "INVALID_ARGUMENT" in str(caught.value.code)
