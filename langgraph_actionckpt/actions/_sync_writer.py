# Generated from langgraph_actionckpt/actions/_async_writer.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The batched action writer, written once for asyncio (the sync twin is generated).

Rows are flushed when the queue reaches ``batch_size`` rows, every
``interval`` seconds, on graph end and on close. Rows whose durability matters
before the action runs (the start of a non-idempotent action) or before the
task goes on (a completion that replay will serve) go through ``write_now``,
which drains the queue first so the table keeps the order in which things
happened. On a direct connection a batch is written by :class:`AsyncActionRows`:
the writer's own plan (``records.plan_upsert``) on the saver's driver, with the
fencing tokens asked of the :class:`~._acompat.ActionFencing` it is handed (the
saver's ``ThreadLeases``, ``db/lease.py``).

``_sync_writer.py`` is generated from this file by ``.ci/gen_sync.py``; the
public classes in ``writer.py`` add how each world runs its flusher (a task on
the saver's loop, a daemon thread) and the calls across worlds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from functools import partial

import psycopg

from langgraph_actionckpt._contracts import MetricsSink
from langgraph_actionckpt.actions import batch_rows
from langgraph_actionckpt.actions._acompat import (
    ActionFencing,
    SyncBatchWrite,
    SyncEvent,
    SyncLock,
    SyncTick,
)
from langgraph_actionckpt.actions.limits import check_record
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import JSON_THRESHOLD, ActionQueries, plan_upsert
from langgraph_actionckpt.actions.row_queue import RowQueue, merge_records
from langgraph_actionckpt.db._sync_driver import SyncDriver
from langgraph_actionckpt.db.driver import PlanFactory, is_data_error, is_unique_violation
from langgraph_actionckpt.errors import LeaseLostError, SerializationError

__all__ = ["SyncActionRows", "SyncWriterCore"]

logger = logging.getLogger("langgraph_actionckpt")


class SyncWriterCore(RowQueue):
    """Flushes the queue: on demand, from the flusher's loop, and on close.

    The arguments are those of the public writers in ``writer.py`` (``write`` is
    the batch write; ``on_tick`` runs on every tick of the flusher).
    """

    def __init__(
        self,
        write: SyncBatchWrite,
        *,
        batch_size: int = 500,
        interval: float = 0.05,
        on_depth: Callable[[int], None] | None = None,
        on_tick: SyncTick | None = None,
    ) -> None:
        super().__init__(batch_size, interval, on_depth)
        self._write = write
        self._on_tick = on_tick
        self._lock = SyncLock()
        self._wake = SyncEvent()

    def write_now(self, record: ActionRecord | None = None) -> None:
        """Write the queue and ``record`` durably before returning.

        Raises:
            LeaseLostError: ``record``'s thread was taken over by another worker.
                The rows of a taken-over thread are dropped (never written by
                this worker); the other rows are written all the same.
            SerializationError: The database refused ``record`` itself (a data
                error); the other rows of the batch are written one by one.
        """
        if record is not None:
            check_record(record)  # a too long id must not fail the queued rows with it
        with self._lock:
            rows = self._take(record)
            own = record
            try:
                while rows:
                    merged = merge_records(rows)
                    try:
                        self._write(merged)
                        return
                    except LeaseLostError as lost:
                        kept = [r for r in rows if r.thread_id != lost.thread_id]
                        if len(kept) == len(rows):
                            raise
                        logger.error("dropped %d action rows: %s", len(rows) - len(kept), lost)
                        rows = kept
                        if own is not None and own.thread_id == lost.thread_id:
                            own = None  # the caller's row is gone with its thread's
                            raise
                    except Exception as exc:
                        if not is_data_error(exc):
                            raise
                        rows = []  # from here _write_each puts back what it did not write
                        self._write_each(merged, own)
                        return
            except BaseException:
                self._give_back(rows, own)
                raise
            finally:
                self._report_depth()

    def _write_each(self, rows: list[ActionRecord], record: ActionRecord | None) -> None:
        """After a data error in a batch: write its rows one by one, dropping the refused ones.

        One row the database refuses (a value over a size limit) must not keep
        every other thread's rows queued forever. A refused row is logged and
        dropped; when it is ``record`` (the caller's), the caller gets the error.
        """
        mine: Exception | None = None
        for i, row in enumerate(rows):
            try:
                self._write([row])
            except Exception as exc:
                if not is_data_error(exc):
                    self._queue.extendleft(reversed([r for r in rows[i:] if r is not record]))
                    raise
                logger.error(
                    "action %r of thread %r was refused by the database and dropped: %s",
                    row.action_id[:80], row.thread_id[:80], exc,
                )  # fmt: skip
                if record is not None and (row.thread_id, row.action_id) == (
                    record.thread_id,
                    record.action_id,
                ):
                    mine = exc
        if mine is not None and record is not None:
            raise SerializationError(
                f"action {record.action_id[:80]!r} of thread {record.thread_id[:80]!r} "
                f"could not be stored: {mine}"
            ) from mine

    def flush(self) -> None:
        """Write everything queued now."""
        self.write_now(None)

    def _flush_loop(self) -> None:
        """The flusher: wake on a full batch or every ``interval``, until closed."""
        while not self._closed:
            self._wake.wait_timeout(self.interval)
            self._wake.clear()
            try:
                if self._on_tick is not None:
                    self._on_tick()
                if self._queue:
                    self.flush()
            except Exception as exc:  # noqa: BLE001 - keep rows, retry on the next tick
                logger.warning("action writer flush failed (rows kept for retry): %s", exc)
                self._wake.pause(min(1.0, self.interval * 20))

    def close(self) -> None:
        """Flush and stop the flusher."""
        if self._closed:
            return
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001
            logger.error("action writer: %d rows could not be written: %s", self.depth, exc)
        self._closed = True
        self._wake.set()
        self._stop_flusher()

    def _stop_flusher(self) -> None:
        """After close: the flusher ends on its next wake; a world may wait for it."""


class SyncActionRows:
    """The batch write of a saver on a direct connection: one upsert plan on its driver.

    Args:
        driver: The saver's driver.
        queries: The statements of the saver's schema.
        fencing: Asked for the tokens of a batch's leased threads, and what a
            refused write means.
        metrics: Told how many rows were written and how long it took.
    """

    # Large batches are first inserted as new rows (no merge: the server skips
    # the conflict probe and the merge expressions). When a row already exists
    # the insert fails with nothing written; the batch is merged instead, and
    # so are the next MERGE_AFTER_CONFLICT.
    MERGE_AFTER_CONFLICT = 16

    def __init__(
        self,
        driver: SyncDriver,
        queries: ActionQueries,
        fencing: ActionFencing,
        metrics: MetricsSink,
    ) -> None:
        self.driver = driver
        self.queries = queries
        self.fencing = fencing
        self.metrics = metrics
        self.merge_next = 0

    def write(self, records: Sequence[ActionRecord]) -> None:
        """Write ``records`` (checked already) in one statement, fenced.

        Raises:
            LeaseLostError: A thread's lease was taken over; nothing is written.
        """
        t0 = time.perf_counter()
        fences = self.fencing.fences({r.thread_id for r in records})
        q = self.queries
        fresh = len(records) >= JSON_THRESHOLD
        if fresh and self.merge_next > 0:
            self.merge_next -= 1
            fresh = False
        # several statements: pipelined, the server stores a chunk while the next is encoded
        pipe = True if len(records) > batch_rows.MAX_ROWS else None
        try:
            self._run(partial(plan_upsert, q, records, fences, fresh=fresh), pipe)
        except psycopg.Error as error:
            # a row taken to be new was not: write the batch again, merging
            if not (fresh and is_unique_violation(error, "actions")):
                raise
            self.merge_next = self.MERGE_AFTER_CONFLICT
            self._run(partial(plan_upsert, q, records, fences), pipe)
        self.metrics.observe_actions_written(records, time.perf_counter() - t0)

    def _run(self, factory: PlanFactory[None], pipeline: bool | None) -> None:
        """Run the plan; the fence's refusal comes back as ``LeaseLostError``.

        ``factory`` is a ``partial`` of the plan: the driver makes and resumes the
        plan without calling back into this module.
        """
        try:
            self.driver.run(factory, pipeline=pipeline)
        except psycopg.Error as error:
            lost = self.fencing.refusal(error)
            if lost is None:
                raise
            raise lost from None
