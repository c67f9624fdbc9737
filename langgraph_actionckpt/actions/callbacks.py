"""Callback handlers that record every step of a LangGraph run as action rows.

Attach one line::

    graph.invoke(inputs, {"configurable": {"thread_id": "t1"},
                          "callbacks": [ActionCallbackHandler(saver)]})

What is recorded, per event that reaches the handler (subgraphs and tools
included, since LangChain passes config callbacks down):

* ``node``: one row per task, written ``running`` when the node starts and
  completed by the saver when the task's writes are stored (same row);
* ``llm_completion``: prompt and response in full, model, provider, invocation
  parameters, token usage (input, output, total, cached, reasoning), latency
  and time to first token when streaming;
* ``tool_call``: tool, ``tool_call_id``, arguments, result (content and
  artifact) or error;
* ``retriever``: query and documents;
* failures with type, message and traceback and status ``failed``.

LLM completions and tool calls that the replay layer handles are written by it
(durably, with deterministic idempotency keys); the handler joins those rows by
LangChain run id and adds what only callbacks see (parent action, time to first
token, invocation parameters, ``tool_call_id``). Calls the replay layer does not
see (a model with ``cache=False``, a graph checkpointed by another saver) get a
row of their own, marked ``replayable=false``.

Rows are queued on the saver's batched writer: recording costs the graph a
dictionary and a deque append per event; the queue is flushed in the
background, when the root run ends, and on close.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.outputs import LLMResult

from langgraph_actionckpt._contracts import ActionSaverLike, is_action_saver
from langgraph_actionckpt.actions.fields import agent_id_for, error_payload, usage_fields
from langgraph_actionckpt.actions.join import pending_llm_run, run_registry
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.actions.writer import AsyncActionWriter
from langgraph_actionckpt.db import lease as _lease

logger = logging.getLogger("langgraph_actionckpt")


def _now() -> datetime:
    return datetime.now(UTC)


class _Run:
    __slots__ = (
        "action_id",
        "first_token",
        "input",
        "kind",
        "meta",
        "metadata",
        "name",
        "parent",
        "t0",
        "thread_id",
    )

    def __init__(
        self,
        kind: str,
        parent: str | None,
        metadata: dict[str, Any] | None,
        name: str | None = None,
        input: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.parent = parent
        self.metadata = metadata or {}
        self.name = name
        self.input = input
        self.meta = meta
        self.t0 = time.perf_counter()
        self.first_token: float | None = None
        self.action_id: str | None = None
        tid = self.metadata.get("thread_id")
        self.thread_id: str | None = None if tid is None else str(tid)


def _ns_parts(metadata: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(graph ns, task id, node name of the ns's last segment)."""
    ns = str(metadata.get("langgraph_checkpoint_ns") or "")
    if not ns:
        return "", None, None
    last = ns.rsplit("|", 1)[-1]
    node, _, task_id = last.partition(":")
    graph_ns = ns.rsplit("|", 1)[0] if "|" in ns else ""
    return graph_ns, task_id or None, node or None


