"""The saver options, declared once: their groups, their defaults, their resolution.

:class:`LeaseOptions`, :class:`WriterOptions` and :class:`Limits` group the
options by concern; the savers take them as ``lease=``, ``writer=``,
``limits=``, and still take each grouped option's flat keyword (the spelling
before groups: ``lease_ttl=``...). :class:`SaverOptions` is the direct savers'
options, flat, as the store reads them. The remote savers take the same lease
and writer groups with the same defaults, but for the three ``REMOTE_*``
defaults below (each says why). :func:`resolve` turns groups and flat keywords
into flat values, so the saver classes hold no resolution of their own.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping, Sequence
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
    "LeaseOptions",
    "Limits",
    "SaverOptions",
    "WriterOptions",
    "remote_options",
    "resolve",
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


def _check(values: Mapping[str, Any], group: str = "") -> None:
    """Check option values by their flat names (the groups and ``SaverOptions`` share the rules).

    ``group``: the group keyword the values come from; messages then name its fields.
    """
    spelled = (
        {n: f"{GROUPS[group][0].__name__}.{f}" for f, n in GROUPS[group][1].items()}
        if group
        else {}
    )
    for name, value in values.items():
        label = spelled.get(name, name)
        if value is None:  # a group's "the saver's default"
            continue
        if name == "lease" and value not in LEASE_MODES:
            raise ConfigurationError(f"{label} must be 'wait', 'error' or 'off', got {value!r}")
        if name in _AT_LEAST_ONE and value < 1:
            raise ConfigurationError(f"{label} must be >= 1, got {value!r}")
        if name in _NOT_NEGATIVE and value < 0:
            raise ConfigurationError(f"{label} must be >= 0, got {value!r}")
        if name in _SECONDS and value < 0:
            raise ConfigurationError(f"{label} must be >= 0 seconds, got {value!r}")
        if name == "lease_ttl" and value <= 0:
            raise ConfigurationError(f"{label} must be > 0 seconds, got {value!r}")


_AT_LEAST_ONE = frozenset({"max_load_bytes", "writer_batch_size"})
_NOT_NEGATIVE = frozenset({"compress_min", "delta_cache_bytes"})
_SECONDS = frozenset({"lease_timeout", "durable_timeout", "writer_interval"})


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseOptions:
    """One worker per thread: how a saver takes, waits for and keeps a thread's lease.

    Pass it as ``lease=LeaseOptions(...)`` to any saver, direct or remote;
    ``lease="wait"`` (a mode alone) still works. Values are checked when the
    object is made.

    Attributes:
        mode: ``"wait"`` for a busy thread, ``"error"`` on one
            (:class:`~langgraph_actionckpt.ThreadBusyError`), or ``"off"``.
        timeout: Seconds to wait for a busy thread's lease (``"wait"``).
        ttl: Seconds a lease lives without its heartbeat (renewed every third
            of it, on the server's clock). ``None``: the saver's default,
            30 on a direct saver and 10 on a remote one. A direct saver's
            lease is also freed at once when its holder's connection is gone;
            a lease taken through the checkpoint service is freed only by its
            expiry, so the remote default is shorter: it bounds how long a
            dead worker holds its threads.
    """

    mode: str = "wait"
    timeout: float = LEASE_TIMEOUT
    ttl: float | None = None

    def __post_init__(self) -> None:
        _check(_flat("lease", self), "lease")


@dataclass(frozen=True, slots=True, kw_only=True)
class WriterOptions:
    """How a saver's writes reach the database: held writes, the action writer, durability.

    Pass it as ``writer=WriterOptions(...)``. Values are checked when the object
    is made.

    Attributes:
        defer_writes: Hold a task's pending writes and store them with the
            thread's next checkpoint (one round trip, or one call to the
            service, per superstep).
        durable_writes: Wait for the WAL flush when held writes are flushed on
            their own (not with a checkpoint). Direct savers only: through the
            service, its own saver decides (a remote saver refuses ``True``).
        durable_timeout: Seconds the replay barrier waits for the checkpoint a
            task was prepared from (``durability="async"``). ``None``: the
            saver's default, 5 on a direct saver and 30 on a remote one, whose
            checkpoint travels in a call with a 30-second deadline that may be
            retried.
        batch_size: Action rows written per statement (or call) by the
            background writer.
        interval: Seconds between the background writer's flushes.
        group_commit: Async direct saver on a pool only: checkpoints of graphs
            running at once that are stored while others are being written
            share one transaction; each ``aput`` still returns only once its
            checkpoint is committed. The sync saver accepts it and stores each
            checkpoint on its caller's thread; a remote saver refuses ``False``
            (the service groups its own commits).
    """

    defer_writes: bool = True
    durable_writes: bool = False
    durable_timeout: float | None = None
    batch_size: int = 500
    interval: float = 0.05
    group_commit: bool = True

    def __post_init__(self) -> None:
        _check(_flat("writer", self), "writer")


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one call or one load of a direct saver may cost: time, bytes, memory.

    Pass it as ``limits=Limits(...)`` to ``ActionSaver`` or ``AsyncActionSaver``.
    Values are checked when the object is made.

    Attributes:
        io_timeout: Seconds a database call may wait for the server before its
            connection is cut and :class:`~langgraph_actionckpt.ConnectionFailedError`
            raised; ``None``: no limit. Migrations (``setup``) have none.
        max_load_bytes: The bytes all compressed values of one load
            (``get_tuple``, one page of ``list``) may expand to together; past
            it the load is refused with :class:`~langgraph_actionckpt.SerializationError`.
        compress_min: Compress checkpoints and channel values of at least this
            many bytes; 0 turns compression off.
        delta_cache_bytes: Memory for the decoded lists the saver keeps to
            append deltas without reading the list back.
    """

    io_timeout: float | None = 300.0
    max_load_bytes: int = DEFAULT_MAX_LOAD_BYTES
    compress_min: int = 256
    delta_cache_bytes: int = 64 * 1024 * 1024

    def __post_init__(self) -> None:
        _check(_flat("limits", self), "limits")


