"""The error hierarchy: every error this package raises derives from ActionCkptError.

psycopg errors pass through unchanged unless this package adds meaning to them.
"""

from __future__ import annotations

from typing import Any


class ActionCkptError(Exception):
    """Base class of every error raised by langgraph-actionckpt."""


class ConfigurationError(ActionCkptError, ValueError):
    """An argument or setting is invalid (bad schema name, bad DSN, unsupported option)."""


class MigrationError(ActionCkptError):
    """The schema could not be migrated, or the database holds a newer schema version."""


class SerializationError(ActionCkptError, ValueError):
    """A value could not be serialized for storage, or stored data could not be loaded."""


class DecryptionError(SerializationError):
    """An encrypted value did not open: wrong or missing key, changed bytes, moved row.

    Also raised for a plain-text value read while encryption is on (unless the
    key ring allows plain text).

    Attributes:
        place: Where the value is stored (table, thread, ids, column).
    """

    def __init__(self, message: str, place: str = "") -> None:
        self.place = place
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.place))


class EmbeddedServerError(ActionCkptError, RuntimeError):
    """The embedded PostgreSQL server could not be started."""


class VectorUnavailableError(ActionCkptError, RuntimeError):
    """Similarity search was asked for, but pgvector or an embedding model is missing."""


class ThreadBusyError(ActionCkptError, RuntimeError):
    """Another process holds the lease on this thread and is running it."""

    def __init__(self, thread_id: str, message: str | None = None) -> None:
        self.thread_id = thread_id
        super().__init__(message or f"thread {thread_id!r} is being run by another worker")


class InFlightActionError(ActionCkptError, RuntimeError):
    """A non-idempotent action was caught in flight by a crash; its outcome is unknown.

    Also raised after an interruption from outside the action (a cancellation,
    ``KeyboardInterrupt``, ``SystemExit``, a lost lease): its row says
    ``interrupted``, and the action may or may not have had its effect.

    The run stops instead of executing the action a second time. Resolve it with
    ``saver.resolve_action(thread_id, action_id, output=...)`` (mark it done with
    the result it had) or ``saver.resolve_action(..., retry=True)`` (allow one more
    execution), then resume the thread.

    Attributes:
        thread_id: The thread the action belongs to.
        action_id: The action's idempotency key.
        name: The tool or function name.
        action_type: ``tool_call``, ``function``, ...
    """

    def __init__(
        self,
        thread_id: str,
        action_id: str,
        name: str,
        action_type: str,
        input: Any = None,
    ) -> None:
        self.thread_id = thread_id
        self.action_id = action_id
        self.name = name
        self.action_type = action_type
        self.input = input
        super().__init__(
            f"non-idempotent {action_type} {name!r} (idempotency key {action_id!r}) on thread "
            f"{thread_id!r} was in flight when the previous run died or was interrupted; its "
            "outcome is unknown, so it was not executed again. Resolve it with "
            "saver.resolve_action("
            f"{thread_id!r}, {action_id!r}, output=...) or retry=True, then resume."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.thread_id, self.action_id, self.name, self.action_type, self.input),
        )


class OutcomeKnownError(ActionCkptError, ValueError):
    """``resolve_action`` was asked to settle an action whose outcome is known.

    Only an action whose outcome is unknown (``running``, ``pending``,
    ``unknown`` or ``interrupted``) is settled by ``resolve_action``; replacing
    a ``completed`` or ``failed`` outcome takes ``override=True``.

    Attributes:
        thread_id: The thread.
        action_id: The action's idempotency key.
        status: The row's status (``completed``, ``failed``...).
    """

    def __init__(self, thread_id: str, action_id: str, status: str) -> None:
        self.thread_id = thread_id
        self.action_id = action_id
        self.status = status
        super().__init__(
            f"action {action_id!r} on thread {thread_id!r} is {status}: its outcome is known, "
            "so resolve_action does not settle it; pass override=True to replace it anyway"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.thread_id, self.action_id, self.status))


class NotReplayableError(ActionCkptError, RuntimeError):
    """A non-idempotent action completed, but its result cannot be replayed as it was.

    The result could not be stored so that it comes back as the same type and
    value (an open file, a type outside the serializer's allowlist). The run
    stops instead of executing the action a second time or serving a
    lookalike. Settle it with ``saver.resolve_action(thread_id, action_id,
    output=...)`` (the result the resumed run should receive) or
    ``retry=True`` (run it again), then resume.

    Attributes:
        thread_id: The thread.
        action_id: The action's idempotency key.
        name: The tool or function name.
        action_type: ``tool_call``, ``function``, ...
        reason: Why the result cannot be replayed.
    """

    def __init__(
        self, thread_id: str, action_id: str, name: str, action_type: str, reason: str
    ) -> None:
        self.thread_id = thread_id
        self.action_id = action_id
        self.name = name
        self.action_type = action_type
        self.reason = reason
        super().__init__(
            f"non-idempotent {action_type} {name!r} (idempotency key {action_id!r}) on thread "
            f"{thread_id!r} completed, but its result cannot be replayed: {reason}. It was not "
            f"executed again. Settle it with saver.resolve_action({thread_id!r}, {action_id!r}, "
            "output=...) or retry=True, then resume."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.thread_id, self.action_id, self.name, self.action_type, self.reason),
        )


__all__ = [
    "ActionCkptError",
    "ConfigurationError",
    "DecryptionError",
    "EmbeddedServerError",
    "InFlightActionError",
    "MigrationError",
    "NotReplayableError",
    "OutcomeKnownError",
    "SerializationError",
    "ServiceError",
    "ThreadBusyError",
    "VectorUnavailableError",
]


class LeaseLostError(ActionCkptError, RuntimeError):
    """This worker's lease on a thread was taken over; its writes there are refused.

    Raised by a write of a run whose lease expired and was taken by another
    worker (or whose lease row is gone). Nothing of the refused write is stored.
    The run must stop: another worker now runs the thread.

    Attributes:
        thread_id: The thread.
        token: The fencing token this worker held.
    """

    def __init__(self, thread_id: str, token: int | None = None) -> None:
        self.thread_id = thread_id
        self.token = token
        super().__init__(
            f"lease on thread {thread_id!r} was lost (fencing token {token}); another worker "
            "now runs it, so this worker's writes to it are refused"
        )


class ConnectionFailedError(ActionCkptError, ConnectionError):
    """The database could not be reached; the message carries the server's own reason.

    Attributes:
        target: Where the saver tried to connect (host, port, database; no password).
    """

    def __init__(self, target: str, reason: BaseException) -> None:
        self.target = target
        text = " ".join(str(reason).split())
        super().__init__(f"cannot connect to PostgreSQL at {target}: {text}")


class ServiceError(ActionCkptError, RuntimeError):
    """The checkpoint service refused a call or could not be reached.

    Raised by the remote savers (``RemoteActionSaver``) with the gRPC status
    and the server's message: ``UNAUTHENTICATED`` (bad or missing token),
    ``PERMISSION_DENIED``, ``INVALID_ARGUMENT``, ``NOT_FOUND``,
    ``FAILED_PRECONDITION`` (an incompatible protocol version),
    ``RESOURCE_EXHAUSTED`` (a request over the size limit), ``UNAVAILABLE``
    (the service is down, after the retries safe calls get).

    Attributes:
        code: The gRPC status code's name (``"UNAUTHENTICATED"``...).
        target: The service's address.
    """

    def __init__(self, code: str, message: str, target: str = "") -> None:
        self.code = code
        self.target = target
        where = f" at {target}" if target else ""
        super().__init__(f"checkpoint service{where}: {code}: {message}")
