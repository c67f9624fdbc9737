"""The cold tier: archived threads in S3 (moto's server mode, a real HTTP endpoint), read through.

moto runs as a local S3-compatible HTTP server (as s3fs's own tests do); the
service reaches it through s3fs over HTTP. A thread archived there is gone from
PostgreSQL; the next call that names it restores it transparently, and a graph
resumed on it continues where it stopped.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from psycopg import sql

from langgraph_actionckpt import RemoteActionSaver, ServiceError

from .conftest import fetch
from .service_fixtures import Service, running

moto_server = pytest.importorskip("moto.server", reason="moto[server] is in [test]")
s3fs = pytest.importorskip("s3fs", reason="s3fs is in [test]")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, Any]]:
    """A moto S3 server on loopback, a bucket, and the fsspec options to reach it."""
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    options = {
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "us-east-1"},
    }
    bucket = f"cold-{uuid.uuid4().hex[:8]}"
    boto3 = pytest.importorskip("boto3", reason="boto3 comes with moto")
    boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    ).create_bucket(Bucket=bucket)
    fs = s3fs.S3FileSystem(**options)
    try:
        yield {"options": options, "bucket": bucket, "fs": fs}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def service(s3: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(
        server_dsn("pg18"),
        tmp_path_factory.mktemp("svc"),
        n=4,
        cold_url=f"s3://{s3['bucket']}/archive",
        cold_options=s3["options"],
    )


class Counter(TypedDict):
    n: int
    log: list[str]


def _graph(saver: Any) -> Any:
    def step(state: Counter) -> dict[str, Any]:
        return {"n": state["n"] + 1, "log": [*state["log"], f"step {state['n'] + 1}"]}

    builder: StateGraph[Counter] = StateGraph(Counter)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=saver)


def _rows(service: Service, schema: str, thread: str) -> int:
    query = sql.SQL("SELECT count(*) FROM {}.checkpoints WHERE thread_id = %s").format(
        sql.Identifier(schema)
    )
    return int(fetch(service.dsn, query.as_string(None), (thread,))[0][0])


def test_archived_thread_is_read_through(service: Service, s3: dict[str, Any]) -> None:
    token, _, schema = service.tenant()
    cfg = {"configurable": {"thread_id": "cold-1"}}
    with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
        graph = _graph(saver)
        graph.invoke({"n": 0, "log": []}, cfg)
        graph.invoke({"n": 5, "log": ["again"]}, cfg)
        before = [t.checkpoint["id"] for t in saver.list(cfg)]
        state_before = graph.get_state(cfg).values
        assert _rows(service, schema, "cold-1") == len(before) > 0

        url = saver.archive_thread("cold-1")
        assert url is not None and url.startswith(f"s3://{s3['bucket']}/archive/{schema}/")
        assert _rows(service, schema, "cold-1") == 0  # gone from PostgreSQL
        assert s3["fs"].exists(url)  # in the object store, over HTTP

        # read through: the thread comes back as it was
        assert graph.get_state(cfg).values == state_before
        assert [t.checkpoint["id"] for t in saver.list(cfg)] == before
        assert _rows(service, schema, "cold-1") == len(before)
        assert not s3["fs"].exists(url)
        # and it goes on from there
        out = graph.invoke(None, cfg)
        assert out == state_before
        graph.invoke({"n": 100, "log": []}, cfg)
        assert graph.get_state(cfg).values == {"n": 101, "log": ["step 101"]}

        assert saver.archive_thread("never-written") is None


def test_archived_actions_come_back_with_their_thread(service: Service) -> None:
    from langgraph_actionckpt.actions.record import ActionRecord

    token, _, _ = service.tenant()
    with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
        rec = ActionRecord(
            thread_id="cold-2", action_id="a1", action_type="tool_call", name="lookup",
            status="completed", input={"q": "x"}, output=b"\x00bytes\xff",
        )  # fmt: skip
        saver.record_actions([rec])
        assert saver.archive_thread("cold-2") is not None
        (back,) = saver.list_actions("cold-2")  # restores the thread first
        assert (back.action_id, back.output, back.input) == ("a1", b"\x00bytes\xff", {"q": "x"})


def test_archive_without_a_cold_tier_is_a_clear_error(tmp_path: Path) -> None:
    from .conftest import server_dsn

    for svc in running(server_dsn("pg18"), tmp_path, n=1):
        token, _, _ = svc.tenant()
        with (
            RemoteActionSaver.from_target(svc.target, token) as saver,
            pytest.raises(ServiceError) as err,
        ):
            saver.archive_thread("t")
        assert err.value.code == "FAILED_PRECONDITION"
        assert "cold tier" in str(err.value)
