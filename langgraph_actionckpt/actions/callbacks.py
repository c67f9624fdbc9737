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

With OpenTelemetry configured (the ``[otel]`` extra and a TracerProvider), each
action also gets a span under its node's span, and the row stores the span's
trace and span ids (:mod:`.otel`, told by the recorder through the
:class:`~.observer.ActionObserver` protocol).

Where the parts live: :mod:`.recorder` (the run state machine that makes the
rows, no I/O), :mod:`._async_handler` (the async handler, the one source) and
:mod:`._sync_handler` (the sync handler, generated from it by
``.ci/gen_sync.py``).
"""

from __future__ import annotations

from langgraph_actionckpt.actions._async_handler import AsyncActionCallbackHandler
from langgraph_actionckpt.actions._sync_handler import ActionCallbackHandler

__all__ = ["ActionCallbackHandler", "AsyncActionCallbackHandler"]
