# Generated from langgraph_actionckpt/service/_async_remote.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The remote savers' I/O, written once.

``_async_remote.py`` is the source (:class:`AsyncRemoteBody`, the base of
:class:`~langgraph_actionckpt.AsyncRemoteActionSaver`); ``.ci/gen_sync.py``
generates ``_sync_remote.py`` (:class:`SyncRemoteBody`, the base of
:class:`~langgraph_actionckpt.RemoteActionSaver`) from it. Edit this file, then
run ``python .ci/gen_sync.py``.

A remote saver has its parts: ``remote`` (:class:`~.remote_base.RemoteCore`: the
settings, the held writes, the calls' errors), ``channel``
(:class:`AsyncRemoteChannel`: the gRPC channel and its calls), ``writer`` (the
action rows' background writer) and ``lease_keeper`` (the service's leases).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Self

import grpc
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    CheckpointTuple,
)

from langgraph_actionckpt._saver_base import install_hooks
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.settle import Resolution
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.checkpoints._sync_api import (
    ListQuery,
    PutCall,
    SyncSaverAPI,
    opened,
)
from langgraph_actionckpt.checkpoints.durability import DurabilityBarrier
from langgraph_actionckpt.checkpoints.setup import Allowlist
from langgraph_actionckpt.errors import ServiceError
from langgraph_actionckpt.replay.run import ActionRun
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service._pb import checkpoint_pb2_grpc as pb_grpc
from langgraph_actionckpt.service.remote_base import RemoteCore, run_config, sleep
from langgraph_actionckpt.service.remote_channels import SyncChannels
from langgraph_actionckpt.service.wire import (
    PROTOCOL_VERSION,
    Wire,
    json_bytes,
    record_from_json,
    record_to_json,
)


class SyncRemoteChannel:
    """A remote saver's channels to the service: its unary calls and the ``List`` stream.

    One channel per replica, opened on first use. A call that finds its replica
    unreachable moves the saver to the next one (``remote.targets``), where a
    safe call is repeated at once (the others raise: the next call goes there).
    """

    def __init__(self, remote: RemoteCore) -> None:
        self.remote = remote
        self.channels: dict[int, Any] = {}
        self.stubs: dict[int, Any] = {}
        self._opening = threading.Lock()  # the sync saver is called from several threads

    @property
    def stub(self) -> Any:
        """The stub of the replica called now."""
        return self._stub(self.remote.targets.current)

    def _stub(self, at: int) -> Any:
        stub = self.stubs.get(at)
        if stub is None:
            with self._opening:
                stub = self.stubs.get(at)
                if stub is None:
                    remote = self.remote
                    channel = SyncChannels.open(remote.targets.all[at], remote.tls)
                    self.channels[at] = channel
                    stub = self.stubs[at] = pb_grpc.CheckpointServiceStub(channel)  # type: ignore[no-untyped-call]
        return stub

    def call(self, name: str, request: Any, config: Any = None) -> Any:
        """One unary call with a deadline; safe calls are retried (on the next replica at once)."""
        remote = self.remote
        attempt = 0
        while True:
            attempt += 1
            at = remote.targets.current
            try:
                return getattr(self._stub(at), name)(
                    request, timeout=remote.timeout, metadata=remote.call_metadata
                )
            except grpc.RpcError as error:
                moved = remote.targets.fail_over(at, error)
                if remote.retryable(name, error, attempt):
                    sleep(remote.retry_delay(attempt, moved))
                    continue
                raise remote.error(name, error, config, at) from None

    def list(self, request: Any, config: Any) -> Iterator[Any]:
        """The ``List`` stream's messages; retried while it has sent none."""
        remote = self.remote
        attempt = 0
        while True:
            attempt += 1
            got = 0
            at = remote.targets.current
            try:
                stream = self._stub(at).List(
                    request, timeout=remote.timeout, metadata=remote.call_metadata
                )
                for msg in stream:
                    got += 1
                    yield msg
                return
            except grpc.RpcError as error:
                moved = remote.targets.fail_over(at, error)
                if got == 0 and remote.retryable("List", error, attempt):
                    sleep(remote.retry_delay(attempt, moved))
                    continue
                raise remote.error("List", error, config, at) from None

    def close(self) -> None:
        """Close the channels."""
        for channel in self.channels.values():
            channel.close()
        self.channels.clear()
        self.stubs.clear()


