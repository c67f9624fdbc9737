"""The service's leases: rows of ``{schema}.leases``, shared by every replica of a database.

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
        saver.leases = self

    async def take(self, thread_id: str, holder: str, ttl: float) -> int | None:
        """The fencing token of ``holder``'s lease, or None while another live holder has it."""
        stored = escape_text(thread_id)
        q = self.queries
        token: int | None = await self.saver.driver.run(
            lambda: plan_acquire(q, stored, holder, ttl, False)
        )
        return token

    async def renew(self, thread_id: str, holder: str, token: int, ttl: float) -> bool:
        """Push the expiry forward; False when the lease was taken over."""
        stored = escape_text(thread_id)
        q = self.queries
        ok: bool = await self.saver.driver.run(
            lambda: plan_renew(q, stored, holder, token, ttl, False)
        )
        return ok

    async def give_back(self, thread_id: str, holder: str, token: int) -> bool:
        """Give the lease up; False when it was no longer ``holder``'s."""
        stored = escape_text(thread_id)
        q = self.queries
        ok: bool = await self.saver.driver.run(lambda: plan_release(q, stored, holder, token))
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
