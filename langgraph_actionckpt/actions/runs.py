"""The LangChain runs the recorder has seen start and not yet end, and who observes them.

LangChain reports a run in two callbacks (start, then end or error); what the
start tells (parent run, metadata, inputs, model parameters, start time) is
kept in an :class:`OpenRun` until the end, when the action row is made.

:class:`TrackedRuns` is the part of the
:class:`~langgraph_actionckpt.actions.recorder.ActionRecorder` that keeps the
open runs (to find a run's parent action) and tells the
:class:`~langgraph_actionckpt.actions.observer.ActionObserver` (tracing) about
each action's start and end; it also starts the rows every kind of run makes
(:meth:`TrackedRuns._record`, :meth:`TrackedRuns._own_record`). No I/O.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, NamedTuple
from uuid import UUID

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult

from langgraph_actionckpt.actions.fields import agent_id_for, error_payload, usage_fields
from langgraph_actionckpt.actions.observer import (
    NULL_OBSERVER,
    ActionEnd,
    ActionObserver,
    ActionStart,
    NullObserver,
)
from langgraph_actionckpt.actions.record import ActionRecord

__all__ = [
    "Callback",
    "OpenRun",
    "TrackedRuns",
    "fail",
    "llm_call_meta",
    "now",
    "ns_parts",
    "opt_str",
    "response_message",
    "run_key",
]

_perf_counter = time.perf_counter
_now = datetime.now


def opt_str(value: Any) -> str | None:
    """``str(value)``, keeping None."""
    return None if value is None else str(value)


_NO_NS = ("", None, None)
_NS_PARTS: dict[str, tuple[str, str | None, str | None]] = {"": _NO_NS}
_NS_PARTS_MAX = 4096


def ns_parts(metadata: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(graph ns, task id, node name of the ns's last segment) of a run's metadata."""
    ns = metadata.get("langgraph_checkpoint_ns")
    if not ns:
        return _NO_NS
    # every run of a task has the task's namespace: split each one once
    parts = _NS_PARTS.get(ns) if type(ns) is str else None
    if parts is not None:
        return parts
    ns = str(ns)
    last = ns.rsplit("|", 1)[-1]
    node, _, task_id = last.partition(":")
    graph_ns = ns.rsplit("|", 1)[0] if "|" in ns else ""
    parts = graph_ns, task_id or None, node or None
    if len(_NS_PARTS) >= _NS_PARTS_MAX:
        _NS_PARTS.clear()
        _NS_PARTS[""] = _NO_NS
    _NS_PARTS[ns] = parts
    return parts


def response_message(response: LLMResult) -> BaseMessage | None:
    """The first generation of a model response, as a message."""
    try:
        gen = response.generations[0][0]
    except (IndexError, TypeError):
        return None
    message = getattr(gen, "message", None)
    if isinstance(message, BaseMessage):
        return message
    return AIMessage(content=getattr(gen, "text", ""))


def llm_call_meta(
    serialized: dict[str, Any] | None,
    metadata: dict[str, Any],
    params: dict[str, Any],
    name: str | None,
) -> tuple[str, dict[str, Any]]:
    """(model name, ``meta`` column) of a model call, from its start callback."""
    model = (
        params.get("model_name")
        or params.get("model")
        or metadata.get("ls_model_name")
        or name
        or (serialized or {}).get("name")
    )
    tools = [
        t.get("function", {}).get("name") for t in params.get("tools") or [] if isinstance(t, dict)
    ]
    return str(model) if model else "llm", {
        "invocation_params": {k: v for k, v in params.items() if k != "tools"},
        "tools": tools,
        "provider": metadata.get("ls_provider") or params.get("_type"),
    }


def run_key(run_id: Any) -> Any:
    """The key of a LangChain run among the recorder's open runs: a UUID's number.

    ``UUID.__hash__`` is a Python call (``hash(self.int)``); the number hashes in C.
    A run id of another type is its own key.
    """
    return run_id.int if type(run_id) is UUID else run_id


class Callback(NamedTuple):
    """What every ``on_*_start`` callback is told besides its payload, bundled once.

    The handlers build it from the callback's keywords (:meth:`of`); the
    recorder's ``*_start`` methods take it with the payload (inputs, prompts,
    tool input, query).

    Attributes:
        serialized: The runnable's serialized form, if LangChain sent one.
        run_id: The run's LangChain id.
        parent_run_id: The parent run's id (None for a root run).
        metadata: The run's metadata (LangGraph puts thread, node, step, ns there).
        extra: The callback's other keywords (``name``, ``invocation_params``,
            ``tool_call_id``...).
    """

    serialized: dict[str, Any] | None
    run_id: UUID
    parent_run_id: UUID | None
    metadata: dict[str, Any] | None
    extra: dict[str, Any]

    @classmethod
    def of(cls, serialized: dict[str, Any] | None, kwargs: dict[str, Any]) -> Callback:
        """The bundle of a start callback's ``serialized`` and keywords.

        ``kwargs`` must hold ``run_id``; ``run_id``, ``parent_run_id`` and
        ``metadata`` are taken out of it, the rest is :attr:`extra`.
        """
        # tuple.__new__ directly: the generated __new__ is a Python call, and
        # this runs on every start callback, on the graph's path
        run_id = kwargs.pop("run_id")
        parent_run_id = kwargs.pop("parent_run_id", None)
        metadata = kwargs.pop("metadata", None)
        return tuple.__new__(cls, (serialized, run_id, parent_run_id, metadata, kwargs))

    def name(self, default: str | None = None) -> Any:
        """The run's name: the callback's ``name``, else the serialized one, else ``default``."""
        return self.extra.get("name") or (self.serialized or {}).get("name") or default


