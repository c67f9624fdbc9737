"""The replay decision, free of I/O: serve a logged action, refuse it, or run it live.

An action (LLM completion, tool call, ``@action`` call) is looked up by its
deterministic key among the rows its task logged. A completed, replayable row
is served; a row caught in flight by a crash is refused when the action is not
idempotent (running it twice could charge a card twice); anything else runs
live under a new attempt. The functions here take the task's rows and return
what to do; :mod:`._async_log` (and its generated sync twin) do the reads and
writes around them, so this logic exists once for both worlds.
"""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime
from typing import Any

from langgraph_actionckpt.actions.fields import error_payload
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import InFlightActionError, LeaseLostError, NotReplayableError
from langgraph_actionckpt.replay.context import TaskScope

UNKNOWN_OUTCOME = ("pending", "running", "unknown", "interrupted")
"""Statuses of a row whose action may or may not have had its effect."""

NOT_REPLAYABLE = "not_replayable"
"""``meta`` key of a completed row whose result cannot come back as it was (the reason)."""

# Keys of TaskScope.counters used by the replay layer (per attempt of a task execution).
ROWS = "__rows__"
LEASED = "__lease__"
DURABLE = "__durable__"


def now() -> datetime:
    """The current time in UTC (timestamps of action rows)."""
    return datetime.now(UTC)


class Live:
    """A live (executing) action: its record, when it started, and its reuse ticket.

    ``reuse`` is set when the run's reuse policy looked the action up and found
    nothing: the completed result is then offered to the policy for others.
    """

    __slots__ = ("record", "reuse", "scope", "t0")

    def __init__(self, scope: TaskScope, record: ActionRecord) -> None:
        self.scope = scope
        self.record = record
        self.reuse: Any = None
        self.t0 = time.perf_counter()


def index_rows(scope: TaskScope, records: list[ActionRecord]) -> dict[str, ActionRecord]:
    """The task's rows by action id, with the retry rule applied (see :func:`retry_rule`)."""
    return retry_rule(scope, {r.action_id: r for r in records})


def retry_rule(scope: TaskScope, rows: dict[str, ActionRecord]) -> dict[str, ActionRecord]:
    """On a RetryPolicy retry, the failed attempt's last LLM answer is asked again.

    The retry replays what the failed attempt completed, except the last LLM
    completion: the node may have failed *because of* it (the same rule the
    saver applies when a failed task's error is stored).
    """
    if scope.attempt <= 1:
        return rows
    last = None
    for rec in rows.values():  # in step_index order
        if rec.action_type == "llm_completion" and rec.status == "completed" and rec.replayable:
            last = rec
    if last is not None:
        last.replayable = False
        scope.saver.writer.enqueue(_row_update(last, attempt=last.attempt, replayable=False))
    return rows


def decide(
    scope: TaskScope,
    rows: dict[str, ActionRecord],
    action_id: str,
    kind: str,
    name: str,
    idempotent: bool,
    request_hash: str,
    input: Any,
) -> ActionRecord | Live:
    """Serve the logged row, refuse an in-flight non-idempotent one, or start a live one.

    Raises:
        InFlightActionError: The row was caught in flight (``pending``,
            ``running``, ``unknown`` or ``interrupted``) and the action is not
            idempotent.
        NotReplayableError: The row completed with a result that cannot be
            replayed as it was, and the action is not idempotent.
    """
    old = rows.get(action_id)
    attempt = 1
    if old is not None:
        if old.status == "completed":
            if old.replayable:
                return old
            reason = not_replayable(old)
            if reason is not None and not idempotent:
                raise NotReplayableError(scope.thread_id, action_id, name, kind, reason)
        if old.status in UNKNOWN_OUTCOME and not (idempotent and old.idempotent):
            raise InFlightActionError(scope.thread_id, action_id, name, kind, old.input)
        attempt = old.attempt + 1
    record = ActionRecord(
        thread_id=scope.thread_id,
        action_id=action_id,
        action_type=kind,
        name=name,
        status="running",
        run_id=scope.run_id,
        checkpoint_ns=scope.graph_ns,
        checkpoint_id=scope.checkpoint_id,
        task_id=scope.task_id,
        node=scope.node,
        agent_id=scope.agent_id,
        step=scope.step,
        attempt=attempt,
        idempotent=idempotent,
        request_hash=request_hash,
        input=input,
        started_at=now(),
    )
    rows[action_id] = record
    return Live(scope, record)


def not_replayable(record: ActionRecord) -> str | None:
    """Why a completed row's result cannot be replayed, if it was marked so at record time."""
    meta = record.meta
    reason = meta.get(NOT_REPLAYABLE) if isinstance(meta, dict) else None
    return None if reason is None else str(reason)


def interrupts(error: BaseException) -> bool:
    """Whether ``error`` stopped an action from outside, leaving its outcome unknown.

    Only an ``Exception`` the action raised itself is its failure; a
    cancellation, ``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit`` or a
    lost lease may have come after its effect.
    """
    return not isinstance(error, Exception) or isinstance(error, LeaseLostError)


def served(scope: TaskScope, old: ActionRecord) -> None:
    """Count a replay of ``old`` (queued: a lost count costs nothing)."""
    old.replayed += 1
    scope.saver.writer.enqueue(_row_update(old, replayed=old.replayed))
    scope.saver.metrics.observe_replay(old.action_type)


def _row_update(old: ActionRecord, **fields: Any) -> ActionRecord:
    """A record that changes only ``fields`` of the logged row ``old`` (upserted by its key)."""
    return ActionRecord(
        thread_id=old.thread_id,
        action_id=old.action_id,
        action_type=old.action_type,
        status=old.status,
        **fields,
    )


def finish(
    live: Live, output: Any, error: BaseException | None, status: str = "", **fields: Any
) -> ActionRecord:
    """The final record of a live action: completed with ``output``, or failed with ``error``.

    ``status`` overrides the status an error gives (``interrupted``).
    """
    # A new record, never the queued ``running`` one: another thread's flush may
    # be copying that one right now, and must never see "completed" without
    # the output (a replay would then serve None).
    rec = dataclasses.replace(live.record)
    live.record = rec
    rec.completed_at = now()
    rec.latency_ms = (time.perf_counter() - live.t0) * 1000.0
    if error is None:
        rec.status = "completed"
        rec.output = output
    else:
        rec.status = status or "failed"
        rec.error = error_payload(error)
    for key, value in fields.items():
        setattr(rec, key, value)
    return rec
