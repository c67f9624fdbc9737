"""Where a stored value lives: the one description that load errors and encryption share.

A :class:`Place` names a value's row and column (schema, thread, namespace,
checkpoint or action id, column, and for blobs the channel and version). Load
errors print it (:meth:`Place.describe`) so a refused row can be found with SQL;
encryption binds each ciphertext to it (:meth:`Place.associated_data`) so a
value moved to another row does not decrypt there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from langgraph_actionckpt.db.encoding import dumps

_FIELDS = (
    "schema",
    "table",
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "action_id",
    "task_id",
    "channel",
    "version",
    "column",
)


@dataclass(frozen=True, slots=True)
class Place:
    """The row and column of one stored value.

    Attributes are the stored (escaped) identifiers; None where they do not
    apply (an action row has no checkpoint id, a checkpoint no action id).

    Attributes:
        schema: The saver's schema.
        table: The table, without schema (``checkpoints``, ``blobs``, ``writes``, ``actions``).
        thread_id: The thread.
        checkpoint_ns: The checkpoint namespace ("" for the root graph).
        checkpoint_id: The checkpoint (checkpoints, writes).
        action_id: The action (action rows).
        task_id: The task a pending write belongs to.
        channel: The channel (blobs, writes).
        version: The channel version (blobs).
        column: The column holding the value (``checkpoint``, ``blob``, ``input``...).
    """

    schema: str
    table: str
    thread_id: str
    checkpoint_ns: str | None = None
    checkpoint_id: str | None = None
    action_id: str | None = None
    task_id: str | None = None
    channel: str | None = None
    version: str | None = None
    column: str | None = None

    def at(self, **changes: str | None) -> Place:
        """A copy with some attributes changed, e.g. ``place.at(column="blob")``."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        """A short human description, e.g. ``table s.blobs, thread id 't', ..., column blob``."""
        parts = [f"table {self.schema}.{self.table}"]
        for name in _FIELDS[2:]:
            value = getattr(self, name)
            if value is None:
                continue
            if name == "column":
                parts.append(f"column {value}")
            else:
                parts.append(f"{name.replace('_', ' ')} {value!r}")
        return ", ".join(parts)

    def associated_data(self) -> bytes:
        """Canonical bytes of every attribute: the AEAD associated data binding a value here."""
        return dumps([getattr(self, name) for name in _FIELDS])


__all__ = ["Place"]
