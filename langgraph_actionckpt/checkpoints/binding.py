"""Binding held write calls as the scalar parameters of the store statement."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langgraph_actionckpt.checkpoints.blobs import WRITE_REF_TYPE, BlobRow, write_refers_to
from langgraph_actionckpt.checkpoints.pending import WriteCall, WriteRow
from langgraph_actionckpt.db.arrays import ByteaArray, TextArray

# Parameter suffixes of ``Queries.store``, in the order of the row fields they bind.
_W_PARAMS = ("t", "ns", "c", "task", "path", "idx", "ch", "ty", "b")
_A_PARAMS = (
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

WRITE_ROW_PARAMS = len(_W_PARAMS)
"""Parameters a write row binds (not shared: with its own thread and namespace)."""
ACTION_ROW_PARAMS = len(_A_PARAMS)
"""Parameters an action row binds (not shared)."""


@functools.lru_cache(maxsize=1024)
def _names(prefix: str, i: int, shared: bool) -> tuple[str | None, ...]:
    """The parameter names of row ``i`` of a kind (``w0_c``...), in the order of its fields.

    The fields are :data:`_A_PARAMS` for prefix ``a``, else :data:`_W_PARAMS`.
    ``None`` where ``shared`` skips a field (``thread_id``/``ns`` are bound once).
    Made once, not formatted again for every row of every put.
    """
    fields = _A_PARAMS if prefix == "a" else _W_PARAMS
    return tuple(None if shared and f in ("t", "ns") else f"{prefix}{i}_{f}" for f in fields)


def bind_calls(
    params: dict[str, Any],
    calls: Sequence[WriteCall],
    deltas: Mapping[str, BlobRow] | None = None,
    *,
    shared: bool = False,
    seal: Callable[[WriteRow, str | None], tuple[str, bytes]] | None = None,
) -> tuple[int, int, int]:
    """Add the rows of ``calls`` to ``params``; return (regular, special, action) counts.

    The regular writes of one call are one row (arrays of channels, types and
    values; ``idx`` is the first write's); special writes (errors, interrupts)
    are a row each, since each replaces its own. A regular write whose bytes are
    exactly the items that ``deltas`` (the delta rows stored by the same
    statement, by channel) appended is bound as a reference to that row instead
    of a second copy. ``shared``: every row is of the statement's
    ``thread_id``/``ns``, which are not bound again per row. ``seal``: encrypts
    a write, or (given the delta's version) makes its reference's bytes.
    """
    # key -> the (channels, types, blobs) lists already bound for it: one
    # statement cannot touch a key twice, so repeated calls merge here the way
    # the upsert merges them with what is stored
    bound: dict[tuple[Any, ...], tuple[TextArray, TextArray, ByteaArray]] = {}
    n_w = n_s = 0
    for call in calls:
        groups: list[list[WriteRow]] = [[row] for row in call.rows] if call.special else [call.rows]
        for group in groups:
            if not group:
                continue
            first = group[0]
            key = (first.thread_id, first.ns, first.checkpoint_id, first.task_id, first.idx)
            channels = TextArray()  # typed lists: bound without psycopg looking at the items
            types = TextArray()
            blobs = ByteaArray()
            for row in group:
                type_, data = row.type, row.blob
                delta = deltas.get(row.channel) if deltas and not call.special else None
                if (
                    delta is not None
                    and delta.blob is not None
                    and delta.count is not None
                    and write_refers_to(type_, data, delta.blob, delta.count)
                ):
                    type_, data = WRITE_REF_TYPE, delta.version.encode()
                    if seal is not None:
                        type_, data = seal(row, delta.version)
                elif seal is not None:
                    type_, data = seal(row, None)
                channels.append(row.channel)
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
            values = (
                first.thread_id,
                first.ns,
                first.checkpoint_id,
                first.task_id,
                first.task_path,
                first.idx,
                channels,
                types,
                blobs,
            )
            for name, value in zip(_names(prefix, i, shared), values, strict=True):
                if name is not None:
                    params[name] = value
    n_a = 0
    seen_actions: dict[tuple[str, str], int] = {}
    for call in calls:
        for action in call.actions:
            action_key = (action.thread_id, action.action_id)
            i = seen_actions.get(action_key, n_a)
            if i == n_a:
                seen_actions[action_key] = n_a
                n_a += 1
            for name, value in zip(_names("a", i, shared), action, strict=True):
                if name is not None:
                    params[name] = value
    return n_w, n_s, n_a
