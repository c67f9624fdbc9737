"""Archive idle threads' action logs to JSONL (a directory or any fsspec URL); import them back.

Threads are selected and deleted exactly as by :func:`~langgraph_actionckpt.ops.retention.prune`.
Archive writes only the **action log** (one JSON object per action, the format of
:func:`langgraph_actionckpt.actions.reads.records_to_jsonl`); checkpoints, blobs and
writes are not archived, so an archived thread can be inspected and re-imported
as a log but not resumed. File names are bounded and safe for any thread id
(:func:`thread_file_name`); the import reads thread ids from the rows, never
from file names. No async twins: from async code call these in a worker thread
(``asyncio.to_thread``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import re
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import psycopg
from psycopg import sql

from langgraph_actionckpt.actions.reads import records_to_jsonl
from langgraph_actionckpt.actions.record import COLUMNS, ActionRecord
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.encoding import escape_text
from langgraph_actionckpt.db.sqlid import regclass
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops.jsonable import Jsonable
from langgraph_actionckpt.ops.retention import (
    ProgressCallback,
    PruneResult,
    _batches,
    _ThreadDeleter,
    plan_read_actions,
)
from langgraph_actionckpt.ops.target import Target, driver_for, schema_for


@dataclasses.dataclass(slots=True)
class ArchiveResult(PruneResult):
    """What :func:`archive` did (deletion counts are zero with ``delete=False``).

    Here ``threads`` counts the threads archived (selected and exported, with
    ``delete=False`` too); ``deleted_threads`` those then deleted.

    Attributes:
        deleted_threads: Threads deleted after their export.
        dest: The archive directory or URL.
        files: JSONL files written (one per thread that has actions).
        archived_actions: Actions written to the files.
        skipped: Threads neither written nor deleted, each ``{"thread_id":
            <stored form>, "reason": ...}``: a thread goes whole or stays whole.
    """

    deleted_threads: int = 0
    dest: str = ""
    files: int = 0
    archived_actions: int = 0
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class ImportResult(Jsonable):
    """What :func:`import_archive` did.

    Attributes:
        imported: Rows inserted.
        files: Files imported (each in one transaction).
        skipped: Files left out whole, each ``{"file": ..., "reason": ...}``.
    """

    imported: int = 0
    files: int = 0
    skipped: list[dict[str, str]] = dataclasses.field(default_factory=list)


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_PREFIX_CHARS = 64


def thread_file_name(thread_id: str) -> str:
    """The archive file name of a thread: a readable prefix and a hash of the whole id.

    The prefix keeps ASCII letters, digits, ``_ . -`` of the id (anything else
    becomes ``_``) and at most 64 characters, so ``/``, ``..``, NUL or a 10 KB id
    never reach the file system; 16 hex digits of the id's SHA-256 keep names of
    different ids apart. At most 87 bytes, on every file system.
    """
    prefix = _UNSAFE.sub("_", thread_id)[:_PREFIX_CHARS].lstrip(".") or "thread"
    digest = hashlib.sha256(thread_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{prefix}-{digest}.jsonl"


def _is_url(dest: str) -> bool:
    return "://" in dest


class _Dest:
    """A local directory (pathlib) or any fsspec URL (fsspec imported lazily)."""

    def __init__(self, dest: str | os.PathLike[str]) -> None:
        self.raw = os.fspath(dest)
        self.fs: Any = None
        if _is_url(self.raw):
            try:
                import fsspec
            except ImportError as exc:  # pragma: no cover - depends on extras
                raise ConfigurationError(
                    f"archive URL {self.raw!r} needs fsspec: pip install "
                    "'langgraph-actionckpt[archive]'"
                ) from exc
            self.fs, self.path = fsspec.core.url_to_fs(self.raw)
        else:
            self.path = self.raw

    def makedirs(self) -> None:
        if self.fs is not None:
            self.fs.makedirs(self.path, exist_ok=True)
        else:
            Path(self.path).mkdir(parents=True, exist_ok=True)

    def write(self, name: str, text: str) -> None:
        if self.fs is not None:
            with self.fs.open(f"{self.path.rstrip('/')}/{name}", "w", encoding="utf-8") as f:
                f.write(text)
            return
        final = Path(self.path) / name
        tmp = final.with_name(f".{name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, final)

    def files(self) -> list[str]:
        if self.fs is not None:
            if self.fs.isdir(self.path):
                return sorted(str(p) for p in self.fs.glob(f"{self.path.rstrip('/')}/*.jsonl"))
            return [self.path]
        p = Path(self.path)
        if p.is_dir():
            return sorted(str(f) for f in p.glob("*.jsonl"))
        return [str(p)]

    def read(self, path: str) -> str:
        if self.fs is not None:
            with self.fs.open(path, "r", encoding="utf-8") as f:
                text: str = f.read()
                return text
        return Path(path).read_text(encoding="utf-8")


def archive(
    target: Target,
    schema: str | None,
    older_than: dt.timedelta | dt.datetime,
    dest: str | os.PathLike[str],
    *,
    keep_failed: bool = True,
    delete: bool = True,
    batch_size: int = 5000,
    progress: ProgressCallback | None = None,
    vacuum: bool = True,
    dry_run: bool = False,
) -> ArchiveResult:
    """Write the action log of idle threads to ``<dest>/<name>.jsonl``, then delete them.

    Threads are selected exactly as by :func:`prune`. Each thread with actions
    becomes one file (one action per line; named by :func:`thread_file_name`)
    in a local directory or at any fsspec URL (``s3://bucket/x``,
    ``memory://x``...). Only actions are archived: checkpoints, blobs and writes
    are deleted without a copy. A thread whose actions changed between export
    and delete is not deleted (its file stays and is overwritten next time).

    Args:
        target: Connection (autocommit), pool or saver.
        schema: The schema.
        older_than: Idle time (timedelta) or an aware cutoff datetime.
        dest: Local directory or fsspec URL.
        keep_failed: Keep (and do not archive) threads whose last action failed.
        delete: Delete the archived threads (``False``: export only).
        batch_size: About this many rows per transaction.
        progress: Called with (threads done, threads selected) after each batch.
        vacuum: ``VACUUM (ANALYZE)`` afterwards when rows were deleted.
        dry_run: Select and count only: nothing is written or deleted; the
            result says what would be (``files``, ``archived_actions``, ``threads``).
    """
    started = time.perf_counter()
    out = _Dest(dest)
    result = ArchiveResult(dest=out.raw)
    run = _ThreadDeleter(target, schema, older_than, keep_failed, batch_size, progress, result)
    cands = run.select()
    result.dry_run = dry_run
    if not dry_run:
        out.makedirs()
    for batch in _batches(cands, batch_size):
        ids = [c.thread_id for c in batch]
        records = run.driver.run(partial(plan_read_actions, run.q, ids))
        failed = {t: _export(out, recs, dry_run) for t, recs in records.items()}
        for thread_id, reason in failed.items():
            if reason is not None:
                result.skipped.append({"thread_id": thread_id, "reason": reason})
                continue
            result.files += 1
            result.archived_actions += len(records[thread_id])
        batch = [c for c in batch if failed.get(c.thread_id) is None]
        ids = [c.thread_id for c in batch]
        result.threads += len(ids)
        if dry_run:
            result.thread_ids.extend(ids)
            run._tick(len(batch))
        elif delete:
            run.delete(batch, expected={t: len(r) for t, r in records.items()})
        else:
            run._tick(len(batch))
    if dry_run and delete:
        run.count(cands)
    result.deleted_threads = run.deleted
    if delete and vacuum and result.deleted_threads:
        run.vacuum()
    result.seconds = time.perf_counter() - started
    return result


def _export(out: _Dest, recs: Sequence[ActionRecord], dry_run: bool) -> str | None:
    """Write one thread's file; the reason it could not be, or None."""
    try:
        text = records_to_jsonl(recs)
        if not dry_run:
            out.write(thread_file_name(recs[0].thread_id), text)
    except (OSError, TypeError, ValueError) as exc:  # kept, not deleted: reported
        return f"{type(exc).__name__}: {exc}"
    return None


# --------------------------------------------------------------------- import


_IMPORT_CHUNK = 1000
_DEFAULTS = {
    "step_index": "nextval(%(seq)s::regclass)",
    "checkpoint_ns": "''",
    "started_at": "now()",
    "attempt": "1",
    "idempotent": "true",
    "replayable": "true",
    "replayed": "0",
}


def _insert_sql(schema: str) -> sql.Composed:
    cols = sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)
    exprs = sql.SQL(", ").join(
        sql.SQL("COALESCE(x.{c}, {d})").format(c=sql.Identifier(c), d=sql.SQL(_DEFAULTS[c]))
        if c in _DEFAULTS
        else sql.SQL("x.{c}").format(c=sql.Identifier(c))
        for c in COLUMNS
    )
    return sql.SQL(
        "WITH ins AS (INSERT INTO {t} ({cols}) OVERRIDING SYSTEM VALUE "
        "SELECT {exprs} FROM jsonb_populate_recordset(NULL::{t}, %(rows)s::jsonb) AS x "
        "ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) FROM ins"
    ).format(t=sql.Identifier(schema, "actions"), cols=cols, exprs=exprs)


