"""What the async driver and its generated sync twin share, and what differs.

``_async_driver.py`` is the one source; ``.ci/gen_sync.py`` makes
``_sync_driver.py`` from it, renaming every ``AsyncX`` to ``SyncX``. The few
primitives that really differ between the worlds are the pairs below, with the
same use in both (psycopg keeps its ``_acompat`` module the same way).
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import orjson
import psycopg
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt.db import arrays

logger = logging.getLogger("langgraph_actionckpt")

AsyncLock = asyncio.Lock
# Re-entrant, as the sync driver's lock always was: a nested run on the thread
# that holds the shared connection must not deadlock.
SyncLock = threading.RLock

AsyncReconnect: TypeAlias = Callable[[], Awaitable[psycopg.AsyncConnection[Any]]]
"""Opens a replacement for the saver's own connection when it breaks."""
SyncReconnect: TypeAlias = Callable[[], psycopg.Connection[Any]]

asleep = asyncio.sleep
sleep = time.sleep


def async_gate(conn: Any) -> asyncio.Semaphore:
    """Where async plans wait for a pooled connection (a bare connection has its lock).

    Plans wait here rather than in the pool: with more concurrent graphs than
    connections, psycopg_pool's waiting path costs more per borrow than a
    semaphore does.
    """
    return asyncio.Semaphore(conn.max_size if isinstance(conn, AsyncConnectionPool) else 1)


class OpenGate:
    """The sync world's gate: it never waits (threads wait in the pool itself)."""

    __slots__ = ()

    def acquire(self) -> bool:
        """Pass at once."""
        return True

    def release(self) -> None:
        """Nothing to give back."""


def sync_gate(conn: Any) -> OpenGate:
    """Threads wait in the pool itself (it honours the pool's timeout)."""
    return OpenGate()


_CONFIGURED = "_actionckpt_configured"