class SyncRemoteBody(SyncSaverAPI, BaseCheckpointSaver[str]):
    """The calls of a remote saver (see :class:`~.remote_base.RemoteCore` for its arguments).

    The public saver subclasses it and provides its action writer (:meth:`_open_writer`).
    """

    def __init__(self, target: str | Sequence[str], **options: Any) -> None:
        remote = self.remote = RemoteCore(target, **options)
        super().__init__(serde=remote.serde)
        install_hooks(remote.replay)
        # the members the hooks read (see ``_contracts.ActionSaverLike``)
        self.schema, self.replay, self.metrics = remote.schema, remote.replay, remote.metrics
        self.lease_mode, self.lease_timeout = remote.lease_mode, remote.lease_timeout
        self.lease_keeper = remote.lease_keeper
        self.conninfo: str | None = None  # no database connection of our own
        self.durable_timeout, self.durable = remote.durable_timeout, DurabilityBarrier()
        self.allowlist = Allowlist()
        self.channel = SyncRemoteChannel(remote)
        self.writer = self._open_writer()

    def _open_writer(self) -> SyncActionWriter:
        """The saver's action writer (each world its own)."""
        raise NotImplementedError

    @property
    def wire(self) -> Wire:
        """Conversions with the current serializer."""
        return Wire(self.serde)

    @classmethod
    @contextmanager
    def from_target(
        cls,
        target: str | Sequence[str],
        token: str | None = None,
        *,
        setup: bool = False,
        **options: Any,
    ) -> Iterator[Self]:
        """A remote saver of the service at ``target``; closing it closes its channels.

        Args:
            target: ``host:port`` of the service, or of its replicas (a sequence,
                or separated by commas): a call that finds one unreachable goes on
                to the next.
            token: The bearer token (None for an open service).
            setup: Call :meth:`setup` first (checks reachability and the protocol).
            **options: See :class:`RemoteCore` (``tls``, ``timeout``, ``retries``...).
        """
        with opened(cls(target, token=token, **options), setup) as saver:
            yield saver

    def setup(self) -> None:
        """Check that the service is reachable and speaks this client's protocol.

        Raises:
            ServiceError: Unreachable, a bad token, or ``FAILED_PRECONDITION``
                naming both protocol versions.
        """
        req = pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION)
        self.channel.call("Handshake", req)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self._flush_held()  # reads see every write made so far
        wire = self.wire
        req = pb.GetTupleRequest(config=wire.config_msg(config))
        res = self.channel.call("GetTuple", req, config)
        if not res.HasField("tuple"):
            return None
        tup = wire.checkpoint_tuple(res.tuple)
        self.durable.mark(tup.config["configurable"]["checkpoint_id"])
        return tup

    def _list_tuples(self, query: ListQuery) -> Iterator[CheckpointTuple]:
        # a server stream
        config, filter, before, limit = query
        self._flush_held()
        wire = self.wire
        req = pb.ListRequest(
            config=wire.config_msg(config),
            before=wire.config_msg(before),
            filter=wire.typed(dict(filter)) if filter else None,
            limit=limit,
        )
        for msg in self.channel.list(req, config):
            yield wire.checkpoint_tuple(msg)

    def _put(self, call: PutCall) -> RunnableConfig:
        # the thread's held writes go in the same call
        config, checkpoint, metadata, new_versions = call
        wire = self.wire
        req = pb.PutRequest(
            config=wire.config_msg(config),
            checkpoint=wire.checkpoint_msg(checkpoint),
            metadata=wire.typed(dict(metadata)),
            new_versions=wire.typed(dict(new_versions)),
            run_config=wire.typed(run_config(config)),
            fence=self.remote.fence(config),
        )
        remote = self.remote
        key = remote.key(config)
        held = remote.take_held(key)
        req.writes.extend(held)
        try:
            res = self.channel.call("Put", req, config)
        except BaseException:
            remote.unhold(key, held)
            raise
        self.durable.mark(checkpoint["id"])
        return wire.config(res.config)

    def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        # the node action row is made by the service
        wire = self.wire
        req = pb.PutWritesRequest(
            config=wire.config_msg(config),
            writes=wire.writes_msg(writes),
            task_id=task_id,
            task_path=path,
            run_config=wire.typed(run_config(config)),
            fence=self.remote.fence(config),
        )
        if self.remote.defer_writes and not any(c in WRITES_IDX_MAP for c, _ in writes):
            self.remote.hold(self.remote.key(config), req)  # sent with the thread's next checkpoint
            self.writer.start()  # whose ticks send it on its own if none comes
            return
        self.channel.call("PutWrites", req, config)

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write, blob and action of a thread."""
        self._flush_held()
        self.channel.call("DeleteThread", pb.DeleteThreadRequest(thread_id=str(thread_id)))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints, writes and actions created by the given runs."""
        self._flush_held()
        req = pb.DeleteForRunsRequest(run_ids=[str(r) for r in run_ids])
        self.channel.call("DeleteForRuns", req)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread (checkpoints, blobs, writes and actions) to a new thread id."""
        self._flush_held()
        req = pb.CopyThreadRequest(
            source_thread_id=str(source_thread_id), target_thread_id=str(target_thread_id)
        )
        self.channel.call("CopyThread", req)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune checkpoints: ``keep_latest`` per namespace, or ``delete`` all."""
        self._flush_held()
        req = pb.PruneRequest(thread_ids=[str(t) for t in thread_ids], strategy=strategy)
        self.channel.call("Prune", req)

    def flush_writes(self) -> None:
        """Send held writes now (see ``defer_writes``)."""
        self._flush_held()

    def _flush_writes_on_tick(self) -> None:
        self._flush_held(older_than=self.remote.writer_interval / 2)

    def _flush_held(self, older_than: float = 0.0) -> None:
        for req in self.remote.take_held(None, older_than):
            self.channel.call("PutWrites", req)

    def close(self) -> None:
        """Write queued action rows, stop the writer, give leases back, close the channel."""
        try:
            self._flush_held()
            self.writer.close()
        except ServiceError:
            pass  # the service is gone: the rows were not acknowledged either
        finally:
            if self.lease_keeper is not None:
                self.lease_keeper.release_all()
            self.channel.close()

    # ------------------------------------------------------------ the action log

    def _query_actions(
        self, thread_id: str | None, filters: dict[str, Any]
    ) -> builtins.list[ActionRecord]:
        since = filters["since"]
        req = pb.ListActionsRequest(
            thread_id=thread_id,
            action_types=_names(filters["action_type"]),
            statuses=_names(filters["status"]),
            node=filters["node"],
            since_step=since if isinstance(since, int) else None,
            since_time=since.isoformat() if isinstance(since, datetime) else None,
            run_id=filters["run_id"],
            task_id=filters["task_id"],
            limit=filters["limit"],
        )
        res = self.channel.call("ListActions", req)
        return [record_from_json(r) for r in res.records]

    def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        req = pb.GetActionRequest(thread_id=thread_id, action_id=action_id)
        res = self.channel.call("GetAction", req)
        return record_from_json(res.record) if res.HasField("record") else None

    def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        req = pb.LastActionRequest(thread_id=thread_id, statuses=_names(status))
        res = self.channel.call("LastAction", req)
        return record_from_json(res.record) if res.HasField("record") else None

    def _settle_action(self, resolution: Resolution) -> None:
        r = resolution
        req = pb.ResolveActionRequest(
            thread_id=r.thread_id,
            action_id=r.action_id,
            output_json=json_bytes(r.output) if r.output is not None else None,
            retry=r.retry,
            note=r.note,
            override=r.override,
        )
        self.channel.call("ResolveAction", req)

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one call (used by the writer)."""
        req = pb.RecordActionsRequest(records=[record_to_json(r) for r in records])
        self.channel.call("RecordActions", req)

    def run(self, run_id: str, *, agent_id: str | None = None) -> ActionRun:
        """``with saver.run(run_id, agent_id=...) as run:`` (or ``async with``): see ActionRun."""
        return ActionRun(self, run_id, agent_id)

    def archive_thread(self, thread_id: str) -> str | None:
        """Move a thread to the service's cold tier; its URL, or None when it has no rows.

        A later call naming the thread restores it first (transparently).

        Raises:
            ServiceError: ``FAILED_PRECONDITION`` when the service has no cold tier.
        """
        req = pb.ArchiveThreadRequest(thread_id=str(thread_id))
        res = self.channel.call("ArchiveThread", req)
        return str(res.url) if res.archived else None

    # ---------------------------------------------------------------- lease

    def acquire_lease(self, thread_id: str, holder: str, ttl: float = 30.0) -> int | None:
        """Take the service's lease of a thread: its fencing token, or None when busy."""
        req = pb.AcquireLeaseRequest(thread_id=thread_id, holder=holder, ttl_seconds=ttl)
        res = self.channel.call("AcquireLease", req)
        return int(res.token) if res.held else None

    def release_lease(self, thread_id: str, holder: str, token: int) -> bool:
        """Give a lease back; False when it was no longer this holder's."""
        req = pb.ReleaseLeaseRequest(thread_id=thread_id, holder=holder, token=token)
        res = self.channel.call("ReleaseLease", req)
        return bool(res.token)


def _names(value: str | Sequence[str] | None) -> builtins.list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
