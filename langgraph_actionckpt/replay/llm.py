"""LLM completions as actions: cache keys, and the I/O-free half of the replay cache.

Completions are replayed through LangChain's global LLM cache: every
``BaseChatModel`` whose ``cache`` is left at its default consults it for
invoke/ainvoke/batch/abatch, ``bind_tools``, ``with_structured_output``, LCEL
chains, ``streaming=True`` and ``stream_mode="messages"``. Direct
``.stream()``/``.astream()`` bypass that cache, so those two methods are
patched to consult it too (the patch bodies are in :mod:`._async_calls`).

:class:`ReplayCacheCore` holds what the cache's sync and async methods share;
the methods themselves are written once in :mod:`._async_calls` (the sync ones
are generated) and joined into the public ``ReplayLLMCache`` by
:mod:`.hooks`.
"""

from __future__ import annotations

import contextvars
import json
from collections import deque
from collections.abc import Sequence
from typing import Any, cast

import orjson
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.globals import get_llm_cache
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.load import dumps
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration

from langgraph_actionckpt.actions.join import pending_llm_run, register_run
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.replay.context import TaskScope, stable_hash, task_scope
from langgraph_actionckpt.replay.core import Live

# LangChain's own methods, kept before the hooks replace them (uninstall restores them).
orig_stream = BaseChatModel.stream
orig_astream = BaseChatModel.astream

# Set by the stream patch around its invoke() on a hit: invoke() consults the
# cache once more, and must be served the same hit without a second lookup.
FORCED: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "actionckpt_forced_hit", default=None
)
# (thread_id, action_id) of the last cache decision in this context: the stream
# patch joins the callback run of a streamed call to it (the lookup happens
# before LangChain starts that run, so the lookup itself cannot).
LAST: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "actionckpt_last_llm_action", default=None
)


def canonical_prompt(prompt: str) -> list[Any]:
    """What the model sees of each message: type, content, name, tool calls, tool_call_id.

    Ids, usage and response metadata are left out: on a cache hit LangChain
    rewrites usage (``total_cost=0``), so a later prompt that contains a
    replayed message must still hash like the recorded one.
    """
    out: list[Any] = []
    for item in orjson.loads(prompt):
        kw = (
            item.get("kwargs")
            if isinstance(item, dict) and item.get("type") == "constructor"
            else None
        )
        if kw is None:
            out.append(item)
            continue
        out.append(
            {
                "type": kw.get("type"),
                "content": kw.get("content"),
                "name": kw.get("name"),
                "tool_calls": [
                    [tc.get("name"), tc.get("args"), tc.get("id")]
                    for tc in kw.get("tool_calls") or []
                ],
                "tool_call_id": kw.get("tool_call_id"),
            }
        )
    return out


def model_name(llm_string: str) -> str:
    """A short model name from LangChain's ``llm_string`` (best effort)."""
    head = llm_string.split("---", 1)[0]
    try:
        data = orjson.loads(head)
    except orjson.JSONDecodeError:
        marker = "('_type', '"
        i = llm_string.find(marker)
        if i >= 0:
            return llm_string[i + len(marker) :].split("'", 1)[0]
        return "llm"
    kwargs = data.get("kwargs") or {}
    for key in ("model_name", "model", "model_id", "deployment_name"):
        if isinstance(kwargs.get(key), str):
            return str(kwargs[key])
    ident = data.get("id")
    return str(ident[-1]) if isinstance(ident, list) and ident else "llm"


def serve_forced(forced: list[Any]) -> RETURN_VAL_TYPE:
    """The hit the stream patch already looked up, joined to the run invoke() starts."""
    hit, last = forced.pop()
    if last is not None:
        register_run(pending_llm_run.get(), last[0], last[1], True)
    return cast(RETURN_VAL_TYPE, hit)


def first_message(return_val: Sequence[Any] | None) -> BaseMessage:
    """The message LangChain caches for a completion (what replay serves)."""
    if not return_val:
        return AIMessage(content="")
    gen = return_val[0]
    message = getattr(gen, "message", None)
    if isinstance(message, BaseMessage):
        return message
    return AIMessage(content=getattr(gen, "text", ""))


