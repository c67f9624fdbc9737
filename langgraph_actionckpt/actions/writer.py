"""The batched action writer.

Recording must cost the graph almost nothing, so rows are queued and
group-committed: one multi-row upsert per flush, flushed when the queue
reaches ``batch_size`` rows, every ``interval`` seconds, on graph end and on
close. Rows whose durability matters before the action runs (the start of a
non-idempotent action) or before the task goes on (a completion that replay
will serve) go through :meth:`write_now`, which drains the queue first so the
table keeps the order in which things happened.

A flush that fails (database gone) keeps its rows at the head of the queue and
is retried; nothing queued is dropped.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import weakref
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import fields
from typing import Any

from langgraph_actionckpt.actions.records import TERMINAL, ActionRecord

logger = logging.getLogger("langgraph_actionckpt")

_FIELDS = tuple(f.name for f in fields(ActionRecord) if f.name not in ("extra",))


def merge_records(records: Sequence[ActionRecord]) -> list[ActionRecord]:
    """Fold several records of one action into one, in arrival order.

    Later non-None fields win, except that a terminal status is never replaced
    by a non-terminal one (a late ``running`` never undoes ``completed``).
    """
    keys = {(r.thread_id, r.action_id) for r in records}
    if len(keys) == len(records):  # nothing to fold (the common case)
        return list(records)
    merged: dict[tuple[str, str], ActionRecord] = {}
    for rec in records:
        key = (rec.thread_id, rec.action_id)
        old = merged.get(key)
        if old is None:
            merged[key] = ActionRecord(**{f: getattr(rec, f) for f in _FIELDS})
            continue
        for name in _FIELDS:
            value = getattr(rec, name)
            if name == "status":
                if old.status in TERMINAL and value not in TERMINAL and rec.attempt <= old.attempt:
                    continue
                old.status = value
            elif name in ("attempt", "replayed"):
                setattr(old, name, max(getattr(old, name), value))
            elif name in ("idempotent", "replayable") or value is not None:
                setattr(old, name, value)
    return list(merged.values())


class _QueueBase:
    def __init__(self, batch_size: int, interval: float, on_depth: Callable[[int], None] | None):
        self.batch_size = batch_size
        self.interval = interval
        self._queue: deque[ActionRecord] = deque()
        self._on_depth = on_depth
        self._closed = False

    @property
    def depth(self) -> int:
        """Rows waiting in the queue."""
        return len(self._queue)

    def _drain(self) -> list[ActionRecord]:
        out: list[ActionRecord] = []
        while True:
            try:
                out.append(self._queue.popleft())
            except IndexError:
                return out

    def _requeue(self, rows: list[ActionRecord]) -> None:
        self._queue.extendleft(reversed(rows))

    def _report_depth(self) -> None:
        if self._on_depth is not None:
            self._on_depth(len(self._queue))


class SyncActionWriter(_QueueBase):
    """Writer for :class:`~langgraph_actionckpt.ActionSaver` (a daemon flusher thread).

    Args:
        write: Writes a batch of records in one statement.
        batch_size: Flush when this many rows are queued.
        interval: Flush at least this often (seconds) while rows are queued.
        on_depth: Called with the queue depth after each flush (metrics).
    """

    def __init__(
        self,
        write: Callable[[Sequence[ActionRecord]], None],
        *,
        batch_size: int = 500,
        interval: float = 0.05,
        on_depth: Callable[[int], None] | None = None,
        on_tick: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(batch_size, interval, on_depth)
        self._write = write
        self._on_tick = on_tick
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        atexit.register(_close_at_exit, weakref.ref(self))

    def enqueue(self, record: ActionRecord) -> None:
        """Queue a row (never blocks on I/O)."""
        self._queue.append(record)
        if self._thread is None:
            self._start()
        if len(self._queue) >= self.batch_size:
            self._wake.set()

    def write_now(self, record: ActionRecord | None = None) -> None:
        """Write the queue and ``record`` durably before returning."""
        with self._lock:
            rows = self._drain()
            if record is not None:
                rows.append(record)
            if not rows:
                return
            try:
                self._write(merge_records(rows))
            except BaseException:
                self._requeue(rows if record is None else rows[:-1])
                raise
            finally:
                self._report_depth()

    def flush(self) -> None:
        """Write everything queued now."""
        self.write_now(None)

    async def awrite_now(self, record: ActionRecord | None = None) -> None:
        """:meth:`write_now` from async code (in a worker thread)."""
        await asyncio.to_thread(self.write_now, record)

    async def aflush(self) -> None:
        """:meth:`flush` from async code."""
        await asyncio.to_thread(self.flush)

    def start(self) -> None:
        """Make sure the flusher thread runs (it also flushes the saver's held writes)."""
        if self._thread is None:
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="actionckpt-writer", daemon=True
                )
                self._thread.start()

    def _loop(self) -> None:
        while not self._closed:
            self._wake.wait(self.interval)
            self._wake.clear()
            try:
                if self._on_tick is not None:
                    self._on_tick()
                if self._queue:
                    self.flush()
            except Exception as exc:  # noqa: BLE001 - keep rows, retry on the next tick
                logger.warning("action writer flush failed (rows kept for retry): %s", exc)
                self._wake.wait(min(1.0, self.interval * 20))

    def close(self) -> None:
        """Flush and stop the flusher thread."""
        if self._closed:
            return
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001
            logger.error("action writer: %d rows could not be written: %s", self.depth, exc)
        self._closed = True
        self._wake.set()


