"""The batched writers with a fake batch write (no database).

The flushing logic is one source (``_async_writer.py``) and a generated twin
(``_sync_writer.py``); these tests run the same scenarios on both public
writers: background flush, order of ``write_now``, failures that keep rows,
close.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import pytest

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.writer import AsyncActionWriter, SyncActionWriter


def row(action_id: str, status: str = "running", thread: str = "t1") -> ActionRecord:
    return ActionRecord(
        thread_id=thread, action_id=action_id, action_type="tool_call", status=status
    )


class FakeStore:
    """Records each batch; fails while ``broken`` is set."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, str]]] = []
        self.broken = False

    def write(self, records: Sequence[ActionRecord]) -> None:
        if self.broken:
            raise ConnectionError("database gone")
        self.batches.append([(r.action_id, r.status) for r in records])

    async def awrite(self, records: Sequence[ActionRecord]) -> None:
        self.write(records)

    @property
    def rows(self) -> list[tuple[str, str]]:
        return [r for batch in self.batches for r in batch]


def wait_for(predicate: Callable[[], object], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_sync_writer_flushes_in_background_and_keeps_order() -> None:
    store = FakeStore()
    ticks: list[int] = []
    writer = SyncActionWriter(store.write, interval=0.01, on_tick=lambda: ticks.append(1))
    depths: list[int] = []
    writer._on_depth = depths.append
    writer.enqueue(row("a"))
    writer.enqueue(row("a", "completed"))  # folded with the first into one row
    wait_for(lambda: store.rows)
    assert store.rows == [("a", "completed")] and writer.depth == 0 and ticks
    assert depths and depths[-1] == 0
    writer.enqueue(row("b"))
    writer.write_now(row("c"))  # the queue goes first: the table keeps arrival order
    assert store.rows[-2:] == [("b", "running"), ("c", "running")]
    writer.close()
    assert writer._closed
    writer.close()  # idempotent


def test_sync_writer_keeps_rows_when_a_write_fails() -> None:
    store = FakeStore()
    writer = SyncActionWriter(store.write, interval=3600.0)
    writer.enqueue(row("a"))
    writer.enqueue(row("b"))
    store.broken = True
    with pytest.raises(ConnectionError):
        writer.write_now(row("c"))
    assert writer.depth == 2  # the caller's row is the caller's to retry; queued rows stay
    with pytest.raises(ConnectionError):
        writer.flush()
    assert writer.depth == 2
    store.broken = False
    writer.flush()
    assert store.rows == [("a", "running"), ("b", "running")] and writer.depth == 0
    writer.close()


def test_sync_writer_from_async_code() -> None:
    store = FakeStore()
    writer = SyncActionWriter(store.write, interval=3600.0)

    async def main() -> None:
        writer.enqueue(row("a"))
        await writer.aflush()
        await writer.awrite_now(row("b"))

    asyncio.run(main())
    assert store.rows == [("a", "running"), ("b", "running")]
    writer.close()


async def test_async_writer_flushes_on_its_loop_and_from_threads() -> None:
    store = FakeStore()
    loop = asyncio.get_running_loop()
    writer = AsyncActionWriter(store.awrite, loop, interval=0.01)
    writer.enqueue(row("a"))
    for _ in range(500):
        if store.rows:
            break
        await asyncio.sleep(0.01)
    assert store.rows == [("a", "running")]

    def from_thread() -> None:
        writer.enqueue(row("b"))  # any thread may queue
        writer.write_now(row("c"))  # blocks this thread until the loop wrote it

    await asyncio.to_thread(from_thread)
    assert store.rows[-2:] == [("b", "running"), ("c", "running")]
    # a blocking flush called on the loop's own thread would deadlock: it is scheduled
    writer.enqueue(row("d"))
    writer.flush()
    for _ in range(500):
        if writer.depth == 0:
            break
        await asyncio.sleep(0.01)
    assert store.rows[-1] == ("d", "running")
    await writer.aclose()
    assert writer._task is not None and writer._task.done()


async def test_async_writer_full_batches_queued_during_a_write_are_flushed_next() -> None:
    """Rows over batch_size queued during a write kick the flusher once; none waits a tick."""
    store, release = FakeStore(), asyncio.Event()
    calls = 0

    async def slow(records: Sequence[ActionRecord]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await release.wait()
        store.write(records)

    writer = AsyncActionWriter(slow, asyncio.get_running_loop(), batch_size=2, interval=3600.0)
    writer.enqueue(row("a"))
    writer.enqueue(row("b"))  # a full batch: the flusher starts writing it
    for _ in range(500):
        if calls:
            break
        await asyncio.sleep(0.01)
    for name in "cdefg":  # queued while the first write waits: the flusher is kicked again
        writer.enqueue(row(name))
    assert writer._wake.is_set()
    release.set()
    for _ in range(500):
        if writer.depth == 0 and len(store.rows) == 7:
            break
        await asyncio.sleep(0.01)
    assert [r[0] for r in store.rows] == list("abcdefg")
    await writer.aclose()


async def test_async_writer_keeps_rows_when_a_write_fails() -> None:
    store = FakeStore()
    writer = AsyncActionWriter(store.awrite, asyncio.get_running_loop(), interval=3600.0)
    writer.enqueue(row("a"))
    store.broken = True
    with pytest.raises(ConnectionError):
        await writer.awrite_now(row("b"))
    assert writer.depth == 1
    store.broken = False
    await writer.aclose()  # close flushes what is left
    assert store.rows == [("a", "running")] and writer.depth == 0


def test_sync_flusher_thread_survives_failures() -> None:
    store = FakeStore()
    store.broken = True
    writer = SyncActionWriter(store.write, interval=0.01)
    writer.enqueue(row("a"))
    time.sleep(0.05)  # a few failed background flushes
    assert writer.depth == 1 and writer._thread is not None and writer._thread.is_alive()
    store.broken = False
    wait_for(lambda: store.rows == [("a", "running")])
    writer.close()
    writer._thread.join(5.0)  # closed: the thread ends on its own
    assert not writer._thread.is_alive()
