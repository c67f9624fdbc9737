"""Plans that delete, copy and prune threads, and settle an in-flight action.

Free functions: each returns the (escaped) threads whose cached list states
the caller must forget, and never flushes held writes itself (the saver runs
the flush plan first, so no held write lands after a delete).
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.actions.settle import Resolution
from langgraph_actionckpt.checkpoints.codec import Codec, json_text
from langgraph_actionckpt.checkpoints.reseal import plan_reseal_copied
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.crypto import action_aad
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.encoding import escape_text, stored_id
from langgraph_actionckpt.errors import ConfigurationError, OutcomeKnownError

PRUNE_STRATEGIES = ("keep_latest", "delete")


def plan_delete_thread(queries: Queries, thread_id: str) -> Plan[list[str]]:
    """Delete a thread's checkpoints, blobs, writes and actions in one transaction.

    Returns:
        The deleted thread, escaped (its cached list states are stale).
    """
    params = {"thread_id": escape_text(str(thread_id))}
    yield BEGIN
    for stmt in queries.delete_thread:
        yield Op(stmt, params)
    yield COMMIT
    return [params["thread_id"]]


def plan_delete_for_runs(queries: Queries, run_ids: Sequence[str]) -> Plan[list[str]]:
    """Delete the checkpoints, writes and actions of some runs; collect their orphan blobs.

    Returns:
        The threads that had checkpoints of those runs, escaped.
    """
    ids = [escape_text(str(r)) for r in run_ids]
    if not ids:
        return []
    yield BEGIN
    rows = yield Op(queries.delete_runs, {"run_ids": ids}, "all")
    threads: list[str] = [thread_id for (thread_id,) in rows]
    if threads:
        yield Op(queries.gc_blobs, {"thread_ids": threads})
    yield Op(queries.delete_run_actions, {"run_ids": ids})
    yield COMMIT
    return threads


def plan_copy_thread(
    queries: Queries, source_thread_id: str, target_thread_id: str, codec: Codec | None = None
) -> Plan[None]:
    """Copy every row of one thread to another in one transaction (existing rows are kept).

    With encryption on (``codec.keyring``), the copied values are sealed again
    for the target thread (the thread is part of their associated data).

    Raises:
        ConfigurationError: A thread id longer than its limit (before any SQL).
        DecryptionError: A copied value is sealed and ``codec`` has no key ring,
            or plain while the key ring refuses plain text (nothing is copied).
    """
    params = {
        "source": stored_id("thread id", source_thread_id),
        "target": stored_id("thread id", target_thread_id),
    }
    yield BEGIN
    for stmt in queries.copy_thread:
        yield Op(stmt, params)
    if codec is not None:
        yield from plan_reseal_copied(codec, params["source"], params["target"])
    yield COMMIT


def plan_prune(queries: Queries, thread_ids: Sequence[str], strategy: str) -> Plan[list[str]]:
    """Prune threads: keep only each namespace's latest checkpoint, or delete them.

    Args:
        queries: The schema's statements.
        thread_ids: The threads.
        strategy: ``keep_latest`` (older checkpoints, their writes and the blobs
            no kept checkpoint needs go) or ``delete`` (everything but actions).

    Returns:
        The pruned threads, escaped.

    Raises:
        ConfigurationError: An unknown strategy (raised before any statement).
    """
    check_strategy(strategy)
    ids = [escape_text(str(t)) for t in thread_ids]
    if not ids:
        return []
    params = {"thread_ids": ids}
    yield BEGIN
    if strategy == "keep_latest":
        yield Op(queries.prune_keep_latest, params)
        yield Op(queries.gc_blobs, params)
    else:
        for stmt in queries.prune_delete:
            yield Op(stmt, params)
    yield COMMIT
    return ids


def check_strategy(strategy: str) -> None:
    """Raise unless ``strategy`` is one of :data:`PRUNE_STRATEGIES`."""
    if strategy not in PRUNE_STRATEGIES:
        raise ConfigurationError(
            f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'"
        )


# One statement reads the row's status and settles it only when its outcome is
# unknown (or when overriding): the old status comes back either way. An
# overridden row keeps what it replaced (meta.overridden); the old result's
# typed form and not-replayable mark go with it.
_RESOLVE = """
            WITH old AS (
                SELECT status, coalesce(meta ? 'not_replayable', false) AS lost,
                       -- built here: Citus refuses a stable function of a column in UPDATE
                       jsonb_build_object('overridden', jsonb_build_object('status', status,
                           'output', CASE WHEN %(keep_output)s THEN output END)) AS overridden
                FROM {s}.actions
                WHERE thread_id = %(thread_id)s AND action_id = %(action_id)s FOR UPDATE
            ), settled AS (
                UPDATE {s}.actions a SET status = %(status)s,
                       output = COALESCE(%(output)s::jsonb, a.output),
                       completed_at = CASE WHEN %(status)s = 'completed' THEN now()
                                           ELSE a.completed_at END,
                       error = CASE WHEN %(status)s = 'completed' THEN NULL ELSE a.error END,
                       replayable = %(status)s = 'completed' OR a.replayable,
                       meta = (COALESCE(a.meta, '{{}}'::jsonb) - 'typed' - 'not_replayable')
                              || %(meta)s::jsonb
                              || CASE WHEN old.status IN ('completed', 'failed') AND NOT old.lost
                                 THEN old.overridden ELSE '{{}}'::jsonb END
                FROM old
                WHERE a.thread_id = %(thread_id)s AND a.action_id = %(action_id)s
                  AND (%(override)s OR old.lost
                       OR old.status IN ('pending', 'running', 'unknown', 'interrupted'))
                RETURNING a.action_id
            )
            SELECT old.status, EXISTS (SELECT 1 FROM settled) FROM old
"""


def check_resolution(r: Resolution) -> None:
    """Raise unless exactly one of ``output`` and ``retry`` is given."""
    if r.retry == (r.output is not None):
        raise ConfigurationError("resolve_action needs exactly one of output=... or retry=True")


def plan_resolve(action_queries: ActionQueries, r: Resolution) -> Plan[None]:
    """Settle an in-flight action: completed with ``output``, or failed so it may run again.

    Raises:
        ConfigurationError: Neither or both of ``output`` and ``retry``, or no such action.
        OutcomeKnownError: The action completed or failed and ``override`` is false.
    """
    check_resolution(r)
    thread_id, action_id, output, retry = r.thread_id, r.action_id, r.output, r.retry
    ring = action_queries.keyring
    text = None if retry else json_text(output)
    if ring is not None and text is not None:
        aad = action_aad(
            action_queries.schema, escape_text(thread_id), escape_text(action_id), "output"
        )
        text = ring.seal_json(text, aad)
    params = {
        "thread_id": escape_text(thread_id),
        "action_id": escape_text(action_id),
        "status": "failed" if retry else "completed",
        "output": text,
        "meta": json_text({"resolution": r.note or ("retry" if retry else "output given")}),
        "override": r.override,
        # a sealed output is bound to its column: it is not copied into meta
        "keep_output": ring is None,
    }
    row = yield Op(action_queries.q(_RESOLVE), params, "one")
    if row is None:
        raise ConfigurationError(f"no action {action_id!r} on thread {thread_id!r}")
    if not row[1]:
        raise OutcomeKnownError(thread_id, action_id, row[0])
