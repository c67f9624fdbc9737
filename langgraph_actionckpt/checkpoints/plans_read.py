"""Plans that read checkpoints (``get_tuple``, one page of ``list``).

Free functions of their inputs: they yield :class:`Op` objects, receive raw
rows, name them (``rows.py``) and return the tuples with the list states the
caller may cache and the checkpoint to mark durable. They never flush held
writes themselves; the saver runs the flush plan first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
)

from langgraph_actionckpt.checkpoints.blobs import (
    WRITE_REF_TYPE,
    ChainResolver,
    ListState,
    StoredBlob,
    base_from_stored,
    join_snapshot,
    resolve_chain,
    split_deltas,
    write_from_ref,
)
from langgraph_actionckpt.checkpoints.budget import LoadBudget, load_errors, refused
from langgraph_actionckpt.checkpoints.codec import Codec, json_text, thread_key
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.checkpoints.plans_write import INLINE_VERSION
from langgraph_actionckpt.checkpoints.rows import (
    BlobChainRow,
    CheckpointRow,
    split_get_tuple_row,
)
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.checkpoints.sql_base import ONE_THREAD
from langgraph_actionckpt.crypto import SEALED_PREFIX as SEALED
from langgraph_actionckpt.db.driver import Op, Plan, PlanFactory
from langgraph_actionckpt.db.encoding import escape_text, from_jsonable, plain_id, unescape_text
from langgraph_actionckpt.errors import SerializationError

DECODED = "__decoded__"
"""Marks a channel value that is already decoded (``list`` shares prefixes)."""

Cursor = tuple[str, str, str]
"""(checkpoint_id, thread_id, checkpoint_ns) of the last row of a page."""

PAGE = 200
"""``list`` rows per round trip."""

PagePlan = Callable[
    [Any, dict[str, Any], int, list[Cursor]], Plan[tuple[list[CheckpointTuple], bool]]
]
"""Runs one page: (statement, parameters, page size, cursor out) -> (tuples, more pages)."""


@dataclass(frozen=True, slots=True)
class Loaded:
    """A checkpoint read by :func:`plan_get_tuple`.

    Attributes:
        tuple: The checkpoint tuple.
        lists: Delta-able channels' list states (escaped channel names), worth
            caching when this is the thread's latest checkpoint.
    """

    tuple: CheckpointTuple
    lists: dict[str, ListState] = field(default_factory=dict)


def plan_get_tuple(queries: Queries, codec: Codec, config: RunnableConfig) -> Plan[Loaded | None]:
    """Read one checkpoint with its channel values and pending writes.

    One statement in the common case: a delta-encoded list comes back as its
    snapshot plus the concatenated deltas after it. A channel whose chain forked
    (rows of another branch lie in the range) is resolved row by row with a
    second statement.

    Args:
        queries: The schema's statements.
        codec: Decodes the values.
        config: Thread, namespace and, optionally, the checkpoint id (else the latest).

    Returns:
        The checkpoint, or None when there is none.
    """
    thread_id, ns = thread_key(config)
    checkpoint_id = config["configurable"].get("checkpoint_id")
    if checkpoint_id is not None:
        plain_id("checkpoint id", checkpoint_id)
    params = {"thread_id": thread_id, "ns": ns, "checkpoint_id": checkpoint_id}
    raw = yield Op(queries.get_tuple(checkpoint_id is not None), params, "one", prepare=True)
    if raw is None:
        return None
    budget = codec.budget()
    place = row_place(queries, raw[0], raw[1], raw[2])
    with load_errors(place, _during(raw[2], raw[0])):
        return (yield from _get_tuple_values(queries, codec, params, raw, place, budget))


def row_place(queries: Queries, thread_id: str, ns: str, checkpoint_id: str) -> Place:
    """Where a checkpoint row's ``checkpoint`` column is stored (its values: ``.at(...)``)."""
    return Place(queries.schema, "checkpoints", thread_id, ns, checkpoint_id, column="checkpoint")


