"""Fenced leases on a private server, direct and through transaction-mode pgbouncer."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from langgraph_actionckpt.db.driver import Op, Plan, SyncDriver
from langgraph_actionckpt.db.fence import DDL, LeaseKeeper, LeaseQueries, lease_lost
from langgraph_actionckpt.errors import LeaseLostError, ThreadBusyError
from tests.faults.servers import PgBouncer, PrivatePostgres


@pytest.fixture
def lease_schema(private_pg: PrivatePostgres) -> Iterator[str]:
    name = f"l_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        for stmt in DDL:
            conn.execute(sql.SQL(stmt).format(s=sql.Identifier(name)))
        conn.execute(
            sql.SQL("CREATE TABLE {}.effects (thread_id text, n int)").format(sql.Identifier(name))
        )
    yield name
    with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


def keeper(dsn: str, schema: str, **kw: object) -> LeaseKeeper:
    return LeaseKeeper(dsn, schema, **kw)  # type: ignore[arg-type]


def fenced_write(schema: str, thread: str, token: int, n: int) -> Plan[None]:
    """One fenced INSERT: the thread id is bound through ``{s}.fenced(thread, token)``."""
    insert = sql.SQL("INSERT INTO {s}.effects VALUES ({fenced}, %s)").format(
        s=sql.Identifier(schema), fenced=LeaseQueries(schema).fenced
    )
    yield Op(insert, (thread, token, n))


def run_fenced(driver: SyncDriver, schema: str, thread: str, token: int, n: int) -> None:
    """Run :func:`fenced_write`; the fence's refusal comes back as ``LeaseLostError``."""
    try:
        driver.run(lambda: fenced_write(schema, thread, token, n))
    except psycopg.Error as error:
        raise lease_lost(error) or error from None


def effects(dsn: str, schema: str) -> list[tuple[str, int]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        q = sql.SQL("SELECT thread_id, n FROM {}.effects ORDER BY n").format(sql.Identifier(schema))
        return [(r[0], r[1]) for r in conn.execute(q).fetchall()]


def test_one_holder_and_the_token_grows_on_takeover(
    private_pg: PrivatePostgres, lease_schema: str
) -> None:
    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=1.0)
    b = keeper(private_pg.dsn, lease_schema, mode="error", ttl=1.0)
    try:
        assert a.acquire("t") is True
        assert a.acquire("t") is False  # already ours
        token_a = a.token("t")
        with pytest.raises(ThreadBusyError):
            b.acquire("t")
        a._stop.set()  # A hangs: no heartbeat any more
        time.sleep(1.3)
        assert b.acquire("t") is True
        token_b = b.token("t")
        assert token_a is not None and token_b == token_a + 1
        a.renew_now()
        with pytest.raises(LeaseLostError):
            a.token("t")
    finally:
        a.release_all()
        b.release_all()


def test_a_stale_token_writes_nothing(private_pg: PrivatePostgres, lease_schema: str) -> None:
    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=0.5)
    b = keeper(private_pg.dsn, lease_schema, mode="wait", ttl=30.0, timeout=10.0)
    try:
        a.acquire("t")
        token_a = a.token("t")
        assert token_a is not None
        with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
            SyncDriver(conn).run(lambda: fenced_write(lease_schema, "t", token_a, 1))
            a._stop.set()
            b.acquire("t")  # waits for A's expiry
            with pytest.raises(LeaseLostError):
                run_fenced(SyncDriver(conn), lease_schema, "t", token_a, 2)
        assert effects(private_pg.dsn, lease_schema) == [("t", 1)]
    finally:
        a.release_all()
        b.release_all()


def test_takeover_waits_for_a_fenced_write_in_progress(
    private_pg: PrivatePostgres, lease_schema: str
) -> None:
    """The share lock: B's takeover cannot slip between A's fence check and A's commit."""
    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=0.5)
    b = keeper(private_pg.dsn, lease_schema, mode="wait", ttl=30.0, timeout=10.0)
    try:
        a.acquire("t")
        a._stop.set()
        token = a.token("t")
        assert token is not None
        with psycopg.connect(private_pg.dsn) as conn:  # a transaction held open
            fence = sql.SQL("SELECT {}").format(LeaseQueries(lease_schema).fenced)
            conn.execute(fence, ("t", token))
            time.sleep(0.7)  # A's lease has expired, A's write is still in flight
            took = threading.Event()
            t = threading.Thread(target=lambda: (b.acquire("t"), took.set()))
            t.start()
            time.sleep(0.5)
            assert not took.is_set()  # B waits on A's share lock
            conn.execute(
                sql.SQL("INSERT INTO {}.effects VALUES ('t', 1)").format(
                    sql.Identifier(lease_schema)
                )
            )
            conn.commit()
            t.join(10)
            assert took.is_set()
        assert effects(private_pg.dsn, lease_schema) == [("t", 1)]
    finally:
        a.release_all()
        b.release_all()


