"""Plans that store checkpoints and pending writes (``put``, ``put_writes``).

Free functions of their inputs: they yield :class:`Op` objects and return what
the caller needs to update its caches. They never touch the write-behind
buffer or the durability marks; the saver takes the held calls before, and
restores them or marks the checkpoint after (see ``core.CheckpointStore``).
"""

from __future__ import annotations

import random
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    EXCLUDED_METADATA_KEYS,
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
)
from langgraph.checkpoint.serde.types import ERROR

from langgraph_actionckpt._config import check_length
from langgraph_actionckpt.actions.fields import agent_id_for
from langgraph_actionckpt.actions.node_rows import node_actions, node_from_path, step_after
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.checkpoints.binding import (
    ACTION_ROW_PARAMS,
    WRITE_ROW_PARAMS,
    bind_calls,
)
from langgraph_actionckpt.checkpoints.blobs import (
    DELTA_TYPE,
    WRITE_REF_TYPE,
    BlobRow,
    ListState,
    stored_base,
    stored_snap,
)
from langgraph_actionckpt.checkpoints.codec import Codec, ListKey, json_text, thread_key
from langgraph_actionckpt.checkpoints.pending import ActionRow, WriteCall, WriteRow
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.arrays import TextArray
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.encoding import escape_text, plain_id, unescape_text
from langgraph_actionckpt.errors import InFlightActionError, SerializationError

INLINE_VERSION = ""
"""``versions`` entry of a channel stored inline in the checkpoint (no blob row)."""

_INLINE_MAX = 256  # strings up to this length live in the checkpoint row itself


@dataclass(frozen=True, slots=True)
class PutResult:
    """What a stored checkpoint changes in the saver's caches.

    Attributes:
        config: The config ``put`` returns (unescaped ids).
        checkpoint_id: The stored checkpoint (now durable).
        step_key: (thread_id, ns, checkpoint_id), escaped: where ``step`` is cached.
        step: The checkpoint's step, when its metadata has one.
        lists: The list states of the stored delta-able channels.
    """

    config: RunnableConfig
    checkpoint_id: str
    step_key: tuple[str, str, str]
    step: int | None
    lists: list[tuple[ListKey, ListState]]


