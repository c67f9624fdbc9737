"""Between Python values and the service's messages, for the server and the clients.

Checkpoints, metadata and writes travel as the serializer's ``(type, bytes)``
pairs (:class:`Typed` messages). Action records travel as the JSON of
``ActionRecord.to_dict()``. Nothing here uses pickle: the serializers are the
savers' strict ones (allowlisted types only).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any, cast

import orjson
import ormsgpack
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import Checkpoint, CheckpointTuple
from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db import encoding
from langgraph_actionckpt.errors import (
    ConfigurationError,
    InFlightActionError,
    SerializationError,
)
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service.checks import check_record_dict

__all__ = [
    "PROTOCOL_HEADER",
    "PROTOCOL_VERSION",
    "Raw",
    "TENANT_HEADER",
    "Wire",
    "record_from_json",
    "record_to_json",
    "remote_error",
]

PROTOCOL_VERSION = 1
"""The wire protocol's version; a client of another version is refused."""
PROTOCOL_HEADER = "actionckpt-protocol"
"""The metadata key every call carries its protocol version in."""
TENANT_HEADER = "actionckpt-tenant"
"""Optional metadata: the tenant the caller means (checked against its token)."""

# Typed values the server accepts: the serializer's own tags. Pickle never.
ACCEPTED_TYPES = frozenset({"msgpack", "msgpack+esc", "json", "null", "bytes", "bytearray"})


class Raw:
    """A value as the client serialized it, stored by the server without decoding."""

    __slots__ = ("data", "type")

    def __init__(self, type_: str, data: bytes) -> None:
        self.type = type_
        self.data = data


_ERROR_CLASSES: dict[str, type[Exception]] = {}


class _RemoteInFlight(InFlightActionError):
    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)


_RemoteInFlight.__name__ = _RemoteInFlight.__qualname__ = "InFlightActionError"


def remote_error(name: str, message: str, raw: Raw) -> Exception:
    """A stand-in for a client's exception: its class name and message, its bytes as given.

    The action log records the name and message of a task's error, and an
    ``InFlightActionError`` asks for a resolution instead of marking the last
    LLM answer stale; the stored value is the client's serialized one.
    """
    if not name.isidentifier():
        name = "Exception"
    if name == "InFlightActionError":
        error: Exception = _RemoteInFlight(message)
    else:
        cls = _ERROR_CLASSES.get(name)
        if cls is None:
            if len(_ERROR_CLASSES) > 1000:
                _ERROR_CLASSES.clear()
            cls = _ERROR_CLASSES[name] = type(name, (Exception,), {})
        error = cls(message)
    error._actionckpt_raw = raw  # type: ignore[attr-defined]
    return error


def _opaque_ext(code: int, data: bytes) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, data)