def test_a_killed_lease_connection_frees_the_thread_at_once(
    private_pg: PrivatePostgres, lease_schema: str
) -> None:
    """Direct connection: the holder's backend is gone, so B need not wait for the expiry."""
    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=60.0)
    b = keeper(private_pg.dsn, lease_schema, mode="error", ttl=60.0)
    try:
        a.acquire("t")
        assert a._conn is not None
        pid = a._conn.info.backend_pid
        assert private_pg.terminate_backends(f"pid = {int(pid)}") == 1
        time.sleep(0.2)
        assert b.acquire("t") is True  # no 60 s wait
        a.renew_now()  # A reconnects, finds its token stale
        with pytest.raises(LeaseLostError):
            a.token("t")
    finally:
        a.release_all()
        b.release_all()


def test_through_pgbouncer_only_the_expiry_frees_a_lease(
    bouncer: PgBouncer, private_pg: PrivatePostgres, lease_schema: str
) -> None:
    """Transaction pooling: no session state, and a live holder is never overtaken."""
    a = keeper(bouncer.dsn, lease_schema, mode="error", ttl=1.5)
    b = keeper(bouncer.dsn, lease_schema, mode="error", ttl=1.5)
    try:
        a.acquire("t")
        assert a._direct is False
        private_pg.terminate_backends()  # pgbouncer's server connections die
        for _ in range(6):  # A's heartbeat keeps it; B never gets in
            time.sleep(0.5)
            with pytest.raises(ThreadBusyError):
                b.acquire("t")
        assert a.holds("t")
        a.release("t")
        assert b.acquire("t") is True
    finally:
        a.release_all()
        b.release_all()


def test_the_fence_inside_a_write_statement(private_pg: PrivatePostgres, lease_schema: str) -> None:
    """``{s}.fenced(thread, token)`` in place of the thread id: one statement, no extra trip."""
    from langgraph_actionckpt.db.fence import is_lease_lost

    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=0.5)
    b = keeper(private_pg.dsn, lease_schema, mode="wait", ttl=30.0, timeout=10.0)
    insert = sql.SQL("INSERT INTO {s}.effects VALUES ({s}.fenced(%s, %s), %s)").format(
        s=sql.Identifier(lease_schema)
    )
    try:
        a.acquire("t")
        token = a.token("t")
        with psycopg.connect(private_pg.dsn, autocommit=True, prepare_threshold=None) as conn:
            conn.execute(insert, ("t", token, 1))
            a._stop.set()
            b.acquire("t")
            with pytest.raises(psycopg.Error) as caught:
                conn.execute(insert, ("t", token, 2))
            assert is_lease_lost(caught.value)
            assert "lease on thread t lost" in str(caught.value)
        assert effects(private_pg.dsn, lease_schema) == [("t", 1)]
    finally:
        a.release_all()
        b.release_all()


def test_a_write_of_a_run_that_released_its_lease_keeps_its_fence(
    private_pg: PrivatePostgres, lease_schema: str
) -> None:
    """Release frees the lease but keeps its token, until another holder takes it.

    A write of the run that just ended can still be in flight on another
    connection (held writes go out with another thread's statement) when its
    run gives the lease back. It must pass; the same saver taking the thread
    again keeps the token; only a takeover by another worker makes it stale.
    """
    a = keeper(private_pg.dsn, lease_schema, mode="error", ttl=30.0)
    b = keeper(private_pg.dsn, lease_schema, mode="error", ttl=30.0)
    try:
        assert a.acquire("t") is True
        token = a.token("t")
        assert token is not None
        assert a.release("t") is True
        assert a.release("t") is False  # not held any more
        with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
            driver = SyncDriver(conn)
            run_fenced(driver, lease_schema, "t", token, 1)  # in flight across the release
            assert a.acquire("t") is True
            assert a.token("t") == token  # the same holder: the same token
            a.renew_now()
            assert a.holds("t")
            assert a.release("t") is True
            a.renew_now()  # a late heartbeat never revives a released lease
            assert b.acquire("t") is True  # free at once, no expiry to wait for
            assert b.token("t") == token + 1
            with pytest.raises(LeaseLostError):
                run_fenced(driver, lease_schema, "t", token, 2)
        assert effects(private_pg.dsn, lease_schema) == [("t", 1)]
    finally:
        a.release_all()
        b.release_all()