GROUPS: dict[str, tuple[type[Any], dict[str, str]]] = {
    "lease": (LeaseOptions, {"mode": "lease", "timeout": "lease_timeout", "ttl": "lease_ttl"}),
    "writer": (
        WriterOptions,
        {
            "defer_writes": "defer_writes",
            "durable_writes": "durable_writes",
            "durable_timeout": "durable_timeout",
            "batch_size": "writer_batch_size",
            "interval": "writer_interval",
            "group_commit": "group_commit",
        },
    ),
    "limits": (
        Limits,
        {f: f for f in ("io_timeout", "max_load_bytes", "compress_min", "delta_cache_bytes")},
    ),
}
"""Each group keyword: its class, and its fields' flat keyword names (the old spelling)."""


def _flat(group: str, value: Any) -> dict[str, Any]:
    """A group object's values under their flat keyword names."""
    return {flat: getattr(value, field) for field, flat in GROUPS[group][1].items()}


_LEASE, _WRITER, _LIMITS = LeaseOptions(), WriterOptions(), Limits()
_LIMITS_FLAT = frozenset(GROUPS["limits"][1].values())
DIRECT_LEASE_TTL = 30.0
"""A direct saver's lease ttl (``LeaseOptions.ttl=None``)."""
DIRECT_DURABLE_TIMEOUT = 5.0
"""A direct saver's replay barrier wait (``WriterOptions.durable_timeout=None``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SaverOptions:
    """Every option of :class:`ActionSaver` and :class:`AsyncActionSaver`, flat.

    The savers take most of them in groups: ``lease=LeaseOptions(...)``
    (``lease``, ``lease_timeout``, ``lease_ttl``), ``writer=WriterOptions(...)``
    (``defer_writes``, ``durable_writes``, ``durable_timeout``,
    ``writer_batch_size``, ``writer_interval``, ``group_commit``) and
    ``limits=Limits(...)`` (``io_timeout``, ``max_load_bytes``,
    ``compress_min``, ``delta_cache_bytes``); the others are keywords of their
    own. Each flat name below is still accepted as a keyword (the spelling
    before groups). One ``SaverOptions`` may also be passed whole, as
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
    delta_cache_bytes: int = _LIMITS.delta_cache_bytes
    compress_min: int = _LIMITS.compress_min
    replay: bool = True
    lease: str = _LEASE.mode
    lease_timeout: float = _LEASE.timeout
    lease_ttl: float = DIRECT_LEASE_TTL
    metrics: MetricsSink | None = None
    defer_writes: bool = _WRITER.defer_writes
    durable_writes: bool = _WRITER.durable_writes
    durable_timeout: float = DIRECT_DURABLE_TIMEOUT
    writer_batch_size: int = _WRITER.batch_size
    writer_interval: float = _WRITER.interval
    group_commit: bool = _WRITER.group_commit
    io_timeout: float | None = _LIMITS.io_timeout
    encryption: KeyRing | None = None
    max_load_bytes: int = _LIMITS.max_load_bytes
    reuse: Any = None

    def __post_init__(self) -> None:
        validate_schema(self.schema)
        _check({name: getattr(self, name) for name in FLAT})

    @classmethod
    def of(
        cls, options: SaverOptions | None, keywords: Mapping[str, Any], flat: Mapping[str, Any]
    ) -> SaverOptions:
        """The options of a saver's constructor: ``options=``, or its keywords.

        Args:
            options: The ``options=`` argument, if any.
            keywords: The constructor's named arguments (its ``locals()``): the
                ungrouped options and the groups ``lease``, ``writer``, ``limits``.
            flat: The old flat keywords of grouped options (``lease_ttl=``...).

        Raises:
            ConfigurationError: ``options=`` with any other option; a group with
                a flat keyword of one of its fields; a group of the wrong type.
            TypeError: A keyword that is no option (naming the closest one).
        """
        who = type(keywords["self"]).__name__
        plain = {name: keywords[name] for name in FIELDS if name not in FLAT}
        groups = {group: keywords[group] for group in GROUPS}
        values = resolve(who, groups, flat, _DIRECT, [*plain, *groups])
        if options is None:
            return cls(**plain, **values)
        changed = [n for n, v in plain.items() if v != getattr(DEFAULTS, n)]
        changed += [
            g for g, v in groups.items() if v is not None and v != getattr(DEFAULTS, g, None)
        ]
        if changed or flat:
            raise ConfigurationError(
                f"pass options=SaverOptions(...) or option keywords, not both "
                f"(got {[*changed, *flat]})"
            )
        return options