def _json_dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def configure_connection(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
    """Use orjson for JSONB on this connection (faster, and what the encoder targets).

    Also the typed array parameters of :mod:`~langgraph_actionckpt.db.arrays`
    (this connection's adapters are its own copy from here on). Once per
    connection: psycopg's ``set_json_dumps`` makes a new dumper class on every
    call, and a connection configured again for every plan (the lease keeper's)
    grew its adapters and slowed every later dump.
    """
    if conn.__dict__.get(_CONFIGURED):
        return
    set_json_loads(orjson.loads, conn)
    set_json_dumps(_json_dumps, conn)
    arrays.register(conn)
    conn.__dict__[_CONFIGURED] = True


_CURSOR = "_actionckpt_cursor"
KEEPS_ROWS = frozenset(("one", "all"))
"""Op kinds whose rows stay referenced by the cursor (a plan that got rows closes its cursor)."""


def take_cursor(conn: Any) -> Any:
    """The connection's reusable binary cursor, taken out for one plan (made when missing).

    A cursor made per plan is not cheap: psycopg looks its dumpers up again
    for every parameter. A cursor kept on the connection executing the same
    statement object keeps them. It is taken out while a plan runs, so a
    nested plan on the same connection gets a cursor of its own.
    """
    cur = conn.__dict__.pop(_CURSOR, None)
    if cur is None or cur.closed:
        cur = conn.cursor(binary=True)
    return cur


def prepare_flag(op: Any, conn: Any) -> bool | None:
    """psycopg's ``prepare=`` for ``op`` on ``conn``: forced for a hot op, unless the
    connection prepares nothing (``prepare_threshold=None``, pgbouncer)."""
    return True if op.prepare and conn.prepare_threshold is not None else None


def give_back_cursor(conn: Any, cur: Any, reusable: bool) -> Any:
    """Keep ``cur`` on ``conn`` for the next plan; returns the cursor to close, if any.

    Not kept after a plan that failed (its state is the failure's) or that
    got rows back (they would stay in memory until the next plan); a read that
    found nothing (a new thread's ``get_tuple``) keeps it.
    """
    if reusable and not conn.closed and _CURSOR not in conn.__dict__:
        conn.__dict__[_CURSOR] = cur
        return None
    return cur


def is_connection_lost(exc: BaseException, conn: Any) -> bool:
    """Whether ``exc`` means the connection is gone (so a retry may succeed)."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    return bool(getattr(conn, "broken", False) or getattr(conn, "closed", False))


def is_transient(exc: BaseException) -> bool:
    """A serialization failure or a deadlock: the transaction was rolled back, a rerun may pass."""
    return isinstance(exc, psycopg.errors.TransactionRollback)


def is_data_error(exc: BaseException) -> bool:
    """Whether the server (or psycopg) refused the data itself: running it again cannot help.

    A value or key too large (``ProgramLimitExceeded``: an index row over the
    B-tree limit), a malformed value (``DataError``), a violated constraint
    (``IntegrityError``). Such an error belongs to the call whose data it is.
    """
    return is_unique_violation(exc) or isinstance(
        exc, (psycopg.DataError, psycopg.IntegrityError, psycopg.errors.ProgramLimitExceeded)
    )


# The server's words for a unique violation, naming the constraint (a Citus
# shard's has the shard id appended).
_DUPLICATE = re.compile(r'duplicate key value violates unique constraint "([^"]+)"')


def is_unique_violation(exc: BaseException, table: str | None = None) -> bool:
    """Whether ``exc`` is a unique violation (of a constraint of ``table``, when given).

    PostgreSQL says so with SQLSTATE 23505. Citus passes a worker's violation
    on as an internal error (XX000) with the worker's message, so the
    constraint's name in the message decides there.
    """
    if isinstance(exc, psycopg.errors.UniqueViolation):
        name = getattr(exc.diag, "constraint_name", None) or ""
        return table is None or name.startswith(f"{table}_")
    if getattr(exc, "sqlstate", None) != "XX000":
        return False
    match = _DUPLICATE.search(str(exc))
    return match is not None and (table is None or match.group(1).startswith(f"{table}_"))


class Watchdog:
    """Cuts a connection whose plan gets no answer within ``timeout`` seconds.

    A network partition that drops packets without resetting the connection
    (a "blackhole") leaves a client blocked on its socket forever: no error,
    no TCP reset. The watchdog shuts the socket down from a timer thread; the
    blocked read then fails at once and the connection is discarded. It only
    acts while the plan runs (:meth:`stop` is called before the connection is
    given back).

    Every plan is watched, so arming one must cost next to nothing: one timer
    thread per process (:class:`_Deadlines`) serves all of them, and a plan
    only pushes its deadline onto a heap (a thread started per plan cost the
    caller more than the plan's own statement, and held the GIL as long).

    Args:
        conn: The connection the plan runs on.
        timeout: Seconds; ``None`` watches nothing.
    """

    __slots__ = ("_armed", "_done", "_fd", "fired", "timeout")

    def __init__(self, conn: Any, timeout: float | None) -> None:
        self.fired = False
        self.timeout = timeout
        self._armed = self._done = False
        if timeout is not None and timeout > 0:
            self._fd = conn.fileno()
            self._armed = True
            _DEADLINES.add(time.monotonic() + timeout, self)

    def _cut(self) -> None:
        """Called by the timer thread with the deadlines' lock held."""
        if self._done:
            return
        self._done = True
        self.fired = True
        try:  # shutdown acts on the socket itself, so a duplicate descriptor will do
            sock = socket.socket(fileno=os.dup(self._fd))
        except OSError:
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            sock.close()
        logger.error("no answer from the database within %ss: connection cut", self.timeout)

    def stop(self) -> None:
        """The plan ended: never cut the connection from now on."""
        if self._armed:  # under the lock: a cut under way finishes before this returns
            _DEADLINES.stop(self)


class _Deadlines:
    """The deadlines of the running plans, and the one thread that enforces them.

    A stopped watchdog stays on the heap until it reaches the top (removed
    lazily); with one timeout the heap is ordered by arming time, so finished
    plans leave from the top as new ones arrive. The thread sleeps until the
    earliest deadline and is woken only when a new deadline comes before the
    one it sleeps for.
    """

    def __init__(self) -> None:
        self._cv = threading.Condition(threading.Lock())
        self._heap: list[tuple[float, int, Watchdog]] = []
        self._seq = 0
        self._wake_at = float("inf")  # when the thread wakes by itself
        self._thread: threading.Thread | None = None

    def add(self, deadline: float, watch: Watchdog) -> None:
        with self._cv:
            heap = self._heap
            while heap and heap[0][2]._done:
                heapq.heappop(heap)
            self._seq += 1
            heapq.heappush(heap, (deadline, self._seq, watch))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="actionckpt-io-watchdog", daemon=True
                )
                self._thread.start()
            elif deadline < self._wake_at:
                self._cv.notify()

    def stop(self, watch: Watchdog) -> None:
        with self._cv:  # after this, the thread never cuts ``watch``
            watch._done = True

    def _loop(self) -> None:
        with self._cv:
            while True:
                heap = self._heap
                while heap and heap[0][2]._done:
                    heapq.heappop(heap)
                if not heap:
                    self._wake_at = float("inf")
                    self._cv.wait()
                    continue
                deadline, _seq, watch = heap[0]
                left = deadline - time.monotonic()
                if left > 0:
                    self._wake_at = deadline
                    self._cv.wait(left)
                    continue
                heapq.heappop(heap)
                watch._cut()


_DEADLINES = _Deadlines()


def no_answer(conn: Any, timeout: float | None, error: BaseException) -> Exception:
    """The error of a plan cut by its :class:`Watchdog`: the server never answered."""
    from langgraph_actionckpt.errors import ConnectionFailedError

    info = conn.info
    target = f"{info.host}:{info.port}/{info.dbname}"
    return ConnectionFailedError(
        target, TimeoutError(f"no answer within {timeout} s (io_timeout); {error}")
    )


POOLER_STATES = frozenset({"42P05", "26000"})
"""duplicate_prepared_statement, invalid_sql_statement_name: a prepared statement met on a
server session it was not made on (or missing from the one it was made on)."""


def pooler_misconfigured(error: BaseException) -> Exception | None:
    """A clear error when prepared statements break behind a transaction-mode pooler, else None.

    Behind pgbouncer in transaction mode (before 1.21, or with ``max_prepared_statements``
    off) consecutive transactions of one client connection run on different server
    sessions, so psycopg's prepared statements collide or vanish.
    """
    if getattr(error, "sqlstate", None) not in POOLER_STATES:
        return None
    from langgraph_actionckpt.errors import ConfigurationError

    return ConfigurationError(
        "prepared statements do not hold on this connection: it looks like a connection "
        "pooler in transaction mode (pgbouncer). Pass prepare_threshold=None to the saver "
        f"(README 'Guarantees and their limits', pgbouncer). The server said: {error}"
    )
