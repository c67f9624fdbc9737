# Generated from langgraph_actionckpt/service/_async_remote.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The remote savers' I/O, written once.

``_async_remote.py`` is the source (:class:`AsyncRemoteIO`, the body of
:class:`~langgraph_actionckpt.AsyncRemoteActionSaver`); ``.ci/gen_sync.py``
generates ``_sync_remote.py`` (:class:`SyncRemoteIO`, the body of
:class:`~langgraph_actionckpt.RemoteActionSaver`) from it. Edit this file, then
run ``python .ci/gen_sync.py``.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Self

import grpc
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    CheckpointTuple,
)

from langgraph_actionckpt.actions._sync_api import SyncActionLogAPI
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.checkpoints._sync_api import (
    ListQuery,
    PutCall,
    SyncCheckpointAPI,
    opened,
)
from langgraph_actionckpt.errors import ServiceError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service._pb import checkpoint_pb2_grpc as pb_grpc
from langgraph_actionckpt.service.remote_base import RemoteCore, SyncChannels, run_config, sleep
from langgraph_actionckpt.service.wire import (
    PROTOCOL_VERSION,
    json_bytes,
    record_from_json,
    record_to_json,
)


class SyncRemoteChannel(RemoteCore):
    """A remote saver's channel and its one unary call (see :class:`RemoteCore`)."""

    def __init__(self, target: str, **options: Any) -> None:
        super().__init__(target, **options)
        self.channel: Any = SyncChannels.open(target, self.tls)
        self.stub: Any = pb_grpc.CheckpointServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self._open()

    def _open(self) -> None:
        """Set ``self.writer`` (each world its own)."""
        raise NotImplementedError

    def _call(self, name: str, request: Any, config: Any = None) -> Any:
        """One unary call with a deadline; safe calls are retried with backoff."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return getattr(self.stub, name)(
                    request, timeout=self.timeout, metadata=self.call_metadata
                )
            except grpc.RpcError as error:
                if self._retryable(name, error, attempt):
                    sleep(self._retry_delay(attempt))
                    continue
                raise self._error(name, error, config) from None

    def setup(self) -> None:
        """Check that the service is reachable and speaks this client's protocol.

        Raises:
            ServiceError: Unreachable, a bad token, or ``FAILED_PRECONDITION``
                naming both protocol versions.
        """
        self._call("Handshake", pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION))


class SyncRemoteActionLog(SyncRemoteChannel, SyncActionLogAPI):
    """A remote saver's action log, cold-tier archive and thread lease calls."""

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
        res = self._call("ListActions", req)
        return [record_from_json(r) for r in res.records]

    def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        req = pb.GetActionRequest(thread_id=thread_id, action_id=action_id)
        res = self._call("GetAction", req)
        return record_from_json(res.record) if res.HasField("record") else None

    def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        req = pb.LastActionRequest(thread_id=thread_id, statuses=_names(status))
        res = self._call("LastAction", req)
        return record_from_json(res.record) if res.HasField("record") else None

    def _settle_action(
        self,
        thread_id: str,
        action_id: str,
        output: Any,
        retry: bool,
        note: str | None,
        override: bool,
    ) -> None:
        req = pb.ResolveActionRequest(
            thread_id=thread_id,
            action_id=action_id,
            output_json=json_bytes(output) if output is not None else None,
            retry=retry,
            note=note,
            override=override,
        )
        self._call("ResolveAction", req)

    def record_actions(self, records: Sequence[ActionRecord]) -> None:
        """Write action records now, in one call (used by the writer)."""
        req = pb.RecordActionsRequest(records=[record_to_json(r) for r in records])
        self._call("RecordActions", req)

    def archive_thread(self, thread_id: str) -> str | None:
        """Move a thread to the service's cold tier; its URL, or None when it has no rows.

        A later call naming the thread restores it first (transparently).

        Raises:
            ServiceError: ``FAILED_PRECONDITION`` when the service has no cold tier.
        """
        req = pb.ArchiveThreadRequest(thread_id=str(thread_id))
        res = self._call("ArchiveThread", req)
        return str(res.url) if res.archived else None

    # ---------------------------------------------------------------- lease

    def acquire_lease(self, thread_id: str, holder: str, ttl: float = 30.0) -> int | None:
        """Take the service's lease of a thread: its fencing token, or None when busy."""
        req = pb.AcquireLeaseRequest(thread_id=thread_id, holder=holder, ttl_seconds=ttl)
        res = self._call("AcquireLease", req)
        return int(res.token) if res.held else None

    def release_lease(self, thread_id: str, holder: str, token: int) -> bool:
        """Give a lease back; False when it was no longer this holder's."""
        req = pb.ReleaseLeaseRequest(thread_id=thread_id, holder=holder, token=token)
        res = self._call("ReleaseLease", req)
        return bool(res.token)


