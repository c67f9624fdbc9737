"""The fencing side of a saver: the tokens its writes carry, and what a refusal means.

A saver that holds a thread's lease (``db/lease.py``) binds its fencing token
into every write of that thread (checkpoint, held writes, action rows); the
database refuses a stale token (``db/fence.py``). :class:`LeaseFencing`, a part
of the checkpoint store, gives its plans those tokens and turns the database's
refusal into :class:`~langgraph_actionckpt.LeaseLostError`, dropping what the
worker held for that thread. A saver with no lease pays one attribute test.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.checkpoints.pending import PendingWrites
from langgraph_actionckpt.db.encoding import escape_text, unescape_text
from langgraph_actionckpt.db.fence import LeaseKeeper, refused
from langgraph_actionckpt.errors import LeaseLostError

__all__ = ["LeaseFencing"]


class LeaseFencing:
    """Fencing tokens for the saver's writes, from its lease keeper (none until a first lease)."""

    def __init__(self, pending: PendingWrites) -> None:
        self.leases: LeaseKeeper | None = None  # made on a first lease (db/lease.py)
        self._pending = pending

    # ------------------------------------------------------------------ fencing

    def fence(self, thread_id: str) -> int | None:
        """This saver's fencing token on a (stored) thread id; None: no lease held here.

        Raises:
            LeaseLostError: The lease was taken over (the thread's held writes
                are dropped: this worker must not store them any more).
        """
        keeper = self.leases
        if keeper is None:
            return None
        try:
            return keeper.token(thread_id)
        except LeaseLostError:
            self._pending.take_all(thread_id)
            raise

    def fences(self, thread_ids: Collection[str]) -> dict[str, int]:
        """Fencing tokens of the leased (stored) thread ids; raises for a lost lease."""
        if self.leases is None:
            return {}
        out: dict[str, int] = {}
        for thread_id in thread_ids:
            token = self.fence(thread_id)
            if token is not None:
                out[thread_id] = token
        return out

    def action_fences(self, records: Sequence[ActionRecord]) -> dict[str, int]:
        """:meth:`fences` of the threads of action records (their ids are not escaped yet)."""
        if self.leases is None:
            return {}
        # a batch holds a few threads' rows: escape each thread id once
        return self.fences({escape_text(t) for t in {r.thread_id for r in records}})

    def refusal(self, error: BaseException) -> LeaseLostError | None:
        """The typed error for a write the fence refused (None for any other error).

        The lease is marked lost and the thread's held writes are dropped, so no
        later write of this worker tries again.
        """
        which = refused(error)
        if which is None:
            return None
        thread_id, token = which
        if self.leases is not None:
            self.leases.mark_lost(thread_id, token)
        self._pending.take_all(thread_id)
        return LeaseLostError(unescape_text(thread_id), token)
