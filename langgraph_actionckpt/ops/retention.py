"""Retention: prune old threads (archive and import live in :mod:`.archiving`).

The unit of retention is a *thread*: a thread is selected when its newest
activity (the latest of ``actions.started_at``, ``actions.completed_at`` and
``checkpoints.created_at``) is older than the cutoff. Selected threads lose all
their rows in ``checkpoints``, ``blobs``, ``writes`` and ``actions``.

Never deleted:

* threads with an action still ``pending``/``running`` (its outcome is unknown
  and a person or a resume may still need it);
* threads whose last action failed, unless ``keep_failed=False`` (they are what
  an operator looks at with ``actionckpt failed``).

Concurrency: the threads are chosen by one read-only query (MVCC, no locks);
then they are deleted in bounded batches (about ``batch_size`` rows each), each
batch its own short transaction, so concurrent writers are never blocked for
long. Inside each batch the conditions are checked again, and checked once more
after the deletes: a thread that got new activity meanwhile (a resumed run) makes
the batch roll back and is skipped (``skipped_changed``). A thread larger than
``batch_size`` is deleted over several transactions, oldest rows first and blobs
last, each re-checking that the thread is still idle, so a thread resumed between
two of them still has its latest checkpoint and the blobs it needs.

``dry_run=True`` selects and counts the same way and changes nothing. No async
twins: from async code call these in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

from psycopg import sql

from langgraph_actionckpt.actions.record import COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import row_from_db
from langgraph_actionckpt.actions.settle import UNSETTLED_SQL
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.sqlid import q as _q
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops.jsonable import Jsonable
from langgraph_actionckpt.ops.target import Target, driver_for, schema_for

ProgressCallback = Callable[[int, int], None]
"""Called after each batch with (threads done, threads selected)."""

TABLES = ("writes", "actions", "checkpoints", "blobs")
"""Deletion order; blobs last so a checkpoint never outlives the blobs it needs."""

_ORDER = {
    "writes": "checkpoint_id, task_id, idx",
    "actions": "step_index",
    "checkpoints": "checkpoint_id",
    "blobs": "version",
}
# Each table's primary key after thread_id: a chunk is picked by key (not by
# ctid, which Citus cannot plan), in the thread's shard.
_KEY = {
    "writes": "checkpoint_ns, checkpoint_id, task_id, idx",
    "actions": "step_index",
    "checkpoints": "checkpoint_ns, checkpoint_id",
    "blobs": "checkpoint_ns, channel, version",
}
_ROLLBACK = Op(fetch="rollback")
_MAX_THREADS_PER_BATCH = 1000


@dataclasses.dataclass(slots=True)
class PruneResult(Jsonable):
    """What :func:`prune` did.

    Attributes:
        threads: Threads deleted.
        actions: Action rows deleted.
        checkpoints: Checkpoint rows deleted.
        blobs: Blob rows deleted.
        writes: Write rows deleted.
        batches: Transactions that deleted rows.
        kept_failed: Old threads kept because their last action failed.
        kept_inflight: Old threads kept because an action is still in flight.
        skipped_changed: Threads skipped because they got new activity (or, for
            archive, changed between export and delete) while the prune ran.
        vacuumed: ``VACUUM (ANALYZE)`` ran on the tables.
        seconds: Wall time.
        dry_run: Nothing was changed; the counts say what would have been.
        thread_ids: With ``dry_run``, the threads that would go.
    """

    threads: int = 0
    actions: int = 0
    checkpoints: int = 0
    blobs: int = 0
    writes: int = 0
    batches: int = 0
    kept_failed: int = 0
    kept_inflight: int = 0
    skipped_changed: int = 0
    vacuumed: bool = False
    seconds: float = 0.0
    dry_run: bool = False
    thread_ids: list[str] = dataclasses.field(default_factory=list)

    def _add(self, counts: dict[str, int]) -> None:
        self.actions += counts.get("actions", 0)
        self.checkpoints += counts.get("checkpoints", 0)
        self.blobs += counts.get("blobs", 0)
        self.writes += counts.get("writes", 0)


@dataclasses.dataclass(slots=True)
class _Candidate:
    thread_id: str
    rows: int
    inflight: bool
    last_failed: bool


_UNSETTLED = sql.SQL(UNSETTLED_SQL)


class _Sql:
    """The retention statements of one schema."""

    def __init__(self, schema: str) -> None:
        self.schema = schema

    def q(self, text: str, **parts: sql.Composable) -> sql.Composed:
        return _q(self.schema, text, **parts)

    def candidates(self) -> sql.Composed:
        return self.q(
            """
            WITH a AS (
                -- grouped by thread (the distribution column on Citus: each shard
                -- groups its own threads); the last status by aggregate, not by a
                -- correlated subquery
                SELECT thread_id, max(GREATEST(started_at, completed_at)) AS last_at,
                       bool_or({unsettled}) AS inflight, count(*) AS n,
                       (array_agg(status ORDER BY step_index DESC))[1] AS last_status
                FROM {s}.actions GROUP BY thread_id
            ), c AS (
                SELECT thread_id, max(created_at) AS last_at, count(*) AS n
                FROM {s}.checkpoints GROUP BY thread_id
            )
            SELECT thread_id, COALESCE(a.n, 0) + COALESCE(c.n, 0),
                   COALESCE(a.inflight, false), COALESCE(a.last_status = 'failed', false)
            FROM a FULL JOIN c USING (thread_id)
            WHERE GREATEST(a.last_at, c.last_at) < %(cutoff)s
            ORDER BY thread_id
            """,
            unsettled=_UNSETTLED,
        )

    def verify(self) -> sql.Composed:
        """Of ``ids``, those still idle, old, not in flight (and not failed if kept)."""
        return self.q(
            """
            WITH a AS (
                SELECT thread_id, bool_or(started_at >= %(cutoff)s
                           OR completed_at >= %(cutoff)s OR {unsettled}) AS busy,
                       (array_agg(status ORDER BY step_index DESC))[1] AS last_status
                FROM {s}.actions WHERE thread_id = ANY(%(ids)s::text[]) GROUP BY thread_id
            ), c AS (
                SELECT thread_id, bool_or(created_at >= %(cutoff)s) AS busy
                FROM {s}.checkpoints WHERE thread_id = ANY(%(ids)s::text[]) GROUP BY thread_id
            )
            SELECT t.id FROM unnest(%(ids)s::text[]) AS t(id)
            LEFT JOIN a ON a.thread_id = t.id LEFT JOIN c ON c.thread_id = t.id
            WHERE NOT COALESCE(a.busy, false) AND NOT COALESCE(c.busy, false)
              AND (NOT %(keep_failed)s OR a.last_status IS DISTINCT FROM 'failed')
            """,
            unsettled=_UNSETTLED,
        )

    def delete(self, table: str) -> sql.Composed:
        return self.q(
            "WITH d AS (DELETE FROM {s}.{t} WHERE thread_id = ANY(%(ids)s::text[]) "
            "RETURNING thread_id) SELECT thread_id, count(*) FROM d GROUP BY thread_id",
            t=sql.Identifier(table),
        )

    def delete_chunk(self, table: str) -> sql.Composed:
        return self.q(
            "WITH d AS (DELETE FROM {s}.{t} WHERE thread_id = %(id)s AND ({k}) IN ("
            "SELECT {k} FROM {s}.{t} WHERE thread_id = %(id)s ORDER BY {o} LIMIT %(n)s) "
            "RETURNING 1) SELECT count(*) FROM d",
            t=sql.Identifier(table),
            k=sql.SQL(_KEY[table]),
            o=sql.SQL(_ORDER[table]),
        )

    def read_actions(self) -> sql.Composed:
        cols = sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)
        return self.q(
            "SELECT {cols} FROM {s}.actions WHERE thread_id = ANY(%(ids)s::text[]) "
            "ORDER BY thread_id, step_index",
            cols=cols,
        )

    def vacuum(self) -> sql.Composed:
        tables = sql.SQL(", ").join(sql.Identifier(self.schema, t) for t in TABLES)
        return sql.SQL("VACUUM (ANALYZE) {}").format(tables)


# ---------------------------------------------------------------------- plans


def _plan_candidates(q: _Sql, cutoff: dt.datetime) -> Plan[list[_Candidate]]:
    rows = yield Op(q.candidates(), {"cutoff": cutoff}, "all")
    return [_Candidate(r[0], int(r[1]), bool(r[2]), bool(r[3])) for r in rows]


@dataclasses.dataclass(slots=True)
class _BatchOutcome:
    deleted: list[str]
    counts: dict[str, int]
    changed: set[str]


def _plan_delete_batch(
    q: _Sql,
    ids: Sequence[str],
    cutoff: dt.datetime,
    keep_failed: bool,
    expected_actions: dict[str, int] | None,
) -> Plan[_BatchOutcome]:
    """Delete whole threads in one transaction, or roll back naming the changed ones."""
    params: dict[str, Any] = {"ids": list(ids), "cutoff": cutoff, "keep_failed": keep_failed}
    yield BEGIN
    rows = yield Op(q.verify(), params, "all")
    ok = [r[0] for r in rows]
    changed = set(ids) - set(ok)
    if not ok:
        yield COMMIT
        return _BatchOutcome([], {}, changed)
    params["ids"] = ok
    counts: dict[str, int] = {}
    per_thread_actions: dict[str, int] = {}
    for table in TABLES:
        deleted = yield Op(q.delete(table), params, "all")
        counts[table] = sum(int(n) for _, n in deleted)
        if table == "actions":
            per_thread_actions = {t: int(n) for t, n in deleted}
    # Anything visible now for these threads was committed by someone else after
    # our deletes started: a resumed thread. Roll back and skip it.
    late = yield Op(q.verify(), {**params, "keep_failed": False}, "all")
    late_changed = set(ok) - {r[0] for r in late}
    if expected_actions is not None:
        late_changed |= {
            t for t in ok if per_thread_actions.get(t, 0) != expected_actions.get(t, 0)
        }
    if late_changed:
        yield _ROLLBACK
        return _BatchOutcome([], {}, changed | late_changed)
    yield COMMIT
    return _BatchOutcome(ok, counts, changed)


def _plan_delete_chunk(
    q: _Sql, thread_id: str, cutoff: dt.datetime, keep_failed: bool, budget: int
) -> Plan[dict[str, int] | None]:
    """Delete up to ``budget`` of a large thread's oldest rows; None if it changed."""
    params = {"ids": [thread_id], "cutoff": cutoff, "keep_failed": keep_failed}
    yield BEGIN
    rows = yield Op(q.verify(), params, "all")
    if not rows:
        yield COMMIT
        return None
    counts: dict[str, int] = {}
    left = budget
    for table in TABLES:
        if left <= 0:
            break
        row = yield Op(q.delete_chunk(table), {"id": thread_id, "n": left}, "one")
        n = int(row[0]) if row else 0
        counts[table] = n
        left -= n
        if n and table != "blobs":
            # keep deleting this table in the next transaction before moving on,
            # so blobs go only after every checkpoint is gone
            break
    late = yield Op(q.verify(), {**params, "keep_failed": False}, "all")
    if not late:
        yield _ROLLBACK
        return None
    yield COMMIT
    return counts