def _plan_sequence(schema: str) -> Plan[str]:
    table = regclass(schema, "actions")
    row = yield Op("SELECT pg_get_serial_sequence(%s, 'step_index')", (table,), "one")
    if row is None or row[0] is None:
        raise ConfigurationError(f"{table} has no identity step_index; run setup() first")
    return str(row[0])


def _plan_import(schema: str, seq: str, chunks: Sequence[list[dict[str, Any]]]) -> Plan[int]:
    """Insert one file's rows in one transaction; returns the rows inserted."""
    insert = _insert_sql(schema)
    total = 0
    yield BEGIN
    for chunk in chunks:
        row = yield Op(insert, {"rows": orjson.dumps(chunk).decode(), "seq": seq}, "one")
        total += int(row[0]) if row else 0
    yield COMMIT
    return total


def _plan_bump_sequence(seq: str, max_step: int) -> Plan[None]:
    """Move the identity sequence past explicitly imported ``step_index`` values.

    An archive imported into another database may carry values ahead of its
    sequence; new actions must still get higher (monotonic) step indexes.
    """
    yield Op(
        "SELECT setval(%(seq)s::regclass, %(m)s) "
        "WHERE %(m)s > COALESCE(pg_sequence_last_value(%(seq)s::regclass), 0)",
        {"seq": seq, "m": max_step},
        "all",
    )


