"""The service's leases: rows of ``{schema}.leases``, shared by every replica of a database.

Thread ids and holders are stored escaped, as every table stores ids
(``db/encoding.py``), so a direct saver's lease on a thread is the same row.

A worker takes a thread's lease with ``AcquireLease`` (a holder id of its own
and a time to live), renews it and gives it back; the service runs the lease
statements of ``db/fence.py`` on the tenant's saver. Every takeover by another
holder raises the token. Since the leases live in the database, several
``actionckpt serve`` processes on one database share them, and a restarted
one keeps them. Only the expiry frees a lease (``direct=False``): the backend
that runs the statement is the service's, not the worker's, exactly as
through a pooler.

A write that carries a token is fenced by the database. While the request
runs, :class:`ServiceLeases` (the tenant saver's lease keeper) holds the
request's token for the thread, so the saver's statement that stores the
checkpoint or the writes checks ``{schema}.fenced(thread, token)`` itself: a
stale token fails it with nothing stored (``FAILED_PRECONDITION``). Requests
of one thread carrying different tokens take turns in a replica (each is
fenced with its own token); those carrying the same token run together.
Another write of that thread during a turn (an action row) is fenced with the
turn's token as well.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial

from langgraph_actionckpt.aio import AsyncActionSaver
from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.db.fence import (
    HeldLease,
    LeaseKeeper,
    plan_acquire,
    plan_release,
    plan_renew,
)

__all__ = ["ServiceLeases"]


@dataclass(slots=True)
class _Turn:
    """The requests of one token writing a thread now."""

    token: int
    users: int = 0
    failed: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)


class ServiceLeases(LeaseKeeper):
    """The leases of one tenant schema, and the fencing tokens of its saver's writes.

    It is the saver's lease keeper (``saver.leases``): the saver asks it for
    the token of a thread it writes (see ``checkpoints/fencing.py``), and it
    answers with the token of the request writing that thread now. It takes
    no lease of its own: its holders are the remote workers.

    Args:
        saver: The tenant's saver (its driver runs the lease statements).
    """

    def __init__(self, saver: AsyncActionSaver) -> None:
        super().__init__(str(saver.conninfo or ""), saver.schema, mode="error")
        self.saver = saver
        self._turns: dict[str, _Turn] = {}
        saver.thread_leases.keeper = self

    def mark_lost(self, thread_id: str, token: int) -> bool:
        """Note that the fence refused ``token`` on ``thread_id`` (no log: the client is told)."""
        held = self._held.get(thread_id)
        if held is None or held.token != token or held.lost:
            return False
        held.lost = True
        return True

    async def flush(self, thread_id: str) -> None:
        """Store the writes the saver holds for ``thread_id`` now, fenced by the turn's token.

        Raises:
            LeaseLostError: The fence refused the token (nothing of them stored).
        """
        stored, saver = escape_text(thread_id), self.saver
        await saver.runner.run_fenced(partial(saver.store.held.plan_flush_pending, stored))
        self.token(stored)  # raises when a flush of the writer's own took them and was refused

    async def take(self, thread_id: str, holder: str, ttl: float) -> int | None:
        """The fencing token of ``holder``'s lease, or None while another live holder has it."""
        stored, who = escape_text(thread_id), escape_text(holder)
        q = self.queries
        token: int | None = await self.saver.driver.run(
            lambda: plan_acquire(q, stored, who, ttl, False)
        )
        return token

    async def renew(self, thread_id: str, holder: str, token: int, ttl: float) -> bool:
        """Push the expiry forward; False when the lease was taken over."""
        stored, who = escape_text(thread_id), escape_text(holder)
        q = self.queries
        ok: bool = await self.saver.driver.run(
            lambda: plan_renew(q, stored, who, token, ttl, False)
        )
        return ok

    async def give_back(self, thread_id: str, holder: str, token: int) -> bool:
        """Give the lease up; False when it was no longer ``holder``'s."""
        stored, who = escape_text(thread_id), escape_text(holder)
        q = self.queries
        ok: bool = await self.saver.driver.run(lambda: plan_release(q, stored, who, token))
        return ok

    @asynccontextmanager
    async def fenced(self, thread_id: str, token: int) -> AsyncIterator[None]:
        """Fence the saver's writes of ``thread_id`` with ``token`` while the block runs.

        Waits for the requests of another token on the thread to end first. When
        the last request of a turn ends and one of them failed, writes of the
        thread still held by the saver are dropped: they are that request's (one
        that succeeded stored its own before it answered), its client repeats
        it, and stored later they would no longer be fenced.
        """
        stored = escape_text(thread_id)
        turn = self._turns.get(stored)
        while turn is not None and turn.token != token:
            await turn.done.wait()
            turn = self._turns.get(stored)
        if turn is None:
            turn = self._turns[stored] = _Turn(token)
            self._held[stored] = HeldLease(token)
        turn.users += 1
        try:
            yield
        except BaseException:
            turn.failed = True
            raise
        finally:
            turn.users -= 1
            if turn.users == 0:
                del self._turns[stored]
                self._held.pop(stored, None)
                if turn.failed:
                    self.saver.store.held.pending.take_all(stored)
                turn.done.set()
