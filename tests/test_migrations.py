"""The migration runner: invalid indexes rebuilt; no advisory lock across concurrent builds."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
import pytest
from psycopg import sql

from langgraph_actionckpt.db.driver import Op, SyncDriver
from langgraph_actionckpt.db.migrations import (
    plan_build_index,
    plan_migrate,
)
from langgraph_actionckpt.db.schema_versions import LATEST_VERSION, MIGRATIONS
from langgraph_actionckpt.errors import MigrationError

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
        # Pretend migration 4 was interrupted: its version row (and those of the
        # later migrations, which never ran after it) is missing and a
        # concurrent build of actions_run_idx failed halfway, leaving an invalid
        # index of that name (a real failed CREATE INDEX CONCURRENTLY: a unique
        # build over duplicate run ids).
        conn.execute(f'DROP INDEX "{schema}".actions_run_idx')
        conn.execute(f'DELETE FROM "{schema}".migrations WHERE v >= 4')  # and later ones
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
    assert versions == [m.version for m in MIGRATIONS]  # no claim rows left


def test_no_advisory_lock_is_held_while_an_index_is_built(dsn: str, schema: str) -> None:
    assert _migrate(dsn, schema) == LATEST_VERSION
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP INDEX "{schema}".actions_run_idx')
        conn.execute(f'DELETE FROM "{schema}".migrations WHERE v >= 4')  # and later ones
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


# ---------------------------------------------------------------- plans, fake rows


def _drive(plan: Any, results: list[Any]) -> tuple[list[Op], Any]:
    """Run a plan against canned results (no database); returns its ops and its value."""
    ops: list[Op] = []
    feed = iter(results)
    try:
        op = next(plan)
        while True:
            ops.append(op)
            op = plan.send(next(feed) if op.fetch in ("one", "all") else None)
    except StopIteration as stop:
        return ops, stop.value


def _text(op: Op) -> str:
    return op.query if isinstance(op.query, str) else op.query.as_string()


def test_build_index_plan_drops_an_invalid_index_first() -> None:
    create = sql.SQL("CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c)")
    # invalid and nobody builds it: drop, build, then it is valid
    ops, _ = _drive(plan_build_index("s", "i", create), [(False, False), (True, False)])
    texts = [_text(o) for o in ops]
    assert texts[1] == 'DROP INDEX CONCURRENTLY IF EXISTS "s"."i"'
    assert texts[2].startswith("CREATE INDEX CONCURRENTLY") and len(ops) == 4
    # valid already: nothing built
    ops, _ = _drive(plan_build_index("s", "i", create), [(True, False)])
    assert len(ops) == 1
    # another session is building it: wait (no drop), then it is valid
    ops, _ = _drive(plan_build_index("s", "i", create), [(False, True), (True, False)])
    assert [o.fetch for o in ops] == ["one", "sleep", "one"]
    # missing: built without a drop
    ops, _ = _drive(plan_build_index("s", "i", create), [None, (True, False)])
    assert "DROP" not in " ".join(_text(o) for o in ops if o.query)


def test_build_index_plan_gives_up_on_an_index_that_stays_invalid() -> None:
    create = sql.SQL("CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (c)")
    with pytest.raises(MigrationError, match="still invalid"):
        _drive(plan_build_index("s", "i", create), [(False, False)] * 10)


def test_migrate_plan_is_a_no_op_on_a_current_schema() -> None:
    ops, version = _drive(plan_migrate("s"), [(True,), (LATEST_VERSION,)])
    assert version == LATEST_VERSION and len(ops) == 2  # two reads, no lock, no DDL
    with pytest.raises(MigrationError, match="newer"):
        _drive(plan_migrate("s"), [(True,), (LATEST_VERSION + 1,)])


def test_migration_8_allows_superseded_on_a_schema_at_7(dsn: str, schema: str) -> None:
    """A schema made by version 7 (its status check, its rows) takes ``superseded`` after 8."""
    assert _migrate(dsn, schema) == LATEST_VERSION >= 8
    table = f'"{schema}".actions'
    with psycopg.connect(dsn, autocommit=True) as conn:
        # back to what version 7 left: its check, no row for migration 8 or later
        conn.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT actions_status_check, "
            "ADD CONSTRAINT actions_status_check CHECK (status IN ('pending', 'running', "
            "'completed', 'failed', 'unknown', 'interrupted', 'skipped'))"
        )
        conn.execute(f'DELETE FROM "{schema}".migrations WHERE v >= 8')
        conn.execute(f'DROP FUNCTION "{schema}".resumed_meta')
        conn.execute(
            f"INSERT INTO {table} (thread_id, action_id, action_type, status) "
            "VALUES ('t', 'a', 'node', 'running')"
        )
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(f"UPDATE {table} SET status = 'superseded'")
    assert _migrate(dsn, schema) == LATEST_VERSION
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"UPDATE {table} SET status = 'superseded'")
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(f"UPDATE {table} SET status = 'nonsense'")
    assert fetch(dsn, f"SELECT status FROM {table}") == [("superseded",)]
