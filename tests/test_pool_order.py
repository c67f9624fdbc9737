"""The savers' pools hand out the idle connection returned last (``_saver_base.recent_first``).

psycopg_pool has no public option for the order of its idle connections, so the saver swaps
the pool's private idle deque. That relies on psycopg_pool's internals: the range below is the
one the code was checked against (the deque's type and that connections are taken with
``popleft``); a new psycopg-pool release is checked before pyproject.toml's range moves.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version
from psycopg_pool import ConnectionPool

from langgraph_actionckpt import ActionSaver

ROOT = Path(__file__).resolve().parent.parent
CHECKED = SpecifierSet(">=3.2,<3.4")


def test_psycopg_pool_is_a_version_the_idle_order_was_checked_against() -> None:
    assert Version(importlib.metadata.version("psycopg-pool")) in CHECKED
    pyproject = (ROOT / "pyproject.toml").read_text()
    required = re.search(r'"psycopg-pool([^"]*)"', pyproject)
    assert required is not None and SpecifierSet(required.group(1)) == CHECKED


def test_a_savers_pool_hands_out_the_connection_returned_last(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=2) as saver:
        pool = saver.driver.conn
        assert isinstance(pool, ConnectionPool)
        with pool.connection() as first, pool.connection() as second:
            assert first is not second
        # second went back before first: oldest-first order would hand out second
        with pool.connection() as again:
            assert again is first