def resolve(
    who: str,
    groups: Mapping[str, Any],
    flat: Mapping[str, Any],
    defaults: Mapping[str, Any],
    others: Sequence[str] = (),
) -> dict[str, Any]:
    """The grouped options' values under their flat names, from groups or old flat keywords.

    Args:
        who: The saver's class name, for the messages.
        groups: The group keywords given (``lease`` may be a mode, as before groups).
        flat: The flat keywords given (``lease_ttl=``...), each a field of one of ``groups``.
        defaults: Every flat name's default for this saver (a group field's ``None``
            takes it too).
        others: The saver's other keywords, for the closest-name hint.

    Raises:
        TypeError: A flat keyword that is no field of ``groups`` (naming the closest option).
        ConfigurationError: A group together with a flat keyword of one of its fields.
    """
    known = {n for g in groups for n in GROUPS[g][1].values()} - set(groups)
    for name in flat:
        if name not in known:
            raise TypeError(_unknown(who, name, groups, others))
    out: dict[str, Any] = {}
    for group, value in groups.items():
        kind, fields = GROUPS[group]
        if isinstance(value, kind):
            both = [(f, n) for f, n in fields.items() if n in flat]
            if both:
                field, name = both[0]
                raise ConfigurationError(
                    f"{who}: {name}= and {group}={kind.__name__}(...) both given; pass one "
                    f"(the grouped spelling is {group}={kind.__name__}({field}=...))"
                )
            values = _flat(group, value)
        elif value is None or (group == "lease" and isinstance(value, str)):
            values = {n: flat.get(n, defaults[n]) for n in fields.values()}
            if isinstance(value, str):
                values["lease"] = value
        else:
            raise ConfigurationError(
                f"{who}: {group}= takes a {kind.__name__}"
                + (" or a mode" if group == "lease" else "")
                + f", got {value!r}"
            )
        out.update({n: defaults[n] if v is None else v for n, v in values.items()})
    return out


