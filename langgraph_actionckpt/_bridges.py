"""Each public saver's methods in the other world, from one table.

A saver's body is written for one world (``_async_saver.py``, and the
``_sync_saver.py`` generated from it); LangGraph may call it from the other (a
sync graph API on the async saver, an async graph on the sync one). The two
public classes get the other world's twin of every method named in
:data:`BRIDGED` from the class decorators below, so both list the same methods
by construction; the bridges themselves are those of ``_saver_base``.

Reads of a checkpoint wait for the thread's writes in flight, and those writes
finish even when their caller is cancelled (``InflightWrites``): the decorators
put that around ``aget_tuple`` and ``aput_writes`` in both savers (in the async
saver around the part of ``aput_writes`` that writes, ``_awrite_call``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

from langgraph_actionckpt._saver_base import (
    in_thread,
    in_thread_iter,
    on_loop,
    on_loop_iter,
)

__all__ = [
    "BRIDGED",
    "DIRECT_ONLY",
    "ITERATORS",
    "NO_SYNC_TWIN",
    "add_async_twins",
    "add_sync_twins",
    "with_async_twins",
    "with_sync_twins",
]

BRIDGED: tuple[str, ...] = (
    "setup",
    "close",
    "flush_writes",
    "put",
    "put_writes",
    "get_tuple",
    "delete_thread",
    "delete_for_runs",
    "copy_thread",
    "prune",
    "get_delta_channel_history",
    "list_actions",
    "get_action",
    "last_action",
    "export_actions_jsonl",
    "record_actions",
    "resolve_action",
    "fork_at_action",
)
"""The savers' I/O methods, by their sync name (the async one adds an ``a``)."""

DIRECT_ONLY: tuple[str, ...] = ("runs_to_resume",)
"""Methods of the direct savers only (a query across threads the service does not offer)."""

ITERATORS: tuple[str, ...] = ("list",)
"""The generator methods, bridged a page at a time."""

NO_SYNC_TWIN: tuple[str, ...] = ("setup",)
"""Async saver methods named without the ``a`` (as in LangGraph's async savers): no sync twin."""

S = TypeVar("S", bound=type)
Method = Callable[..., Coroutine[Any, Any, Any]]


def _settled_read(read: Method) -> Method:
    """``read`` (``aget_tuple``) after the thread's writes in flight."""

    @functools.wraps(read)
    async def aget_tuple(self: Any, config: Any) -> Any:
        await self.inflight.settle(config)
        return await read(self, config)

    aget_tuple.__doc__ = _noted(read, "It waits first for the thread's writes still in flight.")
    return aget_tuple


def _shielded_write(write: Method) -> Method:
    """``write`` (``aput_writes``) run to its end even if its caller is cancelled."""

    @functools.wraps(write)
    async def aput_writes(self: Any, config: Any, *args: Any, **kwargs: Any) -> None:
        await self.inflight.shielded(config, write(self, config, *args, **kwargs))

    aput_writes.__doc__ = _noted(write, "The writes are stored even if the caller is cancelled.")
    return aput_writes


def _noted(method: Method, note: str) -> str:
    """``method``'s docstring with one more paragraph."""
    return f"{inspect.cleandoc(method.__doc__ or '')}\n\n{note}"


def _shielded_call(write: Method) -> Method:
    """``write`` (``_awrite_call``: the I/O of ``aput_writes``) run to its end."""

    @functools.wraps(write)
    async def _awrite_call(self: Any, config: Any, call: Any) -> None:
        await self.inflight.shielded(config, write(self, config, call))

    return _awrite_call


def _settle(cls: type) -> None:
    cls.aget_tuple = _settled_read(cls.aget_tuple)  # type: ignore[attr-defined]
    if inspect.iscoroutinefunction(getattr(cls, "_awrite_call", None)):
        # The async saver: only a call that is written now needs the shield. A
        # held call (the usual case) is stored in memory before aput_writes
        # first awaits, so no cancellation can come in between, and it costs
        # no task and no trip around the event loop.
        cls._awrite_call = _shielded_call(cls._awrite_call)  # type: ignore[attr-defined]
    else:
        cls.aput_writes = _shielded_write(cls.aput_writes)  # type: ignore[attr-defined]


def add_async_twins(cls: type, names: Iterable[str], iterators: Iterable[str] = ()) -> None:
    """Give ``cls`` ``a<name>`` for each ``<name>``, run in a worker thread."""
    for name in names:
        setattr(cls, "a" + name, in_thread(getattr(cls, name)))
    for name in iterators:
        setattr(cls, "a" + name, in_thread_iter(getattr(cls, name)))


def add_sync_twins(cls: type, names: Iterable[str], iterators: Iterable[str] = ()) -> None:
    """Give ``cls`` ``<name>`` for each ``a<name>``, run on its event loop (see below)."""
    for name in names:
        setattr(cls, name, on_loop(getattr(cls, "a" + name)))
    for name in iterators:
        setattr(cls, name, on_loop_iter(getattr(cls, "a" + name)))


def with_async_twins(cls: S) -> S:
    """Give a sync saver ``a<name>`` for each bridged ``<name>``, run in a worker thread."""
    add_async_twins(cls, (*BRIDGED, *DIRECT_ONLY), ITERATORS)
    _settle(cls)
    return cls


def with_sync_twins(cls: S) -> S:
    """Give an async saver ``<name>`` for each bridged ``a<name>``, run on its event loop.

    The sync twins may be called from threads other than the loop's (as LangGraph
    does for sync graph APIs like ``get_state``); from the loop's own thread they
    raise, since they would block it.
    """
    _settle(cls)  # first: the sync twins look their coroutine up by name, settled
    names = (n for n in (*BRIDGED, *DIRECT_ONLY) if n not in NO_SYNC_TWIN)
    add_sync_twins(cls, names, ITERATORS)
    return cls