def _parse_line(line: str, where: str) -> dict[str, Any]:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ConfigurationError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"{where}: expected a JSON object per line")
    for key in ("thread_id", "action_id", "action_type"):
        if not isinstance(data.get(key), str):
            raise ConfigurationError(f"{where}: missing or non-string {key!r}")
    # a file from before ids were exported in their stored form may hold NUL
    # (JSON cannot hold a lone surrogate; a stored form holds no NUL)
    return {
        k: escape_text(v) if isinstance(v, str) and "\x00" in v else v
        for k, v in data.items()
        if k in COLUMNS
    }


def import_archive(
    target: Target, schema: str | None, path_or_url: str | os.PathLike[str]
) -> ImportResult:
    """Restore actions written by :func:`archive` (a file, a directory, or an fsspec URL).

    Rows keep their original ``step_index`` (``OVERRIDING SYSTEM VALUE``) and
    every other column, so export then import gives identical rows. Rows whose
    ``(thread_id, action_id)`` or ``(thread_id, step_index)`` already exist are
    left alone, so importing twice is harmless. Each file (one thread) is
    imported in one transaction, all or nothing: a file that cannot be read or
    inserted is skipped whole, with the reason, and the others are imported.

    Args:
        target: Connection (autocommit), pool or saver.
        schema: The schema (it must be set up).
        path_or_url: A ``.jsonl`` file, a directory of them, or an fsspec URL.

    Returns:
        Rows inserted, files imported, and the files skipped with why.

    Raises:
        ConfigurationError: The schema is not set up.
    """
    sch = schema_for(target, schema)
    driver = driver_for(target)
    src = _Dest(path_or_url)
    seq = driver.run(partial(_plan_sequence, sch))
    result = ImportResult()
    max_step: int | None = None
    for path in src.files():
        try:
            rows = [
                _parse_line(line, f"{path}:{i}")
                for i, line in enumerate(src.read(path).splitlines(), 1)
                if line.strip()
            ]
            chunks = [rows[i : i + _IMPORT_CHUNK] for i in range(0, len(rows), _IMPORT_CHUNK)]
            if chunks:
                result.imported += driver.run(partial(_plan_import, sch, seq, chunks))
        except (OSError, ValueError, psycopg.DataError, psycopg.IntegrityError) as exc:
            result.skipped.append({"file": str(path), "reason": f"{type(exc).__name__}: {exc}"})
            continue
        result.files += 1
        steps = [r["step_index"] for r in rows if isinstance(r.get("step_index"), int)]
        if steps:
            max_step = max(steps) if max_step is None else max(max_step, *steps)
    if max_step is not None:
        driver.run(partial(_plan_bump_sequence, seq, max_step))
    return result