class _Recorder:
    """The state machine shared by the sync and async handlers (no I/O here)."""

    def __init__(self, saver: ActionSaverLike, *, record_chains: bool = True) -> None:
        if not is_action_saver(saver):
            raise TypeError(
                "ActionCallbackHandler needs an ActionSaver or AsyncActionSaver, "
                f"got {type(saver).__name__}"
            )
        self.saver = saver
        self.record_chains = record_chains
        self._runs: dict[str, _Run] = {}
        # root run id -> thread id whose lease that run took
        self._leases: dict[str, str] = {}

    # -------------------------------------------------------------- helpers

    def _enqueue(self, record: ActionRecord) -> None:
        self.saver.writer.enqueue(record)

    def _parent_action(self, parent: str | None) -> str | None:
        seen = 0
        while parent is not None and seen < 64:
            run = self._runs.get(parent)
            if run is None:
                return None
            if run.action_id is not None:
                return run.action_id
            parent = run.parent
            seen += 1
        return None

    def _base(self, run: _Run, run_id: str, kind: str, action_id: str) -> ActionRecord:
        graph_ns, task_id, _ = _ns_parts(run.metadata)
        step = run.metadata.get("langgraph_step")
        return ActionRecord(
            thread_id=run.thread_id or "",
            action_id=action_id,
            action_type=kind,
            name=run.name,
            checkpoint_ns=graph_ns,
            task_id=task_id,
            node=run.metadata.get("langgraph_node"),
            agent_id=agent_id_for(graph_ns, run.metadata),
            step=step if isinstance(step, int) else None,
            run_id=_str(run.metadata.get("run_id")),
            parent_action_id=self._parent_action(run.parent),
            lc_run_id=run_id,
        )

    def _own_id(self, run: _Run, kind: str, run_id: str) -> str:
        _, task_id, _ = _ns_parts(run.metadata)
        return f"{task_id or 'run'}:{kind}:run:{run_id}"

    # ---------------------------------------------------------------- chains

    def chain_start(
        self,
        serialized: dict[str, Any] | None,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        name: str | None,
        inputs: Any,
    ) -> None:
        rid = str(run_id)
        meta = metadata or {}
        run_name = name or (serialized or {}).get("name")
        run = _Run("chain", _str(parent_run_id), meta, run_name)
        self._runs[rid] = run
        _, task_id, ns_node = _ns_parts(meta)
        if (
            not self.record_chains
            or task_id is None
            or run.thread_id is None
            or ns_node != run_name
            or meta.get("langgraph_node") != run_name
            or str(run_name).startswith("__")  # __start__ and friends: LangGraph plumbing
        ):
            return
        # This run is the node itself: its row is the saver's `node` row.
        run.action_id = f"{task_id}:node"
        record = self._base(run, rid, "node", run.action_id)
        record.status = "running"
        record.started_at = _now()
        if isinstance(inputs, dict):
            record.input = {"keys": sorted(str(k) for k in inputs)}
        self._enqueue(record)

    @staticmethod
    def root_thread(parent_run_id: UUID | None, metadata: dict[str, Any] | None) -> str | None:
        """The thread a root run (one with no parent) runs, if any: the one to lease."""
        if parent_run_id is not None or not metadata:
            return None
        tid = metadata.get("thread_id")
        return None if tid is None else str(tid)

    def lease_end(self, run_id: UUID) -> str | None:
        """The thread whose lease this root run holds (forgotten on the way out)."""
        return self._leases.pop(str(run_id), None)

    def chain_end(self, run_id: UUID, parent_run_id: UUID | None) -> bool:
        """Returns True when the root run ended (time to flush)."""
        self._runs.pop(str(run_id), None)
        return parent_run_id is None

    def chain_error(self, error: BaseException, run_id: UUID, parent_run_id: UUID | None) -> bool:
        run = self._runs.pop(str(run_id), None)
        if run is not None and run.action_id is not None and run.thread_id:
            record = self._base(run, str(run_id), "node", run.action_id)
            record.status = "interrupted" if type(error).__name__ == "GraphInterrupt" else "failed"
            record.error = error_payload(error)
            record.completed_at = _now()
            self._enqueue(record)
        return parent_run_id is None

    # ------------------------------------------------------------------ LLMs

    def llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        invocation_params: dict[str, Any] | None,
        name: str | None,
    ) -> None:
        rid = str(run_id)
        params = invocation_params or {}
        model = (
            params.get("model_name")
            or params.get("model")
            or (metadata or {}).get("ls_model_name")
            or name
            or (serialized or {}).get("name")
        )
        provider = (metadata or {}).get("ls_provider") or params.get("_type")
        run = _Run(
            "llm",
            _str(parent_run_id),
            metadata,
            name=str(model) if model else "llm",
            input=prompts,
            meta={
                "invocation_params": {k: v for k, v in params.items() if k != "tools"},
                "tools": [
                    t.get("function", {}).get("name")
                    for t in params.get("tools") or []
                    if isinstance(t, dict)
                ],
                "provider": provider,
            },
        )
        self._runs[rid] = run
        # The replay cache reads this right after, in the same context, to join rows.
        pending_llm_run.set(rid)

    def llm_token(self, run_id: UUID) -> None:
        run = self._runs.get(str(run_id))
        if run is not None and run.first_token is None:
            run.first_token = time.perf_counter()

    def llm_end(self, response: LLMResult, run_id: UUID) -> None:
        rid = str(run_id)
        run = self._runs.pop(rid, None)
        if run is None or run.thread_id is None:
            return
        message = _response_message(response)
        joined = run_registry.pop(rid, None)
        ttft = (run.first_token - run.t0) * 1000.0 if run.first_token else None
        provider = (run.meta or {}).get("provider")
        if joined is not None:
            _, action_id, replayed = joined
            record = self._base(run, rid, "llm_completion", action_id)
            record.name = None  # keep the replay layer's name
            record.status = "completed"
            record.ttft_ms = None if replayed else ttft
            record.provider = provider if isinstance(provider, str) else None
            record.meta = run.meta
            self._enqueue(record)
            return
        record = self._base(run, rid, "llm_completion", self._own_id(run, "llm_completion", rid))
        record.status = "completed"
        record.replayable = False
        record.input = {"messages": run.input}
        record.output = message
        record.started_at = _now()
        record.completed_at = record.started_at
        record.latency_ms = (time.perf_counter() - run.t0) * 1000.0
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
        self._enqueue(record)

    def llm_error(self, error: BaseException, run_id: UUID) -> None:
        rid = str(run_id)
        run = self._runs.pop(rid, None)
        if run is None or run.thread_id is None:
            return
        joined = run_registry.pop(rid, None)
        action_id = joined[1] if joined else self._own_id(run, "llm_completion", rid)
        record = self._base(run, rid, "llm_completion", action_id)
        if joined is None:
            record.input = {"messages": run.input}
            record.replayable = False
            record.started_at = _now()
        else:
            record.name = None
        record.status = "failed"
        record.error = error_payload(error)
        record.completed_at = _now()
        record.latency_ms = (time.perf_counter() - run.t0) * 1000.0
        self._enqueue(record)

    # ----------------------------------------------------------------- tools

    def tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        inputs: dict[str, Any] | None,
        tool_call_id: str | None,
        name: str | None,
    ) -> None:
        rid = str(run_id)
        tool_name = name or (serialized or {}).get("name") or "tool"
        run = _Run(
            "tool",
            _str(parent_run_id),
            metadata,
            name=str(tool_name),
            input=inputs if inputs is not None else input_str,
            meta={"tool_call_id": tool_call_id} if tool_call_id else None,
        )
        joined = run_registry.get(rid)
        if joined is not None:
            run.action_id = joined[1]
        self._runs[rid] = run

    def tool_end(self, output: Any, run_id: UUID) -> None:
        rid = str(run_id)
        run = self._runs.pop(rid, None)
        if run is None or run.thread_id is None:
            return
        joined = run_registry.pop(rid, None)
        if joined is not None:
            record = self._base(run, rid, "tool_call", joined[1])
            record.name = None
            # on_tool_end fires inside the tool run, before the replay layer logs the
            # output: a live call's row must not read "completed" (with no output)
            # if a flush takes this row first and the process dies in between.
            record.status = "completed" if joined[2] else "running"
            record.meta = run.meta
            self._enqueue(record)
            return
        record = self._base(run, rid, "tool_call", self._own_id(run, "tool_call", rid))
        record.replayable = False
        record.input = run.input
        record.output = output
        record.status = (
            "failed"
            if isinstance(output, ToolMessage) and output.status == "error"
            else "completed"
        )
        record.started_at = _now()
        record.completed_at = record.started_at
        record.latency_ms = (time.perf_counter() - run.t0) * 1000.0
        record.meta = run.meta
        self._enqueue(record)

    def tool_error(self, error: BaseException, run_id: UUID) -> None:
        rid = str(run_id)
        run = self._runs.pop(rid, None)
        if run is None or run.thread_id is None:
            return
        joined = run_registry.pop(rid, None)
        if joined is not None:
            # The replay layer logged the failure itself; add what only callbacks see.
            record = self._base(run, rid, "tool_call", joined[1])
            record.name = None
            record.status = "failed" if joined[2] else "running"  # see tool_end
            record.meta = run.meta
            self._enqueue(record)
            return
        record = self._base(run, rid, "tool_call", self._own_id(run, "tool_call", rid))
        record.replayable = False
        record.input = run.input
        record.status = "failed"
        record.error = error_payload(error)
        record.started_at = _now()
        record.completed_at = record.started_at
        record.latency_ms = (time.perf_counter() - run.t0) * 1000.0
        record.meta = run.meta
        self._enqueue(record)

    # ------------------------------------------------------------- retrievers

    def retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        name: str | None,
    ) -> None:
        rid = str(run_id)
        rname = name or (serialized or {}).get("name") or "retriever"
        self._runs[rid] = _Run("retriever", _str(parent_run_id), metadata, str(rname), query)

    def retriever_end(
        self, documents: Any, run_id: UUID, error: BaseException | None = None
    ) -> None:
        rid = str(run_id)
        run = self._runs.pop(rid, None)
        if run is None or run.thread_id is None:
            return
        record = self._base(run, rid, "retriever", self._own_id(run, "retriever", rid))
        record.replayable = False
        record.input = {"query": run.input}
        record.started_at = _now()
        record.completed_at = record.started_at
        record.latency_ms = (time.perf_counter() - run.t0) * 1000.0
        if error is None:
            record.status = "completed"
            record.output = list(documents or [])
        else:
            record.status = "failed"
            record.error = error_payload(error)
        self._enqueue(record)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _response_message(response: LLMResult) -> BaseMessage | None:
    try:
        gen = response.generations[0][0]
    except (IndexError, TypeError):
        return None
    message = getattr(gen, "message", None)
    if isinstance(message, BaseMessage):
        return message
    from langchain_core.messages import AIMessage

    return AIMessage(content=getattr(gen, "text", ""))


