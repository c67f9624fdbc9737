# Generated from langgraph_actionckpt/replay/_async_calls.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The code that runs in place of LangChain's methods and around ``@action`` calls.

``_async_calls.py`` is the source and ``_sync_calls.py`` is generated from it
(``python .ci/gen_sync.py``); :mod:`.hooks` installs both worlds' functions:

* :class:`AsyncReplayCache` (``alookup``/``aupdate``; sync: ``lookup``/``update``),
  the methods of the global LLM cache;
* :func:`stream`, in place of ``BaseChatModel.astream`` (sync: ``.stream``),
  which bypasses LangChain's cache;
* :func:`run_tool`, in place of ``BaseTool.arun`` (sync: ``.run``);
* :func:`call_action`, the body of an ``@action`` wrapper.

Outside a task of one of our graphs, and while a replayed call re-enters model
or tool code, each of them defers to what LangChain (or the user) had.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, cast

from langchain_core.caches import RETURN_VAL_TYPE
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, message_chunk_to_message
from langchain_core.outputs import ChatGeneration
from langchain_core.tools import BaseTool

from langgraph_actionckpt.actions.fields import usage_fields
from langgraph_actionckpt.actions.join import pending_llm_run, register_run
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.replay import _sync_log as log
from langgraph_actionckpt.replay import exact
from langgraph_actionckpt.replay.context import current_action_var, replaying, task_scope
from langgraph_actionckpt.replay.core import Live
from langgraph_actionckpt.replay.llm import (
    FORCED,
    LAST,
    ReplayCacheCore,
    first_message,
    orig_stream,
    prompt_and_llm_string,
    replay_cache_for,
    serve_forced,
    to_chunk,
)
from langgraph_actionckpt.replay.tools import (
    orig_run,
    replaying_copy,
    run_id_of,
    tool_fields,
    tool_is_idempotent,
    tool_request,
    tool_reuse_key,
)


class SyncReplayCache(ReplayCacheCore):
    """The cache methods of one world; ``hooks.ReplayLLMCache`` joins both worlds'."""

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """Serve a logged completion, or note a live one (LangChain then calls the model)."""
        forced = FORCED.get()
        if forced:
            return serve_forced(forced)
        scope = task_scope()
        if scope is None or replaying.get():
            return self.inner.lookup(prompt, llm_string) if self.inner else None
        name, request, logged = self._action(prompt, llm_string)
        decided = log.begin(
            scope,
            "llm_completion",
            name,
            request,
            idempotent=True,
            input=logged,
            reusable=llm_string,
        )
        return self._decided(decided, scope)

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Log a live completion durably (the message, with its usage)."""
        live = self._take(prompt, llm_string)
        if live is None:
            if self.inner is not None:
                self.inner.update(prompt, llm_string, return_val)
            return
        message = first_message(return_val)
        log.complete(live, message, **usage_fields(message))


def stream(
    self: BaseChatModel,
    input: Any,
    config: Any = None,
    *,
    stop: list[str] | None = None,
    **kwargs: Any,
) -> Iterator[AIMessageChunk]:
    """Stream a model inside our graphs through the replay cache, as invoke() would.

    A hit is served as one chunk (through invoke(), so callbacks fire); a live
    stream is passed through chunk by chunk and logged once it ends.
    """
    cache = replay_cache_for(self)
    if cache is None or task_scope() is None or replaying.get():
        for chunk in orig_stream(self, input, config, stop=stop, **kwargs):
            yield chunk
        return
    prompt, llm_string = prompt_and_llm_string(self, input, stop, kwargs)
    LAST.set(None)
    hit = cache.lookup(prompt, llm_string)
    last = LAST.get()
    if hit is not None:
        # invoke() consults the cache once more: serve the same hit
        token = FORCED.set([(hit, last)])
        try:
            message = self.invoke(input, config, stop=stop, **kwargs)
        finally:
            FORCED.reset(token)
        yield to_chunk(message)
        return
    chunks: list[AIMessageChunk] = []
    pending_llm_run.set(None)
    for chunk in orig_stream(self, input, config, stop=stop, **kwargs):
        if not chunks and last is not None:  # the callback run has started by now
            register_run(pending_llm_run.get(), last[0], last[1], False)
        chunks.append(chunk)
        yield chunk
    if chunks:
        merged = functools.reduce(lambda a, b: a + b, chunks)
        cache.update(prompt, llm_string, [ChatGeneration(message=message_chunk_to_message(merged))])


def run_tool(self: BaseTool, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a tool inside our graphs: serve its logged result, or run and log it."""
    scope = task_scope()
    if scope is None or replaying.get():
        return orig_run(self, tool_input, *args, **kwargs)
    request = tool_request(self, tool_input)
    types = exact.tool_types(self)
    decided = log.begin(
        scope,
        "tool_call",
        self.name,
        request,
        idempotent=tool_is_idempotent(self),
        input=request,
        reusable=tool_reuse_key(self),
        types=types,
    )
    run_id = run_id_of(kwargs)
    if isinstance(decided, ActionRecord):
        origin = (decided.trace_id, decided.span_id)
        register_run(str(run_id), scope.thread_id, decided.action_id, True, origin)
        token = replaying.set(True)
        try:
            return orig_run(replaying_copy(self, decided), tool_input, *args, **kwargs)
        finally:
            replaying.reset(token)
    register_run(str(run_id), scope.thread_id, decided.record.action_id, False)
    call = functools.partial(orig_run, self, tool_input, *args, **kwargs)
    return _run_live(decided, call, tool_fields, types)


def call_action(
    fn: Callable[..., Any],
    name: str,
    idempotent: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    reusable: bool = False,
) -> Any:
    """Call an ``@action`` function inside our graphs: serve its logged result, or run it."""
    scope = task_scope()
    if scope is None or replaying.get():
        return fn(*args, **kwargs)
    request = {"args": list(args), "kwargs": kwargs}
    types = exact.declared_types(fn)
    decided = log.begin(
        scope,
        "function",
        name,
        request,
        idempotent=idempotent,
        input=request,
        reusable=() if reusable else None,
        types=types,
    )
    if isinstance(decided, ActionRecord):
        return decided.output
    return _run_live(decided, functools.partial(fn, *args, **kwargs), _no_fields, types)


def _run_live(
    live: Live,
    call: Callable[[], Any],
    fields: Callable[[Any], dict[str, Any]],
    types: exact.Types,
) -> Any:
    """Run a live action under its idempotency key, then log its result or failure.

    The result is logged with what its exact replay needs (:func:`exact.seal`).
    """
    token = current_action_var.set(live.record.action_id)
    try:
        output = call()
    except BaseException as exc:
        log.fail(live, exc)
        raise
    finally:
        current_action_var.reset(token)
    sealed = exact.seal(live.record, output, cast(Any, live.scope.saver).serde, types)
    log.complete(live, output, **fields(output), **sealed)
    return output


def _no_fields(output: Any) -> dict[str, Any]:
    return {}
