"""The service's RPCs: each one a call of the tenant's ``AsyncActionSaver``.

Every call is authenticated (bearer token -> tenant -> schema), checked for the
protocol version, decoded strictly, its values checked before the saver sees
them, and its failures mapped to status codes (``guard.status``):
``INVALID_ARGUMENT`` (malformed input), ``NOT_FOUND``, ``FAILED_PRECONDITION``
(a lost lease, an incompatible protocol version), ``UNAUTHENTICATED``,
``PERMISSION_DENIED``, ``UNAVAILABLE`` (the database is down), ``INTERNAL``
(a bug: logged once per kind a minute, never the exception's text).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from langgraph.checkpoint.serde.types import ERROR

from langgraph_actionckpt import __version__
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.aio import AsyncActionSaver
from langgraph_actionckpt.errors import ConfigurationError, LeaseLostError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service._pb import checkpoint_pb2_grpc as pb_grpc
from langgraph_actionckpt.service.checks import (
    check_filter,
    check_limit,
    check_threads,
    parse_time,
)
from langgraph_actionckpt.service.cold import ColdTier
from langgraph_actionckpt.service.guard import LogLimiter, NotFound, Refused, ours, status
from langgraph_actionckpt.service.leases import ServiceLeases
from langgraph_actionckpt.service.tenants import Tenant, Tenants
from langgraph_actionckpt.service.wire import (
    PROTOCOL_HEADER,
    PROTOCOL_VERSION,
    TENANT_HEADER,
    Raw,
    Wire,
    check_type,
    from_json_bytes,
    record_from_json,
    record_to_json,
    remote_error,
)

__all__ = ["CheckpointServicer", "NotFound"]

T = TypeVar("T")
Context = Any  # grpc.aio.ServicerContext (grpc ships no type hints)


@dataclass(eq=False)
class _Calls(pb_grpc.CheckpointServiceServicer):
    """Authentication, version check, cold-tier read-through and status mapping of every call.

    Args:
        savers: The saver serving a schema (made and migrated by the server on first use).
        tenants: Who a bearer token is.
        cold: The cold tier (archived threads are restored before a call names them).
        log: Where a failure that is not a refusal of ours goes (once per kind a minute).
    """

    savers: Callable[[str], Awaitable[AsyncActionSaver]]
    tenants: Tenants
    cold: ColdTier | None = None
    log: LogLimiter = field(default_factory=LogLimiter)
    _leases: dict[str, ServiceLeases] = field(default_factory=dict, init=False)

    # ------------------------------------------------------------ plumbing

    def _tenant(self, context: Context, write: bool) -> Tenant:
        meta = {k.lower(): v for k, v in (context.invocation_metadata() or ())}
        version = meta.get(PROTOCOL_HEADER)
        if version != str(PROTOCOL_VERSION):
            raise Refused(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"incompatible protocol version: client speaks {version or 'none (no header)'}, "
                f"server speaks {PROTOCOL_VERSION} (langgraph-actionckpt {__version__})",
            )
        auth = str(meta.get("authorization") or "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        tenant = self.tenants.by_token(token)
        if tenant is None:
            raise Refused(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing bearer token" if not token else "unknown bearer token",
            )
        asked = meta.get(TENANT_HEADER)
        if asked and asked != tenant.name:
            raise Refused(
                grpc.StatusCode.PERMISSION_DENIED,
                f"this token belongs to tenant {tenant.name!r}, not {asked!r}",
            )
        if write and tenant.read_only:
            raise Refused(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the token of tenant {tenant.name!r} is read-only",
            )
        return tenant

    async def _call(
        self,
        context: Context,
        write: bool,
        fn: Callable[[Tenant, AsyncActionSaver, Wire], Awaitable[T]],
        threads: Sequence[str] = (),
    ) -> T:
        try:
            tenant = self._tenant(context, write)
            check_threads(threads)  # before the cold tier or the saver look for them
            saver = await self.savers(tenant.schema)
            if self.cold is not None:
                for thread in dict.fromkeys(t for t in threads if t):
                    await self.cold.ensure(saver, thread)
            return await fn(tenant, saver, Wire(saver.serde.inner))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - every failure becomes a status (INTERNAL: logged)
            await self._abort(context, exc)
            raise AssertionError("unreachable") from None  # abort raises

    async def authenticate(self, context: Context) -> None:
        """Abort a call of an unknown caller (the check before a malformed request is refused)."""
        try:
            self._tenant(context, False)
        except Refused as exc:
            await self._abort(context, exc)

    async def _abort(self, context: Context, exc: Exception) -> None:
        code, message = status(exc)
        if not ours(exc):
            self.log.exception(exc, f"{code.name} in a service call")
        await context.abort(code, message)

    def leases(self, saver: AsyncActionSaver) -> ServiceLeases:
        """The leases of a tenant's schema (``{schema}.leases``, see ``service/leases.py``)."""
        found = self._leases.get(saver.schema)
        if found is None or found.saver is not saver:
            found = self._leases[saver.schema] = ServiceLeases(saver)
        return found

    def _fenced(
        self, saver: AsyncActionSaver, thread_id: str, msg: pb.Fence, has: bool
    ) -> AbstractAsyncContextManager[None]:
        """While it runs, the saver's writes of the thread check the request's token."""
        if not has:
            return nullcontext()
        return self.leases(saver).fenced(thread_id, msg.token)

    # ------------------------------------------------------------ handshake

    async def Handshake(self, request: pb.HandshakeRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            return pb.HandshakeResponse(
                protocol_version=PROTOCOL_VERSION, server_version=__version__, tenant=tenant.name
            )

        if request.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"incompatible protocol version: client speaks {request.protocol_version}, "
                f"server speaks {PROTOCOL_VERSION} (langgraph-actionckpt {__version__})",
            )
        return await self._call(context, False, fn)


