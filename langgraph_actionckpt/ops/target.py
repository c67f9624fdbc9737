"""What every ops function runs on: a connection, a pool or a saver, and its schema."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.db.driver import SyncDriver
from langgraph_actionckpt.db.migrations import plan_schema_version
from langgraph_actionckpt.errors import ConfigurationError

Target = Any
"""A psycopg ``Connection``, a ``ConnectionPool`` or a saver with a ``driver``."""


def driver_for(target: Target) -> SyncDriver:
    """A sync driver over ``target`` (a connection, a pool or a saver).

    A bare connection must be in autocommit mode, since plans open and commit
    their own short transactions; an idle non-autocommit connection is switched
    to autocommit.

    Args:
        target: ``psycopg.Connection``, ``psycopg_pool.ConnectionPool`` or an
            ``ActionSaver`` (its connection or pool is used).

    Raises:
        ConfigurationError: The connection is inside a transaction, or the
            target is of an unknown type.
    """
    driver = getattr(target, "driver", None)
    if isinstance(driver, SyncDriver):
        if not driver.pipeline:
            return driver
        return SyncDriver(driver.conn)  # VACUUM and COPY want plain mode
    if isinstance(target, psycopg.Connection):
        if not target.autocommit:
            if target.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                raise ConfigurationError(
                    "the connection is inside a transaction; commit it first or pass an "
                    "autocommit connection"
                )
            target.autocommit = True
        return SyncDriver(target)
    if isinstance(target, ConnectionPool):
        return SyncDriver(target)
    raise ConfigurationError(
        f"expected a psycopg Connection, ConnectionPool or ActionSaver, got {type(target)!r}"
    )


def schema_for(target: Target, schema: str | None) -> str:
    """The schema to use: ``schema`` if given, else the saver's, else the default."""
    if schema is None:
        schema = getattr(target, "schema", None) or DEFAULT_SCHEMA
    return validate_schema(schema)


def schema_version(target: Target, schema: str | None = None) -> int | None:
    """The applied migration version of the schema (``None``: missing or not set up)."""
    sch = schema_for(target, schema)
    return driver_for(target).run(lambda: plan_schema_version(sch))


def require_schema(target: Target, schema: str | None = None) -> int:
    """The schema's version; raises when the schema is missing or was never set up.

    Raises:
        ConfigurationError: Naming the schema, instead of a raw SQL error later.
    """
    sch = schema_for(target, schema)
    version = schema_version(target, sch)
    if version is None:
        raise ConfigurationError(
            f"schema {sch!r} does not exist or is not set up in this database "
            f"(no {sch}.migrations table); check --schema, or create it with "
            "'actionckpt migrate' / saver.setup()"
        )
    return version