def plan_put(
    queries: Queries,
    action_queries: ActionQueries,
    codec: Codec,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    new_versions: ChannelVersions,
    held: Sequence[WriteCall] = (),
    fence: int | None = None,
    where: tuple[str, str] | None = None,
) -> Plan[PutResult]:
    """Store a checkpoint, its changed channel values and ``held`` writes: one statement.

    Small scalars and short strings are stored inline in the checkpoint row;
    other channels changed in ``new_versions`` get a blob row each (a delta of
    the cached list state when the policy says so). A held write that is exactly
    what a delta appended becomes a reference to that delta row.

    Args:
        queries: The schema's statements.
        action_queries: For held calls of failed tasks (see :func:`plan_mark_failed`).
        codec: Serializer, delta policy, compression, cached list states.
        config: The parent config (thread, namespace, parent checkpoint id).
        checkpoint: The checkpoint to store.
        metadata: Its metadata (merged with the config's, see :func:`merge_metadata`).
        new_versions: The channels whose values changed.
        held: Writes held for this thread, stored by the same statement.
        fence: The fencing token of this worker's lease on the thread, if it
            holds one: the statement stores nothing when the token is stale.
        where: ``thread_key(config)``, when the caller has it already.

    Returns:
        What the caller caches: see :class:`PutResult`.
    """
    _check_checkpoint(checkpoint)
    conf = config["configurable"]
    thread_id, ns = where or thread_key(config)
    values = checkpoint.get("channel_values", {})
    inline: dict[str, Any] = {}
    channels = TextArray()  # bound as text[] without psycopg looking at the items
    versions = TextArray()
    rows: list[BlobRow] = []
    lists: list[tuple[ListKey, ListState]] = []
    for channel, version in checkpoint["channel_versions"].items():
        if channel not in values:
            continue
        value = values[channel]
        # every present channel is listed, so SQL sees it; inline ones with no version
        channels.append(escape_text(channel))
        if _inlinable(value):
            inline[channel] = value
            versions.append(INLINE_VERSION)
            continue
        versions.append(str(version))
        if channel in new_versions:
            check_length("channel name", channels[-1])
            row, state = codec.encode_blob(thread_id, ns, escape_text(channel), str(version), value)
            rows.append(row)
            if state is not None:
                lists.append(((thread_id, ns, escape_text(channel)), state))
    stored = {k: v for k, v in checkpoint.items() if k != "channel_values"}
    stored["channel_values"] = inline
    type_, data = codec.seal(
        *codec.pack(*codec.dumps(stored, "checkpoint"), checkpoint=True),
        codec.place(
            "checkpoints", thread_id, ns, checkpoint_id=checkpoint["id"], column="checkpoint"
        ),
    )
    meta = merge_metadata(config, metadata)
    step = meta.get("step") if isinstance(meta.get("step"), int) else None
    run_id = _str_or_none(meta.get("run_id"))
    plain_id("checkpoint id", checkpoint["id"])
    if conf.get("checkpoint_id") is not None:
        plain_id("checkpoint id", conf["checkpoint_id"])
    if run_id is not None:
        check_length("run id", run_id)
    params: dict[str, Any] = {
        "thread_id": thread_id,
        "ns": ns,
        "checkpoint_id": checkpoint["id"],
        "parent": conf.get("checkpoint_id"),
        "run_id": run_id,
        "step": step,
        "type": type_,
        "checkpoint": data,
        "channels": channels,
        "versions": versions,
        "metadata": json_text(meta),
    }
    for i, r in enumerate(rows):
        params[f"b{i}_channel"] = r.channel
        params[f"b{i}_version"] = r.version
        if r.blob is not None:
            params[f"b{i}_type"], params[f"b{i}_blob"] = codec.seal(
                *codec.pack(r.type, r.blob),
                codec.place(
                    "blobs", thread_id, ns, channel=r.channel, version=r.version, column="blob"
                ),
            )
        else:
            params[f"b{i}_type"], params[f"b{i}_blob"] = r.type, r.blob
        params[f"b{i}_base"] = None if r.base is None else stored_base(r.version, r.base)
        params[f"b{i}_snap"] = None if r.snap is None else stored_snap(r.snap)
        params[f"b{i}_cnt"] = r.count
        params[f"b{i}_len"] = r.list_len
    deltas = {r.channel: r for r in rows if r.type == DELTA_TYPE}
    counts = bind_calls(params, held, deltas, shared=True, seal=write_sealer(codec))
    fences = {} if fence is None else {thread_id: fence}
    bind_fences(params, fences)
    yield Op(
        queries.store(
            *counts,
            len(rows),
            checkpoint=True,
            async_commit=False,
            shared=True,
            fenced=bool(fences),
        ),
        params,
        prepare=True,
        lock_key=thread_id,
    )
    yield from plan_mark_failed(action_queries, held, fences)
    return PutResult(
        config={
            "configurable": {
                "thread_id": conf["thread_id"],
                "checkpoint_ns": conf.get("checkpoint_ns", "") or "",
                "checkpoint_id": checkpoint["id"],
            }
        },
        checkpoint_id=checkpoint["id"],
        step_key=(thread_id, ns, str(checkpoint["id"])),
        step=step,
        lists=lists,
    )


def _check_checkpoint(checkpoint: Checkpoint) -> None:
    # LangGraph's savers read these back (InMemorySaver's get_tuple indexes
    # channel_versions): refuse here what could be stored but never loaded.
    missing = [key for key in ("id", "channel_versions") if key not in checkpoint]
    if missing:
        raise SerializationError(f"checkpoint has no {' or '.join(missing)}: cannot be stored")
    if not isinstance(checkpoint["channel_versions"], Mapping):
        raise SerializationError(
            "checkpoint channel_versions must be a mapping, not "
            f"{type(checkpoint['channel_versions']).__name__}"
        )


