"""The rows the checkpoint statements return, by column name.

The drivers hand plans plain tuples (the fastest psycopg row factory). Each
read's SELECT list is declared here once, as a ``NamedTuple`` whose field
names are the column names, and the plans build these from the raw tuples:
``Row._make(raw)`` costs well under a microsecond per row, and every later
access is by name, so a column added to a statement cannot silently shift the
meaning of the others. ``sql.py`` renders the SELECT lists from these fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple


class CheckpointRow(NamedTuple):
    """A checkpoint with its pending writes (the leading columns of every read).

    The first nine fields are columns of ``checkpoints`` (alias ``c``); the
    ``w_*`` ones are arrays built by the writes lateral join (alias ``wr``),
    one element per write, references to delta rows already resolved.
    """

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    type: str
    checkpoint: bytes
    metadata: Any
    channels: list[str] | None
    versions: list[str] | None
    w_task: list[str] | None
    w_channel: list[str] | None
    w_type: list[str] | None
    w_blob: list[bytes] | None
    w_rtype: list[str | None] | None
    w_rcount: list[int | None] | None


_N_TABLE = 9  # fields of CheckpointRow that are columns of the checkpoints table

CHECKPOINT_COLUMNS = ", ".join(
    [f"c.{name}" for name in CheckpointRow._fields[:_N_TABLE]]
    + [f"wr.{name}" for name in CheckpointRow._fields[_N_TABLE:]]
)
"""The SELECT list of :class:`CheckpointRow`."""


class ValueColumns(NamedTuple):
    """The channel values ``get_tuple`` reads beside the checkpoint (alias ``bl``).

    Arrays with one element per blob channel: the snapshot or full value
    (``b_*``), the deltas after it concatenated on the server (``d_*``) and the
    target version's list length and snapshot version (``t_len``, ``b_snap``).
    """

    b_channel: list[str] | None
    b_type: list[str]
    b_blob: list[bytes | None]
    b_len: list[int | None]
    d_body: list[bytes | None]
    d_items: list[int | None]
    t_len: list[int | None]
    b_snap: list[str | None]
    d_n: list[int | None]
    d_layout: list[str | None]


VALUE_COLUMNS = ", ".join(f"bl.{name}" for name in ValueColumns._fields)
"""The SELECT list of :class:`ValueColumns`."""

_N_CHECKPOINT = len(CheckpointRow._fields)


def split_get_tuple_row(row: Sequence[Any]) -> tuple[CheckpointRow, ValueColumns]:
    """Name the columns of a ``get_tuple`` row: ``CHECKPOINT_COLUMNS, VALUE_COLUMNS``."""
    return CheckpointRow._make(row[:_N_CHECKPOINT]), ValueColumns._make(row[_N_CHECKPOINT:])


class BlobChainRow(NamedTuple):
    """One blob row of a delta chain (``blob_chains``, ``chains_for``)."""

    thread_id: str
    checkpoint_ns: str
    channel: str
    version: str
    type: str
    blob: bytes | None
    base_version: str | None  # as stored: ``blobs.base_from_stored`` gives the version
    item_count: int | None


class DeltaChainRow(NamedTuple):
    """One checkpoint of the parent-chain walk (``delta_chain``).

    ``before``: the channels still unresolved when it is reached (their writes
    there count); ``found``/``found_versions``: the channels it stores a value
    for, with their versions (an empty version means inline).
    """

    checkpoint_id: str
    depth: int
    before: list[str]
    found: list[str] | None
    found_versions: list[str] | None


class DeltaWriteRow(NamedTuple):
    """One pending write of an ancestor (``delta_writes``), references resolved."""

    checkpoint_id: str
    task_id: str
    task_path: str
    position: int  # the write's own idx: its row's idx plus its place in the row
    channel: str
    type: str
    blob: bytes
    ref_type: str | None
    ref_count: int | None


class CheckpointBytesRow(NamedTuple):
    """A stored checkpoint's bytes (``checkpoint_bytes``)."""

    checkpoint_id: str
    type: str
    checkpoint: bytes
