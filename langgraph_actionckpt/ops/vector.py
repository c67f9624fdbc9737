"""Similarity search over the action log with pgvector.

:class:`VectorIndex` adds an ``embedding vector(n)`` column and an HNSW index
(cosine distance) to ``{schema}.actions``, embeds finished actions with any
LangChain :class:`~langchain_core.embeddings.Embeddings`, and finds the actions
nearest to a text or to another action ("which earlier failures look like this
one?"). :class:`BackgroundEmbedder` keeps the column filled from a daemon thread.

The column and its index are the optional step of the one migration runner
(:func:`langgraph_actionckpt.db.migrations.plan_migrate` with ``vector_dims``):
not a numbered migration, since it needs the ``vector`` extension and a
dimension only the embedding model knows. Many processes may call
:meth:`VectorIndex.ensure` at once. Every query is a plan run by the drivers.

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
from collections.abc import Sequence
from functools import partial
from typing import Any

import orjson
import psycopg
from langchain_core.embeddings import Embeddings
from psycopg import sql

from langgraph_actionckpt.actions.batch_rows import open_columns
from langgraph_actionckpt.actions.record import COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries, row_from_db
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.migrations import plan_migrate, plan_vector_state
from langgraph_actionckpt.db.sqlid import q
from langgraph_actionckpt.errors import ConfigurationError, VectorUnavailableError
from langgraph_actionckpt.ops.target import Target, driver_for, schema_for

logger = logging.getLogger("langgraph_actionckpt.vector")

MAX_TEXT_CHARS = 8000
"""Texts sent to the embedding model are truncated to this many characters."""

_PART_CHARS = 3000
_BATCH = 64  # actions read, embedded and written per round of embed_pending


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


# ----------------------------------------------------------------------- plans

_SELECT_PENDING = (
    "SELECT thread_id, step_index, action_type, name, input, output, error, action_id "
    "FROM {s}.actions "
    "WHERE embedding IS NULL AND status NOT IN ('pending', 'running') "
    "AND (thread_id, step_index) > (%s, %s) ORDER BY thread_id, step_index LIMIT %s"
)
# Vectors travel as pgvector's text form cast on the server, so no type adapter
# has to be registered on every pooled connection a plan may run on.
_UPDATE = "UPDATE {s}.actions SET embedding = %s::vector WHERE thread_id = %s AND step_index = %s"


def plan_pending_batch(schema: str, after: tuple[str, int], n: int) -> Plan[list[tuple[Any, ...]]]:
    """Up to ``n`` finished, unembedded actions after ``after`` (thread, step_index)."""
    rows = yield Op(q(schema, _SELECT_PENDING), (*after, n), "all")
    return list(rows)


def plan_store_embeddings(schema: str, params: list[tuple[str, str, int]]) -> Plan[None]:
    """Write ``(vector text, thread_id, step_index)`` rows."""
    yield Op(q(schema, _UPDATE), params, "many")


def plan_similar(
    schema: str,
    qvec: str,
    k: int,
    *,
    types: list[str] | None,
    statuses: list[str] | None,
    thread_id: str | None,
    exclude: tuple[str, str] | None,
    iterative_scan: bool,
    keyring: KeyRing | None = None,
) -> Plan[list[tuple[ActionRecord, float]]]:
    """The ``k`` embedded actions nearest to ``qvec`` (pgvector text), with distances."""
    conds = [sql.SQL("embedding IS NOT NULL")]
    params: dict[str, Any] = {"q": qvec, "k": k}
    if types is not None:
        conds.append(sql.SQL("action_type = ANY(%(types)s::text[])"))
        params["types"] = types
    if statuses is not None:
        conds.append(sql.SQL("status = ANY(%(statuses)s::text[])"))
        params["statuses"] = statuses
    if thread_id is not None:
        conds.append(sql.SQL("thread_id = %(thread_id)s"))
        params["thread_id"] = thread_id
    if exclude is not None:
        conds.append(sql.SQL("NOT (thread_id = %(ex_t)s AND action_id = %(ex_a)s)"))
        params["ex_t"], params["ex_a"] = exclude
    query = q(
        schema,
        "SELECT {cols}, (embedding <=> %(q)s::vector)::float8 FROM {s}.actions WHERE {where} "
        "ORDER BY embedding <=> %(q)s::vector LIMIT %(k)s",
        cols=sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS),
        where=sql.SQL(" AND ").join(conds),
    )
    yield BEGIN
    if iterative_scan:
        # filtered HNSW scans keep searching until k rows pass the filters
        yield Op("SET LOCAL hnsw.iterative_scan = strict_order")
    rows = yield Op(query, params, "all")
    yield COMMIT
    aq = ActionQueries(schema, keyring)
    return [(row_from_db(r[:-1], aq), float(r[-1])) for r in rows]


# ----------------------------------------------------------------------- index


class VectorIndex:
    """Embeddings of actions in ``{schema}.actions`` and nearest-neighbour queries.

    Args:
        target: A saver, a ``ConnectionPool`` or an autocommit ``Connection``.
        schema: The schema (``None``: the saver's, else ``actionckpt``).
        embeddings: Any LangChain ``Embeddings`` (``embed_documents`` for actions,
            ``embed_query`` for queries).
        dims: Vector dimension; ``None`` reads it from an existing column or
            probes the model once.
        encryption: The key ring of encrypted action rows (``None``: the saver's);
            actions are decrypted to be embedded, and the vectors are stored in
            plain text (see the README, "Encryption").

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
        encryption: KeyRing | None = None,
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
        self.encryption = encryption or getattr(target, "encryption", None)
        self._ready = False
        self._iterative_scan = False

    # --------------------------------------------------------------- setup

    def ensure(self) -> int:
        """Apply the migration runner's vector step: extension, column, HNSW index.

        Idempotent and safe from many processes (see
        :func:`~langgraph_actionckpt.db.migrations.plan_migrate`); the index is
        built with ``CREATE INDEX CONCURRENTLY`` so writers are not blocked, and
        no lock is held while it builds.

        Returns:
            The vector dimension.

        Raises:
            VectorUnavailableError: pgvector is not available on the server (or
                the role may not create it), or the Python package is missing.
            ConfigurationError: ``dims`` disagrees with an existing column or
                with the model.
        """
        _import_pgvector()
        state = self.driver.run(lambda: plan_vector_state(self.schema))
        if not state.available:
            raise VectorUnavailableError(
                "similarity search needs the pgvector extension, but the server "
                f"(PostgreSQL {state.server_version}) does not have it: "
                "'vector' is not in pg_available_extensions. Install pgvector on the "
                "server (e.g. the postgresql-<version>-pgvector package) or use the "
                "embedded PostgreSQL, which ships it."
            )
        dims = self._dims(state.column_dims)
        try:
            self.driver.run(lambda: plan_migrate(self.schema, vector_dims=dims))
        except psycopg.errors.InsufficientPrivilege as exc:
            raise VectorUnavailableError(
                "pgvector is available on the server but not created in this "
                "database, and this role may not create it: ask a superuser to run "
                "'CREATE EXTENSION vector'"
            ) from exc
        state = self.driver.run(lambda: plan_vector_state(self.schema))
        if state.column_dims and state.column_dims != dims:  # another process won the race
            raise ConfigurationError(
                f"{self.schema}.actions.embedding has {state.column_dims} dimensions, "
                f"but {dims} were wanted"
            )
        self._iterative_scan = _version_at_least(state.extension_version or "0", (0, 8))
        self.dims = dims
        self._ready = True
        return dims

    def _dims(self, existing: int | None) -> int:
        dims = self.dims
        if existing:
            if dims is not None and dims != existing:
                raise ConfigurationError(
                    f"{self.schema}.actions.embedding has {existing} dimensions, "
                    f"but dims={dims} was given"
                )
            return existing
        if dims is None:
            dims = len(self.embeddings.embed_query("dimension probe"))
        return dims

    def _check_ready(self) -> None:
        if not self._ready:
            self.ensure()

    # ------------------------------------------------------------- embedding

    def _vector(self, values: Sequence[float]) -> str:
        from pgvector import Vector

        if self.dims is not None and len(values) != self.dims:
            raise ConfigurationError(
                f"the embedding model returned {len(values)} dimensions, the column has {self.dims}"
            )
        text: str = Vector(list(values)).to_text()
        return text

    def embed_pending(self, batch_size: int = _BATCH, *, limit: int | None = None) -> int:
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
        done = 0
        after: tuple[str, int] = ("", -(2**62))
        while limit is None or done < limit:
            n = batch_size if limit is None else min(batch_size, limit - done)
            rows = self.driver.run(partial(plan_pending_batch, self.schema, after, n))
            if not rows:
                break
            texts = [action_text(*self._opened(r)[2:7]) for r in rows]
            vectors = self.embeddings.embed_documents(texts)
            params = [(self._vector(v), r[0], r[1]) for r, v in zip(rows, vectors, strict=True)]
            self.driver.run(partial(plan_store_embeddings, self.schema, params))
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
        return self.driver.run(
            partial(
                plan_similar,
                self.schema,
                qvec,
                k,
                types=_as_list(action_type),
                statuses=_as_list(status),
                thread_id=thread_id,
                exclude=exclude,
                iterative_scan=self._iterative_scan,
                keyring=self.encryption,
            )
        )

    def _opened(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        """A pending row with its input, output and error decrypted (refused if sealed, no key)."""
        values = dict(
            zip(
                ("thread_id", "input", "output", "error", "action_id"),
                row[0:1] + row[4:8],
                strict=True,
            )
        )
        open_columns(self.encryption, self.schema, values)
        return (*row[:4], values["input"], values["output"], values["error"], row[7])


def _as_list(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


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

    def __init__(self, index: VectorIndex, interval: float = 5.0, batch_size: int = _BATCH) -> None:
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