def _during(checkpoint_id: str, thread_id: str) -> str:
    return f"checkpoint {checkpoint_id!r} of thread {thread_id!r}"


def blob_place(place: Place, channel: str, version: str | None) -> Place:
    # a blob row belongs to no one checkpoint: its place names none
    return place.at(
        table="blobs", checkpoint_id=None, channel=channel, version=version, column="blob"
    )


def _get_tuple_values(
    queries: Queries,
    codec: Codec,
    params: dict[str, Any],
    raw: Sequence[Any],
    place: Place,
    budget: LoadBudget,
) -> Plan[Loaded]:
    row, blobs = split_get_tuple_row(raw)
    values: dict[str, tuple[str, bytes | None]] = {}
    lists: dict[str, ListState] = {}
    forked: dict[str, str] = {}
    versions = dict(zip(row.channels or (), row.versions or (), strict=True))
    for i, channel in enumerate(blobs.b_channel or ()):
        snap = blobs.b_snap[i]
        if snap is None:
            where = blob_place(place, channel, versions[channel])
            values[channel] = codec.open(blobs.b_type[i], blobs.b_blob[i], where, budget)
            continue
        where = blob_place(place, channel, snap)
        snap_type, snap_blob = codec.open(blobs.b_type[i], blobs.b_blob[i], where, budget)
        d_body, t_len = blobs.d_body[i], blobs.t_len[i]
        # split_deltas gives None when a row that is not a delta lies in the range
        deltas = (
            None
            if d_body is None
            else split_deltas(
                d_body,
                blobs.d_layout[i],
                _delta_opener(codec, where, budget),
                budget,
                blob_place(place, channel, versions.get(channel)),  # the deltas up to it
            )
        )
        joined = (
            join_snapshot(snap_type, snap_blob, blobs.b_len[i], deltas, blobs.d_items[i], t_len)
            if deltas is not None or d_body is None
            else None
        )
        if joined is None:  # a fork inside the range: resolve row by row
            forked[channel] = versions[channel]
            continue
        data, body, snap_len = joined
        values[channel] = ("msgpack", data)
        count = cast(int, t_len)  # a snapshot's target is a list: its length is stored
        lists[channel] = ListState(
            versions[channel], body, count, snap, snap_len, len(body) - snap_len, blobs.d_n[i] or 0
        )
    if forked:
        chain_rows = yield Op(
            queries.chains_for(True),
            {**params, "channels": list(forked), "versions": list(forked.values())},
            "all",
        )
        per: dict[str, dict[str, StoredBlob]] = {}
        for b in map(BlobChainRow._make, chain_rows):
            per.setdefault(b.channel, {})[b.version] = opened_blob(codec, b, budget)
        for channel, version in forked.items():
            vtype, vdata, state = resolve_chain(per.get(channel, {}), version)
            values[channel] = (vtype, vdata)
            if state is not None:
                lists[channel] = state
    return Loaded(make_tuple(codec, row, values, place, budget), lists)


