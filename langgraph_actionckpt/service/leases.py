"""The service's leases: one holder per thread, with a fencing token.

A worker takes a thread's lease with ``AcquireLease`` (a holder id of its own
and a time to live), renews it, and gives it back. Every takeover by another
holder raises the token; a write that carries an older token is refused with
``FAILED_PRECONDITION`` and nothing stored. The table lives in the server's
memory (one server per database: the tokens start from the server's start
time in milliseconds, so a restarted server never hands out an older token).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

__all__ = ["LeaseTable"]


@dataclass(slots=True)
class _Lease:
    holder: str
    token: int
    expires: float


class LeaseTable:
    """Leases by (schema, thread id)."""

    def __init__(self) -> None:
        self._leases: dict[tuple[str, str], _Lease] = {}
        self._next = int(time.time() * 1000)
        self._lock = threading.Lock()

    def acquire(self, schema: str, thread_id: str, holder: str, ttl: float) -> int | None:
        """The fencing token, or None while another live holder has the lease."""
        now = time.monotonic()
        with self._lock:
            lease = self._leases.get((schema, thread_id))
            if lease is not None and lease.holder == holder:
                lease.expires = now + ttl
                return lease.token
            if lease is not None and lease.expires > now:
                return None
            self._next += 1
            self._leases[(schema, thread_id)] = _Lease(holder, self._next, now + ttl)
            return self._next

    def renew(self, schema: str, thread_id: str, holder: str, token: int, ttl: float) -> bool:
        """Push the expiry forward; False when the lease was taken over."""
        with self._lock:
            lease = self._leases.get((schema, thread_id))
            if lease is None or lease.holder != holder or lease.token != token:
                return False
            lease.expires = time.monotonic() + ttl
            return True

    def release(self, schema: str, thread_id: str, holder: str, token: int) -> bool:
        """Give the lease up; False when it was no longer this holder's."""
        with self._lock:
            lease = self._leases.get((schema, thread_id))
            if lease is None or lease.holder != holder or lease.token != token:
                return False
            del self._leases[(schema, thread_id)]
            return True

    def current(self, schema: str, thread_id: str) -> int | None:
        """The thread's current token (also of an expired lease not yet taken over)."""
        with self._lock:
            lease = self._leases.get((schema, thread_id))
            return None if lease is None else lease.token
