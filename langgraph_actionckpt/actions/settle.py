"""Which actions are unsettled, and the rows that close a dead attempt's open ones.

One rule, used by every report (``runs``, ``failed``, ``inflight``, ``show``),
the metrics and retention: an action is *unsettled* while its outcome is not
known and nobody settled it:

* ``pending`` or ``running`` (in flight, or cut off by a crash);
* ``unknown`` (a crash or a lost lease caught it; ``resolve_action`` settles it);
* ``interrupted`` when it is a non-idempotent action (not a ``node`` row):
  cancellation or Ctrl-C stopped it after its side effect may have happened.

A resumed run that holds the thread's lease closes the open rows an earlier,
dead attempt left behind (:func:`superseding`): ``superseded``, with
``meta.superseded_by`` naming the row that replaced it. A non-idempotent
action is never closed that way: its outcome stays unknown until settled.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.runs import now

__all__ = ["OPEN", "UNSETTLED_SQL", "Resolution", "is_unsettled", "superseding"]

OPEN = ("pending", "running")
"""Statuses of a row whose action has not ended (or whose process died)."""

UNSETTLED_SQL = (
    "(status IN ('pending', 'running', 'unknown') OR (status = 'interrupted' "
    "AND action_type <> 'node' AND NOT idempotent))"
)
"""The rule of :func:`is_unsettled` as a predicate on the actions table's columns."""


def is_unsettled(record: ActionRecord) -> bool:
    """Whether the action's outcome is unknown and not settled (see the module)."""
    if record.status in ("pending", "running", "unknown"):
        return True
    return record.status == "interrupted" and record.action_type != "node" and not record.idempotent


def superseding(
    rows: Sequence[ActionRecord], since: dt.datetime, run_id: str | None
) -> list[ActionRecord]:
    """Rows that close what a dead attempt left open, once a resume has run.

    Args:
        rows: The thread's actions, in ``step_index`` order.
        since: When the resumed run started: an open row that started before
            belongs to an earlier attempt (this run holds the thread's lease,
            so no other live process has it).
        run_id: The resumed run's id (noted as the replacement when no row of
            it does the same work).

    Returns:
        One update per closed row: ``superseded``, ``meta.superseded_by`` the
        replacing row's ``action_id`` and ``step_index`` (the same kind of
        action, node and name, started by this run), or this run's id.
    """
    new = [r for r in rows if r.started_at is not None and r.started_at >= since]
    out: list[ActionRecord] = []
    for old in rows:
        if old.status not in OPEN or old.started_at is None or old.started_at >= since:
            continue
        if old.action_type != "node" and not old.idempotent:
            continue  # its side effect may have happened: unknown until resolved
        by = next(
            (
                r
                for r in new
                if (r.action_type, r.node, r.name) == (old.action_type, old.node, old.name)
            ),
            None,
        )
        ref = (
            {"action_id": by.action_id, "step_index": by.step_index}
            if by is not None
            else {"run_id": run_id}
        )
        out.append(
            ActionRecord(
                thread_id=old.thread_id,
                action_id=old.action_id,
                action_type=old.action_type,
                status="superseded",
                attempt=old.attempt,
                meta={"superseded_by": ref},
                completed_at=now(),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Resolution:
    """What ``resolve_action`` asks of one action: its ``output``, or one more run (``retry``).

    The savers' ``_settle_action`` port takes it whole (direct: a plan; remote: a request).
    """

    thread_id: str
    action_id: str
    output: Any = None
    retry: bool = False
    note: str | None = None
    override: bool = False