def _unknown(who: str, name: str, groups: Mapping[str, Any], others: Sequence[str]) -> str:
    """The message of an unknown keyword, naming the closest option (flat or grouped)."""
    spelled: dict[str, str] = {n: f"{n}=" for n in others}
    for group in groups:
        kind, fields = GROUPS[group]
        for field, flat_name in fields.items():
            grouped = f"{group}={kind.__name__}({field}=...)"
            spelled.setdefault(field, grouped)  # a keyword of the saver's own wins
            # the lease mode's flat keyword is the group's own (``lease="wait"``)
            key = f"{group}_{field}" if flat_name == group else flat_name
            spelled[key] = f"{grouped} (or {flat_name}=)"
    close = difflib.get_close_matches(name, spelled, n=1)
    hint = f"; did you mean {spelled[close[0]]}?" if close else ""
    if name in FIELDS or name in GROUPS:  # a remote saver given a direct saver's option
        hint = "; it is an option of the direct savers (ActionSaver, AsyncActionSaver) only"
    return f"{who}: unexpected keyword argument {name!r}{hint}"


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(SaverOptions))
"""The option names, in declaration order."""

FLAT: tuple[str, ...] = tuple(n for _, names in GROUPS.values() for n in names.values())
"""The flat names of the grouped options (``lease`` is the lease mode's)."""

DEFAULTS = SaverOptions()
"""The direct savers' default options."""

_DIRECT = {name: getattr(DEFAULTS, name) for name in FLAT}

REMOTE_LEASE_MODE = "off"
"""A remote saver's lease mode when none is given.

Off, where a direct saver waits: only the expiry frees a lease taken through the
service (its connection is the service's, not the worker's), so a worker that
died would hold its threads for the ttl. Taking leases is the caller's choice.
"""

REMOTE_LEASE_TTL = 10.0
"""A remote saver's lease ttl (``LeaseOptions.ttl=None``): it bounds a dead worker's hold."""

REMOTE_DURABLE_TIMEOUT = 30.0
"""A remote saver's replay barrier wait (``WriterOptions.durable_timeout=None``): the
checkpoint it waits for travels in a call with a deadline of that length, and may be retried."""

_REMOTE = {
    **{n: _DIRECT[n] for n in FLAT if n not in _LIMITS_FLAT},
    "lease": REMOTE_LEASE_MODE,
    "lease_ttl": REMOTE_LEASE_TTL,
    "durable_timeout": REMOTE_DURABLE_TIMEOUT,
}


def remote_options(
    who: str, lease: Any, writer: Any, flat: Mapping[str, Any], others: Sequence[str]
) -> dict[str, Any]:
    """A remote saver's lease and writer values, flat (see :func:`resolve`).

    ``durable_writes`` and ``group_commit`` are the service's own saver's: a
    remote saver refuses any but their defaults.
    """
    values = resolve(who, {"lease": lease, "writer": writer}, flat, _REMOTE, others)
    _check(values)
    for name in ("durable_writes", "group_commit"):
        if values.pop(name) != _DIRECT[name]:
            raise ConfigurationError(
                f"{who}: {name} is decided by the checkpoint service's own saver"
            )
    return values