class ActionCallbackHandler(BaseCallbackHandler):
    """Records every LLM completion, tool call, retriever call and node transition.

    Args:
        saver: The :class:`~langgraph_actionckpt.ActionSaver` (or async one) whose
            action log receives the rows; usually the graph's checkpointer.
        record_chains: Write a ``running`` node row when a node starts.

    The handler sets ``raise_error`` (a failure to record is never silently
    lost) and ``run_inline`` (events are handled in the caller's context, which
    lets it join rows written by the replay layer).
    """

    raise_error = True
    run_inline = True

    def __init__(self, saver: ActionSaverLike, *, record_chains: bool = True) -> None:
        self._rec = _Recorder(saver, record_chains=record_chains)
        self.saver = saver

    def flush(self) -> None:
        """Write queued rows now (blocks; from async code use ``await saver.writer.aflush()``)."""
        writer = self.saver.writer
        if isinstance(writer, AsyncActionWriter):
            try:
                on_loop = asyncio.get_running_loop() is writer.loop
            except RuntimeError:
                on_loop = False
            if on_loop:  # cannot block the loop: flush in the background
                writer.loop.create_task(writer.aflush())
                return
        writer.flush()

    def on_chain_start(
        self,
        serialized: dict[str, Any],
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a node start; a root run with a thread takes the thread's lease first."""
        thread_id = self._rec.root_thread(parent_run_id, metadata)
        if thread_id is not None and _lease.acquire(self.saver, thread_id):
            self._rec._leases[str(run_id)] = thread_id
        self._rec.chain_start(
            serialized, run_id, parent_run_id, metadata, kwargs.get("name"), inputs
        )

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Flush when the root run ends, then release its lease."""
        if self._rec.chain_end(run_id, parent_run_id):
            try:
                self.flush()
            finally:
                self._release(run_id)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a node failure; flush when the root run fails, then release its lease."""
        if self._rec.chain_error(error, run_id, parent_run_id):
            try:
                self.flush()
            finally:
                self._release(run_id)

    def _release(self, run_id: UUID) -> None:
        thread_id = self._rec.lease_end(run_id)
        if thread_id is not None:
            _lease.release(self.saver, thread_id)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a chat model call (its row is written when it ends)."""
        self._rec.llm_start(
            serialized,
            [list(m) for m in messages][0] if len(messages) == 1 else messages,
            run_id,
            parent_run_id,
            metadata,
            kwargs.get("invocation_params"),
            kwargs.get("name"),
        )

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a text model call."""
        self._rec.llm_start(
            serialized,
            prompts,
            run_id,
            parent_run_id,
            metadata,
            kwargs.get("invocation_params"),
            kwargs.get("name"),
        )

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Time to first token."""
        self._rec.llm_token(run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the completion."""
        self._rec.llm_end(response, run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the failure."""
        self._rec.llm_error(error, run_id)

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a tool call."""
        self._rec.tool_start(
            serialized,
            input_str,
            run_id,
            parent_run_id,
            metadata,
            inputs,
            kwargs.get("tool_call_id"),
            kwargs.get("name"),
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool result."""
        self._rec.tool_end(output, run_id)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool failure."""
        self._rec.tool_error(error, run_id)

    def on_retriever_start(
        self,
        serialized: dict[str, Any],
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a retriever call."""
        self._rec.retriever_start(
            serialized, query, run_id, parent_run_id, metadata, kwargs.get("name")
        )

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the documents."""
        self._rec.retriever_end(documents, run_id)

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the failure."""
        self._rec.retriever_end(None, run_id, error)


class AsyncActionCallbackHandler(AsyncCallbackHandler):
    """The async twin of :class:`ActionCallbackHandler` (never blocks the event loop).

    Every hook only touches memory and the writer's queue; the root run's end
    awaits a flush of the queue.
    """

    raise_error = True
    run_inline = True

    def __init__(self, saver: ActionSaverLike, *, record_chains: bool = True) -> None:
        self._rec = _Recorder(saver, record_chains=record_chains)
        self.saver = saver

    async def aflush(self) -> None:
        """Write queued rows now."""
        await self.saver.writer.aflush()

    async def on_chain_start(
        self,
        serialized: dict[str, Any],
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a node start; a root run with a thread takes the thread's lease first."""
        thread_id = self._rec.root_thread(parent_run_id, metadata)
        if thread_id is not None and await _lease.aacquire(self.saver, thread_id):
            self._rec._leases[str(run_id)] = thread_id
        self._rec.chain_start(
            serialized, run_id, parent_run_id, metadata, kwargs.get("name"), inputs
        )

    async def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Flush when the root run ends, then release its lease."""
        if self._rec.chain_end(run_id, parent_run_id):
            try:
                await self.aflush()
            finally:
                await self._arelease(run_id)

    async def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a node failure; flush when the root run fails, then release its lease."""
        if self._rec.chain_error(error, run_id, parent_run_id):
            try:
                await self.aflush()
            finally:
                await self._arelease(run_id)

    async def _arelease(self, run_id: UUID) -> None:
        thread_id = self._rec.lease_end(run_id)
        if thread_id is not None:
            await _lease.arelease(self.saver, thread_id)

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a chat model call."""
        self._rec.llm_start(
            serialized,
            [list(m) for m in messages][0] if len(messages) == 1 else messages,
            run_id,
            parent_run_id,
            metadata,
            kwargs.get("invocation_params"),
            kwargs.get("name"),
        )

    async def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a text model call."""
        self._rec.llm_start(
            serialized,
            prompts,
            run_id,
            parent_run_id,
            metadata,
            kwargs.get("invocation_params"),
            kwargs.get("name"),
        )

    async def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Time to first token."""
        self._rec.llm_token(run_id)

    async def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the completion."""
        self._rec.llm_end(response, run_id)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the failure."""
        self._rec.llm_error(error, run_id)

    async def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a tool call."""
        self._rec.tool_start(
            serialized,
            input_str,
            run_id,
            parent_run_id,
            metadata,
            inputs,
            kwargs.get("tool_call_id"),
            kwargs.get("name"),
        )

    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool result."""
        self._rec.tool_end(output, run_id)

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool failure."""
        self._rec.tool_error(error, run_id)

    async def on_retriever_start(
        self,
        serialized: dict[str, Any],
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a retriever call."""
        self._rec.retriever_start(
            serialized, query, run_id, parent_run_id, metadata, kwargs.get("name")
        )

    async def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the documents."""
        self._rec.retriever_end(documents, run_id)

    async def on_retriever_error(
        self, error: BaseException, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """Record the failure."""
        self._rec.retriever_end(None, run_id, error)
