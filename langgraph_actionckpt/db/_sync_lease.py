# Generated from langgraph_actionckpt/db/_async_lease.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""Take and give back a thread's lease.

``_async_lease.py`` is the source and ``_sync_lease.py`` is generated from it
(``python .ci/gen_sync.py``), so both worlds keep one logic and the same method
names. What differs between them (how a connection is opened,
waited on, kept or closed) is in :mod:`langgraph_actionckpt.db._lease_base`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from langgraph_actionckpt.db._lease_base import (
    TRY_LOCK,
    SyncSession,
    enabled,
    holds,
    lock_params,
    register,
    unregister,
)
from langgraph_actionckpt.errors import ThreadBusyError

if TYPE_CHECKING:
    from langgraph_actionckpt._contracts import ActionSaverLike


class SyncLease:
    """The leases of one saver: take them, give them back.

    Args:
        saver: The saver whose ``schema``, ``conninfo``, ``lease_mode`` and
            ``lease_timeout`` the lease follows.
    """

    __slots__ = ("saver",)

    def __init__(self, saver: ActionSaverLike) -> None:
        self.saver = saver

    def acquire(self, thread_id: str) -> bool:
        """Take the lease of ``thread_id``.

        Polls ``pg_try_advisory_lock`` rather than blocking in
        ``pg_advisory_lock``, so no statement and no snapshot stays open while
        waiting (and async code never blocks its event loop).

        Returns:
            True when a lease was taken now, False when it was already held by
            this process or leases are off.

        Raises:
            ThreadBusyError: Another process holds it (``"error"`` mode), or it
                stayed busy for ``saver.lease_timeout`` seconds (``"wait"`` mode).
        """
        saver = self.saver
        thread_id = str(thread_id)
        keeper = getattr(saver, "lease_keeper", None)
        if keeper is not None:  # a saver whose leases live elsewhere (the service's)
            return bool(keeper.acquire(thread_id))
        if not enabled(saver) or holds(saver, thread_id):
            return False
        conn = SyncSession.open(saver)
        params = lock_params(saver, thread_id)
        deadline = time.monotonic() + float(saver.lease_timeout)
        try:
            while True:
                cur = conn.execute(TRY_LOCK, params)
                row = cur.fetchone()
                if row and row[0]:
                    break
                if holds(saver, thread_id):
                    # a concurrent acquire of this process (a parallel task of the
                    # same run, on its own session) won: share its lease
                    SyncSession.discard(saver, conn)
                    return False
                if saver.lease_mode == "error" or time.monotonic() >= deadline:
                    raise ThreadBusyError(thread_id)
                SyncSession.pause()
        except BaseException:
            SyncSession.discard(saver, conn)
            raise
        return register(saver, thread_id, conn)

    def release(self, thread_id: str) -> bool:
        """Give the lease of ``thread_id`` back. Returns True when one was held."""
        keeper = getattr(self.saver, "lease_keeper", None)
        if keeper is not None:
            return bool(keeper.release(str(thread_id)))
        lease = unregister(self.saver, thread_id)
        if lease is None:
            return False
        SyncSession.give_back(self.saver, lease)
        return True
