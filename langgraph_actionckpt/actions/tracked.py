"""The runs the recorder follows between their start and end, and who observes them.

:class:`TrackedRuns` is the part of the
:class:`~langgraph_actionckpt.actions.recorder.ActionRecorder` that keeps the
open runs (to find a run's parent action) and tells the
:class:`~langgraph_actionckpt.actions.observer.ActionObserver` (tracing) about
each action's start and end; it also starts the rows every kind of run makes
(:meth:`TrackedRuns._record`, :meth:`TrackedRuns._own_record`). No I/O.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.outputs import LLMResult

from langgraph_actionckpt.actions.fields import error_payload, usage_fields
from langgraph_actionckpt.actions.observer import (
    NULL_OBSERVER,
    ActionEnd,
    ActionObserver,
    ActionStart,
    NullObserver,
)
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.runs import OpenRun, opt_str, response_message, run_key

__all__ = ["TrackedRuns", "fail", "now"]

_MAX_PARENT_HOPS = 64  # a parent chain longer than this is not a LangGraph run


def now() -> datetime:
    """The time a row is stamped with (UTC)."""
    return datetime.now(UTC)


def fail(record: ActionRecord, error: BaseException) -> ActionRecord:
    """Mark ``record`` failed with ``error``'s payload."""
    record.status = "failed"
    record.error = error_payload(error)
    return record


class TrackedRuns:
    """Open runs by LangChain run id, and the observer told of each action.

    Args:
        observer: Told of each action's start and end; None: nobody.
    """

    def __init__(self, observer: ActionObserver | None = None) -> None:
        self.observer: ActionObserver = observer or NULL_OBSERVER
        self._observing = not isinstance(self.observer, NullObserver)
        # Keyed by run_key (a UUID's number): a run id's text is made once per run
        self._runs: dict[Any, OpenRun] = {}

    def _parent_action(self, parent: Any) -> str | None:
        """The action id of the nearest ancestor run that has one."""
        seen = 0
        while parent is not None and seen < _MAX_PARENT_HOPS:
            run = self._runs.get(parent)
            if run is None:
                return None
            if run.action_id is not None:
                return run.action_id
            parent = run.parent_key
            seen += 1
        return None

    def _record(self, run: OpenRun, run_id: str, kind: str, action_id: str) -> ActionRecord:
        parent = run.parent_key
        return run.record(
            run_id, kind, action_id, None if parent is None else self._parent_action(parent)
        )

    def _own_record(
        self, run: OpenRun, run_id: str, kind: str, input: Any = None, meta: Any = None
    ) -> ActionRecord:
        """A row the replay layer did not write: not replayable, timed by the callbacks."""
        parent = run.parent_key
        return run.own_record(
            run_id,
            kind,
            None if parent is None else self._parent_action(parent),
            input,
            meta,
        )

    def _finish(self, run_id: UUID) -> tuple[str, OpenRun | None]:
        """Forget a run at its end; the run only if it belongs to a thread."""
        run = self._runs.pop(run_key(run_id), None)
        if run is None:
            return str(run_id), None
        return run.rid, (None if run.thread_id is None else run)

    def _observe(self, run: OpenRun, kind: str, name: str, **extra: Any) -> None:
        """Tell the observer a run of a thread started (it may start a span)."""
        if not self._observing or run.thread_id is None or not self.observer.wants():
            return
        meta = run.metadata
        step = meta.get("langgraph_step")
        action = ActionStart(
            kind,
            name,
            run.thread_id,
            node=opt_str(meta.get("langgraph_node")),
            step=step if isinstance(step, int) else None,
            task_id=run.task_id,
            checkpoint_ns=run.graph_ns,
            **extra,
        )
        # the nearest enclosing run the observer follows is the span's parent
        parent, seen, parent_span = run.parent_key, 0, None
        while parent is not None and seen < _MAX_PARENT_HOPS:
            up = self._runs.get(parent)
            if up is None:
                break
            if up.span is not None:
                parent_span = up.span
                break
            parent, seen = up.parent_key, seen + 1
        run.span = self.observer.start(action, parent_span)

    def _observed(
        self,
        run: OpenRun,
        status: str,
        record: ActionRecord | None,
        error: BaseException | None = None,
        response: LLMResult | None = None,
        origin: tuple[str, str] | None = None,
    ) -> None:
        """Tell the observer how a followed run ended; its ids go on a live action's row.

        ``origin`` is the trace and span ids stored on the row a replayed run was
        served from (the span that executed the action).
        """
        if run.span is None:
            return
        if status == "replayed" and record is not None and isinstance(record.meta, dict):
            status = "reused" if record.meta.get("reused_from") else status
        outcome = ActionEnd(status, error=error, origin=origin)
        if record is not None:
            outcome.action_id = record.action_id
            outcome.action_type = record.action_type
            outcome.attempt = record.attempt
        elif run.action_id is not None:
            outcome.action_id, outcome.action_type = run.action_id, "node"
        if response is not None:
            _response_facts(outcome, response)
        self.observer.end(run.span, outcome)
        # A row served from the log keeps the trace of the run that executed it.
        if record is not None and status not in ("replayed", "reused"):
            ids = self.observer.ids(run.span)
            if ids is not None:
                record.trace_id, record.span_id = ids


def _response_facts(outcome: ActionEnd, response: LLMResult) -> None:
    """Usage, finish reasons and response id of a model response, for its span."""
    message = response_message(response)
    if message is not None:
        outcome.usage = usage_fields(message)
        rid = (getattr(message, "response_metadata", None) or {}).get("id")
        outcome.response_id = rid if isinstance(rid, str) else None
    reasons: list[str] = []
    for generations in response.generations:
        for gen in generations:
            info = gen.generation_info or {}
            meta = getattr(getattr(gen, "message", None), "response_metadata", None) or {}
            reason = info.get("finish_reason") or meta.get("finish_reason")
            if isinstance(reason, str):
                reasons.append(reason)
    outcome.finish_reasons = reasons
