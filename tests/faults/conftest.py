"""Fixtures of the fault suite: a private PostgreSQL and a pgbouncer per test session.

The suite needs the machine's PostgreSQL server binaries and pgbouncer. Where they
are missing the tests skip with the reason, unless ``ACTIONCKPT_REQUIRE_FAULTS=1``
(set by ``.ci/run``), which turns the skip into a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.faults.servers import PgBouncer, PrivatePostgres, missing_binaries


def _need(pgbouncer: bool = False) -> None:
    reason = missing_binaries(pgbouncer=pgbouncer)
    if reason is None:
        return
    if os.environ.get("ACTIONCKPT_REQUIRE_FAULTS") == "1":
        pytest.fail(f"fault suite required (ACTIONCKPT_REQUIRE_FAULTS=1) but {reason}")
    pytest.skip(f"fault suite needs its own servers: {reason}")


@pytest.fixture(scope="session")
def private_pg() -> Iterator[PrivatePostgres]:
    """A private PostgreSQL for this session (never the shared server at 5432)."""
    _need()
    pg = PrivatePostgres()
    yield pg
    pg.close()


@pytest.fixture(scope="session")
def bouncer(private_pg: PrivatePostgres) -> Iterator[PgBouncer]:
    """A transaction-mode pgbouncer in front of :func:`private_pg`."""
    _need(pgbouncer=True)
    b = PgBouncer(private_pg, pool_size=4)
    yield b
    b.close()


@pytest.fixture
def restartable_pg() -> Iterator[PrivatePostgres]:
    """A PostgreSQL of the test's own, which it may stop, restart or kill."""
    _need()
    pg = PrivatePostgres()
    yield pg
    pg.close()


@pytest.fixture
def fault_schema(private_pg: PrivatePostgres) -> Iterator[str]:
    """A fresh schema name on the private server, dropped afterwards."""
    name = f"f_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
