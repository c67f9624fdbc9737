"""Fenced per-thread leases: one worker runs a thread, enforced by the database.

A lease is a row in ``{schema}.leases``: the holder, a fencing token and an
expiry on the server's clock. It is taken with one upsert that succeeds only
when the row is free, expired, already ours, or its holder's session is gone;
every takeover increments the token. Releasing marks the row free and keeps
holder and token (a write of the ended run still in flight keeps its fence).
A heartbeat renews held leases every ``ttl / 3`` seconds. A write of a leased run binds
its thread id through
``{schema}.fenced(thread, token)`` (``LeaseQueries.fenced``), which locks the
lease row ``FOR SHARE`` inside the write statement itself: a takeover must
update that row, so it waits for the write to commit or finds it never
happened, and a stale token fails the statement (:func:`lease_lost` gives the
typed :class:`LeaseLostError`) with nothing written. No session state is used
(no advisory locks, no prepared statements), so leases work through pgbouncer
in transaction mode.

Liveness: on a direct connection the lease records the heartbeat's backend
(pid and start time). When that backend is gone (the process died, or its lease
connection was killed) another worker may take over at once; the old holder's
next write is refused. Through a pooler the backend is not the holder's own, so
only the expiry counts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from langgraph_actionckpt._limits import LEASE_TIMEOUT
from langgraph_actionckpt.db.driver import Op, Plan, SyncDriver
from langgraph_actionckpt.db.encoding import unescape_text
from langgraph_actionckpt.errors import LeaseLostError, ThreadBusyError

logger = logging.getLogger("langgraph_actionckpt")

__all__ = [
    "DDL",
    "HeldLeases",
    "LeaseKeeper",
    "LeaseQueries",
    "LEASE_LOST_SQLSTATE",
    "is_lease_lost",
    "lease_lost",
    "plan_acquire",
    "plan_release",
    "plan_renew",
    "refused",
]

DDL = (
    """
    CREATE TABLE IF NOT EXISTS {s}.leases (
        thread_id text PRIMARY KEY,
        holder text NOT NULL,
        token bigint NOT NULL,
        expires_at timestamptz NOT NULL,
        holder_pid integer,
        holder_started timestamptz
    )
    """,
    # The fence inside a write statement: ``{s}.fenced(thread, token)`` stands
    # where the statement binds the thread id. It share-locks the lease row for
    # the statement's transaction and raises SQLSTATE AL001 when the token is
    # stale, so the write and its condition are one statement.
    """
    CREATE OR REPLACE FUNCTION {s}.fenced(thread text, expected bigint) RETURNS text
    LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
        PERFORM 1 FROM {s}.leases WHERE thread_id = thread AND token = expected FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'lease on thread % lost (fencing token %)', thread, expected
                USING ERRCODE = 'AL001',
                      DETAIL = json_build_object('thread', thread, 'token', expected)::text;
        END IF;
        RETURN thread;
    END
    $fn$
    """,
)
"""The lease table (a migration of ``db/migrations.py``)."""


class LeaseQueries:
    """The lease statements for one schema (identifiers composed once).

    No statement puts ``now()`` or ``pg_stat_activity`` in an ``ON CONFLICT``
    clause or joins the lease row to a catalog: taking a lease is a read, a look
    at the server's backends, and a compare-and-swap on the row, so the same
    statements run on PostgreSQL and on a Citus cluster (where the lease row
    lives on a worker and the backends on the coordinator the savers use).
    """

    def __init__(self, schema: str) -> None:
        s = sql.Identifier(schema)
        self.state = sql.SQL(
            # the expiry as text, compared back as a bound value: psycopg cannot load
            # '-infinity' as a datetime, and Citus refuses a stable function of a
            # column in an UPDATE's WHERE
            "SELECT holder, token, expires_at::text, expires_at < now(), "
            "holder_pid, holder_started "
            "FROM {s}.leases WHERE thread_id = %s"
        ).format(s=s)
        # This session's backend, and whether the recorded holder's backend is
        # still there (another role's backend_start is hidden, NULL: then the pid
        # alone keeps the lease, and only the expiry frees it).
        self.backends = sql.SQL(
            """
            SELECT pg_backend_pid(),
                   (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()),
                   EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = %(pid)s
                           AND (a.backend_start IS NULL OR a.backend_start = %(started)s))
            """
        )
        self.insert = sql.SQL(
            """
            INSERT INTO {s}.leases (thread_id, holder, token, expires_at, holder_pid,
                                    holder_started)
            VALUES (%(thread)s, %(holder)s, 1, now() + make_interval(secs => %(ttl)s),
                    %(pid)s, %(started)s)
            ON CONFLICT (thread_id) DO NOTHING
            RETURNING token
            """
        ).format(s=s)
        # The swap: only if the row is still what the plan read.
        self.take = sql.SQL(
            """
            UPDATE {s}.leases
               SET holder = %(holder)s, token = %(token)s,
                   expires_at = now() + make_interval(secs => %(ttl)s),
                   holder_pid = %(pid)s, holder_started = %(started)s
             WHERE thread_id = %(thread)s AND token = %(seen_token)s
               AND holder = %(seen_holder)s AND expires_at = %(seen_expires)s::timestamptz
            RETURNING token
            """
        ).format(s=s)
        self.renew = sql.SQL(
            """
            UPDATE {s}.leases
               SET expires_at = now() + make_interval(secs => %(ttl)s),
                   holder_pid = %(pid)s, holder_started = %(started)s
             WHERE thread_id = %(thread)s AND token = %(token)s AND holder = %(holder)s
               AND expires_at > '-infinity'
            RETURNING token
            """
        ).format(s=s)
        # Released, not deleted: the row keeps its holder and token, so a write
        # of the run that just ended, still in flight on another connection,
        # passes its fence (a takeover must lock the row first, so it waits for
        # that write or refuses it after), and this holder taking it again keeps
        # the token. '-infinity' marks it free; the heartbeat never renews it.
        self.release = sql.SQL(
            """
            UPDATE {s}.leases
               SET expires_at = '-infinity', holder_pid = NULL, holder_started = NULL
             WHERE thread_id = %s AND token = %s AND holder = %s
               AND expires_at > '-infinity'
            RETURNING token
            """
        ).format(s=s)
        # Stands where a write statement binds the thread id: (thread, token).
        self.fenced = sql.SQL("{s}.fenced(%s, %s)").format(s=s)


def _plan_backends(
    q: LeaseQueries, direct: bool, pid: int | None = None, started: Any = None
) -> Plan[tuple[int | None, Any, bool]]:
    """(this backend's pid and start, or None through a pooler; whether ``pid`` is alive)."""
    row = yield Op(q.backends, {"pid": pid, "started": started}, "one")
    assert row is not None
    if not direct:
        return None, None, bool(row[2])
    return int(row[0]), row[1], bool(row[2])


def plan_acquire(
    q: LeaseQueries, thread_id: str, holder: str, ttl: float, direct: bool
) -> Plan[int | None]:
    """Take the lease; the fencing token, or None when another live holder has it.

    Taken when free, expired, already ours, or when its holder's backend is
    gone (recorded on direct connections only, see the module docstring). Every
    takeover by another holder raises the token. A race with another taker is
    settled by the swap: the loser reads the row again.
    """
    base = {"thread": thread_id, "holder": holder, "ttl": ttl}
    while True:
        row = yield Op(q.state, (thread_id,), "one")
        if row is None:
            pid, started, _ = yield from _plan_backends(q, direct)
            got = yield Op(q.insert, {**base, "pid": pid, "started": started}, "one")
            if got is not None:
                return int(got[0])
            continue  # another taker inserted it first
        seen_holder, seen_token, seen_expires, expired, seen_pid, seen_started = row
        pid, started, alive = yield from _plan_backends(q, direct, seen_pid, seen_started)
        gone = seen_pid is not None and not alive
        if not (seen_holder == holder or expired or gone):
            return None
        got = yield Op(
            q.take,
            {
                **base,
                "token": int(seen_token) + (seen_holder != holder),
                "pid": pid,
                "started": started,
                "seen_token": seen_token,
                "seen_holder": seen_holder,
                "seen_expires": seen_expires,
            },
            "one",
        )
        if got is not None:
            return int(got[0])


def plan_renew(
    q: LeaseQueries, thread_id: str, holder: str, token: int, ttl: float, direct: bool
) -> Plan[bool]:
    """Push the expiry forward; False when the lease was taken over."""
    pid, started, _ = yield from _plan_backends(q, direct)
    row = yield Op(
        q.renew,
        {
            "thread": thread_id,
            "holder": holder,
            "token": token,
            "ttl": ttl,
            "pid": pid,
            "started": started,
        },
        "one",
    )
    return row is not None


def plan_release(q: LeaseQueries, thread_id: str, holder: str, token: int) -> Plan[bool]:
    """Give the lease up; False when it was no longer ours."""
    row = yield Op(q.release, (thread_id, token, holder), "one")
    return row is not None


LEASE_LOST_SQLSTATE = "AL001"
"""The SQLSTATE ``{schema}.fenced()`` raises for a stale fencing token."""


def is_lease_lost(error: BaseException) -> bool:
    """Whether a database error is the fence refusing a stale token."""
    return getattr(error, "sqlstate", None) == LEASE_LOST_SQLSTATE


def refused(error: BaseException) -> tuple[str, int] | None:
    """The (stored thread id, token) the fence refused, from the error's detail; else None."""
    if not is_lease_lost(error):
        return None
    diag = getattr(error, "diag", None)
    try:
        detail = json.loads(getattr(diag, "message_detail", None) or "")
        return str(detail["thread"]), int(detail["token"])
    except (ValueError, KeyError, TypeError):
        return None


def lease_lost(error: BaseException) -> LeaseLostError | None:
    """The typed error for a write the fence refused (None for any other error)."""
    which = refused(error)
    if which is None:
        return None
    return LeaseLostError(unescape_text(which[0]), which[1])


@dataclass(slots=True)
class HeldLease:
    """One held lease: its fencing token and whether it was lost."""

    token: int
    lost: bool = False


class HeldLeases:
    """What every lease keeper shares: the held tokens and the heartbeat thread.

    A subclass takes and gives leases up (``acquire``/``release``), renews them
    (``renew_now``) and closes its own channel to the leases (``_close_io``).

    Args:
        mode: ``wait`` (poll until free or ``timeout``), ``error`` (raise at once).
        timeout: Seconds to wait for a busy lease in ``wait`` mode.
        ttl: Seconds a lease lives without a heartbeat.
    """

    _beat_name = "actionckpt-lease-heartbeat"

    def __init__(self, *, mode: str, timeout: float, ttl: float) -> None:
        self.mode = mode
        self.timeout = timeout
        self.ttl = ttl
        self.holder = str(uuid.uuid4())
        self._held: dict[str, HeldLease] = {}
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def release(self, thread_id: str) -> bool:  # pragma: no cover - abstract
        """Give the lease of ``thread_id`` up (False when not held or already lost)."""
        raise NotImplementedError

    def renew_now(self) -> None:  # pragma: no cover - abstract
        """Renew every held lease once (the heartbeat's step; tests call it)."""
        raise NotImplementedError

    def _close_io(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _shown(self, thread_id: str) -> str:
        """``thread_id`` as errors show it."""
        return thread_id

    def token(self, thread_id: str) -> int | None:
        """The fencing token held for ``thread_id`` (None: not held by this keeper).

        Raises:
            LeaseLostError: The lease was taken over by another worker.
        """
        held = self._held.get(thread_id)
        if held is None:
            return None
        if held.lost:
            raise LeaseLostError(self._shown(thread_id), held.token)
        return held.token

    def holds(self, thread_id: str) -> bool:
        """Whether this keeper holds the (not lost) lease of ``thread_id``."""
        held = self._held.get(thread_id)
        return held is not None and not held.lost

    async def arelease(self, thread_id: str) -> bool:
        """:meth:`release` for async callers (runs in a worker thread)."""
        import asyncio

        if thread_id not in self._held:
            return False
        return await asyncio.to_thread(self.release, thread_id)

    def release_all(self) -> int:
        """Release every held lease, stop the heartbeat, close the lease channel.

        Returns:
            The number of leases released.
        """
        self._stop.set()
        released = sum(self.release(t) for t in list(self._held))
        self._close_io()
        return released

    def _start_heartbeat(self) -> None:
        if self._beat is not None and self._beat.is_alive():
            return
        self._stop.clear()
        self._beat = threading.Thread(target=self._heartbeat, name=self._beat_name, daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            if not self._held:
                continue
            try:
                self.renew_now()
            except Exception:
                logger.exception("lease heartbeat failed")


class LeaseKeeper(HeldLeases):
    """The leases one saver holds, and the heartbeat that keeps them.

    All lease I/O runs on one dedicated autocommit connection (no prepared
    statements) owned by the keeper, so it works the same for sync and async
    savers: async callers use :meth:`aacquire`/:meth:`arelease`, which run the
    blocking calls in a worker thread.

    Args:
        conninfo: Where to connect (the saver's DSN).
        schema: The saver's schema.
        mode: ``wait`` (poll until free or ``timeout``), ``error`` (raise at once).
        timeout: Seconds to wait for a busy lease in ``wait`` mode.
        ttl: Seconds a lease lives without a heartbeat.
        connect: Opens the keeper's connection (tests pass their own).
    """

    def __init__(
        self,
        conninfo: str,
        schema: str,
        *,
        mode: str = "wait",
        timeout: float = LEASE_TIMEOUT,
        ttl: float = 30.0,
        connect: Callable[[], psycopg.Connection[Any]] | None = None,
    ) -> None:
        super().__init__(mode=mode, timeout=timeout, ttl=ttl)
        self.conninfo = conninfo
        self.queries = LeaseQueries(schema)
        self._connect = connect or self._default_connect
        self._conn: psycopg.Connection[Any] | None = None
        self._driver: SyncDriver | None = None
        self._direct = False
        self._io = threading.RLock()

    # ----------------------------------------------------------------- public

    def _shown(self, thread_id: str) -> str:
        return unescape_text(thread_id)

    def mark_lost(self, thread_id: str, token: int) -> bool:
        """Note that the fence refused ``token`` on ``thread_id``; True when it was ours."""
        held = self._held.get(thread_id)
        if held is None or held.token != token or held.lost:
            return False
        held.lost = True
        logger.error("lease on thread %r was taken over by another worker", thread_id)
        return True

    def acquire(
        self, thread_id: str, *, mode: str | None = None, timeout: float | None = None
    ) -> bool:
        """Take the lease of ``thread_id``; True when taken now, False when already held.

        Args:
            thread_id: The thread (as stored: escaped).
            mode: ``wait`` or ``error``; the keeper's own by default.
            timeout: Seconds to wait in ``wait`` mode; the keeper's own by default.

        Raises:
            ThreadBusyError: Another live worker holds it (``error`` mode), or it
                stayed busy for ``timeout`` seconds (``wait`` mode).
            LeaseLostError: This keeper's lease on it was taken over and not
                released since: the run that held it must stop, not take it back.
        """
        if self.token(thread_id) is not None:
            return False
        mode = self.mode if mode is None else mode
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            token = self._run(
                lambda: plan_acquire(self.queries, thread_id, self.holder, self.ttl, self._direct)
            )
            if token is not None:
                with self._io:
                    if self.holds(thread_id):  # a concurrent acquire here won: share it
                        return False
                    self._held[thread_id] = HeldLease(token)
                self._start_heartbeat()
                return True
            if mode == "error" or time.monotonic() >= deadline:
                raise ThreadBusyError(unescape_text(thread_id))
            time.sleep(min(0.05 + self.ttl / 100, 0.5))

    def release(self, thread_id: str) -> bool:
        """Give the lease of ``thread_id`` up (False when not held or already lost)."""
        held = self._held.pop(thread_id, None)
        if held is None or held.lost:
            return False
        token = held.token
        try:
            return bool(
                self._run(lambda: plan_release(self.queries, thread_id, self.holder, token))
            )
        except psycopg.Error:
            return False  # the row expires by itself

    async def aacquire(
        self, thread_id: str, *, mode: str | None = None, timeout: float | None = None
    ) -> bool:
        """:meth:`acquire` for async callers (runs in a worker thread)."""
        import asyncio

        if self.holds(thread_id):
            return False
        return await asyncio.to_thread(self.acquire, thread_id, mode=mode, timeout=timeout)

    def _close_io(self) -> None:
        with self._io:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None

    def renew_now(self) -> None:
        """Renew every held lease once (the heartbeat's step; tests call it)."""
        for thread_id, held in list(self._held.items()):
            if held.lost:
                continue
            try:
                ok = self._renew(thread_id, held.token)
            except psycopg.Error as error:
                # Not lost yet: the fence decides. Keep trying until the expiry.
                logger.warning("lease heartbeat for thread %r failed: %s", thread_id, error)
                continue
            if not ok:
                held.lost = True
                logger.error("lease on thread %r was taken over by another worker", thread_id)

    # --------------------------------------------------------------- internal

    def _renew(self, thread_id: str, token: int) -> bool:
        return bool(
            self._run(
                lambda: plan_renew(
                    self.queries, thread_id, self.holder, token, self.ttl, self._direct
                )
            )
        )

    def _default_connect(self) -> psycopg.Connection[Any]:
        # No prepared statements (transaction-mode poolers), and a connection
        # whose peer went silent fails within about a ttl instead of hanging
        # the heartbeat: unacknowledged sends time out, idle ones are probed.
        return psycopg.Connection.connect(
            self.conninfo,
            autocommit=True,
            prepare_threshold=None,
            connect_timeout=5,
            keepalives=1,
            keepalives_idle=max(1, int(self.ttl / 3)),
            keepalives_interval=1,
            keepalives_count=3,
            tcp_user_timeout=int(max(self.ttl, 5.0) * 1000),
        )

    def _connection(self) -> SyncDriver:
        """The driver on the keeper's connection, opened (and set up) once per connection."""
        conn = self._conn
        if conn is None or conn.closed or conn.broken or self._driver is None:
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()
            conn = self._conn = self._connect()
            self._direct = _is_direct(conn)
            self._driver = SyncDriver(conn)
        return self._driver

    def _run(self, factory: Callable[[], Plan[Any]]) -> Any:
        with self._io:
            for attempt in (1, 2):
                driver = self._connection()
                try:
                    return driver.run(factory)
                except psycopg.OperationalError:
                    if attempt == 2 or self._conn is None or not self._conn.broken:
                        raise
                    self._conn = None  # reconnect once: the lease connection was cut
        raise AssertionError("unreachable")  # pragma: no cover


def _is_direct(conn: psycopg.Connection[Any]) -> bool:
    """Whether the connection reaches PostgreSQL itself (not a pooler or a proxy).

    A pooler or proxy listens on a port of its own; the server's ``port``
    setting then differs from the port the client connected to. Unix sockets
    name the port in the socket file, so they compare the same way.
    """
    try:
        row = conn.execute("SELECT current_setting('port')::int").fetchone()
    except psycopg.Error:
        return False
    return row is not None and int(row[0]) == int(conn.info.port)
