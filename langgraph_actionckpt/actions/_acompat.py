"""The few primitives that differ between the async writer and its generated sync twin.

``_async_writer.py`` is written once, for asyncio, against the ``Async*`` names
below; ``.ci/gen_sync.py`` turns it into ``_sync_writer.py``, where unasync's
rule renames every ``AsyncX`` to ``SyncX``. Each pair here therefore has the
same methods in both worlds (psycopg keeps its ``_acompat`` module the same way).
:class:`ActionFencing` is what both writers are handed to ask for fencing tokens.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Protocol, TypeAlias

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import LeaseLostError

__all__ = [
    "ActionFencing",
    "AsyncBatchWrite",
    "AsyncEvent",
    "AsyncLock",
    "AsyncTick",
    "SyncBatchWrite",
    "SyncEvent",
    "SyncLock",
    "SyncTick",
]

AsyncLock = asyncio.Lock
SyncLock = threading.Lock

AsyncBatchWrite: TypeAlias = Callable[[Sequence[ActionRecord]], Awaitable[None]]
"""Writes a batch of action rows in one statement."""
SyncBatchWrite: TypeAlias = Callable[[Sequence[ActionRecord]], None]

AsyncTick: TypeAlias = Callable[[], Awaitable[None]]
"""Called on every tick of the flusher (the saver flushes its held writes)."""
SyncTick: TypeAlias = Callable[[], None]


class AsyncEvent(asyncio.Event):
    """An :class:`asyncio.Event` that can be waited on with a timeout."""

    async def wait_timeout(self, timeout: float) -> bool:
        """Wait until set or ``timeout`` seconds passed; True if set."""
        try:
            await asyncio.wait_for(self.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def pause(self, seconds: float) -> None:
        """Back off after a failed flush (a plain sleep, as the flusher task always did)."""
        await asyncio.sleep(seconds)


class SyncEvent(threading.Event):
    """A :class:`threading.Event` with the method names of :class:`AsyncEvent`."""

    def wait_timeout(self, timeout: float) -> bool:
        """Wait until set or ``timeout`` seconds passed; True if set."""
        return self.wait(timeout)

    def pause(self, seconds: float) -> None:
        """Back off after a failed flush (a full batch or close cuts the wait short)."""
        self.wait(seconds)


class ActionFencing(Protocol):
    """The fencing a writer asks before a batch, and after the database refused one.

    A direct saver hands the writer its leases (``db/lease.py``'s ``ThreadLeases``);
    a saver holding no lease answers with no tokens and never finds a refusal.
    """

    def fences(self, thread_ids: Collection[str]) -> dict[str, int]:
        """Fencing tokens by stored thread id of the leased ones among ``thread_ids``.

        Raises:
            LeaseLostError: One of their leases was taken over; nothing is written.
        """
        ...

    def refusal(self, error: BaseException) -> LeaseLostError | None:
        """The typed error for a write the fence refused (None for any other error)."""
        ...