class OpenRun:
    """A chain, LLM, tool or retriever run between its start and end callbacks.

    Made from its start callback's :class:`Callback` (parent run and metadata).

    Attributes:
        kind: ``chain``, ``llm``, ``tool`` or ``retriever``.
        parent: The LangChain run id of the parent run (as LangChain gave it).
        key: The run's key among the recorder's open runs (:func:`run_key`).
        parent_key: The parent run's key (None for a root run).
        rid: The run's LangChain id as text.
        metadata: The run's metadata (LangGraph puts thread, node, step, ns there).
        name: The name the row gets (node, model, tool, retriever).
        input: What the start callback passed (prompts, tool input, query).
        meta: Extra fields for the row's ``meta`` column.
        action_id: The action this run's row belongs to, once known.
        first_token: When the first streamed token arrived (``perf_counter``).
        t0: When the run started (``perf_counter``).
        thread_id: The run's thread (None outside a checkpointed graph: no row).
        graph_ns: The namespace of the (sub)graph the run is in.
        task_id: The LangGraph task the run is in, if any.
        ns_node: The node named by the last segment of the run's namespace.
        span: The observer's handle for the run (None: not followed).
    """

    # A plain class with slots, not a dataclass: one is made per callback run,
    # on the graph's path, and this __init__ is the cheapest Python offers.
    __slots__ = (
        "action_id",
        "first_token",
        "graph_ns",
        "input",
        "key",
        "kind",
        "meta",
        "metadata",
        "name",
        "ns_node",
        "parent",
        "parent_key",
        "rid",
        "span",
        "t0",
        "task_id",
        "thread_id",
    )

    def __init__(
        self,
        kind: str,
        call: Callback,
        name: str | None = None,
        input: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        _, run_id, parent, metadata, _ = call
        self.kind = kind
        if type(run_id) is UUID:
            number = run_id.int
            self.key: Any = number
            # str(run_id), without UUID.__str__'s two %-formattings (a fifth of this
            # __init__): the 16 bytes in hex by 4 digits, the dashes of the
            # canonical 8-4-4-4-12 kept
            hex4 = number.to_bytes(16).hex("-", 2)
            self.rid = hex4[:4] + hex4[5:29] + hex4[30:34] + hex4[35:]
        else:
            self.key, self.rid = run_id, str(run_id)
        self.parent = parent
        self.parent_key = run_key(parent)
        self.metadata = metadata = metadata or {}
        self.name = name
        self.input = input
        self.meta = meta
        self.t0 = _perf_counter()
        self.first_token: float | None = None
        self.action_id: str | None = None
        self.span: Any = None  # the observer's handle (a tracing span), if it follows the run
        tid = metadata.get("thread_id")
        self.thread_id = None if tid is None else str(tid)
        self.graph_ns, self.task_id, self.ns_node = ns_parts(metadata)

    def elapsed_ms(self) -> float:
        """Milliseconds since the run started."""
        return (_perf_counter() - self.t0) * 1000.0

    def record(
        self,
        run_id: str,
        kind: str,
        action_id: str,
        parent_action_id: str | None,
        *,
        own: bool = False,
        input: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> ActionRecord:
        """A row for this run with the fields every kind shares (status ``running``).

        ``own``: a row only the callbacks see (:meth:`own_record`): not replayable,
        started and completed now, timed since the run started.
        """
        graph_ns, metadata = self.graph_ns, self.metadata
        step = metadata.get("langgraph_step")
        run = metadata.get("run_id")
        at = _now(UTC) if own else None
        # keywords for the fields a run knows; every other field keeps its default
        return ActionRecord(
            thread_id=self.thread_id or "",
            action_id=action_id,
            action_type=kind,
            name=self.name,
            run_id=None if run is None else str(run),
            checkpoint_ns=graph_ns,
            task_id=self.task_id,
            node=metadata.get("langgraph_node"),
            agent_id=agent_id_for(graph_ns, metadata),
            step=step if isinstance(step, int) else None,
            replayable=not own,
            input=input,
            latency_ms=(_perf_counter() - self.t0) * 1000.0 if own else None,
            parent_action_id=parent_action_id,
            lc_run_id=run_id,
            meta=meta,
            started_at=at,
            completed_at=at,
        )

    def own_record(
        self,
        run_id: str,
        kind: str,
        parent_action_id: str | None,
        input: Any,
        meta: dict[str, Any] | None,
    ) -> ActionRecord:
        """The row of a run only the callbacks see, at its end: not replayable, timed here.

        Its action id is keyed by the LangChain run id (``{task}:{kind}:run:{run id}``);
        it starts and completes now, and its status is ``running`` until the caller
        settles it.
        """
        action_id = f"{self.task_id or 'run'}:{kind}:run:{run_id}"
        return self.record(
            run_id, kind, action_id, parent_action_id, own=True, input=input, meta=meta
        )


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