class _CheckpointCalls(_Calls):
    """The saver API."""

    async def GetTuple(self, request: pb.GetTupleRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            config = wire.config(_thread(request.config))
            tup = await saver.aget_tuple(config)
            if tup is None:
                return pb.GetTupleResponse()
            return pb.GetTupleResponse(tuple=wire.tuple_msg(tup))

        return await self._call(context, False, fn, (request.config.thread_id,))

    async def List(self, request: pb.ListRequest, context: Context) -> AsyncIterator[Any]:
        """Stream the checkpoints page by page (never the whole list in memory)."""
        thread = request.config.thread_id if request.HasField("config") else ""

        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            config = wire.config(request.config) if request.HasField("config") else None
            before = wire.config(request.before) if request.HasField("before") else None
            flt = wire.mapping(request.filter, "filter") or None
            limit = check_limit(request.limit) if request.HasField("limit") else None
            return saver.alist(config, filter=flt, before=before, limit=limit), wire

        items, wire = await self._call(context, False, fn, (thread,))
        try:
            async for tup in items:
                yield wire.tuple_msg(tup)
        except Exception as exc:  # noqa: BLE001 - a failure mid-stream becomes a status
            await self._abort(context, exc)

    async def Put(self, request: pb.PutRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _thread(request.config).thread_id
            config = _with_run_config(wire, wire.config(request.config), request.run_config)
            checkpoint = wire.checkpoint(request.checkpoint, raw_values=True)
            metadata = wire.mapping(request.metadata, "metadata")
            versions = wire.mapping(request.new_versions, "new_versions")
            fenced = request.HasField("fence")
            for held in request.writes:  # held by the saver: stored with the checkpoint
                if _thread(held.config).thread_id != thread:
                    raise ConfigurationError("a put carries writes of another thread")
                token = held.fence.token if held.HasField("fence") else None
                if token is not None and (not fenced or token != request.fence.token):
                    raise LeaseLostError(thread, token)  # written under a lease since lost
            async with self._fenced(saver, thread, request.fence, fenced):
                for held in request.writes:
                    await self._put_writes(saver, wire, held)
                out = await saver.aput(config, checkpoint, metadata, versions)  # type: ignore[arg-type]
            return pb.PutResponse(config=wire.config_msg(out))

        return await self._call(context, True, fn, (request.config.thread_id,))

    async def PutWrites(self, request: pb.PutWritesRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _thread(request.config).thread_id
            if not request.HasField("fence"):
                await self._put_writes(saver, wire, request)
                await saver.aflush_writes()  # acknowledged means committed
                return pb.Empty()
            leases = self.leases(saver)
            async with leases.fenced(thread, request.fence.token):
                await self._put_writes(saver, wire, request)
                await leases.flush(thread)  # a stale token: refused, nothing stored
            return pb.Empty()

        return await self._call(context, True, fn, (request.config.thread_id,))

    async def _put_writes(
        self, saver: AsyncActionSaver, wire: Wire, request: pb.PutWritesRequest
    ) -> None:
        if not request.config.checkpoint_id:
            raise ConfigurationError("put_writes needs a checkpoint_id")
        config = _with_run_config(wire, wire.config(request.config), request.run_config)
        writes = [(w.channel, _write_value(w)) for w in request.writes]
        await saver.aput_writes(config, writes, request.task_id, request.task_path)

    async def DeleteThread(self, request: pb.DeleteThreadRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            await saver.adelete_thread(_required(request.thread_id, "thread_id"))
            return pb.Empty()

        return await self._call(context, True, fn, (request.thread_id,))

    async def DeleteForRuns(self, request: pb.DeleteForRunsRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            await saver.adelete_for_runs(list(request.run_ids))
            return pb.Empty()

        return await self._call(context, True, fn)

    async def CopyThread(self, request: pb.CopyThreadRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            await saver.acopy_thread(
                _required(request.source_thread_id, "source_thread_id"),
                _required(request.target_thread_id, "target_thread_id"),
            )
            return pb.Empty()

        return await self._call(
            context,
            True,
            fn,
            (
                request.source_thread_id,
                request.target_thread_id,
            ),
        )

    async def Prune(self, request: pb.PruneRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            strategy = request.strategy or "keep_latest"
            if strategy not in ("keep_latest", "delete"):
                raise ConfigurationError("prune strategy must be 'keep_latest' or 'delete'")
            await saver.aprune(list(request.thread_ids), strategy=strategy)
            return pb.Empty()

        return await self._call(context, True, fn, (*request.thread_ids,))

    async def WaitDurable(self, request: pb.WaitDurableRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            ok = await saver.await_durable(
                list(request.checkpoint_ids), request.durability or "async"
            )
            return pb.WaitDurableResponse(durable=ok)

        return await self._call(context, False, fn)


class _ActionCalls(_Calls):
    """The action log."""

    async def RecordActions(self, request: pb.RecordActionsRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            records = [record_from_json(r, strict=True) for r in request.records]
            for batch in _distinct_batches(records):
                await saver.arecord_actions(batch)
            return pb.Empty()

        return await self._call(context, True, fn)

    async def BeginAction(self, request: pb.BeginActionRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            record = record_from_json(request.record, strict=True)
            if record.status not in ("running", "pending"):
                raise ConfigurationError(
                    f"a begun action is running or pending, not {record.status!r}"
                )
            record.started_at = record.started_at or _now()
            await saver.arecord_actions([record])
            return pb.Empty()

        return await self._call(context, True, fn)

    async def CompleteAction(self, request: pb.CompleteActionRequest, context: Context) -> Any:
        def changes() -> dict[str, Any]:
            data = request.output_json
            output = from_json_bytes(data, "output_json") if data else None
            return {"status": "completed", "output": output}

        return await self._finish(request, context, changes)

    async def FailAction(self, request: pb.FailActionRequest, context: Context) -> Any:
        def changes() -> dict[str, Any]:
            error = {"type": request.error_type, "message": request.error_message}
            return {"status": "failed", "error": error}

        return await self._finish(request, context, changes)

    async def _finish(
        self, request: Any, context: Context, changes: Callable[[], dict[str, Any]]
    ) -> Any:
        """Record that a begun action ended: ``changes()`` (its status and result) and now."""

        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            values = changes()  # a malformed value is refused before the database is asked
            record = await _existing(saver, request.thread_id, request.action_id)
            for name, value in values.items():
                setattr(record, name, value)
            record.completed_at = _now()
            await saver.arecord_actions([record])
            return pb.Empty()

        return await self._call(context, True, fn, (request.thread_id,))

    async def ListActions(self, request: pb.ListActionsRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            r = request
            for what in ("action_types", "statuses", "node", "run_id", "task_id"):
                check_filter(_strings(r, what), what)
            since: Any = None
            if r.HasField("since_step"):
                since = r.since_step
            elif r.HasField("since_time"):
                since = parse_time(r.since_time, "since_time")
            rows = await saver.alist_actions(
                r.thread_id if r.HasField("thread_id") else None,
                action_type=list(r.action_types) or None,
                status=list(r.statuses) or None,
                node=r.node if r.HasField("node") else None,
                since=since,
                run_id=r.run_id if r.HasField("run_id") else None,
                task_id=r.task_id if r.HasField("task_id") else None,
                limit=check_limit(r.limit) if r.HasField("limit") else None,
            )
            return pb.ActionsResponse(records=[record_to_json(x) for x in rows])

        return await self._call(
            context, False, fn, (request.thread_id if request.HasField("thread_id") else "",)
        )

    async def GetAction(self, request: pb.GetActionRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            rec = await saver.aget_action(request.thread_id, request.action_id)
            return pb.ActionResponse(record=record_to_json(rec)) if rec else pb.ActionResponse()

        return await self._call(context, False, fn, (request.thread_id,))

    async def LastAction(self, request: pb.LastActionRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            check_filter(request.statuses, "statuses")
            rec = await saver.alast_action(request.thread_id, status=list(request.statuses) or None)
            return pb.ActionResponse(record=record_to_json(rec)) if rec else pb.ActionResponse()

        return await self._call(context, False, fn, (request.thread_id,))

    async def ResolveAction(self, request: pb.ResolveActionRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            has_output = request.HasField("output_json")
            output = from_json_bytes(request.output_json, "output_json") if has_output else None
            await _existing(saver, request.thread_id, request.action_id)
            await saver.aresolve_action(
                request.thread_id,
                request.action_id,
                output=output,
                retry=request.retry,
                note=request.note if request.HasField("note") else None,
                override=request.override,
            )
            return pb.Empty()

        return await self._call(context, True, fn, (request.thread_id,))


class CheckpointServicer(_CheckpointCalls, _ActionCalls):
    """The RPCs over one saver per tenant schema (see :class:`_Calls` for the arguments).

    This class adds the cold tier's ``ArchiveThread`` and the lease calls.
    """

    async def ArchiveThread(self, request: pb.ArchiveThreadRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _required(request.thread_id, "thread_id")
            check_threads((thread,))
            if self.cold is None:
                raise Refused(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "this service has no cold tier (start it with --cold-url)",
                )
            url = await self.cold.archive(saver, thread)
            return pb.ArchiveThreadResponse(archived=url is not None, url=url or "")

        return await self._call(context, True, fn)

    # ---------------------------------------------------------------- lease

    async def AcquireLease(self, request: pb.AcquireLeaseRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _required(request.thread_id, "thread_id")
            check_threads((thread,))
            holder = _holder(request.holder)
            ttl = _ttl(request.ttl_seconds)
            token = await self.leases(saver).take(thread, holder, ttl)
            return pb.LeaseResponse(held=token is not None, token=token or 0)

        return await self._call(context, True, fn)

    async def RenewLease(self, request: pb.RenewLeaseRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _required(request.thread_id, "thread_id")
            check_threads((thread,))
            ttl = _ttl(request.ttl_seconds)
            holder = _holder(request.holder)
            ok = await self.leases(saver).renew(thread, holder, request.token, ttl)
            if not ok:
                raise LeaseLostError(thread, request.token)
            return pb.LeaseResponse(held=True, token=request.token)

        return await self._call(context, True, fn)

    async def ReleaseLease(self, request: pb.ReleaseLeaseRequest, context: Context) -> Any:
        async def fn(tenant: Tenant, saver: AsyncActionSaver, wire: Wire) -> Any:
            thread = _required(request.thread_id, "thread_id")
            check_threads((thread,))
            holder = _holder(request.holder)
            ok = await self.leases(saver).give_back(thread, holder, request.token)
            return pb.LeaseResponse(held=False, token=request.token if ok else 0)

        return await self._call(context, True, fn)


# ------------------------------------------------------------------ helpers


def _distinct_batches(records: list[ActionRecord]) -> list[list[ActionRecord]]:
    """``records`` in order, cut where an action comes again (one upsert cannot touch a row twice).

    Each batch is written as if it were its own call: a later row of an action
    updates the earlier one, as two calls would.
    """
    batches: list[list[ActionRecord]] = []
    seen: set[tuple[str, str]] = set()
    for record in records:
        key = (record.thread_id, record.action_id)
        if not batches or key in seen:
            batches.append([])
            seen.clear()
        seen.add(key)
        batches[-1].append(record)
    return batches


def _strings(msg: Any, name: str) -> list[str]:
    """A string field's values: a repeated one's, a set one's, or none."""
    value = getattr(msg, name)
    if isinstance(value, str):
        return [value] if msg.HasField(name) else []
    return list(value)


def _thread(config: pb.Config) -> pb.Config:
    _required(config.thread_id, "config.thread_id")
    return config


def _required(value: str, name: str) -> str:
    if not value:
        raise ConfigurationError(f"{name} is required")
    return value


_MAX_HOLDER = 256  # bytes: a worker's id (the remote savers send a UUID)


def _holder(value: str) -> str:
    holder = _required(value, "holder")
    if len(holder.encode("utf-8", "surrogatepass")) > _MAX_HOLDER:
        raise ConfigurationError(f"holder must be at most {_MAX_HOLDER} bytes")
    return holder


_MAX_TTL = 3600  # seconds: the longest lease a client may ask for


def _ttl(seconds: float) -> float:
    if not 0 < seconds <= _MAX_TTL:
        raise ConfigurationError(f"ttl_seconds must be in (0, {_MAX_TTL}]")
    return seconds


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _with_run_config(wire: Wire, config: Any, msg: pb.Typed) -> Any:
    """Add the caller's primitive metadata and configurable values to a config."""
    extra = wire.mapping(msg, "run_config")
    for key in ("metadata", "configurable"):
        part = extra.get(key) or {}
        if not isinstance(part, dict):
            raise ConfigurationError(f"run_config.{key} must be a mapping")
        clean = {
            str(k): v
            for k, v in part.items()
            if isinstance(v, (str, int, float, bool)) and not str(k).startswith("__")
        }
        if key == "metadata":
            config["metadata"] = clean
        else:
            config["configurable"] = {**clean, **config["configurable"]}
    return config


def _write_value(write: pb.Write) -> Any:
    """A write's value as given (an error's stand-in names its class, see ``remote_error``)."""
    check_type(write.value.type)
    raw = Raw(write.value.type, write.value.data)
    if write.channel == ERROR:
        return remote_error(write.error_type or "Exception", write.error_message, raw)
    return raw


async def _existing(saver: AsyncActionSaver, thread_id: str, action_id: str) -> Any:
    record = await saver.aget_action(
        _required(thread_id, "thread_id"), _required(action_id, "action_id")
    )
    if record is None:
        raise NotFound(f"no action {action_id!r} in thread {thread_id!r}")
    return record
