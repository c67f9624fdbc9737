"""Hostile input on every RPC of the service: only client-side status codes, a quiet log.

The fuzz cases are drawn from ``random.Random(ACTIONCKPT_FUZZ_SEED)``;
``ACTIONCKPT_FUZZ_CASES`` sets how many random cases each method gets on top of
the fixed hostile values (a failure prints the seed and the case to replay it).
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import orjson
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service.wire import PROTOCOL_HEADER

from .service_fixtures import Service, running

SEED = int(os.environ.get("ACTIONCKPT_FUZZ_SEED", "29"))
CASES = int(os.environ.get("ACTIONCKPT_FUZZ_CASES", "12"))
SERVICE = pb.DESCRIPTOR.services_by_name["CheckpointService"]
ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.FAILED_PRECONDITION,
}
MB = 1_000_000
# Words of PostgreSQL's and Python's own error text that must never reach a client.
LEAKS = ("DETAIL", "Failing row", "violates", "Traceback", "psycopg", "syntax for type", "SQLSTATE")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("fuzz"), n=12)


class _Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_log() -> Iterator[list[logging.LogRecord]]:
    """Every log record of the process at INFO and above (the server runs in this process)."""
    handler = _Captured()
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler.records
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


class Caller:
    """Raw bytes to any method of the service, with a valid token and version."""

    def __init__(self, service: Service) -> None:
        token, _, _ = service.tenant()
        self.channel_target = service.target
        self.channel = grpc.insecure_channel(
            service.target, options=[("grpc.max_send_message_length", -1)]
        )
        self.meta = [(PROTOCOL_HEADER, "1"), ("authorization", f"Bearer {token}")]

    def __call__(self, method: str, data: bytes) -> tuple[grpc.StatusCode, str]:
        path = f"/{SERVICE.full_name}/{method}"
        streaming = SERVICE.methods_by_name[method].server_streaming
        try:
            if streaming:
                call = self.channel.unary_stream(path)
                for _ in call(data, metadata=self.meta, timeout=30):
                    pass
            else:
                self.channel.unary_unary(path)(data, metadata=self.meta, timeout=30)
        except grpc.RpcError as err:
            return err.code(), err.details() or ""
        return grpc.StatusCode.OK, ""


@pytest.fixture
def call(service: Service) -> Iterator[Caller]:
    caller = Caller(service)
    try:
        yield caller
    finally:
        caller.channel.close()


# ------------------------------------------------------------------ values


def _record(**changes: Any) -> bytes:
    rec: dict[str, Any] = {
        "thread_id": "t",
        "action_id": "a1",
        "action_type": "tool_call",
        "name": "tool",
        "status": "completed",
        "output": {"ok": 1},
    }
    rec.update(changes)
    return orjson.dumps(rec)


def _typed(value: Any) -> pb.Typed:
    return pb.Typed(type="json", data=orjson.dumps(value))


def _checkpoint() -> pb.Checkpoint:
    fields = {"v": 1, "id": "1ef-cp", "ts": "2026-01-01T00:00:00+00:00", "channel_versions": {}}
    return pb.Checkpoint(fields=_typed(fields), channel_values={"x": _typed("v")})


def _valid(method: str) -> Message:
    """A well-formed request of ``method`` with every field it reads set."""
    cfg = pb.Config(thread_id="t", checkpoint_ns="", checkpoint_id="c1")
    writes = pb.PutWritesRequest(
        config=cfg, writes=[pb.Write(channel="a", value=_typed(1))], task_id="task"
    )
    requests: dict[str, Message] = {
        "Handshake": pb.HandshakeRequest(protocol_version=1, client="fuzz"),
        "GetTuple": pb.GetTupleRequest(config=cfg),
        "List": pb.ListRequest(config=cfg, filter=_typed({"step": 0}), before=cfg, limit=5),
        "Put": pb.PutRequest(
            config=pb.Config(thread_id="t", checkpoint_ns=""),
            checkpoint=_checkpoint(),
            metadata=_typed({"step": 0}),
            new_versions=_typed({}),
            run_config=_typed({"metadata": {"k": "v"}, "configurable": {}}),
        ),
        "PutWrites": writes,
        "DeleteThread": pb.DeleteThreadRequest(thread_id="gone"),
        "DeleteForRuns": pb.DeleteForRunsRequest(run_ids=["r1"]),
        "CopyThread": pb.CopyThreadRequest(source_thread_id="t", target_thread_id="t2"),
        "Prune": pb.PruneRequest(thread_ids=["t"], strategy="keep_latest"),
        "WaitDurable": pb.WaitDurableRequest(checkpoint_ids=["c1"], durability="sync"),
        "RecordActions": pb.RecordActionsRequest(records=[_record()]),
        "BeginAction": pb.BeginActionRequest(record=_record(action_id="a2", status="running")),
        "CompleteAction": pb.CompleteActionRequest(
            thread_id="t", action_id="a2", output_json=b'{"x": 1}'
        ),
        "FailAction": pb.FailActionRequest(
            thread_id="t", action_id="a2", error_type="E", error_message="m"
        ),
        "ListActions": pb.ListActionsRequest(
            thread_id="t", statuses=["completed"], since_time="2026-01-01T00:00:00", limit=3
        ),
        "GetAction": pb.GetActionRequest(thread_id="t", action_id="a1"),
        "LastAction": pb.LastActionRequest(thread_id="t", statuses=["completed"]),
        "ResolveAction": pb.ResolveActionRequest(thread_id="t", action_id="a1", retry=True),
        "ArchiveThread": pb.ArchiveThreadRequest(thread_id="t"),
        "AcquireLease": pb.AcquireLeaseRequest(thread_id="t", holder="h", ttl_seconds=5),
        "RenewLease": pb.RenewLeaseRequest(thread_id="t", holder="h", token=1, ttl_seconds=5),
        "ReleaseLease": pb.ReleaseLeaseRequest(thread_id="t", holder="h", token=1),
    }
    assert set(requests) == set(SERVICE.methods_by_name), "a method without a fuzz sample"
    return requests[method]


HOSTILE_STRINGS = ("", "\x00", "a\x00b", "x" * MB, "../../etc/passwd", "' OR 1=1 --", "\u202e")
HOSTILE_INTS = (-1, 0, 2**31, 2**63 - 1, -(2**63))
HOSTILE_FLOATS = (-1.0, 0.0, math.nan, math.inf, -math.inf, 1e308)
HOSTILE_BYTES = (
    b"",
    b"{bad",
    b"\x00",
    b'"many"',
    b"[]",
    b'{"__ack__": "nope"}',
    b'"\\ud800"',
    b"9" * 400,
    b"[" * 100_000,
)
HOSTILE_RECORDS = (
    _record(input_tokens="many"),
    _record(input_tokens=2**40),
    _record(step=-(2**40)),
    _record(latency_ms="slow"),
    _record(idempotent="yes"),
    _record(status="bogus"),
    _record(status=None),
    _record(action_type=None),
    _record(action_type=7),
    _record(lc_run_id="not-a-uuid"),
    _record(started_at="yesterday"),
    _record(started_at=12),
    _record(completed_at="99999-01-01"),
    _record(thread_id="t\x00nul"),
    _record(thread_id=["t"]),
    _record(action_id={"a": 1}),
    _record(thread_id="x" * MB),
    _record(name="n" * 5000),
    _record(meta="\x00"),
    _record(output={"__ack__": "bytes", "b64": "%%%"}),
    _record(attempt=True),
    b'{"thread_id": "t", "action_id": "\\ud800", "action_type": "x", "status": "running"}',
    b"{bad",
    b"[]",
)
HOSTILE_TYPED = (
    pb.Typed(type="pickle", data=b"\x80\x04."),
    pb.Typed(type="json", data=b"{bad"),
    pb.Typed(type="json", data=b"[1, 2]"),
    pb.Typed(type="msgpack", data=b"\xc1\xc1\xff"),
    pb.Typed(type="msgpack+esc", data=b"\x00"),
    pb.Typed(type="bytes", data=b"\x00"),
    pb.Typed(type="null", data=b""),
    pb.Typed(type="json", data=b'{"id": 5, "channel_versions": []}'),
    pb.Typed(type="json", data=b'{"id": "c\\u0000", "channel_versions": {}}'),
)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _raw_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field as wire bytes (a string field with bytes that are not UTF-8)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _hostile(method: str) -> Iterator[tuple[str, bytes]]:
    """Well-formed messages of ``method`` with one field (or nested field) set to a bad value."""
    base = _valid(method)
    yield "valid", base.SerializeToString()
    yield "empty", b""
    for field in base.DESCRIPTOR.fields:
        yield from _bad_field(base, field, field.name)


def _bad_field(base: Message, field: FieldDescriptor, name: str) -> Iterator[tuple[str, bytes]]:
    repeated = field.is_repeated
    kind = field.type
    values: tuple[Any, ...] = ()
    if kind == FieldDescriptor.TYPE_STRING:
        values = HOSTILE_STRINGS
        for junk in (b"\xed\xa0\x80", b"\xff\xfe", b"a\x00\xc3"):
            yield f"{name}=non-UTF-8", base.SerializeToString() + _raw_field(field.number, junk)
    elif kind in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32):
        values = HOSTILE_INTS if kind == FieldDescriptor.TYPE_INT64 else (0, 2, 2**32 - 1)
    elif kind == FieldDescriptor.TYPE_DOUBLE:
        values = HOSTILE_FLOATS
    elif kind == FieldDescriptor.TYPE_BYTES:
        values = HOSTILE_BYTES + (HOSTILE_RECORDS if "record" in name else ())
    elif kind == FieldDescriptor.TYPE_MESSAGE and field.message_type is pb.Typed.DESCRIPTOR:
        values = HOSTILE_TYPED
    elif kind == FieldDescriptor.TYPE_MESSAGE and not field.message_type.GetOptions().map_entry:
        inner = getattr(base, field.name)
        sample = inner[0] if repeated and len(inner) else (None if repeated else inner)
        if sample is not None:
            outer = type(base)()
            outer.CopyFrom(base)
            outer.ClearField(field.name)
            for sub in sample.DESCRIPTOR.fields:
                for label, inner in _bad_field(sample, sub, f"{name}.{sub.name}"):
                    yield label, outer.SerializeToString() + _raw_field(field.number, inner)
        return
    for value in values:
        msg = type(base)()
        msg.CopyFrom(base)
        if repeated:
            del getattr(msg, field.name)[:]
            getattr(msg, field.name).append(value)
            getattr(msg, field.name).append(value)  # duplicates in one call
        elif isinstance(value, Message):
            getattr(msg, field.name).CopyFrom(value)
        else:
            setattr(msg, field.name, value)
        yield f"{name}={_short(value)}", msg.SerializeToString()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else f"{text[:50]}...({len(text)})"


def _random(method: str, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """Random bytes, truncated valid messages and valid messages with flipped bytes."""
    valid = _valid(method).SerializeToString()
    for i in range(CASES):
        size = rng.choice((1, 3, 17, 100, 1000))
        yield f"random#{i}", rng.randbytes(size)
        cut = rng.randrange(len(valid)) if valid else 0
        yield f"truncated@{cut}", valid[:cut]
        flipped = bytearray(valid)
        for _ in range(rng.randint(1, 4)):
            if flipped:
                flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        yield f"flipped#{i}", bytes(flipped)


# ------------------------------------------------------------------- tests


def _kinds(records: list[logging.LogRecord]) -> Counter[str]:
    """Log lines by kind (the limiter's ``kind``, else the logger and its message template)."""
    return Counter(getattr(r, "kind", None) or f"{r.name}: {r.msg}" for r in records)


def test_fuzz_every_method_gets_only_client_codes_and_a_quiet_log(
    call: Caller, server_log: list[logging.LogRecord]
) -> None:
    rng = random.Random(SEED)
    started = time.monotonic()
    bad: list[str] = []
    seen: Counter[str] = Counter()
    for method in SERVICE.methods_by_name:
        for label, data in (*_hostile(method), *_random(method, rng)):
            code, details = call(method, data)
            seen[code.name] += 1
            leak = [w for w in LEAKS if w in details]
            if code not in ALLOWED or leak or len(details) > 1000:
                bad.append(f"{method} {label}: {code.name} {details[:300]!r}")
    elapsed = time.monotonic() - started
    assert not bad, f"seed {SEED}: {len(bad)} bad answers of {sum(seen.values())}:\n" + "\n".join(
        bad[:40]
    )
    assert seen["INVALID_ARGUMENT"] > 100, seen
    # the server still answers
    assert call("Handshake", _valid("Handshake").SerializeToString())[0] == grpc.StatusCode.OK
    minutes = math.ceil(elapsed / 60)
    loud = {k: n for k, n in _kinds(server_log).items() if n > minutes}
    assert not loud, f"log lines per kind over {minutes} in {elapsed:.0f} s: {loud}"
    # stricter: every case is refused before the database, so nothing is logged at all
    # (a line here was a write acknowledged and then dropped: a NUL checkpoint id)
    assert [r.getMessage()[:200] for r in server_log if r.levelno >= logging.WARNING] == []


def test_malformed_bytes_are_invalid_argument_without_a_log_line(
    call: Caller, server_log: list[logging.LogRecord]
) -> None:
    for method in SERVICE.methods_by_name:
        code, details = call(method, b"\xff\xff\xff\xff")
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (method, code, details)
        assert "malformed" in details
    # a caller without a token learns nothing of the request
    stranger = grpc.insecure_channel(call.channel_target)
    with stranger:
        path = f"/{SERVICE.full_name}/GetTuple"
        with pytest.raises(grpc.RpcError) as err:
            stranger.unary_unary(path)(b"\xff\xff", metadata=[(PROTOCOL_HEADER, "1")], timeout=30)
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert [r.getMessage() for r in server_log if r.levelno >= logging.WARNING] == []


def test_negative_list_actions_limit(call: Caller, server_log: list[logging.LogRecord]) -> None:
    data = pb.ListActionsRequest(thread_id="t", limit=-1).SerializeToString()
    code, details = call("ListActions", data)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "limit" in details and "LIMIT" not in details
    assert server_log == []


def test_tokens_that_are_not_a_number(call: Caller, server_log: list[logging.LogRecord]) -> None:
    data = pb.RecordActionsRequest(records=[_record(input_tokens="many")]).SerializeToString()
    code, details = call("RecordActions", data)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "input_tokens" in details and not any(w in details for w in LEAKS)
    assert server_log == []


def test_output_that_is_not_json(call: Caller, server_log: list[logging.LogRecord]) -> None:
    begin = pb.BeginActionRequest(record=_record(action_id="nj", status="running"))
    assert call("BeginAction", begin.SerializeToString())[0] == grpc.StatusCode.OK
    for method, msg in (
        ("CompleteAction", pb.CompleteActionRequest(thread_id="t", action_id="nj")),
        ("ResolveAction", pb.ResolveActionRequest(thread_id="t", action_id="nj")),
    ):
        msg.output_json = b"{bad"
        code, details = call(method, msg.SerializeToString())
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (method, code, details)
        assert "output_json" in details and not any(w in details for w in LEAKS)
    assert server_log == []


def test_duplicate_rows_in_one_record_actions_call(call: Caller) -> None:
    first = _record(action_id="dup", status="running", output=None)
    last = _record(action_id="dup", status="completed", output={"n": 2})
    data = pb.RecordActionsRequest(records=[first, last, _record(action_id="other")])
    assert call("RecordActions", data.SerializeToString()) == (grpc.StatusCode.OK, "")
    got = pb.ActionResponse.FromString(_unary(call, "GetAction", "t", "dup"))
    assert json.loads(got.record)["status"] == "completed"
    assert json.loads(got.record)["output"] == {"n": 2}
    other = pb.ActionResponse.FromString(_unary(call, "GetAction", "t", "other"))
    assert other.HasField("record")


def _unary(call: Caller, method: str, thread: str, action: str) -> bytes:
    path = f"/{SERVICE.full_name}/{method}"
    request = pb.GetActionRequest(thread_id=thread, action_id=action).SerializeToString()
    out: bytes = call.channel.unary_unary(path)(request, metadata=call.meta, timeout=30)
    return out


def test_an_internal_error_is_logged_once_a_minute_and_never_sent(
    call: Caller, server_log: list[logging.LogRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_actionckpt.aio import AsyncActionSaver

    async def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret text of the server")

    monkeypatch.setattr(AsyncActionSaver, "aget_action", broken)
    request = pb.GetActionRequest(thread_id="t", action_id="a").SerializeToString()
    for _ in range(50):
        code, details = call("GetAction", request)
        assert code == grpc.StatusCode.INTERNAL
        assert details == "internal error (RuntimeError)"
    lines = [r for r in server_log if r.name == "langgraph_actionckpt.service"]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert "RuntimeError" in getattr(lines[0], "kind", "")
    assert lines[0].exc_info is not None  # the one line carries the traceback


def test_the_limiter_counts_what_it_held_back() -> None:
    from langgraph_actionckpt.service.guard import LogLimiter

    log = logging.getLogger("tests.limiter")
    handler = _Captured()
    log.addHandler(handler)
    log.propagate = False
    try:
        limiter = LogLimiter(period=0.2, log=log)

        def fail() -> None:
            try:
                raise KeyError("x")  # one place: one kind
            except KeyError as exc:
                limiter.exception(exc, "boom")

        for _ in range(5):
            fail()
        time.sleep(0.25)
        fail()
    finally:
        log.removeHandler(handler)
    assert len(handler.records) == 2
    assert "4 more of this kind" in handler.records[1].getMessage()
