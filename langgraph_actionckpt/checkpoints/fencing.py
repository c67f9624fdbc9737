"""The fencing side of a checkpoint store: the tokens its writes carry, and what a refusal means.

A saver that holds a thread's lease (``db/lease.py``) binds its fencing token
into every write of that thread (checkpoint, held writes, action rows); the
database refuses a stale token (``db/fence.py``). The lease state is the
saver's :class:`~langgraph_actionckpt.db.lease.ThreadLeases`, which its action
writer is handed as well. :class:`LeaseFencing`, a part of the checkpoint
store, gives the store's plans those tokens and, on a lost lease, also drops
what the worker held for that thread. A saver with no lease pays one
attribute test.
"""

from __future__ import annotations

from langgraph_actionckpt.checkpoints.pending import PendingWrites
from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.db.fence import LeaseKeeper
from langgraph_actionckpt.db.lease import ThreadLeases
from langgraph_actionckpt.errors import LeaseLostError

__all__ = ["LeaseFencing"]


class LeaseFencing:
    """Fencing tokens for the store's writes, from the saver's leases (none until a first lease)."""

    def __init__(self, pending: PendingWrites) -> None:
        self.thread_leases = ThreadLeases()  # the saver's, handed to its action writer too
        self._pending = pending

    @property
    def leases(self) -> LeaseKeeper | None:
        """The lease keeper, made on a first lease (``db/lease.py``); None until then."""
        return self.thread_leases.keeper

    # ------------------------------------------------------------------ fencing

    def fence(self, thread_id: str) -> int | None:
        """This saver's fencing token on a (stored) thread id; None: no lease held here.

        Raises:
            LeaseLostError: The lease was taken over (the thread's held writes
                are dropped: this worker must not store them any more).
        """
        keeper = self.thread_leases.keeper
        if keeper is None:
            return None
        try:
            return keeper.token(thread_id)
        except LeaseLostError:
            self._pending.take_all(thread_id)
            raise

    def refusal(self, error: BaseException) -> LeaseLostError | None:
        """The typed error for a write the fence refused (None for any other error).

        The lease is marked lost and the thread's held writes are dropped, so no
        later write of this worker tries again.
        """
        lost = self.thread_leases.refusal(error)
        if lost is not None:
            self._pending.take_all(escape_text(lost.thread_id))
        return lost
