"""The base of the statement classes: schema quoting and the shared SQL fragments.

Values are always bound parameters; the schema name only ever enters a
statement through ``psycopg.sql.Identifier``.
"""

from __future__ import annotations

import functools
import re
from functools import cached_property

from psycopg import sql

from langgraph_actionckpt.db.sqlid import Rendered

# A pending write that equals the delta its step appended to a list channel is
# stored as a reference to that delta row (type WRITE_REF, blob = the version):
# the appended bytes live once. The lateral join runs only for such rows.
# With encryption the reference's bytes are the version (25 bytes, see
# blobs.VERSION_RE) followed by a tag binding it to the write; an encrypted
# delta's type comes back as "e:...@<hex of the reference>" (REF_TYPE).
WRITE_REF_JOIN = """
    LEFT JOIN LATERAL (
        SELECT rb.type, rb.blob, rb.item_count FROM {s}.blobs rb
        WHERE x.type = 'ref' AND rb.thread_id = %(thread_id)s
          AND rb.checkpoint_ns = w.checkpoint_ns AND rb.channel = x.channel
          AND rb.version = encode(substring(x.blob from 1 for 25), 'escape')
        OFFSET 0  -- a fence: one primary-key lookup, and none unless x is a reference
    ) rb ON true
"""

REF_TYPE = (
    "CASE WHEN left(rb.type, 2) = 'e:' THEN rb.type || '@' || encode(x.blob, 'hex') "
    "ELSE rb.type END"
)
"""The type of the delta a write refers to, with the reference when it is encrypted."""

# One row holds the writes of one put_writes call (``idx`` is the first one's);
# x is one write, n its position in the row.
WRITES_UNNEST = """
    CROSS JOIN LATERAL unnest(w.channels, w.types, w.blobs) WITH ORDINALITY
        AS x(channel, type, blob, n)
"""

# The columns a copy of a thread takes over (all but thread_id), per table.
COPIED_COLUMNS = {
    "checkpoints": "checkpoint_ns, checkpoint_id, parent_checkpoint_id, run_id, step, type, "
    "checkpoint, channels, versions, metadata, created_at",
    "blobs": "checkpoint_ns, channel, version, type, blob, base_version, snap_version, "
    "item_count, list_len",
    "writes": "checkpoint_ns, checkpoint_id, task_id, idx, channels, types, blobs, task_path",
}

ONE_THREAD = "thread_id = %(thread_id)s"
"""The condition of a statement that reads one thread's rows.

Every statement that reads one thread ties each table it reads to this
parameter itself, not through a join to another table's row: that is what lets
Citus route the whole statement to the thread's shard (a join on ``thread_id``
to a routed row is refused there).
"""


_COMMENT = re.compile(r"--[^\n]*")
_SPACE = re.compile(r"\s+")


@functools.lru_cache(maxsize=512)
def _minify(text: str) -> str:
    return _SPACE.sub(" ", _COMMENT.sub("", text)).strip()


class SchemaSQL:
    """Statements of one schema: ``q`` composes them with ``{s}`` bound to it."""

    def __init__(self, schema: str) -> None:
        self.schema = schema
        self.ident = sql.Identifier(schema)

    def q(self, text: str, **parts: sql.Composable) -> sql.Composed:
        """Compose ``text`` with ``{s}`` bound to the schema, minified.

        Comments and runs of whitespace go (no statement here has either inside a
        string literal): fewer bytes per execute, and the long reads stay under
        psycopg's 4 KB limit for caching a statement's parse.
        """
        return Rendered(sql.SQL(_minify(text)).format(s=self.ident, **parts))

    @cached_property
    def writes_unnest(self) -> sql.Composed:
        """One write per row ``x`` of the writes row ``w`` (see :data:`WRITES_UNNEST`)."""
        return self.q(WRITES_UNNEST)

    @cached_property
    def write_ref_join(self) -> sql.Composed:
        """The delta row a write ``x`` of thread ``%(thread_id)s`` refers to, as ``rb``."""
        return self.q(WRITE_REF_JOIN)

    def copy_rows(self, table: str, condition: str = "", suffix: str = "") -> sql.Composed:
        """Copy ``table``'s rows of thread ``%(source)s`` to thread ``%(target)s``.

        Args:
            table: ``checkpoints``, ``blobs`` or ``writes`` (see :data:`COPIED_COLUMNS`).
            condition: More of the ``WHERE`` clause (``AND ...``).
            suffix: What follows it (``ON CONFLICT DO NOTHING``).
        """
        return self.q(
            "INSERT INTO {s}.{t} (thread_id, {c}) SELECT %(target)s, {c} FROM {s}.{t} "
            "WHERE thread_id = %(source)s {condition} {suffix}",
            t=sql.Identifier(table),
            c=sql.SQL(COPIED_COLUMNS[table]),
            condition=sql.SQL(condition),
            suffix=sql.SQL(suffix),
        )