def make_tuple(
    codec: Codec,
    row: CheckpointRow,
    stored: Mapping[str, tuple[str, Any]],
    place: Place,
    budget: LoadBudget,
) -> CheckpointTuple:
    """Build a :class:`CheckpointTuple` from a checkpoint row and its blob values.

    Args:
        codec: Decodes the values.
        row: The checkpoint row, with its pending writes.
        stored: (type, bytes) per escaped blob channel; type ``"empty"`` for a
            channel with no value, :data:`DECODED` for an already decoded one;
            the values are opened already (decrypted and decompressed).
        place: Where the row's ``checkpoint`` column is stored (see :func:`row_place`).
        budget: The load's decompression budget.

    Raises:
        SerializationError: A channel the checkpoint references is not stored,
            or a value cannot be loaded (the message names where it is stored).
    """
    checkpoint = cast(Checkpoint, codec.loads(row.type, row.checkpoint, place, budget))
    if not isinstance(checkpoint, dict):
        raise refused(place, f"the checkpoint is a {type(checkpoint).__name__}, not a map")
    values = dict(checkpoint.get("channel_values") or {})
    for channel, version in zip(row.channels or (), row.versions or (), strict=True):
        if version == INLINE_VERSION:
            continue
        item = stored.get(channel)
        if item is None:
            raise SerializationError(
                f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} references "
                f"{channel!r} version {version!r}, which is not stored"
            )
        if item[0] == "empty":
            continue
        values[unescape_text(channel)] = (
            item[1]
            if item[0] == DECODED
            else codec.loads(
                item[0], item[1], blob_place(place, channel, version), budget, opened=True
            )
        )
    checkpoint["channel_values"] = values
    # the w_* arrays are all NULL (no writes) or all of one length
    w_channel, w_type, w_blob = row.w_channel or (), row.w_type or (), row.w_blob or ()
    w_rtype, w_rcount = row.w_rtype or (), row.w_rcount or ()
    pending: list[PendingWrite] = [
        (
            unescape_text(task),
            unescape_text(w_channel[i]),
            load_write(
                codec,
                place.at(table="writes", task_id=task, channel=w_channel[i], column="blobs"),
                w_type[i],
                w_blob[i],
                w_rtype[i],
                w_rcount[i],
                budget,
            ),
        )
        for i, task in enumerate(row.w_task or ())
    ]
    thread_id, ns = unescape_text(row.thread_id), unescape_text(row.checkpoint_ns)
    parent_id = row.parent_checkpoint_id
    return CheckpointTuple(
        config={
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": row.checkpoint_id,
            }
        },
        checkpoint=checkpoint,
        metadata=cast(CheckpointMetadata, from_jsonable(row.metadata)),
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


def list_conditions(
    config: RunnableConfig | None,
    filter: Mapping[str, Any] | None,
    before: RunnableConfig | None,
) -> tuple[list[str], dict[str, Any]]:
    """The WHERE conditions of ``list`` (constant SQL text) and their parameters."""
    conds: list[str] = []
    params: dict[str, Any] = {}
    if config is not None:
        conf = config.get("configurable", {})
        if conf.get("thread_id") is not None:
            conds.append(ONE_THREAD)
            params["thread_id"] = escape_text(str(conf["thread_id"]))
        if conf.get("checkpoint_ns") is not None:
            conds.append("checkpoint_ns = %(ns)s")
            params["ns"] = escape_text(conf["checkpoint_ns"])
        if conf.get("checkpoint_id"):
            conds.append("checkpoint_id = %(checkpoint_id)s")
            params["checkpoint_id"] = plain_id("checkpoint id", conf["checkpoint_id"])
    if filter:
        # The whole filter is one bound JSONB value: keys never reach the SQL text.
        conds.append("metadata @> %(filter)s::jsonb")
        params["filter"] = json_text(dict(filter))
    if before is not None and before.get("configurable", {}).get("checkpoint_id"):
        conds.append("checkpoint_id < %(before)s")
        params["before"] = plain_id("checkpoint id", before["configurable"]["checkpoint_id"])
    return conds, params


def page_query(
    queries: Queries,
    conds: Sequence[str],
    params: Mapping[str, Any],
    page: int,
    cursor: Cursor | None,
) -> tuple[Any, dict[str, Any]]:
    """The statement and parameters of one ``list`` page (keyset pagination after ``cursor``).

    A page of one thread is read by one statement; a cross-thread page is its
    keys (see :func:`plan_list_page`).
    """
    page_conds = list(conds)
    page_params = dict(params, page=page)
    if cursor is not None:
        page_conds.append(
            "(checkpoint_id, thread_id, checkpoint_ns) < (%(c_id)s, %(c_t)s, %(c_ns)s)"
        )
        page_params.update(c_id=cursor[0], c_t=cursor[1], c_ns=cursor[2])
    if ONE_THREAD in page_conds:
        return queries.list_page(tuple(page_conds)), page_params
    return queries.list_keys(tuple(page_conds)), page_params


