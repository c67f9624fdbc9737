"""Reads of the action log: filtered lists, one action, and JSON Lines export/import.

Plans over :class:`~langgraph_actionckpt.actions.records.ActionQueries`; the
row format and the writes stay in :mod:`~langgraph_actionckpt.actions.records`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries, row_from_db
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.db.driver import Op, Plan

__all__ = ["plan_get", "plan_list", "records_from_jsonl", "records_to_jsonl"]


def plan_list(
    q: ActionQueries,
    thread_id: str | None,
    *,
    action_type: str | Sequence[str] | None = None,
    status: str | Sequence[str] | None = None,
    node: str | None = None,
    since: dt.datetime | int | None = None,
    run_id: str | None = None,
    task_id: str | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> Plan[list[ActionRecord]]:
    """Select actions with optional filters (every value bound).

    Text filters are escaped as the columns store them (``escape_text``), so a
    value holding NUL or a lone surrogate finds the row recorded with it.

    Raises:
        ConfigurationError: The thread id is longer than its limit (before any SQL).
    """
    esc = _encoding.escape_text
    conds: list[str] = []
    params: dict[str, Any] = {"limit": limit}
    if thread_id is not None:
        conds.append("thread_id = %(thread_id)s")
        params["thread_id"] = _encoding.stored_id("thread id", thread_id)
    if action_type is not None:
        conds.append("action_type = ANY(%(types)s::text[])")
        params["types"] = [esc(t) for t in _one_or_many(action_type)]
    if status is not None:
        conds.append("status = ANY(%(statuses)s::text[])")
        params["statuses"] = [esc(s) for s in _one_or_many(status)]
    if node is not None:
        conds.append("node = %(node)s")
        params["node"] = esc(node)
    if run_id is not None:
        conds.append("run_id = %(run_id)s")
        params["run_id"] = esc(run_id)
    if task_id is not None:
        conds.append("task_id = %(task_id)s")
        params["task_id"] = esc(task_id)
    if isinstance(since, dt.datetime):
        conds.append("started_at >= %(since)s")
        params["since"] = since
    elif isinstance(since, int):
        conds.append("step_index > %(since_idx)s")
        params["since_idx"] = since
    order = "step_index DESC" if newest_first else "step_index"
    rows = yield Op(q.select(conds, order), params, "all")
    return [row_from_db(r, q) for r in rows]


def _one_or_many(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def plan_get(q: ActionQueries, thread_id: str, action_id: str) -> Plan[ActionRecord | None]:
    """One action by its idempotency key.

    Raises:
        ConfigurationError: An id longer than its limit (before any SQL).
    """
    key = (_encoding.stored_id("thread id", thread_id), _encoding.stored_id("action id", action_id))
    row = yield Op(q.get, key, "one")
    return None if row is None else row_from_db(row, q)


def records_to_jsonl(records: Sequence[ActionRecord]) -> str:
    """Records as JSON Lines (one action per line, reversible with :func:`records_from_jsonl`)."""
    import orjson

    return "".join(orjson.dumps(r.to_dict()).decode() + "\n" for r in records)


def records_from_jsonl(text: str) -> list[ActionRecord]:
    """Parse JSON Lines written by :func:`records_to_jsonl`."""
    import orjson

    return [ActionRecord.from_dict(orjson.loads(line)) for line in text.splitlines() if line]
