"""Held writes: ``put_writes`` calls kept for their step's checkpoint, and their flushes.

A saver holds a task's writes (``defer_writes``) so most of them meet their
step's checkpoint and are stored with it, as references to its deltas; the
writer's tick stores those held too long, and every read that can see them
stores them first.
:class:`HeldWrites` is the part of the checkpoint store that holds, fences,
stores and, when the database refuses one thread's writes as data, drops them
with an error its next call raises (one bad thread never blocks the others).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.types import ERROR

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.fencing import LeaseFencing
from langgraph_actionckpt.checkpoints.pending import PendingWrites, WriteCall
from langgraph_actionckpt.checkpoints.plans_write import plan_store_writes, prepare_writes
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import Plan
from langgraph_actionckpt.db.encoding import unescape_text
from langgraph_actionckpt.db.plan import SYNC
from langgraph_actionckpt.errors import LeaseLostError, SerializationError

__all__ = ["HeldWrites", "write_refused"]

logger = logging.getLogger("langgraph_actionckpt")


class HeldWrites:
    """The held ``put_writes`` calls, their fencing, and the writes the database refused."""

    def __init__(
        self,
        options: SaverOptions,
        queries: Queries,
        action_queries: ActionQueries,
        codec: Callable[[], Codec],
        steps: dict[tuple[str, str, str], int],
        on_pending: Callable[[], None],
    ) -> None:
        self.options = options
        self.queries = queries
        self.action_queries = action_queries
        self._codec = codec  # the store's, made again when the serializer changes
        self._steps = steps  # checkpoint id -> step, shared with the store's puts
        self._on_pending = on_pending  # the saver arranges a flush soon
        self.pending = PendingWrites()
        self.fencing = LeaseFencing(self.pending)
        # escaped thread id -> why its held writes were refused (raised on its next call)
        self.refused: dict[str, SerializationError] = {}

    def prepare(
        self,
        where: tuple[str, str],
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> WriteCall | None:
        """Serialize one ``put_writes`` call; hold it for the next checkpoint when allowed.

        Special writes (errors, interrupts) are written at once; see ``pending``.

        Returns:
            The call to write now, or None when it was held (or is empty).
        """
        if self.refused:
            self.raise_refused(where[0])
        call = prepare_writes(
            self._codec(), config, writes, task_id, task_path,
            record_nodes=self.options.record_nodes, steps=self._steps, where=where,
        )  # fmt: skip
        if call is not None and self.options.defer_writes and not call.special:
            call.held_at = time.monotonic()
            self.pending.hold(call)
            self._on_pending()
            return None
        return call

    def failed_node_call(
        self, config: RunnableConfig, error: SerializationError, task_id: str, task_path: str
    ) -> WriteCall | None:
        """The node row of a task whose writes cannot be stored: ``failed`` with ``error``.

        The run fails with ``error`` anyway; this row says so in the log (and
        closes the callback handler's ``running`` row of the task).
        """
        if not self.options.record_nodes:
            return None
        try:
            call = prepare_writes(
                self._codec(), config, [(ERROR, error)], task_id, task_path, steps=self._steps
            )
        except SerializationError:  # the error itself does not serialize: nothing to add
            return None
        if call is None or not call.actions:
            return None
        call.rows, call.special, call.failed_task = [], True, None  # the row only, now
        return call

    def plan_write_call(self, call: WriteCall) -> Plan[None]:
        """Write one call now, with the thread's held writes before it."""
        self.fencing.fence(call.thread_id)  # a lost lease: raise before anything is taken
        held = self.pending.take(call.key)
        # special writes (an error, an interrupt) are durable at once
        async_commit = not call.special and not self.options.durable_writes
        yield from self._store(held, [*held, call], async_commit)

    # ------------------------------------------------- writes the database refused

    def refuse(self, thread_id: str, exc: BaseException) -> None:
        """Drop a thread's held writes that the database refused; its next call raises why.

        Called after a data error (see ``db.driver.is_data_error``) failed the
        thread's writes stored on their own: storing them again cannot succeed,
        and keeping them would fail every later flush (and ``close()``).
        """
        calls = self.pending.take_all(thread_id)
        size = sum(len(row.blob) for call in calls for row in call.rows)
        count = sum(len(call.rows) for call in calls)
        error = SerializationError(
            f"{count} pending writes ({size} bytes) of thread "
            f"{unescape_text(thread_id)[:80]!r} (thread id of "
            f"{len(thread_id.encode('utf-8', 'surrogatepass'))} bytes) could not be stored and "
            f"were dropped; resume the thread to run its step again: {exc}"
        )
        error.__cause__ = exc
        self.refused[thread_id] = error
        logger.error("%s", error)

    def raise_refused(self, thread_id: str) -> None:
        """Raise why the thread's held writes were dropped, once (see :meth:`refuse`)."""
        error = self.refused.pop(thread_id, None)
        if error is not None:
            raise error

    def plan_flush_on_tick(self) -> Plan[None]:
        """The writer's tick: write the writes held for at least half an interval.

        Younger ones wait for the next tick, so most meet their step's checkpoint
        first and are stored with it (as references to its deltas); none waits
        longer than one and a half intervals. Many threads' writes at once: a
        statement per few calls (see ``plan_store_writes``), for a driver that
        pipelines them.
        """
        held_before = time.monotonic() - self.options.writer_interval / 2
        return self.plan_flush_pending(held_before=held_before, chunked=True)

    def plan_flush_pending(
        self, thread_id: str | None = None, held_before: float | None = None, chunked: bool = False
    ) -> Plan[None]:
        """Write held writes now; a no-op when none are held (see ``PendingWrites.take_all``)."""
        # a generator: the writes are taken when the driver runs it, not when it is made
        held = self.pending.take_all(thread_id, held_before)
        yield from self._store(held, held, not self.options.durable_writes, chunked)

    def _store(
        self,
        held: list[WriteCall],
        calls: list[WriteCall],
        async_commit: bool,
        chunked: bool = False,
    ) -> Plan[None]:
        fences: dict[str, int] = {}
        if self.fencing.leases is not None and calls:
            for thread_id in {c.thread_id for c in calls}:
                try:
                    token = self.fencing.fence(thread_id)
                except LeaseLostError as lost:  # never stored by this worker: dropped
                    logger.error("dropped held writes: %s", lost)
                    held = [c for c in held if c.thread_id != thread_id]
                    calls = [c for c in calls if c.thread_id != thread_id]
                    continue
                if token is not None:
                    fences[thread_id] = token
        try:
            yield from plan_store_writes(
                self.queries,
                self.action_queries,
                calls,
                async_commit=async_commit,
                codec=self._codec(),
                fences=fences,
                chunked=chunked,
            )
            # Pipelined, the statements' errors come back later; waiting for them
            # here keeps this plan inside the block that restores what it took.
            # A plan that ended first (a cancelled tick flush) lost its writes.
            if calls:
                yield SYNC
        except BaseException:
            self.pending.restore(held)
            raise


def write_refused(config: RunnableConfig, what: str, exc: BaseException) -> Exception:
    """The error for a write of one thread that the database refused (a data error)."""
    conf = config.get("configurable", {})
    thread_id = str(conf.get("thread_id"))
    size = len(thread_id.encode("utf-8", "surrogatepass"))
    return SerializationError(
        f"{what} of thread {thread_id[:80]!r} (thread id of {size} bytes) could not be "
        f"stored: {exc}"
    )
