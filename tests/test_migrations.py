"""The migration runner: invalid indexes rebuilt; no advisory lock across concurrent builds."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from langgraph_actionckpt.db.driver import SyncDriver
from langgraph_actionckpt.db.migrations import LATEST_VERSION, plan_migrate

from .conftest import fetch


def _index(dsn: str, schema: str, name: str) -> tuple[bool, str] | None:
    rows = fetch(
        dsn,
        "SELECT i.indisvalid, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = %s",
        (schema, name),
    )
    return (rows[0][0], rows[0][1]) if rows else None


def _migrate(dsn: str, schema: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return SyncDriver(conn).run(lambda: plan_migrate(schema))


def test_invalid_index_from_an_interrupted_build_is_rebuilt(dsn: str, schema: str) -> None:
    assert _migrate(dsn, schema) == LATEST_VERSION
    with psycopg.connect(dsn, autocommit=True) as conn:
        # Pretend migration 4 was interrupted: its version row is missing and a
        # concurrent build of actions_run_idx failed halfway, leaving an invalid
        # index of that name (a real failed CREATE INDEX CONCURRENTLY: a unique
        # build over duplicate run ids).
        conn.execute(f'DROP INDEX "{schema}".actions_run_idx')
        conn.execute(f'DELETE FROM "{schema}".migrations WHERE v = 4')
        conn.execute(
            f'INSERT INTO "{schema}".actions (thread_id, action_id, run_id, action_type, status) '
            "VALUES ('t', 'a1', 'r', 'tool_call', 'completed'), "
            "('t', 'a2', 'r', 'tool_call', 'completed')"
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                f'CREATE UNIQUE INDEX CONCURRENTLY actions_run_idx ON "{schema}".actions (run_id) '
                "WHERE run_id IS NOT NULL"
            )
    state = _index(dsn, schema, "actions_run_idx")
    assert state is not None and state[0] is False  # the leftover: invalid

    assert _migrate(dsn, schema) == LATEST_VERSION
    state = _index(dsn, schema, "actions_run_idx")
    assert state is not None
    valid, definition = state
    assert valid is True and "UNIQUE" not in definition  # dropped and built as migration 4 says
    versions = [v for (v,) in fetch(dsn, f'SELECT v FROM "{schema}".migrations ORDER BY v')]
    assert versions == list(range(1, LATEST_VERSION + 1))  # no claim rows left


def test_no_advisory_lock_is_held_while_an_index_is_built(dsn: str, schema: str) -> None:
    assert _migrate(dsn, schema) == LATEST_VERSION
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP INDEX "{schema}".actions_run_idx')
        conn.execute(f'DELETE FROM "{schema}".migrations WHERE v = 4')
    # An uncommitted write to actions makes the concurrent build wait for it,
    # which gives us time to look at the builder's locks.
    blocker = psycopg.connect(dsn)
    blocker.execute(
        f'INSERT INTO "{schema}".actions (thread_id, action_id, action_type, status) '
        "VALUES ('t', 'blocker', 'node', 'completed')"
    )
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _migrate(dsn, schema)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    try:
        builder = None
        deadline = time.monotonic() + 60
        while builder is None and time.monotonic() < deadline:
            rows = fetch(
                dsn,
                "SELECT p.pid FROM pg_stat_progress_create_index p JOIN pg_class c "
                "ON c.oid = p.relid JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s",
                (schema,),
            )
            builder = rows[0][0] if rows else None
            time.sleep(0.05)
        assert builder is not None, "the index build never started"
        held = fetch(
            dsn,
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
            (builder,),
        )
        assert held == [(0,)]
    finally:
        blocker.rollback()
        blocker.close()
        worker.join(60)
    assert not errors
    state = _index(dsn, schema, "actions_run_idx")
    assert state is not None and state[0] is True
