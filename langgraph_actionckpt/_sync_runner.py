# Generated from langgraph_actionckpt/_async_runner.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""How a direct saver runs its store's plans (:class:`AsyncPlanRunner`).

``_async_runner.py`` is the source; ``.ci/gen_sync.py`` generates ``_sync_runner.py``
from it. The runner is the saver's driver together with its store's held writes:
it runs the store's plans, puts held writes back when a plan fails before it
ran, drops one thread's held writes the database refuses instead of blocking
the others, and turns the fence's refusal into ``LeaseLostError``. The action rows
are written by the writer's own ``AsyncActionRows`` (``actions/_async_writer.py``).
"""

from __future__ import annotations

import logging
from functools import partial

import psycopg
from langchain_core.runnables import RunnableConfig

from langgraph_actionckpt.checkpoints._sync_api import PutCall
from langgraph_actionckpt.checkpoints.codec import thread_key
from langgraph_actionckpt.checkpoints.core import CheckpointStore
from langgraph_actionckpt.checkpoints.held import write_refused
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.db.driver import PlanFactory, SyncDriver, T, is_data_error

__all__ = ["SyncPlanRunner"]

logger = logging.getLogger("langgraph_actionckpt")


class SyncPlanRunner:
    """Runs a store's plans on a driver: the refusals of one thread's held writes never
    block the others, and the fence's refusal comes back as ``LeaseLostError``."""

    def __init__(self, driver: SyncDriver, store: CheckpointStore) -> None:
        self.driver = driver
        self.store = store
        self.held = store.held

    def run(
        self, factory: PlanFactory[T], *, read: bool = False, pipeline: bool | None = None
    ) -> T:
        """Run a plan; held writes the database refuses never block the others.

        Plans store every thread's held writes in one statement before they read
        (and flushes do). When the fence refuses one thread's (its lease was lost,
        see ``LeaseFencing.refusal``) they are dropped and the plan runs again for
        the others. When the database refuses one thread's write as data (a key
        over the index limit, a malformed value), the held writes are stored
        thread by thread, the refused ones dropped (their thread's next call
        raises why, see ``HeldWrites.refuse``) and the plan runs again.
        """
        isolated = False
        for attempt in (1, 2, 3):
            try:
                if read:  # a thread's read: batched with others' (group commit)
                    return self.driver.run_read(factory)
                return self.driver.run(factory, pipeline=pipeline)
            except psycopg.Error as error:
                lost = self.held.fencing.refusal(error)
                if lost is None:
                    if isolated or not (self.held.pending and is_data_error(error)):
                        raise
                    if not self._isolate_held():
                        raise  # no held write was the cause
                    isolated = True
                    continue
                if attempt == 3:
                    raise lost from None
                logger.error("dropped held writes: %s", lost)
        raise AssertionError("unreachable")  # pragma: no cover

    def run_fenced(self, factory: PlanFactory[T]) -> T:
        """Run a write of the caller's; the fence's refusal comes back as ``LeaseLostError``."""
        try:
            return self.driver.run(factory)
        except psycopg.Error as error:
            lost = self.held.fencing.refusal(error)
            if lost is None:
                raise
            raise lost from None

    def _isolate_held(self) -> bool:
        """Store held writes one thread at a time; drop the threads' the database refuses.

        Returns:
            Whether some thread's held writes were refused.
        """
        refused = False
        for thread_id in self.held.pending.threads():
            try:
                self.driver.run(partial(self.held.plan_flush_pending, thread_id))
            except Exception as exc:
                if not is_data_error(exc):
                    raise
                self.held.refuse(thread_id, exc)
                refused = True
        return refused

    def put(self, call: PutCall) -> RunnableConfig:
        """Store a checkpoint with its thread's held writes (``put``)."""
        config, checkpoint, metadata, new_versions = call
        store, where = self.store, thread_key(config)
        # The held writes are taken now, not when a group commit starts the plan:
        # while the put waits for its group, the writer's tick would find them
        # old enough to store them in a statement of their own.
        taken = [store.take_put_writes(where, checkpoint)]
        # the store's own method, bound: the driver never calls back into this module
        plan = partial(store.plan_put, where, config, checkpoint, metadata, new_versions, taken)
        try:
            return self.driver.run_write(plan)  # grouped with others' (group commit)
        except psycopg.Error as exc:
            lost = self.held.fencing.refusal(exc)
            if lost is not None:
                raise lost from None
            if is_data_error(exc):
                raise write_refused(config, "checkpoint", exc) from exc
            raise
        finally:
            if taken:  # no plan ran (it never got a connection): back to the buffer
                self.held.pending.restore(taken.pop())

    def write_call(self, config: RunnableConfig, call: WriteCall) -> None:
        """Write a call of ``put_writes`` now, with its thread's held writes before it."""
        try:
            self.run_fenced(lambda: self.held.plan_write_call(call))
        except Exception as exc:
            if is_data_error(exc):
                size = sum(len(row.blob) for row in call.rows)
                raise write_refused(config, f"writes ({size} bytes)", exc) from exc
            raise

    def flush(self) -> None:
        """Write the writes held for the next checkpoint now."""
        if self.held.pending:
            self.run(self.held.plan_flush_pending)

    def flush_on_tick(self) -> None:
        """The writer's tick: write the writes held long enough (see ``plan_flush_on_tick``)."""
        if self.held.pending:
            # a statement per few calls: sent together, one round trip
            self.run(self.held.plan_flush_on_tick, pipeline=True)