def plan_read_actions(q: _Sql, ids: Sequence[str]) -> Plan[dict[str, list[ActionRecord]]]:
    rows = yield Op(q.read_actions(), {"ids": list(ids)}, "all")
    out: dict[str, list[ActionRecord]] = {}
    for row in rows:  # keyed by the stored id, as the candidates and the deletes are
        # archived as stored: the key stays out
        out.setdefault(row[0], []).append(row_from_db(row, keep_sealed=True))
    return out


# ------------------------------------------------------------------ helpers


def _cutoff(older_than: dt.timedelta | dt.datetime) -> dt.datetime:
    if isinstance(older_than, dt.datetime):
        if older_than.tzinfo is None:
            raise ConfigurationError("a cutoff datetime must be timezone-aware")
        return older_than
    if older_than < dt.timedelta(0):
        raise ConfigurationError("older_than must not be negative")
    return dt.datetime.now(dt.UTC) - older_than


def _batches(cands: Sequence[_Candidate], batch_size: int) -> Iterator[list[_Candidate]]:
    """Group threads so one transaction deletes about ``batch_size`` rows."""
    batch: list[_Candidate] = []
    rows = 0
    for c in cands:
        if batch and (rows + c.rows > batch_size or len(batch) >= _MAX_THREADS_PER_BATCH):
            yield batch
            batch, rows = [], 0
        batch.append(c)
        rows += c.rows
    if batch:
        yield batch


