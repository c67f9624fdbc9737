"""The callback handler that records a LangGraph run, written once for async code.

``_sync_handler.py`` (:class:`ActionCallbackHandler`) is generated from this
file by ``.ci/gen_sync.py``. Every hook hands the event to the
:class:`~langgraph_actionckpt.actions.recorder.ActionRecorder` and queues the
row it returns on the saver's writer (memory only); the root run takes the
thread's lease at its start, and at its end flushes the queue and releases the
lease. See :mod:`langgraph_actionckpt.actions.callbacks` for what is recorded.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from psycopg.errors import QueryCanceled

from langgraph_actionckpt._contracts import ActionSaverLike, is_action_saver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.recorder import ActionRecorder
from langgraph_actionckpt.actions.runs import Callback, now
from langgraph_actionckpt.actions.settle import OPEN, superseding
from langgraph_actionckpt.actions.tracing import make_observer
from langgraph_actionckpt.db import lease as _lease

__all__ = ["AsyncActionCallbackHandler"]

logger = logging.getLogger("langgraph_actionckpt")


class AsyncActionCallbackHandler(AsyncCallbackHandler):
    """Records every LLM completion, tool call, retriever call and node transition.

    Use ``AsyncActionCallbackHandler`` in async code (its hooks never block the
    event loop; the root run's end awaits a flush of the queue) and
    ``ActionCallbackHandler`` in sync code (the root run's end blocks until the
    queue is written).

    Args:
        saver: The :class:`~langgraph_actionckpt.ActionSaver` (or async one) whose
            action log receives the rows; usually the graph's checkpointer.
        record_chains: Write a ``running`` node row when a node starts.
        tracing: OpenTelemetry spans per action, their ids stored on the rows
            (README "OpenTelemetry"). None (default): on when ``opentelemetry``
            is installed and a TracerProvider is configured (globally, or
            ``tracer_provider``); True: on (needs the ``[otel]`` extra); False: off.
        tracer_provider: The OpenTelemetry ``TracerProvider`` for the spans
            (default: the global one).

    Raises:
        TypeError: ``saver`` is not one of this package's savers.
        ConfigurationError: ``tracing=True`` without OpenTelemetry installed.

    The handler sets ``raise_error`` (a failure to record is never silently
    lost) and ``run_inline`` (events are handled in the caller's context, which
    lets it join rows written by the replay layer).
    """

    raise_error = True
    run_inline = True

    def __init__(
        self,
        saver: ActionSaverLike,
        *,
        record_chains: bool = True,
        tracing: bool | None = None,
        tracer_provider: Any = None,
    ) -> None:
        if not is_action_saver(saver):
            raise TypeError(
                "ActionCallbackHandler needs an ActionSaver or AsyncActionSaver, "
                f"got {type(saver).__name__}"
            )
        self.saver = saver
        observer = make_observer(tracing, tracer_provider)
        self._recorder = ActionRecorder(record_chains=record_chains, observer=observer)
        self._leased_at: dict[str, dt.datetime] = {}  # root run -> when it took the lease

    def _enqueue(self, record: ActionRecord | None) -> None:
        if record is not None:
            self.saver.writer.enqueue(record)

    async def aflush(self) -> None:
        """Write queued rows now."""
        await self.saver.writer.aflush()

    async def _root_ended(self, run_id: UUID) -> None:
        """Flush when the root run ends, close a dead attempt's rows, release the lease.

        A flush the server cancelled (a statement timeout) keeps its rows queued:
        the writer's next tick, or closing the saver, writes them. The run itself
        succeeded and does not fail for it.
        """
        thread_id = self._recorder.lease_end(run_id)
        since = self._leased_at.pop(str(run_id), None)
        try:
            try:
                await self.aflush()
            except QueryCanceled as exc:
                logger.warning("action rows kept for retry, the flush was cancelled: %s", exc)
            else:
                if thread_id is not None and since is not None:
                    await self._supersede(thread_id, since, str(run_id))
        finally:
            if thread_id is not None:
                await _lease.arelease(self.saver, thread_id)

    async def _supersede(self, thread_id: str, since: dt.datetime, run_id: str) -> None:
        # Under the lease no other live process runs the thread: a row still
        # open from before this run started is a dead attempt's (see actions.settle).
        log: Any = self.saver  # its reads (the protocol holds only what every hook uses)
        if not await log.alist_actions(thread_id, status=OPEN, limit=1):
            return
        rows = await log.alist_actions(thread_id)
        for record in superseding(rows, since, run_id):
            self._enqueue(record)
        await self.aflush()

    # The start hooks take LangChain's keywords (run_id, parent_run_id, metadata,
    # ...) as **kwargs: Callback.of names them once for every kind of run.

    async def on_chain_start(self, serialized: dict[str, Any], inputs: Any, **kwargs: Any) -> None:
        """Record a node start; a root run with a thread takes the thread's lease first."""
        call = Callback.of(serialized, kwargs)
        thread_id = self._recorder.root_thread(call.parent_run_id, call.metadata)
        if thread_id is not None and await _lease.aacquire(self.saver, thread_id):
            self._recorder.hold_lease(call.run_id, thread_id)
            self._leased_at[str(call.run_id)] = now()
        self._enqueue(self._recorder.chain_start(call, inputs))

    async def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Flush when the root run ends, then release its lease."""
        self._recorder.chain_end(run_id)
        if parent_run_id is None:
            await self._root_ended(run_id)

    async def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a node failure; flush when the root run fails, then release its lease."""
        self._enqueue(self._recorder.chain_error(error, run_id))
        if parent_run_id is None:
            await self._root_ended(run_id)

    async def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        """Note a chat model call (its row is written when it ends)."""
        prompt = [list(m) for m in messages][0] if len(messages) == 1 else messages
        self._recorder.llm_start(Callback.of(serialized, kwargs), prompt)

    async def on_llm_start(
        self, serialized: dict[str, Any], prompts: list[str], **kwargs: Any
    ) -> None:
        """Note a text model call."""
        self._recorder.llm_start(Callback.of(serialized, kwargs), prompts, chat=False)

    async def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Time to first token."""
        self._recorder.llm_token(run_id)

    async def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the completion."""
        self._enqueue(self._recorder.llm_end(response, run_id))

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the failure."""
        self._enqueue(self._recorder.llm_error(error, run_id))

    async def on_tool_start(
        self, serialized: dict[str, Any], input_str: str, **kwargs: Any
    ) -> None:
        """Note a tool call (``inputs``, when given, is the tool's structured input)."""
        inputs = kwargs.pop("inputs", None)
        self._recorder.tool_start(Callback.of(serialized, kwargs), input_str, inputs)

    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool result."""
        self._enqueue(self._recorder.tool_end(output, run_id))

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the tool failure."""
        self._enqueue(self._recorder.tool_end(None, run_id, error))

    async def on_retriever_start(
        self, serialized: dict[str, Any], query: str, **kwargs: Any
    ) -> None:
        """Note a retriever call."""
        self._recorder.retriever_start(Callback.of(serialized, kwargs), query)

    async def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record the documents."""
        self._enqueue(self._recorder.retriever_end(documents, run_id))

    async def on_retriever_error(
        self, error: BaseException, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """Record the failure."""
        self._enqueue(self._recorder.retriever_end(None, run_id, error))