def list_pages(
    queries: Queries,
    config: RunnableConfig | None,
    filter: Mapping[str, Any] | None,
    before: RunnableConfig | None,
    limit: int | None,
    page_plan: PagePlan,
) -> Iterator[PlanFactory[tuple[list[CheckpointTuple], bool]]]:
    """Yield one plan factory per page of ``list``, until a page comes back short.

    ``page_plan`` appends the next page's cursor to its last argument (the
    saver's ``_plan_list_page`` runs :func:`plan_list_page` after a flush);
    the next factory is only made once the previous plan has run.
    """
    if limit is not None and limit <= 0:
        return
    conds, params = list_conditions(config, filter, before)
    remaining = limit
    cursor: Cursor | None = None
    while True:
        page = min(PAGE, remaining) if remaining is not None else PAGE
        query, page_params = page_query(queries, conds, params, page, cursor)
        holder: list[Cursor] = []
        yield partial(page_plan, query, page_params, page, holder)
        if not holder:
            return
        cursor = holder[0]
        if remaining is not None:
            remaining -= page
            if remaining <= 0:
                return


def plan_list_page(
    queries: Queries, codec: Codec, query: Any, params: Mapping[str, Any], page: int
) -> Plan[tuple[list[CheckpointTuple], Cursor | None]]:
    """Read one page of ``list``: the checkpoint rows, then every blob chain they need.

    Args:
        queries: The schema's statements.
        codec: Decodes the values.
        query: The page statement (see :func:`page_query`).
        params: Its parameters.
        page: The page size.

    Returns:
        The tuples, and the cursor of the next page (None when this one was the last).
    """
    raw = yield Op(query, params, "all", prepare=True)
    if not raw:
        return [], None
    if "thread_id" in params:
        rows = [CheckpointRow._make(r) for r in raw]
    else:
        rows = yield from _plan_rows_by_thread(queries, raw)

    targets: set[tuple[str, str, str, str]] = set()
    for r in rows:
        for channel, version in zip(r.channels or (), r.versions or (), strict=True):
            if version != INLINE_VERSION:
                targets.add((r.thread_id, r.checkpoint_ns, channel, version))
    blobs: dict[tuple[str, str], dict[str, dict[str, StoredBlob]]] = {}
    budget = codec.budget()
    by_thread: dict[str, list[tuple[str, str, str]]] = {}
    for thread, ns, channel, version in sorted(targets):
        by_thread.setdefault(thread, []).append((ns, channel, version))
    for thread, t in by_thread.items():  # one statement per thread: one shard each
        blob_rows = yield Op(
            queries.blob_chains,
            {
                "thread_id": thread,
                "ns": [x[0] for x in t],
                "channels": [x[1] for x in t],
                "versions": [x[2] for x in t],
            },
            "all",
        )
        for b in map(BlobChainRow._make, blob_rows):
            blobs.setdefault((b.thread_id, b.checkpoint_ns), {}).setdefault(b.channel, {})[
                b.version
            ] = opened_blob(codec, b, budget)
    resolvers = {key: ChainResolver(per) for key, per in blobs.items()}
    tuples = []
    for r in rows:
        place = row_place(queries, r.thread_id, r.checkpoint_ns, r.checkpoint_id)
        with load_errors(place, _during(r.checkpoint_id, r.thread_id)):
            resolver = resolvers.get((r.thread_id, r.checkpoint_ns))
            stored = {
                ch: (
                    _list_value(codec, resolver, ch, ver, blob_place(place, ch, ver), budget)
                    if resolver
                    else _missing(ch, ver)
                )
                for ch, ver in zip(r.channels or (), r.versions or (), strict=True)
                if ver != INLINE_VERSION
            }
            tuples.append(make_tuple(codec, r, stored, place, budget))
    # both statements' rows lead with (thread_id, checkpoint_ns, checkpoint_id)
    thread, ns, checkpoint_id = raw[-1][:3]
    return tuples, (checkpoint_id, thread, ns) if len(raw) == page else None


