"""The checkpoint service: tenants, tokens, limits, versions, status codes, TLS, faults."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from langgraph.checkpoint.base import empty_checkpoint

from langgraph_actionckpt import AsyncRemoteActionSaver, RemoteActionSaver, ServiceError
from langgraph_actionckpt.errors import LeaseLostError
from langgraph_actionckpt.service import serve
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service._pb import checkpoint_pb2_grpc as pb_grpc
from langgraph_actionckpt.service.wire import PROTOCOL_HEADER

from .conftest import drop_schema
from .service_fixtures import Service, running, token_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("svc"), n=20)


def _checkpoint(n: int = 0, value: Any = "v") -> Any:
    cp = empty_checkpoint()
    cp["channel_values"] = {"x": value}
    cp["channel_versions"] = {"x": f"{n + 1:032}.0"}
    return cp


def _put(saver: RemoteActionSaver, thread: str, value: Any = "v", parent: str | None = None) -> Any:
    cp = _checkpoint(value=value)
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if parent:
        conf["checkpoint_id"] = parent
    return saver.put({"configurable": conf}, cp, {"step": 0}, cp["channel_versions"])


def _stub(target: str) -> tuple[grpc.Channel, Any]:
    channel = grpc.insecure_channel(target)
    return channel, pb_grpc.CheckpointServiceStub(channel)


# ----------------------------------------------------------------- tenants


def test_one_tenant_never_sees_another_tenants_threads(service: Service) -> None:
    (tok_a, _, _), (tok_b, _, _) = service.tenant(), service.tenant()
    with (
        RemoteActionSaver.from_target(service.target, tok_a, setup=True) as a,
        RemoteActionSaver.from_target(service.target, tok_b, setup=True) as b,
    ):
        cfg = _put(a, "shared-name", value="secret of a")
        assert a.get_tuple(cfg) is not None
        assert b.get_tuple({"configurable": {"thread_id": "shared-name"}}) is None
        assert list(b.list(None)) == []
        assert list(b.list({"configurable": {"thread_id": "shared-name"}})) == []
        b.delete_thread("shared-name")  # deletes nothing of a's
        b.copy_thread("shared-name", "stolen")
        assert b.get_tuple({"configurable": {"thread_id": "stolen"}}) is None
        tup = a.get_tuple({"configurable": {"thread_id": "shared-name"}})
        assert tup is not None and tup.checkpoint["channel_values"] == {"x": "secret of a"}
        assert b.list_actions(None) == []


def test_a_token_of_another_tenant_is_refused(service: Service) -> None:
    token, name, _ = service.tenant()
    saver = RemoteActionSaver(service.target, token=token, tenant="someone-else")
    try:
        with pytest.raises(ServiceError) as err:
            saver.setup()
    finally:
        saver.close()
    assert err.value.code == "PERMISSION_DENIED"
    assert repr(name) in str(err.value)


def test_read_only_token(tmp_path: Path, pg18_dsn: str) -> None:
    tokens = token_file(tmp_path / "t.txt", 1)
    token, name, schema = tokens[0]
    (tmp_path / "t.txt").write_text(f"{token} {name} {schema} ro\n")
    try:
        with (
            serve(pg18_dsn, listen="127.0.0.1:0", token_file=tmp_path / "t.txt") as server,
            RemoteActionSaver.from_target(server.target, token, setup=True) as saver,
        ):
            assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None
            with pytest.raises(ServiceError) as err:
                _put(saver, "t")
            assert err.value.code == "PERMISSION_DENIED"
            assert "read-only" in str(err.value)
    finally:
        drop_schema(pg18_dsn, schema)


# ------------------------------------------------------------------- tokens


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_bad_or_missing_token(service: Service, token: str | None) -> None:
    with RemoteActionSaver.from_target(service.target, token) as saver:
        with pytest.raises(ServiceError) as err:
            saver.setup()
        assert err.value.code == "UNAUTHENTICATED"
        assert ("missing" if token is None else "unknown") in str(err.value)
        with pytest.raises(ServiceError):
            saver.get_tuple({"configurable": {"thread_id": "t"}})


async def test_bad_token_async(service: Service) -> None:
    async with AsyncRemoteActionSaver.from_target(service.target, "nope") as saver:
        with pytest.raises(ServiceError) as err:
            await saver.setup()
    assert err.value.code == "UNAUTHENTICATED"


# ------------------------------------------------------- limits and versions


def test_oversized_request_is_refused_and_the_server_goes_on(tmp_path: Path, pg18_dsn: str) -> None:
    tokens = token_file(tmp_path / "t.txt", 1)
    token, _, schema = tokens[0]
    try:
        with (
            serve(
                pg18_dsn,
                listen="127.0.0.1:0",
                token_file=tmp_path / "t.txt",
                max_request_bytes=64 * 1024,
            ) as server,
            RemoteActionSaver.from_target(server.target, token, setup=True) as saver,
        ):
            with pytest.raises(ServiceError) as err:
                _put(saver, "big", value="x" * 200_000)
            assert err.value.code == "RESOURCE_EXHAUSTED"
            assert saver.get_tuple({"configurable": {"thread_id": "big"}}) is None
            cfg = _put(saver, "small", value="y" * 1000)
            assert saver.get_tuple(cfg) is not None
    finally:
        drop_schema(pg18_dsn, schema)


def test_incompatible_version_names_both(service: Service) -> None:
    token, _, _ = service.tenant()
    with RemoteActionSaver.from_target(service.target, token) as saver:
        saver.remote.call_metadata = tuple(
            (k, "2" if k == PROTOCOL_HEADER else v) for k, v in saver.remote.call_metadata
        )
        with pytest.raises(ServiceError) as err:
            saver.setup()
    assert err.value.code == "FAILED_PRECONDITION"
    assert "client speaks 2, server speaks 1" in str(err.value)
    channel, stub = _stub(service.target)
    with channel:
        with pytest.raises(grpc.RpcError) as rpc:  # no version at all
            stub.GetTuple(
                pb.GetTupleRequest(config=pb.Config(thread_id="t")),
                metadata=[("authorization", f"Bearer {token}")],
            )
        assert rpc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "server speaks 1" in (rpc.value.details() or "")


# ------------------------------------------------------------- status codes


def test_bad_requests_get_the_right_status(service: Service) -> None:
    token, _, _ = service.tenant()
    meta = [(PROTOCOL_HEADER, "1"), ("authorization", f"Bearer {token}")]
    channel, stub = _stub(service.target)
    with channel:

        def code(call: Any, request: Any) -> tuple[grpc.StatusCode, str]:
            with pytest.raises(grpc.RpcError) as rpc:
                call(request, metadata=meta)
            return rpc.value.code(), rpc.value.details() or ""

        # pickle is never accepted
        req = pb.PutWritesRequest(
            config=pb.Config(thread_id="t", checkpoint_ns="", checkpoint_id="c1"),
            writes=[pb.Write(channel="a", value=pb.Typed(type="pickle", data=b"\x80\x04."))],
            task_id="task",
        )
        c, msg = code(stub.PutWrites, req)
        assert c == grpc.StatusCode.INVALID_ARGUMENT and "pickle" in msg
        # no thread id
        c, msg = code(stub.GetTuple, pb.GetTupleRequest(config=pb.Config()))
        assert c == grpc.StatusCode.INVALID_ARGUMENT and "thread_id" in msg
        # a malformed checkpoint
        bad = pb.PutRequest(
            config=pb.Config(thread_id="t", checkpoint_ns=""),
            checkpoint=pb.Checkpoint(fields=pb.Typed(type="json", data=b"[1, 2]")),
        )
        c, msg = code(stub.Put, bad)
        assert c == grpc.StatusCode.INVALID_ARGUMENT and "mapping" in msg
        # an unknown action
        c, msg = code(
            stub.ResolveAction,
            pb.ResolveActionRequest(thread_id="t", action_id="nope", retry=True),
        )
        assert c == grpc.StatusCode.NOT_FOUND and "nope" in msg
        # a malformed action record
        c, msg = code(stub.RecordActions, pb.RecordActionsRequest(records=[b"{not json"]))
        assert c == grpc.StatusCode.INVALID_ARGUMENT


def test_lease_and_its_fencing_token(service: Service) -> None:
    token, _, _ = service.tenant()
    with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
        first = saver.acquire_lease("t", "worker-1", ttl=0.2)
        assert first is not None
        assert saver.acquire_lease("t", "worker-2", ttl=5) is None  # busy
        time.sleep(0.3)  # worker-1's lease expires without a heartbeat
        second = saver.acquire_lease("t", "worker-2", ttl=5)
        assert second is not None and second > first
        meta = saver.remote.call_metadata
        cp = _checkpoint()
        wire = saver.wire
        stale = pb.PutRequest(
            config=pb.Config(thread_id="t", checkpoint_ns=""),
            checkpoint=wire.checkpoint_msg(cp),
            metadata=wire.typed({}),
            new_versions=wire.typed(cp["channel_versions"]),
            fence=pb.Fence(token=first),
        )
        with pytest.raises(grpc.RpcError) as rpc:
            saver.channel.stub.Put(stale, metadata=meta)
        assert rpc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "lease on thread 't' was lost" in (rpc.value.details() or "")
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None  # nothing stored
        with pytest.raises(LeaseLostError):
            saver.channel.call("RenewLease", pb.RenewLeaseRequest(
                thread_id="t", holder="worker-1", token=first, ttl_seconds=5
            ), {"configurable": {"thread_id": "t"}})  # fmt: skip
        current = pb.PutRequest()
        current.CopyFrom(stale)
        current.fence.token = second
        saver.channel.stub.Put(current, metadata=meta)
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is not None
        assert saver.release_lease("t", "worker-2", second)


# ---------------------------------------------------------------------- TLS


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_tls(tmp_path: Path, pg18_dsn: str) -> None:
    cert, key = _self_signed(tmp_path)
    tokens = token_file(tmp_path / "t.txt", 1)
    token, _, schema = tokens[0]
    try:
        with serve(
            pg18_dsn,
            listen="127.0.0.1:0",
            token_file=tmp_path / "t.txt",
            tls_cert=cert,
            tls_key=key,
        ) as server:
            with RemoteActionSaver.from_target(server.target, token, tls=cert) as saver:
                saver.setup()
                cfg = _put(saver, "t")
                assert saver.get_tuple(cfg) is not None
            # a plain-text client cannot talk to it
            with RemoteActionSaver.from_target(server.target, token, retries=1) as plain:
                with pytest.raises(ServiceError) as err:
                    plain.setup()
                assert err.value.code == "UNAVAILABLE"
    finally:
        drop_schema(pg18_dsn, schema)


# ------------------------------------------------- the server killed mid-call


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_cli_server(dsn: str, port: int, tokens: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "langgraph_actionckpt.service.cli", "--dsn", dsn, "serve",
         "--listen", f"127.0.0.1:{port}", "--token-file", str(tokens)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("listening on"), (line, proc.stderr.read() if proc.stderr else "")
    return proc


def test_server_killed_mid_run_safe_calls_retry_and_nothing_is_lost(
    tmp_path: Path, pg18_dsn: str
) -> None:
    tokens = token_file(tmp_path / "t.txt", 1)
    token, _, schema = tokens[0]
    port = _free_port()
    proc = _start_cli_server(pg18_dsn, port, tmp_path / "t.txt")
    acked: list[str] = []
    errors: list[BaseException] = []
    killed = threading.Event()

    def client() -> None:
        try:
            with RemoteActionSaver.from_target(
                f"127.0.0.1:{port}", token, retries=12, backoff=0.05, timeout=10
            ) as saver:
                saver.setup()
                parent = None
                for i in range(60):
                    cfg = _put(saver, "t", value=f"value {i}", parent=parent)
                    parent = cfg["configurable"]["checkpoint_id"]
                    acked.append(parent)
                    if i == 20:
                        killed.wait(10)
        except BaseException as exc:  # noqa: BLE001 - checked below
            errors.append(exc)

    worker = threading.Thread(target=client)
    worker.start()
    try:
        while len(acked) < 21 and worker.is_alive():
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)  # while the client keeps putting
        proc.wait()
        killed.set()
        time.sleep(0.5)
        proc = _start_cli_server(pg18_dsn, port, tmp_path / "t.txt")
        worker.join(60)
        assert not worker.is_alive()
        assert errors == []
        assert len(acked) == 60
        with RemoteActionSaver.from_target(f"127.0.0.1:{port}", token) as saver:
            stored = [t.config["configurable"]["checkpoint_id"] for t in saver.list(None)]
        assert set(acked) <= set(stored)  # every acknowledged put is there
        # with no retries left, a call fails with a clear error
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with RemoteActionSaver.from_target(f"127.0.0.1:{port}", token, retries=2) as saver:
            with pytest.raises(ServiceError) as err:
                saver.get_tuple({"configurable": {"thread_id": "t"}})
            assert err.value.code == "UNAVAILABLE"
            assert f"127.0.0.1:{port}" in str(err.value)
    finally:
        proc.kill()
        proc.wait()
        drop_schema(pg18_dsn, schema)


# ------------------------------------------------------- graceful shutdown


def test_graceful_shutdown_finishes_in_flight_calls(tmp_path: Path, pg18_dsn: str) -> None:
    tokens = token_file(tmp_path / "t.txt", 1)
    token, _, schema = tokens[0]
    try:
        with serve(pg18_dsn, listen="127.0.0.1:0", token_file=tmp_path / "t.txt") as server:
            target = server.target
            with RemoteActionSaver.from_target(target, token, setup=True) as saver:
                for i in range(30):
                    _put(saver, f"t{i}", value="z" * 50_000)
                results: list[int] = []

                def lister() -> None:
                    results.append(len(list(saver.list(None))))

                t = threading.Thread(target=lister)
                t.start()
                time.sleep(0.005)
                server.stop(grace=10)
                t.join()
                assert results == [30]  # the call in flight finished
                with RemoteActionSaver.from_target(target, token, retries=1) as late:
                    with pytest.raises(ServiceError) as err:
                        late.setup()  # new calls are refused
                    assert err.value.code == "UNAVAILABLE"
    finally:
        drop_schema(pg18_dsn, schema)
