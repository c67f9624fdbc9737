"""The batched action writers of the two savers.

The flushing logic is written once (``_async_writer.py``; ``_sync_writer.py`` is
generated from it). The classes here add how each world runs its flusher and
how the other world calls in:

* :class:`SyncActionWriter` (``ActionSaver``): a daemon flusher thread;
  ``awrite_now``/``aflush`` run the blocking calls in a worker thread.
* :class:`AsyncActionWriter` (``AsyncActionSaver``): a flusher task on the
  saver's loop; ``enqueue`` may be called from any thread, ``write_now``/
  ``flush`` from threads other than the loop's.

On a direct connection each is handed the batch write of :class:`SyncActionRows` /
:class:`AsyncActionRows` (its own plan on the saver's driver); a remote saver hands
its own. Both have the same methods: ``enqueue``, ``start``, ``write_now``/``awrite_now``,
``flush``/``aflush``, ``depth``, and ``close`` (sync) or ``aclose`` (async).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import weakref
from collections.abc import Callable

from langgraph_actionckpt.actions._acompat import (
    AsyncBatchWrite,
    AsyncTick,
)
from langgraph_actionckpt.actions._async_writer import AsyncActionRows, AsyncWriterCore
from langgraph_actionckpt.actions._sync_writer import SyncActionRows, SyncWriterCore
from langgraph_actionckpt.actions.limits import check_record
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.row_queue import merge_records

__all__ = [
    "AsyncActionRows",
    "AsyncActionWriter",
    "SyncActionRows",
    "SyncActionWriter",
    "merge_records",
]


class SyncActionWriter(SyncWriterCore):
    """Writer for :class:`~langgraph_actionckpt.ActionSaver` (a daemon flusher thread).

    Args:
        write: Writes a batch of records in one statement.
        batch_size: Flush when this many rows are queued.
        interval: Flush at least this often (seconds) while rows are queued.
        on_depth: Called with the queue depth after each flush (metrics).
        on_tick: Called on every tick of the flusher thread.
    """

    _thread: threading.Thread | None = None

    def enqueue(self, record: ActionRecord) -> None:
        """Queue a row (never blocks on I/O)."""
        self._queue.append(check_record(record))
        if self._thread is None:
            self.start()
        # while the flusher writes, the queue stays over batch_size: setting a set
        # event again would take its lock on every row of the caller's path
        if len(self._queue) >= self.batch_size and not self._wake.is_set():
            self._wake.set()

    def start(self) -> None:
        """Make sure the flusher thread runs (it also flushes the saver's held writes)."""
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._flush_loop, name="actionckpt-writer", daemon=True
                )
                self._thread.start()
                # rows are only queued once the thread runs: flush them at exit
                atexit.register(_close_at_exit, weakref.ref(self))

    async def awrite_now(self, record: ActionRecord | None = None) -> None:
        """:meth:`write_now` from async code (in a worker thread)."""
        await asyncio.to_thread(self.write_now, record)

    async def aflush(self) -> None:
        """:meth:`flush` from async code."""
        await asyncio.to_thread(self.flush)


def _close_at_exit(ref: weakref.ref[SyncActionWriter]) -> None:
    writer = ref()
    if writer is not None:
        writer.close()


class AsyncActionWriter(AsyncWriterCore):
    """Writer for :class:`~langgraph_actionckpt.AsyncActionSaver` (a flusher task on its loop).

    ``enqueue`` may be called from any thread; ``awrite_now`` on the loop;
    ``write_now`` from other threads (it hands the write to the loop).

    Args:
        awrite: Writes a batch of records in one statement.
        loop: The saver's event loop, where the flusher task runs.
        batch_size: Flush when this many rows are queued.
        interval: Flush at least this often (seconds) while rows are queued.
        on_depth: Called with the queue depth after each flush (metrics).
        on_tick: Called on every tick of the flusher task.
    """

    def __init__(
        self,
        awrite: AsyncBatchWrite,
        loop: asyncio.AbstractEventLoop,
        *,
        batch_size: int = 500,
        interval: float = 0.05,
        on_depth: Callable[[int], None] | None = None,
        on_tick: AsyncTick | None = None,
    ) -> None:
        super().__init__(
            awrite, batch_size=batch_size, interval=interval, on_depth=on_depth, on_tick=on_tick
        )
        self.loop = loop
        self._task: asyncio.Task[None] | None = None

    def _on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def enqueue(self, record: ActionRecord) -> None:
        """Queue a row (never blocks)."""
        self._queue.append(check_record(record))
        # While the flusher writes, the queue stays over batch_size: a kick per row
        # (finding the loop, setting a set event) cost most rows of a busy graph
        # a microsecond. A set event means a flush is still to take the queue.
        if self._task is None or (len(self._queue) >= self.batch_size and not self._wake.is_set()):
            if self._on_loop():
                self._kick()
            elif not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self._kick)

    def start(self) -> None:
        """Make sure the flusher task runs (it also flushes the saver's held writes)."""
        if self._task is not None or self._closed:
            return
        if self._on_loop():
            self._task = self.loop.create_task(self._flush_loop())
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.start)

    def _kick(self) -> None:
        if self._task is None and not self._closed:
            self._task = self.loop.create_task(self._flush_loop())
        self._wake.set()

    def write_now(self, record: ActionRecord | None = None) -> None:
        """:meth:`awrite_now` from a thread other than the loop's."""
        asyncio.run_coroutine_threadsafe(self.awrite_now(record), self.loop).result()

    def flush(self) -> None:
        """:meth:`aflush` from sync code.

        On the loop's own thread (a sync callback handler in an async graph) a
        blocking flush would deadlock the loop, so the flush is scheduled there
        instead; from any other thread it blocks until the rows are written.
        """
        if self._on_loop():
            self.loop.create_task(self.aflush())
            return
        self.write_now(None)

    async def _stop_flusher(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