def _plan_rows_by_thread(queries: Queries, keys: Sequence[Any]) -> Plan[list[CheckpointRow]]:
    """The rows of a cross-thread page's keys, in their order: one statement per thread."""
    wanted: dict[str, list[tuple[str, str]]] = {}
    for thread, ns, checkpoint_id in keys:
        wanted.setdefault(thread, []).append((ns, checkpoint_id))
    found: dict[tuple[str, str, str], CheckpointRow] = {}
    query = queries.list_page(
        (ONE_THREAD, "checkpoint_ns = ANY(%(nss)s)", "checkpoint_id = ANY(%(ids)s)")
    )
    for thread, pairs in wanted.items():
        nss = sorted({ns for ns, _ in pairs})
        ids = sorted({i for _, i in pairs})
        params = {"thread_id": thread, "nss": nss, "ids": ids, "page": len(nss) * len(ids)}
        for r in (yield Op(query, params, "all", prepare=True)):
            row = CheckpointRow._make(r)
            found[(row.thread_id, row.checkpoint_ns, row.checkpoint_id)] = row
    # a row deleted between the two reads is left out
    return [found[k] for k in map(tuple, keys) if k in found]


def opened_blob(codec: Codec, b: BlobChainRow, budget: LoadBudget | None = None) -> StoredBlob:
    """A blob row as read back: decrypted and decompressed (errors name its place)."""
    place = Place(
        codec.schema, "blobs", b.thread_id, b.checkpoint_ns, channel=b.channel,
        version=b.version, column="blob",
    )  # fmt: skip
    with load_errors(place):
        # without a key ring, open() is just the decompression: no fast path needed
        vtype, vblob = codec.open(b.type, b.blob, place, budget)
        return StoredBlob(vtype, vblob, base_from_stored(b.version, b.base_version), b.item_count)


def load_write(
    codec: Codec,
    place: Place,
    type_: str,
    blob: bytes | None,
    ref_type: str | None,
    ref_count: int | None,
    budget: LoadBudget | None = None,
) -> Any:
    """Load one pending write: decrypted, or rebuilt from the delta it refers to.

    A reference's bytes are the delta's version and, with encryption, a tag
    binding it to this write; an encrypted delta comes with them
    (``ref_type`` is ``e:...@<hex>``, see ``sql_base.REF_TYPE``) and is opened
    at its own place.
    """
    if type_ != WRITE_REF_TYPE:
        return codec.loads(type_, blob, place, budget)
    with load_errors(place):
        if ref_type is not None and (codec.keyring is not None or ref_type.startswith(SEALED)):
            stored, sealed, ref = ref_type.partition("@")
            delta = place
            if sealed:  # the reference's tag, then the delta where it is
                version = codec.open_ref(bytes.fromhex(ref), place)
                delta = place.at(
                    table="blobs", checkpoint_id=None, task_id=None, version=version, column="blob"
                )
            ref_type, blob = codec.open(stored, blob, delta, budget)
        data = write_from_ref(type_, blob, ref_type, ref_count, budget, place)
        return codec.loads(*data, place, budget, opened=True)


def _delta_opener(
    codec: Codec, place: Place, budget: LoadBudget
) -> Callable[[str, str, bytes], tuple[str, bytes | None]] | None:
    if codec.keyring is None:
        return None

    def open_delta(type_: str, version: str, chunk: bytes) -> tuple[str, bytes | None]:
        return codec.open(type_, chunk, place.at(version=version), budget)

    return open_delta


def _list_value(
    codec: Codec,
    resolver: ChainResolver,
    channel: str,
    version: str,
    place: Place,
    budget: LoadBudget,
) -> tuple[str, Any]:
    with load_errors(place):
        vtype, _ = resolver.resolve(channel, version)
        if vtype == "empty":
            return ("empty", None)

        def load(t: str, d: bytes | None) -> Any:
            return codec.loads(t, d, place, budget, opened=True)

        # decoded through the resolver: consecutive checkpoints share list prefixes
        return (DECODED, resolver.value(channel, version, load))


def _missing(channel: str, version: str) -> tuple[str, bytes | None]:
    raise SerializationError(f"{channel!r} version {version!r} is not stored")
