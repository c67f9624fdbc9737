"""The recorder's calls part: model, tool and retriever runs in, their rows out (no I/O).

:class:`CallRecorder` is the part of the
:class:`~langgraph_actionckpt.actions.recorder.ActionRecorder` that follows the
calls a node makes: a model call, a tool call or a retriever call becomes one
action row at its end, or adds what only the callbacks see to the row the
replay layer wrote for it.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from langchain_core.messages import ToolMessage
from langchain_core.outputs import LLMResult

from langgraph_actionckpt.actions.fields import usage_fields
from langgraph_actionckpt.actions.join import pending_llm_run, run_origins, run_registry
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.runs import (
    Callback,
    OpenRun,
    TrackedRuns,
    fail,
    llm_call_meta,
    now,
    response_message,
    run_key,
)

__all__ = ["USAGE_UNKNOWN", "CallRecorder"]


class CallRecorder(TrackedRuns):
    """Model, tool and retriever runs: noted at their start, a row at their end.

    Each ``*_start`` method takes the start callback's :class:`Callback` and
    its payload; each ``*_end``/``*_error`` method returns the row to write, or
    None for a run outside a checkpointed thread.
    """

    # ------------------------------------------------------------------ LLMs

    def llm_start(self, call: Callback, prompts: Any, *, chat: bool = True) -> None:
        """Note a model call (chat messages, or text prompts when not ``chat``)."""
        params = call.extra.get("invocation_params") or {}
        model, call_meta = llm_call_meta(
            call.serialized, call.metadata or {}, params, call.extra.get("name")
        )
        run = OpenRun("llm", call, name=model, input=prompts, meta=call_meta)
        rid = run.rid
        self._runs[run.key] = run
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
        run = self._runs.get(run_key(run_id))
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
        record = self._own_record(run, rid, "llm_completion", {"messages": run.input}, run.meta)
        record.status = "completed"
        record.output = message
        record.ttft_ms = ttft
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
            record = self._own_record(run, rid, "llm_completion", {"messages": run.input})
        else:
            record = self._record(run, rid, "llm_completion", joined[1])
            record.name = None
            record.latency_ms = run.elapsed_ms()
        fail(record, error)
        record.completed_at = now()
        self._observed(run, "failed", record, error)
        return record

    # ----------------------------------------------------------------- tools

    def tool_start(self, call: Callback, input_str: str, inputs: dict[str, Any] | None) -> None:
        """Note a tool call (joined to the replay layer's row when it wrote one)."""
        tool_name = str(call.name("tool"))
        tool_call_id = call.extra.get("tool_call_id")
        run = OpenRun(
            "tool",
            call,
            tool_name,
            input_str if inputs is None else inputs,
            {"tool_call_id": tool_call_id} if tool_call_id else None,
        )
        if run_registry:  # empty unless the replay layer logs this process's calls
            joined = run_registry.get(run.rid)
            if joined is not None:
                run.action_id = joined[1]
        self._runs[run.key] = run
        if self._observing and run.thread_id is not None and self.observer.wants():
            call_id = None if tool_call_id is None else str(tool_call_id)
            self._observe(run, "tool", tool_name, tool_call_id=call_id)

    def tool_end(
        self, output: Any, run_id: UUID, error: BaseException | None = None
    ) -> ActionRecord | None:
        """The tool call's row: its result, or its failure when ``error`` is given."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        # (run_origins holds only runs that run_registry holds)
        joined = run_registry.pop(rid, None) if run_registry else None
        if joined is not None:
            origin = run_origins.pop(rid, None)
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
        record = self._own_record(run, rid, "tool_call", run.input, run.meta)
        # (a str result first: the isinstance check of a pydantic class costs more)
        failed = (
            type(output) is not str and isinstance(output, ToolMessage) and output.status == "error"
        )
        return self._own_end(run, record, error, output, failed)

    # ------------------------------------------------------------- retrievers

    def retriever_start(self, call: Callback, query: str) -> None:
        """Note a retriever call."""
        rname = str(call.name("retriever"))
        run = OpenRun("retriever", call, rname, query)
        self._runs[run.key] = run
        self._observe(run, "retriever", rname)

    def retriever_end(
        self, documents: Any, run_id: UUID, error: BaseException | None = None
    ) -> ActionRecord | None:
        """The retriever call's row: its documents, or its failure."""
        rid, run = self._finish(run_id)
        if run is None:
            return None
        record = self._own_record(run, rid, "retriever", {"query": run.input})
        return self._own_end(run, record, error, list(documents or []))

    def _own_end(
        self,
        run: OpenRun,
        record: ActionRecord,
        error: BaseException | None,
        output: Any,
        failed: bool = False,
    ) -> ActionRecord:
        """Settle a row only the callbacks made: its output, or its failure."""
        if error is not None:
            fail(record, error)
        else:
            record.output = output
            record.status = "failed" if failed else "completed"
        if run.span is not None:  # followed by the observer (tracing)
            self._observed(run, record.status, record, error)
        return record


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