def _close_at_exit(ref: weakref.ref[SyncActionWriter]) -> None:
    writer = ref()
    if writer is not None:
        writer.close()


class AsyncActionWriter(_QueueBase):
    """Writer for :class:`~langgraph_actionckpt.AsyncActionSaver` (a flusher task on its loop).

    ``enqueue`` may be called from any thread; ``awrite_now`` on the loop;
    ``write_now`` from other threads (it hands the write to the loop).
    """

    def __init__(
        self,
        awrite: Callable[[Sequence[ActionRecord]], Coroutine[Any, Any, None]],
        loop: asyncio.AbstractEventLoop,
        *,
        batch_size: int = 500,
        interval: float = 0.05,
        on_depth: Callable[[int], None] | None = None,
        on_tick: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        super().__init__(batch_size, interval, on_depth)
        self._awrite = awrite
        self._on_tick = on_tick
        self.loop = loop
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def enqueue(self, record: ActionRecord) -> None:
        """Queue a row (never blocks)."""
        self._queue.append(record)
        if self._task is None or len(self._queue) >= self.batch_size:
            try:
                on_loop = asyncio.get_running_loop() is self.loop
            except RuntimeError:
                on_loop = False
            if on_loop:
                self._kick()
            elif not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self._kick)

    def start(self) -> None:
        """Make sure the flusher task runs (it also flushes the saver's held writes)."""
        if self._task is not None or self._closed:
            return
        try:
            on_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._task = self.loop.create_task(self._run())
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.start)

    def _kick(self) -> None:
        if self._task is None and not self._closed:
            self._task = self.loop.create_task(self._run())
        self._wake.set()

    async def awrite_now(self, record: ActionRecord | None = None) -> None:
        """Write the queue and ``record`` durably before returning."""
        async with self._lock:
            rows = self._drain()
            if record is not None:
                rows.append(record)
            if not rows:
                return
            try:
                await self._awrite(merge_records(rows))
            except BaseException:
                self._requeue(rows if record is None else rows[:-1])
                raise
            finally:
                self._report_depth()

    async def aflush(self) -> None:
        """Write everything queued now."""
        await self.awrite_now(None)

    def write_now(self, record: ActionRecord | None = None) -> None:
        """:meth:`awrite_now` from a thread other than the loop's."""
        asyncio.run_coroutine_threadsafe(self.awrite_now(record), self.loop).result()

    def flush(self) -> None:
        """:meth:`aflush` from a thread other than the loop's."""
        self.write_now(None)

    async def _run(self) -> None:
        while not self._closed:
            try:
                await asyncio.wait_for(self._wake.wait(), self.interval)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                if self._on_tick is not None:
                    await self._on_tick()
                if self._queue:
                    await self.aflush()
            except Exception as exc:  # noqa: BLE001 - keep rows, retry on the next tick
                logger.warning("action writer flush failed (rows kept for retry): %s", exc)
                await asyncio.sleep(min(1.0, self.interval * 20))

    async def aclose(self) -> None:
        """Flush and stop the flusher task."""
        if self._closed:
            return
        try:
            await self.aflush()
        except Exception as exc:  # noqa: BLE001
            logger.error("action writer: %d rows could not be written: %s", self.depth, exc)
        self._closed = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
