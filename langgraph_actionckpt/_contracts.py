"""What the process-wide hooks need to know about our savers, without importing them.

The callback handlers and the replay hooks ask "is this checkpointer one of
ours?" and then use a few of its members. They must not import the saver
classes (that made an import cycle), so the savers register their classes here
when their module is imported, and the hooks call :func:`is_action_saver`.
:class:`ActionSaverLike` lists the members the hooks rely on; the registry is
the single place that ties the two sides together.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol, TypeGuard, runtime_checkable

__all__ = [
    "ActionSaverLike",
    "MetricsSink",
    "NullMetrics",
    "as_action_saver",
    "is_action_saver",
    "register_saver_class",
]


@runtime_checkable
class ActionSaverLike(Protocol):
    """The members of our savers that hooks (callbacks, replay, lease) use."""

    schema: str
    replay: bool
    writer: Any
    metrics: MetricsSink
    conninfo: str | None
    lease_mode: str
    lease_timeout: float
    lease_ttl: float

    @property
    def leases(self) -> Any:
        """The LeaseKeeper, made on a first lease (``db/lease.py``); None until then."""
        ...

    def wait_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Block until the given checkpoints are committed (sync callers)."""
        ...

    async def await_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Wait until the given checkpoints are committed (async callers)."""
        ...


class MetricsSink(Protocol):
    """What the savers report to (``ops.metrics.Metrics``, or :class:`NullMetrics`)."""

    def set_queue_depth(self, n: int) -> None: ...
    def observe_replay(self, action_type: str) -> None: ...
    def observe_actions_written(self, records: Any, seconds: float | None = None) -> None: ...
    def observe_actions_read(self, records: Any) -> None: ...
    def observe_put(self, seconds: float) -> None: ...
    def observe_get(self) -> None: ...


class NullMetrics:
    """A metrics sink that records nothing, so callers never test ``if metrics``."""

    def set_queue_depth(self, n: int) -> None:
        """Ignore a queue depth."""

    def observe_replay(self, action_type: str) -> None:
        """Ignore a replay."""

    def observe_reuse(self, action_type: str, outcome: str, tokens_saved: int = 0) -> None:
        """Ignore a reuse lookup (sinks without this method are skipped too)."""

    def observe_actions_written(self, records: Any, seconds: float | None = None) -> None:
        """Ignore written records."""

    def observe_actions_read(self, records: Any) -> None:
        """Ignore read records."""

    def observe_put(self, seconds: float) -> None:
        """Ignore a put."""

    def observe_get(self) -> None:
        """Ignore a get."""


_saver_classes: tuple[type, ...] = ()
_lock = threading.Lock()


def register_saver_class(cls: type) -> None:
    """Record ``cls`` as one of our savers (called once by each saver module)."""
    global _saver_classes
    with _lock:
        if cls not in _saver_classes:
            _saver_classes = (*_saver_classes, cls)


def is_action_saver(obj: object) -> TypeGuard[ActionSaverLike]:
    """Whether ``obj`` is an instance of one of our registered savers."""
    return bool(_saver_classes) and isinstance(obj, _saver_classes)


def as_action_saver(obj: object) -> ActionSaverLike | None:
    """``obj`` if it is one of our savers, or the saver it wraps; else None.

    LangGraph's Agent Server (``langgraph-api``) does not hand a custom
    checkpointer to the graph as is: it wraps it in an adapter that keeps it as
    ``_inner`` (and forwards attribute access to it). The hooks must see
    through that wrapper, or nothing run by the server would be replayed.
    """
    for _ in range(3):  # a wrapper of a wrapper at most; never loop on a cycle
        if is_action_saver(obj):
            return obj
        obj = getattr(obj, "_inner", None)
        if obj is None:
            return None
    return None