class SyncRemoteIO(SyncCheckpointAPI, SyncRemoteActionLog):
    """The calls of a remote saver (see :class:`RemoteCore` for its arguments).

    The checkpoint calls are here; the channel, action log and lease calls in
    its bases.
    """

    @classmethod
    @contextmanager
    def from_target(
        cls, target: str, token: str | None = None, *, setup: bool = False, **options: Any
    ) -> Iterator[Self]:
        """A remote saver of the service at ``target``; closing it closes its channel.

        Args:
            target: ``host:port`` of the service.
            token: The bearer token (None for an open service).
            setup: Call :meth:`setup` first (checks reachability and the protocol).
            **options: See :class:`RemoteCore` (``tls``, ``timeout``, ``retries``...).
        """
        with opened(cls(target, token=token, **options), setup) as saver:
            yield saver

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Fetch a checkpoint tuple (the latest of the thread when no checkpoint_id)."""
        self._flush_held()  # reads see every write made so far
        wire = self.wire
        req = pb.GetTupleRequest(config=wire.config_msg(config))
        res = self._call("GetTuple", req, config)
        if not res.HasField("tuple"):
            return None
        tup = wire.checkpoint_tuple(res.tuple)
        self._durable.mark(tup.config["configurable"]["checkpoint_id"])
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
        attempt = 0
        while True:
            attempt += 1
            got = 0
            try:
                stream = self.stub.List(req, timeout=self.timeout, metadata=self.call_metadata)
                for msg in stream:
                    got += 1
                    yield wire.checkpoint_tuple(msg)
                return
            except grpc.RpcError as error:
                if got == 0 and self._retryable("List", error, attempt):
                    sleep(self._retry_delay(attempt))
                    continue
                raise self._error("List", error, config) from None

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
            fence=self._fence(config),
        )
        key = self._key(config)
        held = self._take_held(key)
        req.writes.extend(held)
        try:
            res = self._call("Put", req, config)
        except BaseException:
            self._unhold(key, held)
            raise
        self._durable.mark(checkpoint["id"])
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
            fence=self._fence(config),
        )
        if self.defer_writes and not any(c in WRITES_IDX_MAP for c, _ in writes):
            self._hold(self._key(config), req)  # sent with the thread's next checkpoint
            self.writer.start()  # whose ticks send it on its own if none comes
            return
        self._call("PutWrites", req, config)

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write, blob and action of a thread."""
        self._flush_held()
        self._call("DeleteThread", pb.DeleteThreadRequest(thread_id=str(thread_id)))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints, writes and actions created by the given runs."""
        self._flush_held()
        req = pb.DeleteForRunsRequest(run_ids=[str(r) for r in run_ids])
        self._call("DeleteForRuns", req)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread (checkpoints, blobs, writes and actions) to a new thread id."""
        self._flush_held()
        req = pb.CopyThreadRequest(
            source_thread_id=str(source_thread_id), target_thread_id=str(target_thread_id)
        )
        self._call("CopyThread", req)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Prune checkpoints: ``keep_latest`` per namespace, or ``delete`` all."""
        self._flush_held()
        req = pb.PruneRequest(thread_ids=[str(t) for t in thread_ids], strategy=strategy)
        self._call("Prune", req)

    def flush_writes(self) -> None:
        """Send held writes now (see ``defer_writes``)."""
        self._flush_held()

    def _flush_writes_on_tick(self) -> None:
        self._flush_held(older_than=self.writer_interval / 2)

    def _flush_held(self, older_than: float = 0.0) -> None:
        for req in self._take_held(None, older_than):
            self._call("PutWrites", req)

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


def _names(value: str | Sequence[str] | None) -> builtins.list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