def prepare_writes(
    codec: Codec,
    config: RunnableConfig,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    task_path: str = "",
    *,
    record_nodes: bool = True,
    steps: Mapping[tuple[str, str, str], int] | None = None,
    where: tuple[str, str] | None = None,
) -> WriteCall | None:
    """Serialize one ``put_writes`` call: its write rows and its task's node row.

    Args:
        codec: Serializes the values.
        config: The task's config (thread, namespace, checkpoint it ran from).
        writes: (channel, value) pairs.
        task_id: The task.
        task_path: The task's path (names its node).
        record_nodes: Also derive the task's ``node`` action row.
        steps: Known steps by (thread_id, ns, checkpoint_id); otherwise the step
            is read from the checkpoint id.
        where: ``thread_key(config)``, when the caller has it already.

    Returns:
        The call, or None when it has no rows at all.
    """
    conf = config["configurable"]
    thread_id, ns = where or thread_key(config)
    checkpoint_id = conf.get("checkpoint_id")
    special = any(w[0] in WRITES_IDX_MAP for w in writes)
    task, path = escape_text(task_id), escape_text(task_path)
    check_length("task id", task)
    if checkpoint_id is not None:
        plain_id("checkpoint id", checkpoint_id)
    rows = []
    for i, (channel, value) in enumerate(writes):
        # sealed when bound (binding.bind_calls): a write equal to a delta becomes a reference
        stored_channel = escape_text(channel)
        check_length("channel name", stored_channel)
        type_, data = codec.dumps(value, "write to", channel)
        rows.append(
            WriteRow(
                thread_id,
                ns,
                checkpoint_id,
                task,
                path,
                WRITES_IDX_MAP.get(channel, i),
                stored_channel,
                type_,
                data,
            )
        )
    actions = []
    if record_nodes:
        metadata = config.get("metadata") or {}
        known = (steps or {}).get((thread_id, ns, str(checkpoint_id)))
        step = known + 1 if known is not None else step_after(checkpoint_id)
        node = node_from_path(task_path)
        agent = agent_id_for(unescape_text(ns), metadata)
        run_id = _str_or_none(metadata.get("run_id"))
        for a in node_actions(task_id, task_path, writes):
            action_id = escape_text(a.action_id)
            actions.append(
                ActionRow(
                    thread_id,
                    action_id,
                    run_id,
                    ns,
                    checkpoint_id,
                    task,
                    node,
                    agent,
                    step,
                    a.action_type,
                    a.name,
                    a.status,
                    *_sealed_outcome(codec, thread_id, action_id, a.output, a.error),
                )
            )
    if not rows and not actions:
        return None
    error = next((v for c, v in writes if c == ERROR), None)
    # An in-flight action's error asks for a resolution, not a fresh model answer.
    failed = error is not None and not isinstance(error, InFlightActionError)
    return WriteCall(rows, special, actions, task_id if failed else None, thread_id, checkpoint_id)


def plan_store_writes(
    queries: Queries,
    action_queries: ActionQueries,
    calls: Sequence[WriteCall],
    *,
    async_commit: bool,
    codec: Codec | None = None,
    fences: Mapping[str, int] | None = None,
    chunked: bool = False,
) -> Plan[None]:
    """Store write calls (no checkpoint) in one statement (or in several: ``chunked``).

    Args:
        queries: The schema's statements.
        action_queries: For calls of failed tasks (see :func:`plan_mark_failed`).
        calls: The calls, threads in ascending order for a group commit.
        async_commit: Commit without waiting for the WAL flush: held writes are
            only needed to resume their step, while special writes (an error, an
            interrupt) must be durable at once.
        codec: Seals the writes when encryption is on.
        fences: Fencing tokens by thread of the leased threads among the calls:
            the statement stores nothing when one is stale.
        chunked: One statement per few calls, each with at most
            :data:`CHUNK_PARAMS` parameters (for a driver that pipelines them).
            psycopg parses a statement with more parameters (or over 4 KB)
            again on every execute, and many calls in one statement make a
            shape that seldom repeats: the writer's tick, storing many threads'
            writes at once, spent more CPU there than a
            statement per two calls costs in all.
    """
    if not calls:
        return
    seal = write_sealer(codec) if codec is not None else None
    used = _fences_of(fences or {}, calls)
    for chunk in _chunks(calls, bool(used)) if chunked else [calls]:
        params: dict[str, Any] = {}
        counts = bind_calls(params, chunk, seal=seal)
        mine = used if chunk is calls else _fences_of(used, chunk)
        bind_fences(params, mine)
        query = queries.store(
            *counts, 0, checkpoint=False, async_commit=async_commit, fenced=bool(mine)
        )
        yield Op(query, params)
    yield from plan_mark_failed(action_queries, calls, used)


