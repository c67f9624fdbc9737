"""Similarity search over the action log with pgvector.

:class:`VectorIndex` adds an ``embedding vector(n)`` column and an HNSW index
(cosine distance) to ``{schema}.actions``, embeds finished actions with any
LangChain :class:`~langchain_core.embeddings.Embeddings`, and finds the actions
nearest to a text or to another action ("which earlier failures look like this
one?"). :class:`BackgroundEmbedder` keeps the column filled from a daemon thread.

The column is added outside the numbered migrations (it needs the ``vector``
extension and a dimension only the embedding model knows), as an idempotent
step under a per-schema advisory lock, so many processes may call
:meth:`VectorIndex.ensure` at once.

Requirements: the ``vector`` extension available on the server (the embedded
PostgreSQL ships it) and the ``pgvector`` Python package
(``pip install 'langgraph-actionckpt[vector]'``); otherwise
:class:`~langgraph_actionckpt.errors.VectorUnavailableError` says which is missing.
Everything else in the package works without them. No async twin yet: call these
from a worker thread (``asyncio.to_thread``) in async code.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson
import psycopg
from langchain_core.embeddings import Embeddings
from psycopg import sql

from langgraph_actionckpt.actions.records import COLUMNS, ActionRecord, row_from_db
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.errors import ConfigurationError, VectorUnavailableError
from langgraph_actionckpt.ops.reports import Target, driver_for, regclass, schema_for

logger = logging.getLogger("langgraph_actionckpt.vector")

MAX_TEXT_CHARS = 8000
"""Texts sent to the embedding model are truncated to this many characters."""

_PART_CHARS = 3000
_registered: weakref.WeakSet[psycopg.Connection[Any]] = weakref.WeakSet()


def _import_pgvector() -> Any:
    try:
        from pgvector import psycopg as pgvector_psycopg
    except ImportError as exc:
        raise VectorUnavailableError(
            "similarity search needs the 'pgvector' Python package: "
            "pip install 'langgraph-actionckpt[vector]'"
        ) from exc
    return pgvector_psycopg


def _render_value(value: Any) -> str:
    """A compact text form of a stored JSON value for embedding."""
    value = _encoding.from_jsonable(value)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    if content is not None:  # a LangChain message
        text = content if isinstance(content, str) else orjson.dumps(content).decode()
        calls = getattr(value, "tool_calls", None)
        if calls:
            text += (
                " "
                + orjson.dumps(
                    [{"name": c.get("name"), "args": c.get("args")} for c in calls], default=str
                ).decode()
            )
        return text
    try:
        return orjson.dumps(_encoding.to_jsonable(value)).decode()
    except TypeError:
        return str(value)


def action_text(action_type: str, name: str | None, input: Any, output: Any, error: Any) -> str:
    """The text embedded for one action: type, name, input, output and error.

    Each part is rendered compactly (strings as is, messages as their content,
    anything else as compact JSON), cut to a few thousand characters, and the
    whole to :data:`MAX_TEXT_CHARS`.
    """
    parts = [action_type, name or ""]
    for label, value in (("input", input), ("output", output), ("error", error)):
        text = _render_value(value)
        if text:
            parts.append(f"{label}: {text[:_PART_CHARS]}")
    return " | ".join(p for p in parts if p)[:MAX_TEXT_CHARS]


def record_text(record: ActionRecord) -> str:
    """:func:`action_text` of a record (values already decoded are re-encoded first)."""
    return action_text(
        record.action_type,
        record.name,
        _encoding.to_jsonable(record.input),
        _encoding.to_jsonable(record.output),
        _encoding.to_jsonable(record.error),
    )


class VectorIndex:
    """Embeddings of actions in ``{schema}.actions`` and nearest-neighbour queries.

    Args:
        target: A saver, a ``ConnectionPool`` or an autocommit ``Connection``.
        schema: The schema (``None``: the saver's, else ``actionckpt``).
        embeddings: Any LangChain ``Embeddings`` (``embed_documents`` for actions,
            ``embed_query`` for queries).
        dims: Vector dimension; ``None`` reads it from an existing column or
            probes the model once.

    Example:
        >>> index = VectorIndex(saver, None, OpenAIEmbeddings())  # doctest: +SKIP
        >>> index.ensure(); index.embed_pending()                 # doctest: +SKIP
        >>> index.similar_actions("rate limit 429", status="failed")  # doctest: +SKIP
    """

    def __init__(
        self,
        target: Target,
        schema: str | None = None,
        embeddings: Embeddings | None = None,
        dims: int | None = None,
    ) -> None:
        if embeddings is None:
            raise VectorUnavailableError(
                "similarity search needs an embedding model: pass embeddings=... "
                "(any langchain_core.embeddings.Embeddings)"
            )
        self.driver = driver_for(target)
        self.schema = schema_for(target, schema)
        self.embeddings = embeddings
        self.dims = dims
        self._ready = False
        self._iterative_scan = False
        self._table = sql.Identifier(self.schema, "actions")

    # ------------------------------------------------------------ plumbing

    @contextmanager
    def _conn(self, *, vector: bool = True) -> Iterator[psycopg.Connection[Any]]:
        with self.driver.connection() as conn:
            if vector and conn not in _registered:
                pgv = _import_pgvector()
                try:
                    pgv.register_vector(conn)
                except (psycopg.ProgrammingError, TypeError) as exc:
                    raise VectorUnavailableError(
                        "the 'vector' type is not installed in this database; call "
                        "VectorIndex.ensure() first"
                    ) from exc
                _registered.add(conn)
            yield conn

    def _column_dims(self, conn: psycopg.Connection[Any]) -> int | None:
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attname = 'embedding' AND NOT attisdropped",
            (regclass(self.schema, "actions"),),
        ).fetchone()
        if row is None:
            return None
        return int(row[0]) if row[0] and row[0] > 0 else 0

    # --------------------------------------------------------------- setup

    def ensure(self) -> int:
        """Create the extension, the ``embedding`` column and its HNSW index if missing.

        Idempotent; serialized across processes by an advisory lock. The index is
        built with ``CREATE INDEX CONCURRENTLY`` so writers are not blocked.

        Returns:
            The vector dimension.

        Raises:
            VectorUnavailableError: pgvector is not available on the server (or
                the role may not create it), or the Python package is missing.
            ConfigurationError: ``dims`` disagrees with an existing column or
                with the model.
        """
        _import_pgvector()
        with self._conn(vector=False) as conn:
            row = conn.execute(
                "SELECT default_version, installed_version FROM pg_available_extensions "
                "WHERE name = 'vector'"
            ).fetchone()
            if row is None:
                version = conn.execute("SHOW server_version").fetchone()
                raise VectorUnavailableError(
                    "similarity search needs the pgvector extension, but the server "
                    f"(PostgreSQL {version[0] if version else '?'}) does not have it: "
                    "'vector' is not in pg_available_extensions. Install pgvector on the "
                    "server (e.g. the postgresql-<version>-pgvector package) or use the "
                    "embedded PostgreSQL, which ships it."
                )
            lock_key = f"langgraph_actionckpt:{self.schema}:vector"
            conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (lock_key,))
            try:
                try:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                except psycopg.errors.InsufficientPrivilege as exc:
                    raise VectorUnavailableError(
                        "pgvector is available on the server but not created in this "
                        "database, and this role may not create it: ask a superuser to run "
                        "'CREATE EXTENSION vector'"
                    ) from exc
                ext = conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
                self._iterative_scan = _version_at_least(ext[0] if ext else "0", (0, 8))
                existing = self._column_dims(conn)
                dims = self.dims
                if existing:
                    if dims is not None and dims != existing:
                        raise ConfigurationError(
                            f"{self.schema}.actions.embedding has {existing} dimensions, "
                            f"but dims={dims} was given"
                        )
                    dims = existing
                if dims is None:
                    dims = len(self.embeddings.embed_query("dimension probe"))
                if existing is None:
                    conn.execute(
                        sql.SQL(
                            "ALTER TABLE {} ADD COLUMN IF NOT EXISTS embedding vector({})"
                        ).format(self._table, sql.Literal(int(dims)))
                    )
                self._ensure_index(conn)
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (lock_key,))
        self.dims = dims
        self._ready = True
        return dims

    def _ensure_index(self, conn: psycopg.Connection[Any]) -> None:
        name = "actions_embedding_hnsw_idx"
        row = conn.execute(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = %s",
            (self.schema, name),
        ).fetchone()
        if row is not None and row[0]:
            return
        if row is not None:  # an interrupted concurrent build left an invalid index
            conn.execute(
                sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(
                    sql.Identifier(self.schema, name)
                )
            )
        conn.execute(
            sql.SQL(
                "CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON {} "
                "USING hnsw (embedding vector_cosine_ops)"
            ).format(sql.Identifier(name), self._table)
        )

    def _check_ready(self) -> None:
        if not self._ready:
            self.ensure()

    # ------------------------------------------------------------- embedding

    def _vector(self, values: Sequence[float]) -> Any:
        from pgvector import Vector

        if self.dims is not None and len(values) != self.dims:
            raise ConfigurationError(
                f"the embedding model returned {len(values)} dimensions, the column has {self.dims}"
            )
        return Vector(list(values))

    def embed_pending(self, batch_size: int = 64, *, limit: int | None = None) -> int:
        """Embed finished actions that have no embedding yet.

        Actions still ``pending``/``running`` are skipped until they finish (their
        output is not known yet). The model is called without holding a
        database connection.

        Args:
            batch_size: Actions per ``embed_documents`` call and per write.
            limit: Stop after this many (``None``: until none are left).

        Returns:
            How many actions were embedded.
        """
        self._check_ready()
        select = sql.SQL(
            "SELECT thread_id, step_index, action_type, name, input, output, error FROM {} "
            "WHERE embedding IS NULL AND status NOT IN ('pending', 'running') "
            "AND (thread_id, step_index) > (%s, %s) "
            "ORDER BY thread_id, step_index LIMIT %s"
        ).format(self._table)
        update = sql.SQL(
            "UPDATE {} SET embedding = %s WHERE thread_id = %s AND step_index = %s"
        ).format(self._table)
        done = 0
        after: tuple[str, int] = ("", -(2**62))
        while limit is None or done < limit:
            n = batch_size if limit is None else min(batch_size, limit - done)
            with self._conn() as conn:
                rows = conn.execute(select, (*after, n)).fetchall()
            if not rows:
                break
            texts = [action_text(r[2], r[3], r[4], r[5], r[6]) for r in rows]
            vectors = self.embeddings.embed_documents(texts)
            params = [(self._vector(v), r[0], r[1]) for r, v in zip(rows, vectors, strict=True)]
            with self._conn() as conn, conn.cursor() as cur:
                cur.executemany(update, params)
            done += len(rows)
            after = (rows[-1][0], rows[-1][1])
            if len(rows) < n:
                break
        return done

    # ---------------------------------------------------------------- search

    def similar_actions(
        self,
        text_or_action: str | ActionRecord,
        k: int = 5,
        *,
        action_type: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        thread_id: str | None = None,
    ) -> list[tuple[ActionRecord, float]]:
        """The ``k`` embedded actions nearest to a text or an action (cosine distance).

        Args:
            text_or_action: A query text, or an :class:`ActionRecord` (searched by
                its rendered text; the action itself is excluded).
            k: How many results.
            action_type: Only actions of this type (or types).
            status: Only actions with this status (or statuses).
            thread_id: Only actions of this thread.

        Returns:
            ``(record, distance)`` pairs, nearest first; distance is in [0, 2].
        """
        self._check_ready()
        if isinstance(text_or_action, ActionRecord):
            query_text = record_text(text_or_action)
            exclude: tuple[str, str] | None = (text_or_action.thread_id, text_or_action.action_id)
        else:
            query_text = str(text_or_action)[:MAX_TEXT_CHARS]
            exclude = None
        qvec = self._vector(self.embeddings.embed_query(query_text))
        conds = [sql.SQL("embedding IS NOT NULL")]
        params: dict[str, Any] = {"q": qvec, "k": k}
        if action_type is not None:
            conds.append(sql.SQL("action_type = ANY(%(types)s::text[])"))
            params["types"] = [action_type] if isinstance(action_type, str) else list(action_type)
        if status is not None:
            conds.append(sql.SQL("status = ANY(%(statuses)s::text[])"))
            params["statuses"] = [status] if isinstance(status, str) else list(status)
        if thread_id is not None:
            conds.append(sql.SQL("thread_id = %(thread_id)s"))
            params["thread_id"] = thread_id
        if exclude is not None:
            conds.append(sql.SQL("NOT (thread_id = %(ex_t)s AND action_id = %(ex_a)s)"))
            params["ex_t"], params["ex_a"] = exclude
        query = sql.SQL(
            "SELECT {cols}, (embedding <=> %(q)s)::float8 FROM {t} WHERE {where} "
            "ORDER BY embedding <=> %(q)s LIMIT %(k)s"
        ).format(
            cols=sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS),
            t=self._table,
            where=sql.SQL(" AND ").join(conds),
        )
        with self._conn() as conn, conn.transaction():
            if self._iterative_scan:
                # filtered HNSW scans keep searching until k rows pass the filters
                conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            rows = conn.execute(query, params).fetchall()
        return [(row_from_db(r[:-1]), float(r[-1])) for r in rows]


def _version_at_least(version: str, want: tuple[int, int]) -> bool:
    try:
        parts = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return False
    return parts >= want


class BackgroundEmbedder:
    """Calls :meth:`VectorIndex.embed_pending` every ``interval`` seconds in a daemon thread.

    Errors (model or database) are logged and kept in :attr:`last_error`; they
    never reach the caller. Use as a context manager or call :meth:`start` and
    :meth:`stop`.

    Args:
        index: The index to fill.
        interval: Seconds between passes.
        batch_size: Passed to ``embed_pending``.

    Attributes:
        embedded: Actions embedded so far.
        passes: Completed passes.
        last_error: The last exception, if any.
    """

    def __init__(self, index: VectorIndex, interval: float = 5.0, batch_size: int = 64) -> None:
        self.index = index
        self.interval = interval
        self.batch_size = batch_size
        self.embedded = 0
        self.passes = 0
        self.last_error: BaseException | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> BackgroundEmbedder:
        """Start the thread (no-op if running)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._loop, name="actionckpt-embedder", daemon=True
            )
            self._thread.start()
        return self

    def wake(self) -> None:
        """Run a pass now instead of waiting for the interval."""
        self._wake.set()

    def run_once(self) -> int:
        """One pass; returns how many actions were embedded (0 on error, which is logged)."""
        try:
            n = self.index.embed_pending(self.batch_size)
        except Exception as exc:
            self.last_error = exc
            logger.exception("background embedding failed")
            return 0
        finally:
            self.passes += 1
        self.embedded += n
        return n

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._wake.wait(self.interval)
            self._wake.clear()

    def stop(self, timeout: float | None = 10.0) -> None:
        """Stop the thread and wait for the current pass to finish."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> BackgroundEmbedder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
