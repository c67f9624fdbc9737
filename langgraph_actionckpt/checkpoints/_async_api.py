"""LangGraph's checkpoint calls, declared once for the direct and the remote saver.

``_async_api.py`` is the source; ``.ci/gen_sync.py`` generates ``_sync_api.py``
from it. A saver that mixes :class:`AsyncCheckpointAPI` in (before
``BaseCheckpointSaver`` among its bases) provides three ports: ``_list_tuples``,
``_put`` and ``_put_writes``. The direct saver runs plans there, the remote
saver makes gRPC calls; the signatures LangGraph calls, and their docstrings,
are the same in both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, NamedTuple, Protocol, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)


class _Opened(Protocol):
    async def setup(self) -> None: ...

    async def aclose(self) -> None: ...


S = TypeVar("S", bound=_Opened)


@asynccontextmanager
async def opened(saver: S, setup: bool) -> AsyncIterator[S]:
    """``saver`` for a ``with`` block: set up first if asked, closed at its end in any case."""
    try:
        if setup:
            await saver.setup()
        yield saver
    finally:
        await saver.aclose()


class ListQuery(NamedTuple):
    """The arguments of ``list``: which checkpoints, newest first."""

    config: RunnableConfig | None
    filter: dict[str, Any] | None
    before: RunnableConfig | None
    limit: int | None


class PutCall(NamedTuple):
    """The arguments of ``put``: a checkpoint and what it changed."""

    config: RunnableConfig
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    new_versions: ChannelVersions


class AsyncCheckpointAPI:
    """``list``, ``put`` and ``put_writes`` with LangGraph's signatures."""

    def _list_tuples(self, query: ListQuery) -> AsyncIterator[CheckpointTuple]:
        raise NotImplementedError

    async def _put(self, call: PutCall) -> RunnableConfig:
        raise NotImplementedError

    async def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        raise NotImplementedError

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """List checkpoints newest first.

        Args:
            config: Names the thread (and namespace, checkpoint); ``None``: every thread.
            filter: Metadata the checkpoints must have (each key equal).
            before: Only checkpoints older than this one.
            limit: At most this many checkpoints.
        """
        async for tup in self._list_tuples(ListQuery(config, filter, before, limit)):
            yield tup

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint, the channel values that changed and the thread's held writes.

        Returns:
            The config naming the stored checkpoint.
        """
        return await self._put(PutCall(config, checkpoint, metadata, new_versions))

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes and its ``node`` action row.

        With ``defer_writes`` (the default) regular writes are held and stored
        with the thread's next checkpoint (one round trip per superstep); special
        ones (errors, interrupts) are stored at once.
        """
        await self._put_writes(config, writes, task_id, task_path)
