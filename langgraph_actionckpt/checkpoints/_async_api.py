"""The savers' public API, declared once for the direct and the remote saver.

``_async_api.py`` is the source; ``.ci/gen_sync.py`` generates ``_sync_api.py``
from it. :class:`AsyncSaverAPI` holds LangGraph's checkpoint calls that both
savers make the same way (``list``, ``put``, ``put_writes``, ``with_allowlist``,
``get_next_version``) and the action log's reads. A saver that has it among its
bases (before ``BaseCheckpointSaver``) provides ``writer`` (whose queued rows
every read of the log flushes first), ``allowlist`` and seven ports:
``_list_tuples``, ``_put``, ``_put_writes``, ``_query_actions``,
``_query_action``, ``_query_last_action`` and ``_settle_action``. The direct
saver runs plans there, the remote saver makes gRPC calls; the signatures
LangGraph and users call, and their docstrings, are the same in both.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, NamedTuple, Protocol, Self, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from langgraph_actionckpt.actions.reads import records_to_jsonl
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.settle import Resolution
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.checkpoints.durability import DurabilityBarrier
from langgraph_actionckpt.checkpoints.plans_write import next_version
from langgraph_actionckpt.checkpoints.setup import Allowlist
from langgraph_actionckpt.db.encoding import stored_id


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


class AsyncSaverAPI:
    """LangGraph's ``list``, ``put``, ``put_writes``, and the action log's reads."""

    writer: AsyncActionWriter
    allowlist: Allowlist
    durable: DurabilityBarrier
    durable_timeout: float

    def _list_tuples(self, query: ListQuery) -> AsyncIterator[CheckpointTuple]:
        raise NotImplementedError

    async def _put(self, call: PutCall) -> RunnableConfig:
        raise NotImplementedError

    async def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        raise NotImplementedError

    async def _query_actions(
        self, thread_id: str | None, filters: dict[str, Any]
    ) -> builtins.list[ActionRecord]:
        raise NotImplementedError

    async def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        raise NotImplementedError

    async def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        raise NotImplementedError

    async def _settle_action(self, resolution: Resolution) -> None:
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

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> Self:
        """Allow the graph's own types to be loaded; this saver, changed in place."""
        self.allowlist.widen(self, extra_allowlist)
        return self

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        """The version after ``current`` (see ``plans_write.next_version``)."""
        return next_version(current)

    # gen_sync: verbatim
    def wait_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Block until the given checkpoints are committed (see ``durability``).

        Returns:
            True when every checkpoint is known to be durable.
        """
        return durability != "async" or self.durable.wait(ids, self.durable_timeout)

    async def await_durable(self, ids: Sequence[str], durability: str = "async") -> bool:
        """Async :meth:`wait_durable` (never blocks the event loop)."""
        return durability != "async" or await self.durable.await_(ids, self.durable_timeout)

    # gen_sync: end

    # -------------------------------------------------------- the action log

    async def alist_actions(
        self,
        thread_id: str | None = None,
        *,
        action_type: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        node: str | None = None,
        since: datetime | int | None = None,
        run_id: str | None = None,
        task_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[ActionRecord]:
        """Actions of a thread (or all threads) in the order they were recorded.

        Args:
            thread_id: The thread; ``None`` for every thread.
            action_type: One type or several (``llm_completion``, ``tool_call``...).
            status: One status or several (``completed``, ``failed``...).
            node: Only actions taken inside this graph node.
            since: A datetime (started at or after) or a ``step_index`` (after).
            run_id: Only actions of this run.
            task_id: Only actions of this task.
            limit: At most this many rows.

        Raises:
            ConfigurationError: An id longer than its limit (nothing is sent).
        """
        _check_ids(thread_id, run_id=run_id, task_id=task_id)
        await self.writer.aflush()  # reads see every row recorded so far
        filters = dict(
            action_type=action_type,
            status=status,
            node=node,
            since=since,
            run_id=run_id,
            task_id=task_id,
            limit=limit,
        )
        return await self._query_actions(thread_id, filters)

    async def aget_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """One action by its idempotency key, or None.

        Raises:
            ConfigurationError: An id longer than its limit (nothing is sent).
        """
        _check_ids(thread_id, action_id=action_id)
        await self.writer.aflush()
        return await self._query_action(thread_id, action_id)

    async def alast_action(
        self, thread_id: str, *, status: str | Sequence[str] | None = "completed"
    ) -> ActionRecord | None:
        """The last recorded action of a thread (by default the last completed one).

        Raises:
            ConfigurationError: The thread id is longer than its limit (nothing is sent).
        """
        _check_ids(thread_id)
        await self.writer.aflush()
        return await self._query_last_action(thread_id, status)

    async def aexport_actions_jsonl(self, thread_id: str, *, run_id: str | None = None) -> str:
        """A thread's (or one run's) actions as JSON Lines, one action per line."""
        return records_to_jsonl(await self.alist_actions(thread_id, run_id=run_id))

    async def aresolve_action(
        self,
        thread_id: str,
        action_id: str,
        *,
        output: Any = None,
        retry: bool = False,
        note: str | None = None,
        override: bool = False,
    ) -> None:
        """Settle an action whose outcome is unknown (see :class:`InFlightActionError`).

        An action whose outcome is unknown is ``running``, ``pending``,
        ``unknown`` or ``interrupted``, or ``completed`` with a result that
        cannot be replayed (see :class:`NotReplayableError`). A known outcome
        (``completed``, ``failed``) is replaced only with ``override=True``; the
        row then keeps what it replaced in ``meta.overridden`` (status and
        output) and its result is never reused by other threads.

        Args:
            thread_id: The thread.
            action_id: The action's idempotency key (from the error).
            output: The result the action had: it is marked ``completed`` and the
                resumed run receives this output instead of executing it.
            retry: Allow one more execution instead (marks it ``failed``).
            note: Free text stored in ``meta.resolution``.
            override: Replace a known outcome (``completed`` or ``failed``).

        Raises:
            ConfigurationError: Neither or both of ``output`` and ``retry`` given,
                or no such action (the remote saver: ``ServiceError`` with
                ``INVALID_ARGUMENT`` or ``NOT_FOUND``).
            OutcomeKnownError: The action's outcome is known and ``override``
                was not given (the remote saver: ``ServiceError`` with
                ``FAILED_PRECONDITION``).
        """
        _check_ids(thread_id, action_id=action_id)
        await self.writer.aflush()
        await self._settle_action(Resolution(thread_id, action_id, output, retry, note, override))


def _check_ids(
    thread_id: str | None,
    *,
    action_id: str | None = None,
    run_id: str | None = None,
    task_id: str | None = None,
) -> None:
    # a read with an over-long id is refused as its write would be, not answered []
    for what, value in (
        ("thread id", thread_id),
        ("action id", action_id),
        ("run id", run_id),
        ("task id", task_id),
    ):
        if value is not None:
            stored_id(what, value)
