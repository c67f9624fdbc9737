"""The saver logic shared by :class:`ActionSaver` and :class:`AsyncActionSaver`.

Everything here is I/O-free: each public operation is a *plan* (see
``_driver``) that the sync and async classes hand to their driver.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    EXCLUDED_METADATA_KEYS,
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    PendingWrite,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT, TASKS

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt._contracts import MetricsSink, NullMetrics
from langgraph_actionckpt.actions.fields import agent_id_for
from langgraph_actionckpt.actions.records import ActionQueries, ActionRecord, plan_get, plan_list
from langgraph_actionckpt.checkpoints.blobs import (
    DELTA_TYPE,
    WRITE_REF_TYPE,
    BlobRow,
    ChainResolver,
    DeltaPolicy,
    ListCache,
    ListState,
    StoredBlob,
    join_snapshot,
    resolve_chain,
    split_deltas,
    stored_blob,
    write_from_ref,
    write_refers_to,
)
from langgraph_actionckpt.checkpoints.compress import pack_value, unpack_value
from langgraph_actionckpt.checkpoints.serde import ActionSerializer, has_surrogates
from langgraph_actionckpt.checkpoints.sql import N_CHECKPOINT_COLUMNS, Queries
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan, PlanFactory
from langgraph_actionckpt.db.migrations import plan_migrate
from langgraph_actionckpt.errors import ConfigurationError, SerializationError

logger = logging.getLogger("langgraph_actionckpt")

DEFAULT_SCHEMA = "actionckpt"
_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_INLINE_MAX = 256
_PAGE = 200


def validate_schema(schema: str) -> str:
    """Check a schema name; it must be a plain SQL identifier (it is quoted anyway)."""
    if not isinstance(schema, str) or not _SCHEMA_RE.match(schema):
        raise ConfigurationError(
            f"schema must match {_SCHEMA_RE.pattern} (letters, digits, underscore), got {schema!r}"
        )
    return schema


def default_serde() -> SerializerProtocol:
    """Strict msgpack serializer: only allowlisted types are revived on load.

    LangGraph adds the graph's own state types to the allowlist when it compiles
    a graph with this saver (``with_allowlist``). Pickle is never used.
    """
    return ActionSerializer(allowed_msgpack_modules=None)


def _node_from_path(task_path: str) -> str | None:
    # task paths look like "~__pregel_pull, agent" or "~__pregel_push, 0, ..."
    parts = [p.strip() for p in task_path.lstrip("~").split(",")]
    if len(parts) >= 2 and parts[0] == "__pregel_pull":
        return parts[1]
    return None


_t = _encoding.escape_text
_u = _encoding.unescape_text

DECODED = "__decoded__"
"""Marks a channel value that is already decoded (``list`` shares prefixes)."""

INLINE_VERSION = ""
"""``versions`` entry of a channel stored inline in the checkpoint (no blob row)."""


def _json(value: Any) -> str:
    return _encoding.dumps(value).decode()


class SaverCore(BaseCheckpointSaver[str]):
    """Shared state and plans of both savers. Not used directly."""

    # Provided by the sync and async subclasses (declared for the shared code).
    writer: Any

    def __init__(self, options: SaverOptions) -> None:
        super().__init__(serde=options.serde or default_serde())
        self.options = options
        self.schema = options.schema  # checked by SaverOptions
        self.queries = Queries(self.schema)
        self.action_queries = ActionQueries(self.schema)
        self.record_nodes = options.record_nodes
        self.delta_policy = options.delta_policy or DeltaPolicy()
        self._lists = ListCache(options.delta_cache_bytes)
        self.compress_min = options.compress_min
        self._is_setup = False
        # checkpoint id -> step, so node rows get their step without a lookup
        self._steps: dict[tuple[str, str, str], int] = {}
        self.replay = options.replay
        self.durable_timeout = options.durable_timeout
        self.durable_writes = options.durable_writes
        self.defer_writes = options.defer_writes
        self._pending: dict[tuple[str, str], list[_WriteCall]] = {}
        self._pending_lock = threading.Lock()
        self.lease_mode = options.lease
        self.lease_timeout = options.lease_timeout
        self.conninfo: str | None = None  # set by the subclasses, for dedicated connections
        self._durable: OrderedDict[str, None] = OrderedDict()
        self._durable_cv = threading.Condition()
        self.metrics: MetricsSink = (
            options.metrics if options.metrics is not None else NullMetrics()
        )
        self._allowed_types: set[tuple[str, ...]] = set()
        self._serde_lock = threading.Lock()

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> SaverCore:
        """Allow the graph's own types to be loaded; this saver, changed in place.

        LangGraph calls this with a compiled graph's state types (see
        ``_allowlist``). The base class returns a clone; changing the serializer in
        place keeps one saver (its held writes, leases and durability marks) per
        graph, and every graph compiled with it is allowed its own types.
        """
        # called on every graph run with the graph's cached set: no copy needed
        extra = extra_allowlist if isinstance(extra_allowlist, set) else set(extra_allowlist)
        if extra <= self._allowed_types:
            return self
        with self._serde_lock:  # two graphs resolving at once must not lose a merge
            derived = super().with_allowlist(extra)
            if derived is not self:
                self.serde = derived.serde
            self._allowed_types = self._allowed_types | extra
        return self

    # --------------------------------------------------------------- durability

    def _mark_durable(self, checkpoint_id: str) -> None:
        with self._durable_cv:
            self._durable[checkpoint_id] = None
            if len(self._durable) > 100_000:
                self._durable.popitem(last=False)
            self._durable_cv.notify_all()

    def _missing_durable(self, ids: Sequence[str]) -> list[str]:
        return [i for i in ids if i not in self._durable]

    def wait_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Block until the given checkpoints are committed (the replay barrier).

        Under ``durability="async"`` LangGraph starts a task before the checkpoint it
        was prepared from is saved; a crash then loses that checkpoint, and the
        re-run task gets a new id, so its actions could not be found again. Waiting
        here before the task's first live action closes that window. Checkpoints
        this process never saves (subgraphs compiled with ``checkpointer=False``)
        are given up on after ``durable_timeout`` seconds.

        Returns:
            True when every checkpoint is known to be durable.
        """
        if durability != "async":
            return True
        deadline = time.monotonic() + self.durable_timeout
        with self._durable_cv:
            while missing := self._missing_durable(ids):
                left = deadline - time.monotonic()
                if left <= 0:
                    logger.debug(
                        "checkpoints %s not durable after %.1fs", missing, self.durable_timeout
                    )
                    return False
                self._durable_cv.wait(min(left, 0.05))
        return True

    async def await_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Async :meth:`wait_durable` (never blocks the event loop)."""
        if durability != "async":
            return True
        deadline = time.monotonic() + self.durable_timeout
        while missing := self._missing_durable(ids):
            if time.monotonic() >= deadline:
                logger.debug(
                    "checkpoints %s not durable after %.1fs", missing, self.durable_timeout
                )
                return False
            await asyncio.sleep(0.0005)
        return True

    # ------------------------------------------------------------------ resolve

    def _plan_resolve(
        self, thread_id: str, action_id: str, output: Any, retry: bool, note: str | None
    ) -> Plan[None]:
        if retry == (output is not None):
            raise ConfigurationError("resolve_action needs exactly one of output=... or retry=True")
        yield from self._plan_flush_pending()
        params = {
            "thread_id": _t(thread_id),
            "action_id": _t(action_id),
            "status": "failed" if retry else "completed",
            "output": None if retry else _json(output),
            "meta": _json({"resolution": note or ("retry" if retry else "output given")}),
        }
        row = yield Op(self.action_queries.resolve, params, "one")
        if row is None:
            raise ConfigurationError(f"no action {action_id!r} on thread {thread_id!r}")

    # ----------------------------------------------------------------- versions

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        """Fixed-width versions: ``000000000042.<48 random bits>``.

        The integer part orders versions; the random part keeps two forks of the
        same checkpoint from writing different values under one version.
        """
        if current is None:
            current_v = 0
        elif isinstance(current, (int, float)):
            current_v = int(current)
        else:
            current_v = int(str(current).split(".")[0])
        return f"{current_v + 1:012d}.{random.getrandbits(48):012x}"

    # -------------------------------------------------------------------- setup

    def _plan_setup(self) -> Plan[int]:
        """Apply pending migrations (the one runner, :func:`plan_migrate`)."""
        return (yield from plan_migrate(self.schema))

    # ---------------------------------------------------------------------- put

    def _plan_put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> Plan[RunnableConfig]:
        conf = config["configurable"]
        thread_id = _t(str(conf["thread_id"]))
        ns = _t(conf.get("checkpoint_ns", "") or "")
        parent_id = conf.get("checkpoint_id")
        values = checkpoint.get("channel_values", {})
        inline: dict[str, Any] = {}
        channels: list[str] = []
        versions: list[str] = []
        rows: list[BlobRow] = []
        states: list[tuple[tuple[str, str, str], ListState | None]] = []
        for channel, version in checkpoint["channel_versions"].items():
            if channel not in values:
                continue
            value = values[channel]
            if _inlinable(value):
                inline[channel] = value
                # listed with an empty version: every present channel is visible to SQL
                channels.append(_t(channel))
                versions.append(INLINE_VERSION)
                continue
            channels.append(_t(channel))
            versions.append(str(version))
            if channel in new_versions:
                row, state = self._encode_blob(thread_id, ns, _t(channel), str(version), value)
                rows.append(row)
                states.append(((thread_id, ns, _t(channel)), state))
        stored = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        stored["channel_values"] = inline
        type_, data = pack_value(
            *self._dumps(stored, "checkpoint"), self.compress_min, checkpoint=True
        )
        meta = merge_metadata(config, metadata)
        params = {
            "thread_id": thread_id,
            "ns": ns,
            "checkpoint_id": checkpoint["id"],
            "parent": parent_id,
            "run_id": _str_or_none(meta.get("run_id")),
            "step": meta.get("step") if isinstance(meta.get("step"), int) else None,
            "type": type_,
            "checkpoint": data,
            "channels": channels,
            "versions": versions,
            "metadata": _json(meta),
        }
        for i, r in enumerate(rows):
            params[f"b{i}_channel"] = r.channel
            params[f"b{i}_version"] = r.version
            if r.blob is not None:
                params[f"b{i}_type"], params[f"b{i}_blob"] = pack_value(
                    r.type, r.blob, self.compress_min
                )
            else:
                params[f"b{i}_type"], params[f"b{i}_blob"] = r.type, r.blob
            params[f"b{i}_base"] = r.base
            params[f"b{i}_snap"] = r.snap
            params[f"b{i}_cnt"] = r.count
            params[f"b{i}_len"] = r.list_len
        # Writes of this checkpoint or later ones (with durability="async" they can
        # arrive before it) wait for a later put: stored beside its child's deltas,
        # a write that is exactly what a delta appended becomes a reference to it.
        # Checkpoint ids are uuid6, so string order is creation order.
        calls = self._take_pending((thread_id, ns), keep_from=checkpoint["id"])
        deltas = {r.channel: r for r in rows if r.type == DELTA_TYPE}
        counts = _bind_calls(params, calls, deltas, shared=True)
        try:
            yield Op(
                self.queries.store(*counts, len(rows), True, False, True),
                params,
                prepare=True,
                lock_key=thread_id,
            )
            yield from self._after_calls(calls)
        except BaseException:
            self._restore_pending(calls)
            raise
        self._mark_durable(checkpoint["id"])
        for key, state in states:
            if state is not None:
                self._lists.put(key, state)
        if isinstance(params["step"], int):
            if len(self._steps) > 10_000:
                self._steps.clear()
            self._steps[(thread_id, ns, str(checkpoint["id"]))] = params["step"]
        return {
            "configurable": {
                "thread_id": conf["thread_id"],
                "checkpoint_ns": conf.get("checkpoint_ns", "") or "",
                "checkpoint_id": checkpoint["id"],
            }
        }

    def _encode_blob(
        self, thread_id: str, ns: str, channel: str, version: str, value: Any
    ) -> tuple[BlobRow, ListState | None]:
        serde = self.serde
        if not isinstance(serde, ActionSerializer):
            type_, data = self._dumps(value, f"channel {channel!r}")
            prev = self._lists.get((thread_id, ns, channel))
            return self.delta_policy.encode(channel, version, type_, data, prev)
        try:
            type_, data = JsonPlusSerializer.dumps_typed(serde, value)
        except Exception as exc:
            raise SerializationError(
                f"cannot serialize channel {channel!r} ({type(value).__name__}): {exc}"
            ) from exc
        prev = self._lists.get((thread_id, ns, channel))
        row, state = self.delta_policy.encode(channel, version, type_, data, prev)
        # Surrogates come out of the encoder as "?": probe only what this version adds.
        if type_ == "msgpack" and row.blob is not None and b"?" in row.blob:
            added = value[prev.count :] if row.type == DELTA_TYPE and prev is not None else value
            if has_surrogates(added):
                etype, edata = serde.dumps_escaped(value)
                return BlobRow(channel, version, etype, edata), None
        return row, state

    def _dumps(self, value: Any, what: str) -> tuple[str, bytes]:
        try:
            return self.serde.dumps_typed(value)
        except Exception as exc:  # the serializer raises many types; add context
            raise SerializationError(
                f"cannot serialize {what} ({type(value).__name__}): {exc}"
            ) from exc

    def _loads(self, type_: str, data: bytes | None) -> Any:
        type_, data = unpack_value(type_, data)
        return self.serde.loads_typed((type_, data if data is not None else b""))

    # --------------------------------------------------------------- put_writes

    def _prepare_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> _WriteCall | None:
        """Serialize one ``put_writes`` call; hold it for the next checkpoint when allowed.

        Regular writes of a finished task are only needed to resume the step they
        belong to; they are held in memory and committed in the same statement as
        the thread's next checkpoint (or by the writer's flush within one and a
        half ``writer_interval``, or before any read). Special writes (errors,
        interrupts) are written at once.

        Returns:
            The call to write now, or None when it was held (or is empty).
        """
        conf = config["configurable"]
        thread_id = _t(str(conf["thread_id"]))
        ns = _t(conf.get("checkpoint_ns", "") or "")
        checkpoint_id = conf.get("checkpoint_id")
        special = any(w[0] in WRITES_IDX_MAP for w in writes)
        rows = []
        for i, (channel, value) in enumerate(writes):
            type_, data = self._dumps(value, f"write to {channel!r}")
            rows.append(
                (
                    thread_id,
                    ns,
                    checkpoint_id,
                    _t(task_id),
                    _t(task_path),
                    WRITES_IDX_MAP.get(channel, i),
                    _t(channel),
                    type_,
                    data,
                )
            )
        actions = []
        if self.record_nodes:
            metadata = config.get("metadata") or {}
            known = self._steps.get((thread_id, ns, str(checkpoint_id)))
            step = known + 1 if known is not None else _step_after(checkpoint_id)
            for a_id, a_type, a_name, a_status, a_output, a_error in self._node_actions(
                task_id, task_path, writes
            ):
                actions.append(
                    (
                        thread_id,
                        _t(a_id),
                        _str_or_none(metadata.get("run_id")),
                        ns,
                        checkpoint_id,
                        _t(task_id),
                        _node_from_path(task_path),
                        agent_id_for(_u(ns), metadata),
                        step,
                        a_type,
                        a_name,
                        a_status,
                        a_output,
                        a_error,
                    )
                )
        if not rows and not actions:
            return None
        error = next((v for c, v in writes if c == ERROR), None)
        call = _WriteCall(
            rows,
            special,
            actions,
            task_id
            if error is not None and type(error).__name__ != "InFlightActionError"
            else None,
            thread_id,
            checkpoint_id,
        )
        if self.defer_writes and not special:
            call.held_at = time.monotonic()
            with self._pending_lock:
                self._pending.setdefault((thread_id, ns), []).append(call)
            self._on_pending()
            return None
        return call

    def _plan_write_call(self, call: _WriteCall) -> Plan[None]:
        """Write one call now, with the thread's held writes before it."""
        calls = [*self._take_pending(call.key), call]
        params: dict[str, Any] = {}
        counts = _bind_calls(params, calls)
        try:
            # special writes (an error, an interrupt) are durable at once
            async_commit = not call.special and not self.durable_writes
            yield Op(self.queries.store(*counts, 0, False, async_commit), params)
            yield from self._after_calls(calls)
        except BaseException:
            self._restore_pending(calls[:-1])
            raise

    # --------------------------------------------------------- pending writes

    def _on_pending(self) -> None:
        """Called when writes are held; the subclass arranges a flush soon."""

    def _take_pending(self, key: tuple[str, str], keep_from: str | None = None) -> list[_WriteCall]:
        """Remove and return one thread's held writes, except those of checkpoints
        ``keep_from`` and after."""
        if not self._pending:
            return []
        with self._pending_lock:
            calls = self._pending.pop(key, [])
            if keep_from is None:
                return calls
            taken: list[_WriteCall] = []
            kept: list[_WriteCall] = []
            for call in calls:
                later = call.checkpoint_id is not None and call.checkpoint_id >= keep_from
                (kept if later else taken).append(call)
            if kept:
                self._pending[key] = kept
            return taken

    def _restore_pending(self, calls: Sequence[_WriteCall]) -> None:
        if not calls:
            return
        with self._pending_lock:
            for call in reversed(calls):
                self._pending.setdefault(call.key, []).insert(0, call)

    def _after_calls(self, calls: Sequence[_WriteCall]) -> Plan[None]:
        for call in calls:
            if call.failed_task is not None:
                # The task failed: the last LLM output it received may be the cause,
                # so the retry asks the model again instead of replaying that one.
                yield Op(
                    self.action_queries.not_replayable,
                    {"thread_id": call.thread_id, "task_id": _t(call.failed_task)},
                )

    # ----------------------------------------------------------- action reads
    # Reads first write any held writes, so they see every node row recorded.

    def _plan_list_actions(self, thread_id: str | None, **filters: Any) -> Plan[list[ActionRecord]]:
        yield from self._plan_flush_pending()
        return (yield from plan_list(self.action_queries, thread_id, **filters))

    def _plan_get_action(self, thread_id: str, action_id: str) -> Plan[ActionRecord | None]:
        yield from self._plan_flush_pending()
        return (yield from plan_get(self.action_queries, thread_id, action_id))

    def _plan_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> Plan[ActionRecord | None]:
        rows = yield from self._plan_list_actions(
            thread_id, status=status, limit=1, newest_first=True
        )
        return rows[0] if rows else None

    def _plan_flush_on_tick(self) -> Plan[None]:
        """The writer's tick: write the writes held for at least half an interval.

        Younger ones wait for the next tick, so most meet their step's checkpoint
        first and are stored with it (as references to its deltas); none waits
        longer than one and a half intervals.
        """
        held_before = time.monotonic() - self.writer.interval / 2
        return self._plan_flush_pending(held_before=held_before)

    def _plan_flush_pending(
        self, thread_id: str | None = None, held_before: float | None = None
    ) -> Plan[None]:
        """Write held writes now; a no-op when none are held.

        Args:
            thread_id: Only this thread's writes (all threads when None).
            held_before: Only writes held before this ``time.monotonic()`` value;
                the writer's tick passes it so that a write held a moment ago still
                meets its step's checkpoint (and becomes a reference to its delta).
        """
        if not self._pending:
            return
        with self._pending_lock:
            calls = []
            for key in list(self._pending):
                if thread_id is not None and key[0] != thread_id:
                    continue
                group = self._pending.pop(key)
                if held_before is not None:
                    young = [c for c in group if c.held_at >= held_before]
                    if young:
                        self._pending[key] = young
                    group = [c for c in group if c.held_at < held_before]
                calls.extend(group)
        if not calls:
            return
        # threads in ascending order, each in its own order (see AsyncDriver.run_grouped)
        calls.sort(key=lambda call: call.thread_id)
        params: dict[str, Any] = {}
        counts = _bind_calls(params, calls)
        try:
            yield Op(self.queries.store(*counts, 0, False, not self.durable_writes), params)
            yield from self._after_calls(calls)
        except BaseException:
            self._restore_pending(calls)
            raise

    def _node_actions(
        self, task_id: str, task_path: str, writes: Sequence[tuple[str, Any]]
    ) -> list[tuple[str, str, str | None, str, str | None, str | None]]:
        """The ``node`` row of a finished task.

        The row's output names the channels the task wrote, where its conditional
        edges routed it (``routes``) and how many ``Send`` packets it made
        (``sends``): the branch decision is part of the node's row, not a row of
        its own (one row per superstep task keeps the log, and its indexes, small).
        """
        node = _node_from_path(task_path)
        # A Send task's path names no node; its row still completes (the callback
        # handler's row for the task carries the name).
        is_push = task_path.lstrip("~").startswith("__pregel_push")
        if (node is None and not is_push) or (node is not None and node.startswith("__")):
            return []
        channels = [c for c, _ in writes]
        error = next((v for c, v in writes if c == ERROR), None)
        if error is not None:
            status = "failed"
        elif INTERRUPT in channels:
            status = "interrupted"
        else:
            status = "completed"
        summary = {
            "channels": [c for c in channels if not c.startswith("branch:")],
            "routes": [c.split(":", 2)[2] for c in channels if c.startswith("branch:to:")],
            "sends": sum(1 for c in channels if c == TASKS),
        }
        err_json = (
            _json({"type": type(error).__name__, "message": str(error)})
            if error is not None
            else None
        )
        return [(f"{task_id}:node", "node", node, status, _json(summary), err_json)]

    # ---------------------------------------------------------------- get_tuple

    def _plan_get_tuple(self, config: RunnableConfig) -> Plan[CheckpointTuple | None]:
        conf = config["configurable"]
        thread_id = _t(str(conf["thread_id"]))
        ns = _t(conf.get("checkpoint_ns", "") or "")
        checkpoint_id = conf.get("checkpoint_id")
        yield from self._plan_flush_pending()
        params = {"thread_id": thread_id, "ns": ns, "checkpoint_id": checkpoint_id}
        row = yield Op(
            self.queries.get_tuple(checkpoint_id is not None), params, "one", prepare=True
        )
        if row is None:
            return None
        values: dict[str, tuple[str, bytes | None]] = {}
        states: dict[str, ListState] = {}
        forked: dict[str, str] = {}
        (b_channel, b_type, b_blob, b_len, d_body, d_items, t_len, b_snap, d_n, d_layout) = row[
            N_CHECKPOINT_COLUMNS : N_CHECKPOINT_COLUMNS + 10
        ]
        versions = dict(zip(row[7] or (), row[8] or (), strict=True))
        for i, channel in enumerate(b_channel or ()):
            snap = b_snap[i]
            if snap is None:
                values[channel] = (b_type[i], b_blob[i])
                continue
            snap_type, snap_blob = unpack_value(b_type[i], b_blob[i])
            # split_deltas gives None when a row that is not a delta lies in the range
            deltas = None if d_body[i] is None else split_deltas(d_body[i], d_layout[i])
            joined = (
                join_snapshot(snap_type, snap_blob, b_len[i], deltas, d_items[i], t_len[i])
                if deltas is not None or d_body[i] is None
                else None
            )
            if joined is None:  # a fork inside the range: resolve row by row
                forked[channel] = versions[channel]
                continue
            data, body, snap_len = joined
            values[channel] = ("msgpack", data)
            states[channel] = ListState(
                versions[channel],
                body,
                t_len[i],
                snap,
                snap_len,
                len(body) - snap_len,
                d_n[i] or 0,
            )
        if forked:
            rows = yield Op(
                self.queries.chains_for(True),
                {
                    "thread_id": thread_id,
                    "ns": ns,
                    "channels": list(forked),
                    "versions": list(forked.values()),
                },
                "all",
            )
            per: dict[str, dict[str, StoredBlob]] = {}
            for ch, ver, typ, blob, base, cnt in rows:
                per.setdefault(ch, {})[ver] = stored_blob(typ, blob, base, cnt)
            for channel, version in forked.items():
                vtype, vdata, state = resolve_chain(per.get(channel, {}), version)
                values[channel] = (vtype, vdata)
                if state is not None:
                    states[channel] = state
        tup = self._make_tuple(row, values)
        if checkpoint_id is None:
            for channel, state in states.items():
                self._lists.put((thread_id, ns, channel), state)
        self._mark_durable(tup.config["configurable"]["checkpoint_id"])
        return tup

    def _list_value(self, resolver: ChainResolver, channel: str, version: str) -> tuple[str, Any]:
        vtype, _ = resolver.resolve(channel, version)
        if vtype == "empty":
            return ("empty", None)
        return (DECODED, resolver.value(channel, version, self._loads))

    def _make_tuple(
        self, row: Sequence[Any], stored: Mapping[str, tuple[str, Any]]
    ) -> CheckpointTuple:
        (thread_id, ns, checkpoint_id, parent_id, type_, data, metadata, channels, versions) = row[
            :9
        ]
        w_task, w_channel, w_type, w_blob, w_rtype, w_rcount = row[9:N_CHECKPOINT_COLUMNS]
        checkpoint = cast(Checkpoint, self._loads(type_, data))
        values = dict(checkpoint.get("channel_values") or {})
        for channel, version in zip(channels or (), versions or (), strict=True):
            if version == INLINE_VERSION:
                continue
            item = stored.get(channel)
            if item is None:
                raise SerializationError(
                    f"checkpoint {checkpoint_id!r} of thread {thread_id!r} references "
                    f"{channel!r} version {version!r}, which is not stored"
                )
            if item[0] == "empty":
                continue
            values[_u(channel)] = item[1] if item[0] == DECODED else self._loads(item[0], item[1])
        thread_id, ns = _u(thread_id), _u(ns)
        checkpoint["channel_values"] = values
        pending: list[PendingWrite] = [
            (
                _u(w_task[i]),
                _u(w_channel[i]),
                self._loads(*write_from_ref(w_type[i], w_blob[i], w_rtype[i], w_rcount[i])),
            )
            for i in range(len(w_task or ()))
        ]
        return CheckpointTuple(
            config={
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": ns,
                    "checkpoint_id": checkpoint_id,
                }
            },
            checkpoint=checkpoint,
            metadata=cast(CheckpointMetadata, _encoding.from_jsonable(metadata)),
            parent_config=(
                {
                    "configurable": {
                        "thread_id": thread_id,
                        "checkpoint_ns": ns,
                        "checkpoint_id": parent_id,
                    }
                }
                if parent_id
                else None
            ),
            pending_writes=pending,
        )

    # --------------------------------------------------------------------- list

    def _list_conditions(
        self,
        config: RunnableConfig | None,
        filter: Mapping[str, Any] | None,
        before: RunnableConfig | None,
    ) -> tuple[list[str], dict[str, Any]]:
        conds: list[str] = []
        params: dict[str, Any] = {}
        if config is not None:
            conf = config.get("configurable", {})
            if conf.get("thread_id") is not None:
                conds.append("thread_id = %(thread_id)s")
                params["thread_id"] = _t(str(conf["thread_id"]))
            if conf.get("checkpoint_ns") is not None:
                conds.append("checkpoint_ns = %(ns)s")
                params["ns"] = _t(conf["checkpoint_ns"])
            if conf.get("checkpoint_id"):
                conds.append("checkpoint_id = %(checkpoint_id)s")
                params["checkpoint_id"] = conf["checkpoint_id"]
        if filter:
            # The whole filter is one bound JSONB value: keys never reach the SQL text.
            conds.append("metadata @> %(filter)s::jsonb")
            params["filter"] = _json(dict(filter))
        if before is not None and before.get("configurable", {}).get("checkpoint_id"):
            conds.append("checkpoint_id < %(before)s")
            params["before"] = before["configurable"]["checkpoint_id"]
        return conds, params

    def _plan_list(
        self,
        config: RunnableConfig | None,
        filter: Mapping[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[PlanFactory[tuple[list[CheckpointTuple], bool]]]:
        """Yield one plan factory per page; each plan returns ``(tuples, more_pages)``."""
        if limit is not None and limit <= 0:
            return
        conds, params = self._list_conditions(config, filter, before)
        remaining = limit
        cursor: tuple[str, str, str] | None = None
        while True:
            page = min(_PAGE, remaining) if remaining is not None else _PAGE
            page_conds = list(conds)
            page_params = dict(params, page=page)
            if cursor is not None:
                page_conds.append(
                    "(checkpoint_id, thread_id, checkpoint_ns) < (%(c_id)s, %(c_t)s, %(c_ns)s)"
                )
                page_params.update(c_id=cursor[0], c_t=cursor[1], c_ns=cursor[2])
            query = self.queries.list_page(tuple(page_conds))
            holder: list[tuple[str, str, str]] = []
            yield partial(self._plan_list_page, query, page_params, page, holder)
            if not holder:
                return
            cursor = holder[0]
            if remaining is not None:
                remaining -= page
                if remaining <= 0:
                    return

    def _plan_list_page(
        self,
        query: Any,
        params: dict[str, Any],
        page: int,
        cursor_out: list[tuple[str, str, str]],
    ) -> Plan[tuple[list[CheckpointTuple], bool]]:
        yield from self._plan_flush_pending()
        rows = yield Op(query, params, "all", prepare=True)
        if not rows:
            return [], False
        targets: set[tuple[str, str, str, str]] = set()
        for r in rows:
            for channel, version in zip(r[7] or (), r[8] or (), strict=True):
                if version != INLINE_VERSION:
                    targets.add((r[0], r[1], channel, version))
        blobs: dict[tuple[str, str], dict[str, dict[str, StoredBlob]]] = {}
        if targets:
            t = sorted(targets)
            blob_rows = yield Op(
                self.queries.blob_chains,
                ([x[0] for x in t], [x[1] for x in t], [x[2] for x in t], [x[3] for x in t]),
                "all",
            )
            for b in blob_rows:
                blobs.setdefault((b[0], b[1]), {}).setdefault(b[2], {})[b[3]] = stored_blob(
                    b[4], b[5], b[6], b[7]
                )
        resolvers = {key: ChainResolver(per) for key, per in blobs.items()}
        tuples = []
        for r in rows:
            resolver = resolvers.get((r[0], r[1]))
            stored = {
                ch: self._list_value(resolver, ch, ver) if resolver else _missing(ch, ver)
                for ch, ver in zip(r[7] or (), r[8] or (), strict=True)
                if ver != INLINE_VERSION
            }
            tuples.append(self._make_tuple(r, stored))
        if len(rows) == page:
            last = rows[-1]
            cursor_out.append((last[2], last[0], last[1]))
        return tuples, len(rows) == page

    # ------------------------------------------------------------- maintenance

    def _plan_delete_thread(self, thread_id: str) -> Plan[None]:
        yield from self._plan_flush_pending()
        yield BEGIN
        for stmt in self.queries.delete_thread:
            yield Op(stmt, {"thread_id": _t(str(thread_id))})
        yield COMMIT
        self._lists.forget_thread(_t(str(thread_id)))

    def _plan_delete_for_runs(self, run_ids: Sequence[str]) -> Plan[None]:
        ids = [_t(str(r)) for r in run_ids]
        if not ids:
            return
        yield from self._plan_flush_pending()
        yield BEGIN
        rows = yield Op(self.queries.delete_runs, {"run_ids": ids}, "all")
        threads = [r[0] for r in rows]
        if threads:
            yield Op(self.queries.gc_blobs, {"thread_ids": threads})
        yield Op(self.queries.delete_run_actions, {"run_ids": ids})
        yield COMMIT
        for t in threads:
            self._lists.forget_thread(t)

    def _plan_copy_thread(self, source_thread_id: str, target_thread_id: str) -> Plan[None]:
        yield from self._plan_flush_pending()
        params = {"source": _t(str(source_thread_id)), "target": _t(str(target_thread_id))}
        yield BEGIN
        for stmt in self.queries.copy_thread:
            yield Op(stmt, params)
        yield COMMIT

    def _plan_prune(self, thread_ids: Sequence[str], strategy: str) -> Plan[None]:
        ids = [_t(str(t)) for t in thread_ids]
        if strategy not in ("keep_latest", "delete"):
            raise ConfigurationError(
                f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'"
            )
        if not ids:
            return
        yield from self._plan_flush_pending()
        yield BEGIN
        if strategy == "keep_latest":
            yield Op(self.queries.prune_keep_latest, {"thread_ids": ids})
            yield Op(self.queries.gc_blobs, {"thread_ids": ids})
        else:
            for stmt in self.queries.prune_delete:
                yield Op(stmt, {"thread_ids": ids})
        yield COMMIT
        for t in ids:
            self._lists.forget_thread(t)

    # ----------------------------------------------------- delta channel history

    def _plan_delta_history(
        self, config: RunnableConfig, channels: Sequence[str]
    ) -> Plan[dict[str, DeltaChannelHistory]]:
        """Parent-chain walk in at most four queries, whatever the chain length.

        1. A recursive query walks the parent chain from the target and stops
           when every channel has met an ancestor that stores a value for it
           (inline values are listed in ``channels`` too, with an empty version).
        2. One query fetches the writes of the visited ancestors for the channels.
        3. The seeds are loaded: blob values in one query, inline ones from their
           checkpoint rows in another.
        """
        if not channels:
            return {}
        yield from self._plan_flush_pending()
        conf = config["configurable"]
        thread_id = _t(str(conf["thread_id"]))
        ns = _t(conf.get("checkpoint_ns", "") or "")
        target = conf.get("checkpoint_id")
        if target is None:
            latest = yield from self._plan_get_tuple(config)
            if latest is None:
                return {c: {"writes": []} for c in channels}
            target = latest.config["configurable"]["checkpoint_id"]
        wanted = [_t(c) for c in channels]
        base = {"thread_id": thread_id, "ns": ns}
        chain = yield Op(
            self.queries.delta_chain,
            {**base, "checkpoint_id": target, "channels": wanted},
            "all",
        )
        # rows: (checkpoint_id, depth, remaining_before, found, found_versions)
        ancestors = [r for r in chain if r[1] > 0]
        collected: dict[str, list[PendingWrite]] = {c: [] for c in channels}
        seeds: dict[str, Any] = {}
        if not ancestors:
            return {c: {"writes": []} for c in channels}
        remaining_at = {r[0]: set(r[2]) for r in ancestors}
        order = {r[0]: r[1] for r in ancestors}
        rows = yield Op(
            self.queries.delta_writes,
            {**base, "ids": list(order), "channels": wanted},
            "all",
        )
        per_ckpt: dict[str, list[tuple[Any, ...]]] = {}
        # rows: (checkpoint_id, task_id, task_path, idx, channel, type, blob, ref type, count)
        for row in rows:
            if row[4] in remaining_at.get(row[0], ()):
                per_ckpt.setdefault(row[0], []).append(row)
        for cid in sorted(per_ckpt, key=lambda c: -order[c]):  # oldest ancestor first
            for _cid, task_id, _path, _idx, channel, type_, blob, rtype, rcount in sorted(
                per_ckpt[cid], key=lambda r: (r[2], r[1], r[3])
            ):
                value = self._loads(*write_from_ref(type_, blob, rtype, rcount))
                collected[_u(channel)].append((_u(task_id), _u(channel), value))
        blob_targets: list[tuple[str, str]] = []
        inline_seeds: dict[str, list[str]] = {}
        for cid, _depth, _remaining, found, found_versions in ancestors:
            for channel, version in zip(found or (), found_versions or (), strict=True):
                if version == INLINE_VERSION:
                    inline_seeds.setdefault(cid, []).append(channel)
                else:
                    blob_targets.append((channel, version))
        if blob_targets:
            blob_rows = yield Op(
                self.queries.blob_chains,
                (
                    [thread_id] * len(blob_targets),
                    [ns] * len(blob_targets),
                    [c for c, _ in blob_targets],
                    [v for _, v in blob_targets],
                ),
                "all",
            )
            per: dict[str, dict[str, StoredBlob]] = {}
            for b in blob_rows:
                per.setdefault(b[2], {})[b[3]] = stored_blob(b[4], b[5], b[6], b[7])
            resolver = ChainResolver(per)
            for channel, version in blob_targets:
                vtype, vdata = resolver.resolve(channel, version)
                if vtype != "empty":
                    seeds[_u(channel)] = self._loads(vtype, vdata)
        if inline_seeds:
            ckpt_rows = yield Op(
                self.queries.checkpoint_bytes, {**base, "ids": list(inline_seeds)}, "all"
            )
            for cid, ctype, cdata in ckpt_rows:
                checkpoint = cast(Checkpoint, self._loads(ctype, cdata))
                inline = checkpoint.get("channel_values") or {}
                for channel in inline_seeds[cid]:
                    if _u(channel) in inline:
                        seeds[_u(channel)] = inline[_u(channel)]
        result: dict[str, DeltaChannelHistory] = {}
        for ch in channels:
            entry: DeltaChannelHistory = {"writes": collected[ch]}
            if ch in seeds:
                entry["seed"] = seeds[ch]
            result[ch] = entry
        return result


@dataclass(slots=True)
class _WriteCall:
    """One ``put_writes`` call, ready to bind: write rows, action rows, failure."""

    rows: list[tuple[Any, ...]]
    special: bool
    actions: list[tuple[Any, ...]]
    failed_task: str | None
    thread_id: str
    checkpoint_id: str | None = None
    held_at: float = 0.0  # time.monotonic() when it was held

    @property
    def key(self) -> tuple[str, str]:
        """(thread_id, checkpoint_ns): where the call is held."""
        return self.thread_id, self.rows[0][1] if self.rows else self.actions[0][3]


_W_FIELDS = ("t", "ns", "c", "task", "path", "idx", "ch", "ty", "b")
_A_FIELDS = (
    "t",
    "id",
    "run",
    "ns",
    "c",
    "task",
    "node",
    "agent",
    "step",
    "type",
    "name",
    "status",
    "out",
    "err",
)


def _bind_calls(
    params: dict[str, Any],
    calls: Sequence[_WriteCall],
    deltas: Mapping[str, BlobRow] | None = None,
    *,
    shared: bool = False,
) -> tuple[int, int, int]:
    """Add the rows of ``calls`` to ``params``; return (regular, special, action) counts.

    The regular writes of one call are one row (arrays of channels, types and
    values; ``idx`` is the first write's); special writes (errors, interrupts)
    are a row each, since each replaces its own. A regular write whose bytes are
    exactly the items that ``deltas`` (the delta rows stored by the same
    statement, by channel) appended is bound as a reference to that row instead
    of a second copy. ``shared``: every row is of the statement's
    ``thread_id``/``ns``, which are not bound again per row.
    """
    skip = ("t", "ns") if shared else ()
    # key -> the (channels, types, blobs) lists already bound for it: one
    # statement cannot touch a key twice, so repeated calls merge here the way
    # the upsert merges them with what is stored
    bound: dict[tuple[Any, ...], tuple[list[str], list[str], list[bytes]]] = {}
    n_w = n_s = 0
    for call in calls:
        groups = [[row] for row in call.rows] if call.special else [call.rows]
        for group in groups:
            if not group:
                continue
            first = group[0]
            key = (first[0], first[1], first[2], first[3], first[5])
            channels: list[str] = []
            types: list[str] = []
            blobs: list[bytes] = []
            for row in group:
                type_, data = row[7], row[8]
                delta = deltas.get(row[6]) if deltas and not call.special else None
                if (
                    delta is not None
                    and delta.blob is not None
                    and delta.count is not None
                    and write_refers_to(type_, data, delta.blob, delta.count)
                ):
                    type_, data = WRITE_REF_TYPE, delta.version.encode()
                channels.append(row[6])
                types.append(type_)
                blobs.append(data)
            earlier = bound.get(key)
            if earlier is not None:
                if not call.special:  # keep what is there, add the writes past it
                    have = len(earlier[0])
                    earlier[0].extend(channels[have:])
                    earlier[1].extend(types[have:])
                    earlier[2].extend(blobs[have:])
                continue
            bound[key] = (channels, types, blobs)
            if call.special:
                prefix, i = "s", n_s
                n_s += 1
            else:
                prefix, i = "w", n_w
                n_w += 1
            values = (*first[:6], channels, types, blobs)
            for name, value in zip(_W_FIELDS, values, strict=True):
                if name not in skip:
                    params[f"{prefix}{i}_{name}"] = value
    n_a = 0
    seen_actions: dict[tuple[str, str], int] = {}
    for call in calls:
        for row in call.actions:
            action_key = (row[0], row[1])
            i = seen_actions.get(action_key, n_a)
            if i == n_a:
                seen_actions[action_key] = n_a
                n_a += 1
            for name, value in zip(_A_FIELDS, row, strict=True):
                if name not in skip:
                    params[f"a{i}_{name}"] = value
    return n_w, n_s, n_a


def merge_metadata(config: RunnableConfig, metadata: CheckpointMetadata) -> dict[str, Any]:
    """Checkpoint metadata plus the config's metadata/configurable primitives.

    Like LangGraph's ``get_serializable_checkpoint_metadata``, except that NUL
    characters are kept: the JSONB encoding escapes them reversibly.
    """
    out: dict[str, Any] = dict(metadata)
    out.pop("writes", None)
    for obj in (config.get("metadata"), config.get("configurable")):
        if not obj:
            continue
        for key, value in obj.items():
            if key in out or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, (str, int, bool, float)):
                out[key] = value
    return out


def _step_after(checkpoint_id: str | None) -> int | None:
    """The step of tasks prepared from a checkpoint, read from its id.

    LangGraph makes checkpoint ids with ``uuid6(clock_seq=step)`` (14 bits), so
    the step is known even before the checkpoint's own put has landed.
    """
    if not checkpoint_id:
        return None
    try:
        seq = uuid.UUID(checkpoint_id).clock_seq
    except ValueError:
        return None
    step = seq - 0x4000 if seq >= 0x3FF0 else seq
    return step + 1


def _missing(channel: str, version: str) -> tuple[str, bytes | None]:
    raise SerializationError(f"{channel!r} version {version!r} is not stored")


def _inlinable(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, str) and len(value) <= _INLINE_MAX


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def env_dsn() -> str | None:
    """The DSN from ``ACTIONCKPT_DSN``, if set and not empty."""
    return os.environ.get("ACTIONCKPT_DSN") or None
