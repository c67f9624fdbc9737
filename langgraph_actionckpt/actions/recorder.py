"""The recorder: LangChain callback events in, action rows out (no I/O).

Both callback handlers feed every event to one :class:`ActionRecorder`, which
keeps the runs between their start and end and turns each finished run into an
:class:`~langgraph_actionckpt.ActionRecord`. The handlers queue the rows on the
saver's writer and take and release the thread lease; nothing here touches the
database, so the recorder is tested with plain calls.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.messages import ToolMessage
from langchain_core.outputs import LLMResult
from langgraph.errors import GraphInterrupt, ParentCommand

from langgraph_actionckpt.actions.fields import error_payload, usage_fields
from langgraph_actionckpt.actions.join import pending_llm_run, run_origins, run_registry
from langgraph_actionckpt.actions.observer import ActionObserver
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.actions.runs import (
    OpenRun,
    llm_call_meta,
    opt_str,
    response_message,
)
from langgraph_actionckpt.actions.tracked import TrackedRuns

__all__ = ["ActionRecorder"]


def _now() -> datetime:
    return datetime.now(UTC)


class ActionRecorder(TrackedRuns):
    """The run state machine shared by the sync and async handlers.

    Each ``*_start`` method notes a run; each ``*_end``/``*_error`` method
    returns the row to write for it, or None when there is nothing to record
    (a run outside a checkpointed thread, a chain that is not a node).

    Args:
        record_chains: Make a ``running`` node row when a node starts.
        observer: Told of each action's start and end (tracing spans); its
            ids for an action are stored on the action's row.
    """

    def __init__(
        self, *, record_chains: bool = True, observer: ActionObserver | None = None
    ) -> None:
        super().__init__(observer)
        self.record_chains = record_chains
        # root run id -> thread id whose lease that run took
        self._leases: dict[str, str] = {}

    def _record(self, run: OpenRun, run_id: str, kind: str, action_id: str) -> ActionRecord:
        return run.record(run_id, kind, action_id, self._parent_action(run.parent))

    def _own_record(self, run: OpenRun, run_id: str, kind: str) -> ActionRecord:
        """A row the replay layer did not write: not replayable, timed by the callbacks."""
        record = self._record(run, run_id, kind, run.own_action_id(kind, run_id))
        record.replayable = False
        record.started_at = _now()
        record.completed_at = record.started_at
        record.latency_ms = run.elapsed_ms()
        return record

    # ------------------------------------------------------------ root runs

    @staticmethod
    def root_thread(parent_run_id: UUID | None, metadata: dict[str, Any] | None) -> str | None:
        """The thread a root run (one with no parent) runs, if any: the one to lease."""
        if parent_run_id is not None or not metadata:
            return None
        return opt_str(metadata.get("thread_id"))

    def hold_lease(self, run_id: UUID, thread_id: str) -> None:
        """Note that this root run took the thread's lease (released at its end)."""
        self._leases[str(run_id)] = thread_id

    def lease_end(self, run_id: UUID) -> str | None:
        """The thread whose lease this root run holds (forgotten on the way out)."""
        return self._leases.pop(str(run_id), None)

    # ---------------------------------------------------------------- chains

    def chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        extra: dict[str, Any],
    ) -> ActionRecord | None:
        """Note a chain; when it is a LangGraph node, its ``running`` node row.

        The arguments are the callback's; ``extra`` is its ``**kwargs``.
        """
        rid = str(run_id)
        meta = metadata or {}
        run_name = extra.get("name") or (serialized or {}).get("name")
        run = OpenRun("chain", opt_str(parent_run_id), meta, run_name)
        self._runs[rid] = run
        task_id = run.task_id
        if (
            task_id is None
            or run.thread_id is None
            or run.ns_node != run_name
            or meta.get("langgraph_node") != run_name
            or str(run_name).startswith("__")  # __start__ and friends: LangGraph plumbing
        ):
            if parent_run_id is None:  # the graph itself: the trace's agent span
                self._observe(run, "agent", str(run_name or "LangGraph"))
            return None
        self._observe(run, "node", str(run_name))
        if not self.record_chains:
            return None
        # This run is the node itself: its row is the saver's `node` row.
        run.action_id = f"{task_id}:node"
        record = self._record(run, rid, "node", run.action_id)
        record.status = "running"
        record.started_at = _now()
        if isinstance(inputs, dict):
            record.input = {"keys": sorted(str(k) for k in inputs)}
        if run.span is not None:
            ids = self.observer.ids(run.span)
            if ids is not None:
                record.trace_id, record.span_id = ids
        return record

    def chain_end(self, run_id: UUID) -> None:
        """Forget a chain that ended (the saver completes node rows)."""
        run = self._runs.pop(str(run_id), None)
        if run is not None and run.span is not None:
            self._observed(run, "completed", None)

    def chain_error(self, error: BaseException, run_id: UUID) -> ActionRecord | None:
        """The failed (or interrupted) node row of a chain that raised."""
        rid, run = self._finish(run_id)
        if run is None or run.action_id is None or not run.thread_id:
            if run is not None and run.span is not None:  # the graph, or a node without rows
                self._observed(run, _chain_status(error), None, error)
            return None
        record = self._record(run, rid, "node", run.action_id)
        record.completed_at = _now()
        if isinstance(error, ParentCommand):
            # A handoff (Command(graph=Command.PARENT), e.g. langgraph-swarm's
            # handoff tools) is control flow: the node ended and named its successor.
            record.status = "completed"
            record.meta = {"handoff": {"goto": _goto_names(error.args[0].goto)}}
            self._observed(run, "completed", record)
            return record
        record.status = "interrupted" if isinstance(error, GraphInterrupt) else "failed"
        record.error = error_payload(error)
        self._observed(run, record.status, record, error)
        return record

    # ------------------------------------------------------------------ LLMs

    def llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        extra: dict[str, Any],
        *,
        chat: bool = True,
    ) -> None:
        """Note a model call (chat messages, or text prompts when not ``chat``)."""
        rid = str(run_id)
        meta = metadata or {}
        params = extra.get("invocation_params") or {}
        model, call_meta = llm_call_meta(serialized, meta, params, extra.get("name"))
        run = OpenRun(
            "llm", opt_str(parent_run_id), meta, name=model, input=prompts, meta=call_meta
        )
        self._runs[rid] = run
        if self._observing:
            provider = call_meta.get("provider")
            self._observe(
                run,
                "chat" if chat else "text_completion",
                model,
                params=params,
                provider=provider if isinstance(provider, str) else None,
            )
        # The replay cache reads this right after, in the same context, to join rows.
        pending_llm_run.set(rid)

    def llm_token(self, run_id: UUID) -> None:
        """Note the time of the first streamed token."""
        run = self._runs.get(str(run_id))
        if run is not None and run.first_token is None:
            run.first_token = time.perf_counter()

    def llm_end(self, response: LLMResult, run_id: UUID) -> ActionRecord | None:
        """The completion row (or what callbacks add to the replay layer's row)."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        joined = run_registry.pop(rid, None)
        origin = run_origins.pop(rid, None)
        ttft = (run.first_token - run.t0) * 1000.0 if run.first_token else None
        provider = (run.meta or {}).get("provider")
        if joined is not None:
            _, action_id, replayed = joined
            record = self._record(run, rid, "llm_completion", action_id)
            record.name = None  # keep the replay layer's name
            record.status = "completed"
            record.ttft_ms = None if replayed else ttft
            record.provider = provider if isinstance(provider, str) else None
            record.meta = _usage_note(run.meta, response_message(response), response)
            status = "replayed" if replayed else "completed"
            self._observed(run, status, record, None, response, origin)
            return record
        message = response_message(response)
        record = self._own_record(run, rid, "llm_completion")
        record.status = "completed"
        record.input = {"messages": run.input}
        record.output = message
        record.ttft_ms = ttft
        record.meta = run.meta
        if message is not None:
            for key, value in usage_fields(message).items():
                setattr(record, key, value)
        if record.provider is None and isinstance(provider, str):
            record.provider = provider
        if record.input_tokens is None and response.llm_output:
            usage = response.llm_output.get("token_usage") or {}
            record.input_tokens = usage.get("prompt_tokens")
            record.output_tokens = usage.get("completion_tokens")
            record.total_tokens = usage.get("total_tokens")
        if record.total_tokens is None and record.input_tokens is None:
            record.meta = _usage_note(run.meta, message, response)
        self._observed(run, "completed", record, None, response)
        return record

    def llm_error(self, error: BaseException, run_id: UUID) -> ActionRecord | None:
        """The failed completion row."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        joined = run_registry.pop(rid, None)
        run_origins.pop(rid, None)
        if joined is None:
            record = self._own_record(run, rid, "llm_completion")
            record.input = {"messages": run.input}
        else:
            record = self._record(run, rid, "llm_completion", joined[1])
            record.name = None
            record.latency_ms = run.elapsed_ms()
        record.status = "failed"
        record.error = error_payload(error)
        record.completed_at = _now()
        self._observed(run, "failed", record, error)
        return record

    # ----------------------------------------------------------------- tools

    def tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        inputs: dict[str, Any] | None,
        extra: dict[str, Any],
    ) -> None:
        """Note a tool call (joined to the replay layer's row when it wrote one)."""
        rid = str(run_id)
        tool_name = extra.get("name") or (serialized or {}).get("name") or "tool"
        tool_call_id = extra.get("tool_call_id")
        run = OpenRun(
            "tool",
            opt_str(parent_run_id),
            metadata or {},
            name=str(tool_name),
            input=inputs if inputs is not None else input_str,
            meta={"tool_call_id": tool_call_id} if tool_call_id else None,
        )
        joined = run_registry.get(rid)
        if joined is not None:
            run.action_id = joined[1]
        self._runs[rid] = run
        if self._observing:
            call_id = None if tool_call_id is None else str(tool_call_id)
            self._observe(run, "tool", str(tool_name), tool_call_id=call_id)

    def tool_end(
        self, output: Any, run_id: UUID, error: BaseException | None = None
    ) -> ActionRecord | None:
        """The tool call's row: its result, or its failure when ``error`` is given."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        joined = run_registry.pop(rid, None)
        origin = run_origins.pop(rid, None)
        if joined is not None:
            # The replay layer logs the result itself; add what only callbacks see.
            # on_tool_end fires inside the tool run, before the replay layer logs the
            # output: a live call's row must not read "completed" (with no output)
            # if a flush takes this row first and the process dies in between.
            record = self._record(run, rid, "tool_call", joined[1])
            record.name = None
            done = "completed" if error is None else "failed"
            record.status = done if joined[2] else "running"
            record.meta = run.meta
            self._observed(run, "replayed" if joined[2] else done, record, error, None, origin)
            return record
        record = self._own_record(run, rid, "tool_call")
        record.input = run.input
        record.meta = run.meta
        if error is not None:
            record.status = "failed"
            record.error = error_payload(error)
        else:
            record.output = output
            failed = isinstance(output, ToolMessage) and output.status == "error"
            record.status = "failed" if failed else "completed"
        self._observed(run, record.status, record, error)
        return record

    # ------------------------------------------------------------- retrievers

    def retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        extra: dict[str, Any],
    ) -> None:
        """Note a retriever call."""
        rname = extra.get("name") or (serialized or {}).get("name") or "retriever"
        run = OpenRun("retriever", opt_str(parent_run_id), metadata or {}, str(rname), query)
        self._runs[str(run_id)] = run
        self._observe(run, "retriever", str(rname))

    def retriever_end(
        self, documents: Any, run_id: UUID, error: BaseException | None = None
    ) -> ActionRecord | None:
        """The retriever call's row: its documents, or its failure."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        record = self._own_record(run, rid, "retriever")
        record.input = {"query": run.input}
        if error is None:
            record.status = "completed"
            record.output = list(documents or [])
        else:
            record.status = "failed"
            record.error = error_payload(error)
        self._observed(run, record.status, record, error)
        return record


def _chain_status(error: BaseException) -> str:
    """How a chain that raised ended: a handoff completes it, an interrupt pauses it."""
    if isinstance(error, ParentCommand):
        return "completed"
    return "interrupted" if isinstance(error, GraphInterrupt) else "failed"


def _goto_names(goto: Any) -> list[str]:
    """The node names a handoff goes to (``goto`` is a name, a Send, or a list of them)."""
    items = goto if isinstance(goto, (list, tuple)) else [goto]
    return [str(getattr(item, "node", item)) for item in items if item is not None]


USAGE_UNKNOWN = (
    "unknown: the model reported no token usage (a streamed OpenAI call reports it only "
    "with stream_usage=True)"
)
"""``meta["usage"]`` of an LLM row whose response carried no token counts."""


def _usage_note(
    meta: dict[str, Any] | None, message: Any, response: LLMResult
) -> dict[str, Any] | None:
    """``meta`` plus ``usage: unknown`` when neither the message nor the result has usage."""
    if getattr(message, "usage_metadata", None) or (response.llm_output or {}).get("token_usage"):
        return meta
    return {**(meta or {}), "usage": USAGE_UNKNOWN}