class ReplayCacheCore(BaseCache):
    """What the replay cache's sync and async methods share (no I/O).

    Args:
        inner: The cache the user had set, consulted outside our graphs.
    """

    def __init__(self, inner: BaseCache | None = None) -> None:
        self.inner = inner

    def clear(self, **kwargs: Any) -> None:
        """Clears the wrapped user cache only; the action log is pruned with the CLI."""
        if self.inner is not None:
            self.inner.clear(**kwargs)

    # Pending live calls of a task execution, FIFO per request hash: lookup and
    # update of one call run back to back in the same task.
    @staticmethod
    def _pending(scope: TaskScope, h: str) -> deque[Live]:
        key = ("__llm_pending__", h)
        q = scope.counters.get(key)
        if q is None:
            q = scope.counters[key] = deque()
        return cast(deque[Live], q)

    @staticmethod
    def _request(prompt: str, llm_string: str) -> tuple[list[Any], str]:
        return canonical_prompt(prompt), llm_string

    @staticmethod
    def _hit(record: ActionRecord, scope: TaskScope) -> RETURN_VAL_TYPE:
        origin = (record.trace_id, record.span_id)
        register_run(pending_llm_run.get(), scope.thread_id, record.action_id, True, origin)
        LAST.set((scope.thread_id, record.action_id))
        message = record.output
        if not isinstance(message, BaseMessage):
            message = AIMessage(content=str(message))
        return [ChatGeneration(message=message)]

    def _action(self, prompt: str, llm_string: str) -> tuple[str, Any, Any]:
        """``(name, request, logged input)`` of the completion this prompt asks for."""
        request = self._request(prompt, llm_string)
        logged_input = {"messages": request[0], "llm": llm_string[:4000]}
        return model_name(llm_string), request, logged_input

    def _decided(self, decided: ActionRecord | Live, scope: TaskScope) -> RETURN_VAL_TYPE | None:
        """Serve a logged completion, or remember the live one for ``update``."""
        if isinstance(decided, ActionRecord):
            return self._hit(decided, scope)
        register_run(pending_llm_run.get(), scope.thread_id, decided.record.action_id, False)
        LAST.set((scope.thread_id, decided.record.action_id))
        self._pending(scope, decided.record.request_hash or "").append(decided)
        return None

    def _take(self, prompt: str, llm_string: str) -> Live | None:
        """The live call this update completes (FIFO per request in the task)."""
        scope = task_scope()
        if scope is None:
            return None
        request = self._request(prompt, llm_string)
        h = stable_hash(["llm_completion", model_name(llm_string), request])
        q = self._pending(scope, h)
        return q.popleft() if q else None


def replay_cache_for(model: BaseChatModel) -> ReplayCacheCore | None:
    """Our replay cache when ``model`` uses the global cache and it is ours."""
    if model.cache is False or isinstance(model.cache, BaseCache):
        return None
    cache = get_llm_cache()
    return cache if isinstance(cache, ReplayCacheCore) else None


def prompt_and_llm_string(
    model: BaseChatModel, input: Any, stop: list[str] | None, kwargs: dict[str, Any]
) -> tuple[str, str]:
    """Exactly what ``_generate_with_cache`` computes for the cache key."""
    kw = dict(kwargs)
    kw.pop("ls_structured_output_format", None)
    kw.pop("structured_output_format", None)
    messages = model._convert_input(input).to_messages()
    normalized = [
        m.model_copy(update={"id": None}) if getattr(m, "id", None) is not None else m
        for m in messages
    ]
    return dumps(normalized), model._get_llm_string(stop=stop, **kw)


def to_chunk(message: BaseMessage) -> AIMessageChunk:
    """A served message as the single, last chunk of a stream."""
    data = message.model_dump(
        exclude={"type", "tool_call_chunks", "tool_calls", "invalid_tool_calls"}
    )
    usage = data.get("usage_metadata")
    if usage is not None and "input_tokens" not in usage:
        # langchain-core marks a cache hit {"total_cost": 0} even when the model gave no usage
        data["usage_metadata"] = None
    data["tool_call_chunks"] = [
        {"name": tc["name"], "args": json.dumps(tc["args"]), "id": tc["id"], "index": i}
        for i, tc in enumerate(getattr(message, "tool_calls", []) or [])
    ]
    chunk = AIMessageChunk(**data)
    chunk.chunk_position = "last"
    return chunk