def _fences_of(fences: Mapping[str, int], calls: Sequence[WriteCall]) -> dict[str, int]:
    """The fences of the threads among ``calls``."""
    return {t: k for t, k in fences.items() if any(c.thread_id == t for c in calls)}


CHUNK_PARAMS = 50
"""At most this many parameters per statement of a chunked store (psycopg's cache limit)."""


def _chunks(calls: Sequence[WriteCall], fenced: bool) -> list[Sequence[WriteCall]]:
    """``calls`` in order, cut where a statement would bind over :data:`CHUNK_PARAMS`.

    A call of more parameters than that goes alone. Calls of one key split over
    two statements store what one would: the second upserts onto the first.
    """
    limit = CHUNK_PARAMS - (2 if fenced else 0)
    chunks: list[Sequence[WriteCall]] = []
    start = size = 0
    for i, call in enumerate(calls):
        rows = len(call.rows) if call.special else min(1, len(call.rows))
        n = WRITE_ROW_PARAMS * rows + ACTION_ROW_PARAMS * len(call.actions)
        if i > start and size + n > limit:
            chunks.append(calls[start:i])
            start, size = i, 0
        size += n
    chunks.append(calls[start:])
    return chunks


def bind_fences(params: dict[str, Any], fences: Mapping[str, int]) -> None:
    """The ``fence_t``/``fence_k`` parameters of a fenced store statement (none: unfenced)."""
    if fences:
        params["fence_t"] = list(fences)
        params["fence_k"] = list(fences.values())


def plan_mark_failed(
    action_queries: ActionQueries,
    calls: Sequence[WriteCall],
    fences: Mapping[str, int] | None = None,
) -> Plan[None]:
    """Mark the LLM outputs of failed tasks not replayable.

    The last LLM output a failed task received may be the cause of the failure,
    so its retry asks the model again instead of replaying that one. A leased
    thread's update is fenced by its token (``fences``).
    """
    for call in calls:
        if call.failed_task is not None:
            fence = (fences or {}).get(call.thread_id)
            params: dict[str, Any] = {
                "thread_id": call.thread_id,
                "task_id": escape_text(call.failed_task),
            }
            if fence is not None:
                params["fence"] = fence
            yield Op(action_queries.not_replayable(fence is not None), params)


def next_version(current: str | int | float | None) -> str:
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
        for key, value in _flat(obj).items():
            if key in out or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, (str, int, bool, float)):
                out[key] = value
    return out


def _flat(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    """``mapping`` itself, or a ``ChainMap`` (LangGraph's config metadata) as one dict.

    Iterating a ChainMap's items looks every key up through its maps in Python;
    merging the maps (the first one wins, as in the ChainMap) is a few C calls.
    """
    if type(mapping) is not ChainMap:
        return mapping
    flat: dict[str, Any] = {}
    for part in reversed(mapping.maps):
        flat.update(part)
    return flat


def _inlinable(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, str) and len(value) <= _INLINE_MAX


def write_sealer(codec: Codec) -> Callable[[WriteRow, str | None], tuple[str, bytes]] | None:
    """Seals one write row where it is stored, or its reference to a delta version.

    None when encryption is off.
    """
    if codec.keyring is None:
        return None

    def seal(row: WriteRow, ref_version: str | None) -> tuple[str, bytes]:
        place = codec.place(
            "writes",
            row.thread_id,
            row.ns,
            checkpoint_id=row.checkpoint_id,
            task_id=row.task_id,
            channel=row.channel,
            column="blobs",
        )
        if ref_version is not None:
            return WRITE_REF_TYPE, codec.seal_ref(ref_version, place)
        return codec.seal(row.type, row.blob, place)

    return seal


def _sealed_outcome(
    codec: Codec, thread_id: str, action_id: str, output: str | None, error: str | None
) -> tuple[str | None, str | None]:
    if codec.keyring is None:
        return output, error
    return tuple(  # type: ignore[return-value]
        None
        if text is None
        else codec.seal_json(
            text, codec.place("actions", thread_id, None, action_id=action_id, column=column)
        )
        for text, column in ((output, "output"), (error, "error"))
    )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