class _ThreadDeleter:
    """What prune and archive share: select idle threads, delete them in batches, vacuum."""

    def __init__(
        self,
        target: Target,
        schema: str | None,
        older_than: dt.timedelta | dt.datetime,
        keep_failed: bool,
        batch_size: int,
        progress: ProgressCallback | None,
        result: PruneResult,
    ) -> None:
        if batch_size < 1:
            raise ConfigurationError("batch_size must be at least 1")
        self.driver = driver_for(target)
        self.q = _Sql(schema_for(target, schema))
        self.cutoff = _cutoff(older_than)
        self.keep_failed = keep_failed
        self.batch_size = batch_size
        self.progress = progress
        self.result = result
        self.done = 0
        self.total = 0
        self.deleted = 0

    def select(self) -> list[_Candidate]:
        cands = self.driver.run(lambda: _plan_candidates(self.q, self.cutoff))
        out = []
        for c in cands:
            if c.inflight:
                self.result.kept_inflight += 1
            elif c.last_failed and self.keep_failed:
                self.result.kept_failed += 1
            else:
                out.append(c)
        self.total = len(out)
        self._tick(0)
        return out

    def _tick(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.done, self.total)

    def delete(
        self, batch: Sequence[_Candidate], expected: dict[str, int] | None = None
    ) -> list[str]:
        """Delete a batch of threads; returns the deleted thread ids."""
        big = [c for c in batch if c.rows > self.batch_size]
        small = [c.thread_id for c in batch if c.rows <= self.batch_size]
        deleted: list[str] = []
        while small:
            ids = small
            out = self.driver.run(
                partial(_plan_delete_batch, self.q, ids, self.cutoff, self.keep_failed, expected)
            )
            self.result.skipped_changed += len(out.changed)
            small = [t for t in small if t not in out.changed and t not in out.deleted]
            if out.deleted:
                self.result.batches += 1
                self.deleted += len(out.deleted)
                self.result._add(out.counts)
                deleted.extend(out.deleted)
        for c in big:
            if self._delete_big(c, expected):
                deleted.append(c.thread_id)
        self._tick(len(batch))
        return deleted

    def _delete_big(self, c: _Candidate, expected: dict[str, int] | None) -> bool:
        if expected is not None:
            # archive: the whole export must match what is deleted, check once more
            out = self.driver.run(lambda: plan_read_actions(self.q, [c.thread_id]))
            if len(out.get(c.thread_id, [])) != expected.get(c.thread_id, 0):
                self.result.skipped_changed += 1
                return False
        while True:
            counts = self.driver.run(
                lambda: _plan_delete_chunk(
                    self.q, c.thread_id, self.cutoff, self.keep_failed, self.batch_size
                )
            )
            if counts is None:
                self.result.skipped_changed += 1
                return False
            if not any(counts.values()):
                self.deleted += 1
                return True
            self.result.batches += 1
            self.result._add(counts)

    def count(self, cands: Sequence[_Candidate]) -> None:
        """Dry run: count the rows the selected threads hold; change nothing."""
        ids = [c.thread_id for c in cands]
        counts = self.driver.run(partial(_plan_count, self.q, ids))
        self.result._add(counts)
        self.result.thread_ids = ids
        self.result.dry_run = True

    def vacuum(self) -> None:
        self.driver.run(lambda: _plan_vacuum(self.q))
        self.result.vacuumed = True


