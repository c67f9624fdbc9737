"""The cold tier: archived threads in an object store (any fsspec URL), restored on read.

PostgreSQL stays the system of record. :meth:`ColdTier.archive` writes every
row of a thread (checkpoints, blobs, writes, actions; each row as PostgreSQL's
own ``to_jsonb``, so bytea, arrays and timestamps round-trip exactly) to
``<url>/<schema>/<safe name>.json.gz`` and deletes the rows in the same
transaction that read them. :meth:`ColdTier.ensure` restores an archived thread
before a call that names it, and removes the archive once the rows are back.
"""

from __future__ import annotations

import asyncio
import gzip
from collections import OrderedDict
from typing import Any

import orjson
from psycopg import sql

from langgraph_actionckpt.aio import AsyncActionSaver
from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.db.plan import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.errors import SerializationError
from langgraph_actionckpt.ops.archiving import thread_file_name

__all__ = ["ColdTier", "plan_export", "plan_restore"]

TABLES = ("checkpoints", "blobs", "writes", "actions")
_HOT_MAX = 100_000  # threads known to be in PostgreSQL (no object-store lookup for them)


def plan_export(schema: str, thread_id: str, delete: bool) -> Plan[dict[str, Any]]:
    """Read (and with ``delete``, remove) a thread's rows, in one transaction."""
    s = sql.Identifier(schema)
    tid = escape_text(thread_id)
    out: dict[str, Any] = {}
    yield BEGIN
    for table in TABLES:
        t = sql.Identifier(table)
        row = yield Op(
            sql.SQL(
                "SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb)::text FROM {}.{} r "
                "WHERE r.thread_id = %s"
            ).format(s, t),
            (tid,),
            "one",
        )
        out[table] = orjson.loads(row[0])
        if delete:
            yield Op(sql.SQL("DELETE FROM {}.{} WHERE thread_id = %s").format(s, t), (tid,))
    yield COMMIT
    return out


def plan_restore(schema: str, doc: dict[str, Any]) -> Plan[None]:
    """Insert archived rows back (rows already there are kept), in one transaction."""
    s = sql.Identifier(schema)
    yield BEGIN
    for table in TABLES:
        rows = doc.get(table) or []
        if not rows:
            continue
        t = sql.Identifier(table)
        yield Op(
            sql.SQL(
                "INSERT INTO {s}.{t} OVERRIDING SYSTEM VALUE "
                "SELECT * FROM jsonb_populate_recordset(NULL::{s}.{t}, %s::jsonb) "
                "ON CONFLICT DO NOTHING"
            ).format(s=s, t=t),
            (orjson.dumps(rows).decode(),),
        )
    yield COMMIT


class ColdTier:
    """Archived threads under one fsspec URL.

    Args:
        url: Where archives go (``s3://bucket/prefix``, ``file:///...``, ``memory://``).
        storage_options: Passed to fsspec (credentials, ``client_kwargs``...).
    """

    def __init__(self, url: str, storage_options: dict[str, Any] | None = None) -> None:
        import fsspec

        self.url = url.rstrip("/")
        self.fs, self.root = fsspec.core.url_to_fs(self.url, **(storage_options or {}))
        self._hot: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    def path(self, schema: str, thread_id: str) -> str:
        """The object of a thread's archive."""
        name = thread_file_name(thread_id).removesuffix(".jsonl")
        return f"{self.root}/{schema}/{name}.json.gz"

    async def archive(self, saver: AsyncActionSaver, thread_id: str) -> str | None:
        """Move a thread to the object store; its URL, or None when it has no rows."""
        schema = saver.schema
        async with self._lock(schema, thread_id):
            await saver.aflush_writes()
            doc = await saver.driver.run(
                lambda: plan_export(schema, thread_id, delete=False), pipeline=False
            )
            if not any(doc[t] for t in TABLES):
                return None
            doc["thread_id"] = thread_id
            data = gzip.compress(orjson.dumps(doc))
            path = self.path(schema, thread_id)
            await asyncio.to_thread(self._write, path, data)
            # the rows go only once the archive is written
            await saver.driver.run(
                lambda: plan_export(schema, thread_id, delete=True), pipeline=False
            )
            saver.store.forget([thread_id])
            self._hot.pop((schema, thread_id), None)
            return f"{self.url}/{schema}/{path.rsplit('/', 1)[-1]}"

    async def ensure(self, saver: AsyncActionSaver, thread_id: str) -> bool:
        """Restore a thread from the object store if it is archived; True when restored."""
        key = (saver.schema, thread_id)
        if key in self._hot:
            return False
        async with self._lock(*key):
            if key in self._hot:
                return False
            path = self.path(*key)
            data = await asyncio.to_thread(self._read, path)
            restored = False
            if data is not None:
                doc = orjson.loads(gzip.decompress(data))
                if doc.get("thread_id") != thread_id:
                    raise SerializationError(f"the archive at {path} is of another thread")
                await saver.driver.run(lambda: plan_restore(saver.schema, doc), pipeline=False)
                saver.store.forget([thread_id])
                await asyncio.to_thread(self.fs.rm, path)
                restored = True
            self._hot[key] = None
            if len(self._hot) > _HOT_MAX:
                self._hot.popitem(last=False)
            return restored

    def _lock(self, schema: str, thread_id: str) -> asyncio.Lock:
        if len(self._locks) > _HOT_MAX:
            self._locks.clear()
        return self._locks.setdefault((schema, thread_id), asyncio.Lock())

    def _write(self, path: str, data: bytes) -> None:
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with self.fs.open(path, "wb") as fh:
            fh.write(data)

    def _read(self, path: str) -> bytes | None:
        try:
            with self.fs.open(path, "rb") as fh:
                data: bytes = fh.read()
                return data
        except FileNotFoundError:
            return None
