"""The saver options, declared once.

:class:`SaverOptions` is the single declaration of what both savers accept:
``ActionSaver`` and ``AsyncActionSaver`` expose its fields as keyword arguments
(with these defaults), build one ``SaverOptions`` from them, and hand it to the
shared core. ``tests/test_saver.py`` checks that the savers' signatures and
these fields stay the same.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt._contracts import MetricsSink
from langgraph_actionckpt._limits import (
    DEFAULT_MAX_LOAD_BYTES,
    LEASE_TIMEOUT,
    LIMITS,
    check_length,
)
from langgraph_actionckpt.errors import ConfigurationError

if TYPE_CHECKING:  # type only: the policy lives with the blobs it shapes
    from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
    from langgraph_actionckpt.crypto import KeyRing

__all__ = [
    "DEFAULT_SCHEMA",
    "LEASE_MODES",
    "LIMITS",
    "SaverOptions",
    "check_length",
    "validate_schema",
]

DEFAULT_SCHEMA = "actionckpt"
LEASE_MODES = ("wait", "error", "off")
_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def validate_schema(schema: str) -> str:
    """Check a schema name; it must be a plain SQL identifier (it is quoted anyway)."""
    if not isinstance(schema, str) or not _SCHEMA_RE.match(schema):
        raise ConfigurationError(
            f"schema must match {_SCHEMA_RE.pattern} (letters, digits, underscore), got {schema!r}"
        )
    return schema


@dataclass(frozen=True, slots=True, kw_only=True)
class SaverOptions:
    """Every option of :class:`ActionSaver` and :class:`AsyncActionSaver`.

    Pass the fields as keyword arguments to either saver (or to their
    ``from_conn_string``), or build one ``SaverOptions`` and pass it as
    ``options=``. Values are checked when the object is made.

    Attributes:
        schema: PostgreSQL schema holding the tables: a plain identifier
            (letters, digits, underscore; at most 63 characters).
        serde: Serializer; ``None`` uses LangGraph's msgpack serializer in strict
            allowlist mode (only the graph's own and LangChain's types are
            revived; pickle is never used).
        pipeline: Run multi-statement operations in psycopg pipeline mode.
        record_nodes: Write a ``node`` action (with its routing decision) per
            finished task.
        delta_policy: When list channels are stored as deltas and when as full
            snapshots (a :class:`~langgraph_actionckpt.checkpoints.blobs.DeltaPolicy`;
            ``None`` uses the default policy).
        delta_cache_bytes: Memory for the decoded lists the saver keeps to
            append deltas without reading the list back.
        compress_min: Compress checkpoints and channel values of at least this
            many bytes (PostgreSQL only compresses rows over ~2 KB); 0 turns it off.
        replay: Serve completed actions (LLM calls, tool calls) from the log when
            a task runs again after a crash or an interrupt.
        lease: One worker per thread: ``wait`` for a busy thread, ``error`` on
            one (:class:`~langgraph_actionckpt.ThreadBusyError`), or ``off``.
        lease_timeout: Seconds to wait for a busy thread's lease.
        lease_ttl: Seconds a lease lives without its heartbeat (renewed every
            third of it, on the server's clock); another worker may take the
            thread over only after that, or at once on a direct connection
            when the holder's lease connection is gone.
        metrics: A :class:`~langgraph_actionckpt.Metrics` (or any
            ``MetricsSink``) to update; ``None`` records nothing.
        defer_writes: Hold a task's pending writes and store them with the
            thread's next checkpoint (one round trip per superstep).
        durable_writes: Wait for the WAL flush when held writes are flushed on
            their own (not with a checkpoint).
        durable_timeout: Seconds the replay barrier waits for the checkpoint a
            task was prepared from (``durability="async"``).
        writer_batch_size: Action rows written per statement by the background
            writer.
        writer_interval: Seconds between the background writer's flushes.
        group_commit: Async saver on a pool only: checkpoints of graphs running
            at once that are stored while others are being written share one
            transaction (one round trip, one WAL flush); each ``aput`` still
            returns only once its checkpoint is committed. The sync saver stores
            each checkpoint on its caller's thread and does not group.
        io_timeout: Seconds a database call may wait for the server before its
            connection is cut and :class:`~langgraph_actionckpt.ConnectionFailedError`
            raised (a network partition that drops packets otherwise hangs a
            worker forever); ``None``: no limit. Migrations (``setup``) have none.
        encryption: A :class:`~langgraph_actionckpt.crypto.KeyRing`: checkpoints,
            channel values, list deltas, pending writes and action inputs,
            outputs and errors are stored encrypted (AES-256-GCM, bound to their
            row); ``None`` stores them in plain text. See the README, "Encryption".
        max_load_bytes: The decompression budget of one load (``get_tuple``,
            one page of ``list``): the bytes all its compressed values may
            expand to together. A load that would pass it is refused with a
            :class:`~langgraph_actionckpt.SerializationError` naming the thread
            and checkpoint (stored bytes are untrusted: a small row may declare
            gigabytes).
        reuse: Serve completed results from *other* threads: a
            :class:`~langgraph_actionckpt.reuse.SemanticReuse` or
            :class:`~langgraph_actionckpt.reuse.ExactReuse` (``None``: only this
            thread's own log is replayed). A run can set or switch it off with
            ``config["configurable"]["actionckpt_reuse"]`` (a policy, or ``False``).
            Needs ``replay=True``.
    """

    schema: str = DEFAULT_SCHEMA
    serde: SerializerProtocol | None = None
    pipeline: bool = False
    record_nodes: bool = True
    delta_policy: DeltaPolicy | None = None
    delta_cache_bytes: int = 64 * 1024 * 1024
    compress_min: int = 256
    replay: bool = True
    lease: str = "wait"
    lease_timeout: float = LEASE_TIMEOUT
    lease_ttl: float = 30.0
    metrics: MetricsSink | None = None
    defer_writes: bool = True
    durable_writes: bool = False
    durable_timeout: float = 5.0
    writer_batch_size: int = 500
    writer_interval: float = 0.05
    group_commit: bool = True
    io_timeout: float | None = 300.0
    encryption: KeyRing | None = None
    max_load_bytes: int = DEFAULT_MAX_LOAD_BYTES
    reuse: Any = None

    def __post_init__(self) -> None:
        validate_schema(self.schema)
        if self.lease not in LEASE_MODES:
            raise ConfigurationError(f"lease must be 'wait', 'error' or 'off', got {self.lease!r}")
        if self.max_load_bytes < 1:
            raise ConfigurationError(f"max_load_bytes must be >= 1, got {self.max_load_bytes!r}")
        for name in ("compress_min", "delta_cache_bytes"):
            if getattr(self, name) < 0:
                raise ConfigurationError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.writer_batch_size < 1:
            raise ConfigurationError(
                f"writer_batch_size must be >= 1, got {self.writer_batch_size!r}"
            )
        if self.lease_ttl <= 0:
            raise ConfigurationError(f"lease_ttl must be > 0 seconds, got {self.lease_ttl!r}")
        for name in ("lease_timeout", "durable_timeout", "writer_interval"):
            if getattr(self, name) < 0:
                raise ConfigurationError(
                    f"{name} must be >= 0 seconds, got {getattr(self, name)!r}"
                )

    @classmethod
    def of(cls, options: SaverOptions | None, keywords: Mapping[str, Any]) -> SaverOptions:
        """The options of a saver call: ``options=`` or the option keywords, not both.

        Args:
            options: The ``options=`` argument, if any.
            keywords: The call's values of every option keyword (the savers pass
                their arguments whose names are fields).

        Raises:
            ConfigurationError: ``options=`` given together with an option
                keyword set to something other than its default.
        """
        if options is None:
            return cls(**{name: keywords[name] for name in FIELDS})
        changed = [n for n in FIELDS if keywords[n] != getattr(DEFAULTS, n)]
        if changed:
            raise ConfigurationError(
                f"pass options=SaverOptions(...) or option keywords, not both (got {changed})"
            )
        return options


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(SaverOptions))
"""The option names, in declaration order."""

DEFAULTS = SaverOptions()
"""The default options (the savers' keyword defaults are read from here)."""