def _plan_vacuum(q: _Sql) -> Plan[None]:
    yield Op(q.vacuum())


def _plan_count(q: _Sql, ids: Sequence[str]) -> Plan[dict[str, int]]:
    """Rows per table of ``ids`` (read only: what a prune would delete)."""
    counts: dict[str, int] = {}
    for table in TABLES:
        row = yield Op(
            q.q(
                "SELECT count(*) FROM {s}.{t} WHERE thread_id = ANY(%s::text[])",
                t=sql.Identifier(table),
            ),
            (list(ids),),
            "one",
        )
        counts[table] = int(row[0]) if row else 0
    return counts


# ---------------------------------------------------------------------- prune


def prune(
    target: Target,
    schema: str | None,
    older_than: dt.timedelta | dt.datetime,
    *,
    keep_failed: bool = True,
    batch_size: int = 5000,
    progress: ProgressCallback | None = None,
    vacuum: bool = True,
    dry_run: bool = False,
) -> PruneResult:
    """Delete every row of threads idle for longer than ``older_than``.

    Threads with an in-flight action are never touched; threads whose last
    action failed are kept unless ``keep_failed=False``. See the module
    docstring for how batches keep concurrent writers unblocked.

    Args:
        target: Connection (autocommit), pool or saver.
        schema: The schema (``None``: the saver's, else ``actionckpt``).
        older_than: Idle time (timedelta) or an aware cutoff datetime.
        keep_failed: Keep threads whose last action failed.
        batch_size: About this many rows per transaction.
        progress: Called with (threads done, threads selected) after each batch.
        vacuum: Run ``VACUUM (ANALYZE)`` on the four tables afterwards (when
            anything was deleted), so they do not stay bloated.
        dry_run: Select and count only: the result says what would be deleted
            (``thread_ids`` lists the threads); nothing is changed.

    Returns:
        Counts of what was deleted and kept.
    """
    started = time.perf_counter()
    result = PruneResult()
    run = _ThreadDeleter(target, schema, older_than, keep_failed, batch_size, progress, result)
    cands = run.select()
    if dry_run:
        run.count(cands)
        result.threads = len(cands)
        result.seconds = time.perf_counter() - started
        return result
    for batch in _batches(cands, batch_size):
        run.delete(batch)
    result.threads = run.deleted
    if vacuum and result.threads:
        run.vacuum()
    result.seconds = time.perf_counter() - started
    return result