class PassThroughSerde:
    """The server's serializer: :class:`Raw` values are stored as given, the rest strictly."""

    def __init__(self, inner: SerializerProtocol) -> None:
        self.inner = inner

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """``obj``'s stored form (a :class:`Raw` one unchanged)."""
        if isinstance(obj, Raw):
            return obj.type, obj.data
        raw = getattr(obj, "_actionckpt_raw", None)
        if isinstance(raw, Raw):
            return raw.type, raw.data
        return self.inner.dumps_typed(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Decode without reviving anything: msgpack extension values stay opaque.

        A stored value is only ever handed back, so its objects (a graph's own
        types, messages) are kept as ``ormsgpack.Ext`` and encoded again byte for
        byte; the client revives them with its own allowlist. JSON is plain JSON.
        """
        type_, payload = data
        if type_ == "json":
            return orjson.loads(payload)
        if type_ == "msgpack":
            return ormsgpack.unpackb(
                payload, ext_hook=_opaque_ext, option=ormsgpack.OPT_NON_STR_KEYS
            )
        return self.inner.loads_typed(data)


def record_to_json(record: ActionRecord) -> bytes:
    """An action record as the wire's JSON."""
    return orjson.dumps(record.to_dict())


def record_from_json(data: bytes, *, strict: bool = False) -> ActionRecord:
    """An action record from the wire's JSON.

    Args:
        data: The JSON of ``ActionRecord.to_dict()``.
        strict: Check every field against its column (the server, on a
            client's record); a client reading the server's rows does not.

    Raises:
        SerializationError: Not JSON, or a JSON field not in the log's encoding.
        ConfigurationError: No thread or action id, or (``strict``) a field the
            table would refuse (see ``checks``).
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise SerializationError(f"an action record is not valid JSON: {exc}") from None
    if strict:
        check_record_dict(value)
    elif not isinstance(value, dict) or not value.get("thread_id") or not value.get("action_id"):
        raise ConfigurationError("an action record needs thread_id and action_id")
    try:
        return ActionRecord.from_dict(value)
    except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as exc:
        raise SerializationError(f"bad action record: {type(exc).__name__}") from None


def json_bytes(value: Any) -> bytes:
    """A JSON value in the action log's reversible encoding (outputs, resolutions)."""
    return orjson.dumps(encoding.to_jsonable(value))


def from_json_bytes(data: bytes, what: str = "a JSON value") -> Any:
    """Reverse :func:`json_bytes`.

    Raises:
        SerializationError: ``data`` is not JSON in the log's encoding (naming ``what``).
    """
    try:
        return encoding.from_jsonable(orjson.loads(data))
    except orjson.JSONDecodeError as exc:
        raise SerializationError(f"{what} is not valid JSON: {exc}") from None
    except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as exc:
        raise SerializationError(f"{what} is malformed ({type(exc).__name__})") from None


class Wire:
    """Converts values with one serializer (the client's, or the server's strict one)."""

    def __init__(self, serde: SerializerProtocol) -> None:
        self.serde = serde

    # ------------------------------------------------------------ values

    def typed(self, value: Any, what: str = "a value") -> pb.Typed:
        """A value as a :class:`Typed` message (a :class:`Raw` one unchanged).

        Raises:
            SerializationError: The serializer cannot encode it (naming ``what``).
        """
        if isinstance(value, Raw):
            return pb.Typed(type=value.type, data=value.data)
        try:
            type_, data = self.serde.dumps_typed(value)
        except Exception as exc:  # the serializer raises many types; add context
            raise SerializationError(
                f"cannot serialize {what} ({type(value).__name__}): {exc}"
            ) from exc
        return pb.Typed(type=type_, data=data)

    def value(self, msg: pb.Typed) -> Any:
        """Decode a :class:`Typed` message (strictly: allowlisted types only).

        Raises:
            ConfigurationError: Its type is not accepted.
            SerializationError: Its bytes are not a value of its type.
        """
        check_type(msg.type)
        try:
            if msg.type == "json":
                return orjson.loads(msg.data)
            return self.serde.loads_typed((msg.type, msg.data))
        except Exception as exc:  # noqa: BLE001 - the serializer raises many types; one of ours
            raise SerializationError(
                f"a value of type {msg.type!r} does not decode ({type(exc).__name__})"
            ) from None

    def mapping(self, msg: pb.Typed, what: str) -> dict[str, Any]:
        """Decode a :class:`Typed` message that must hold a mapping (unset: empty)."""
        if not msg.type:
            return {}
        value = self.value(msg)
        if not isinstance(value, Mapping):
            raise ConfigurationError(f"{what} must be a mapping, got {type(value).__name__}")
        return dict(value)

    # ----------------------------------------------------------- configs

    @staticmethod
    def config_msg(config: RunnableConfig | None) -> pb.Config | None:
        """The thread, namespace and checkpoint id of a config (None: no config)."""
        if config is None:
            return None
        conf = config.get("configurable") or {}
        msg = pb.Config()
        for key in ("thread_id", "checkpoint_ns", "checkpoint_id"):
            value = conf.get(key)
            if value is not None:
                setattr(msg, key, str(value))
        return msg

    @staticmethod
    def config(msg: pb.Config) -> RunnableConfig:
        """A config from its message (only the keys it has)."""
        conf: dict[str, Any] = {}
        for key in ("thread_id", "checkpoint_ns", "checkpoint_id"):
            if msg.HasField(key):
                conf[key] = getattr(msg, key)
        _check_checkpoint_id(conf.get("checkpoint_id"))
        return {"configurable": conf}

    # -------------------------------------------------------- checkpoints

    def checkpoint_msg(self, checkpoint: Checkpoint) -> pb.Checkpoint:
        """A checkpoint: its fields and each channel value serialized separately."""
        fields = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        values = checkpoint.get("channel_values") or {}
        return pb.Checkpoint(
            fields=self.typed(fields),
            channel_values={k: self.typed(v, f"channel {k!r}") for k, v in values.items()},
        )

    def checkpoint(self, msg: pb.Checkpoint, *, raw_values: bool = False) -> Checkpoint:
        """A checkpoint from its message; with ``raw_values`` its values stay :class:`Raw`."""
        fields = self.mapping(msg.fields, "checkpoint")
        if not isinstance(fields.get("id"), str) or not fields["id"]:
            raise ConfigurationError("a checkpoint needs an id")
        _check_checkpoint_id(fields["id"])
        if not isinstance(fields.get("channel_versions"), Mapping):
            raise ConfigurationError("a checkpoint needs channel_versions (a mapping)")
        values: dict[str, Any] = {}
        for channel, item in msg.channel_values.items():
            if raw_values:
                check_type(item.type)
                values[channel] = Raw(item.type, item.data)
            else:
                values[channel] = self.value(item)
        fields["channel_values"] = values
        return cast(Checkpoint, fields)

    def tuple_msg(self, tup: CheckpointTuple) -> pb.CheckpointTuple:
        """A checkpoint tuple as its message."""
        msg = pb.CheckpointTuple(
            config=self.config_msg(tup.config),
            checkpoint=self.checkpoint_msg(tup.checkpoint),
            metadata=self.typed(dict(tup.metadata or {})),
            pending_writes=[
                pb.PendingWrite(task_id=str(t), channel=str(c), value=self.typed(v))
                for t, c, v in tup.pending_writes or ()
            ],
        )
        if tup.parent_config is not None:
            msg.parent_config.CopyFrom(self.config_msg(tup.parent_config))
        return msg

    def checkpoint_tuple(self, msg: pb.CheckpointTuple) -> CheckpointTuple:
        """A checkpoint tuple from its message."""
        return CheckpointTuple(
            config=self.config(msg.config),
            checkpoint=self.checkpoint(msg.checkpoint),
            metadata=cast(Any, self.mapping(msg.metadata, "metadata")),
            parent_config=self.config(msg.parent_config) if msg.HasField("parent_config") else None,
            pending_writes=[
                (w.task_id, w.channel, self.value(w.value)) for w in msg.pending_writes
            ],
        )

    def writes_msg(self, writes: Sequence[builtins.tuple[str, Any]]) -> builtins.list[pb.Write]:
        """A task's writes as messages."""
        out = []
        for channel, value in writes:
            msg = pb.Write(channel=str(channel), value=self.typed(value, f"write to {channel!r}"))
            if isinstance(value, BaseException):
                msg.error_type = type(value).__name__
                msg.error_message = str(value)
            out.append(msg)
        return out


def check_type(type_: str) -> None:
    """Refuse a serializer tag the server does not accept (pickle above all).

    Raises:
        ConfigurationError: ``type_`` is not accepted.
    """
    if type_ not in ACCEPTED_TYPES:
        raise ConfigurationError(
            f"values of type {type_[:40]!r} are not accepted (pickle never is)"
        )


def _check_checkpoint_id(value: str | None) -> None:
    """Refuse a checkpoint id with NUL (a pending write's row cannot store it, unescaped)."""
    if value is not None and "\x00" in value:
        raise ConfigurationError("a checkpoint id cannot contain NUL")
