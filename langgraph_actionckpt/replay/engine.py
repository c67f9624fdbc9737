"""Per-action replay: completed LLM completions, tool calls and ``@action`` calls are
served from the log when a task runs again after a crash, never executed twice.

How each kind is covered, with no change to the user's graph:

* **LLM completions** through LangChain's global LLM cache
  (``langchain_core.globals.set_llm_cache``): every ``BaseChatModel`` whose
  ``cache`` is left at its default consults it for invoke/ainvoke/batch/abatch,
  ``bind_tools``, ``with_structured_output``, LCEL chains, ``streaming=True``
  and ``stream_mode="messages"``. Direct ``.stream()``/``.astream()`` bypass
  LangChain's cache, so those two methods are patched to consult it too.
* **Tool calls** through a patch of ``BaseTool.run``/``BaseTool.arun``: on a hit
  the original ``run`` executes on a private copy of the tool whose body
  returns the logged result, so callbacks fire and the ``ToolMessage`` keeps its
  ``tool_call_id``. ``create_agent``/``create_react_agent`` additionally run
  each tool call as its own task, whose finished writes LangGraph keeps anyway.
* **Anything else** (HTTP, SQL, SDK calls): the :func:`action` decorator.

All hooks are inert unless the running task belongs to a graph compiled with
one of this package's savers (``replay=True``, the default), so other graphs in
the process are untouched. Global effects, installed once per process by the
first saver created with ``replay=True``: the global LLM cache is set (an
existing user cache is wrapped, not replaced) and ``BaseChatModel.stream``,
``BaseChatModel.astream``, ``BaseTool.run`` and ``BaseTool.arun`` are wrapped.
:func:`uninstall` undoes all of it.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import inspect
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeVar, cast, overload

import orjson
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.load import dumps
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ToolMessage,
    message_chunk_to_message,
)
from langchain_core.outputs import ChatGeneration
from langchain_core.tools import BaseTool, ToolException

from langgraph_actionckpt.actions.fields import error_payload, usage_fields
from langgraph_actionckpt.actions.join import pending_llm_run, register_run
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.db import lease as _lease
from langgraph_actionckpt.errors import InFlightActionError
from langgraph_actionckpt.replay.context import (
    TaskScope,
    current_action_var,
    replaying,
    stable_hash,
    task_scope,
)

logger = logging.getLogger("langgraph_actionckpt")

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_installed = False


def _now() -> datetime:
    return datetime.now(UTC)


# --------------------------------------------------------------------- core


class Live:
    """A live (executing) action: its record, and when it started."""

    __slots__ = ("record", "scope", "t0")

    def __init__(self, scope: TaskScope, record: ActionRecord) -> None:
        self.scope = scope
        self.record = record
        self.t0 = time.perf_counter()


def _rows_of_task(scope: TaskScope) -> dict[str, ActionRecord]:
    """The task's logged actions, loaded once per attempt of each execution of the task."""
    rows = scope.counters.get("__rows__")
    if rows is None:
        records = cast(Any, scope.saver).list_actions(scope.thread_id, task_id=scope.task_id)
        rows = _retry_rule(scope, {r.action_id: r for r in records})
        scope.counters["__rows__"] = rows
    return cast(dict[str, ActionRecord], rows)


async def _arows_of_task(scope: TaskScope) -> dict[str, ActionRecord]:
    rows = scope.counters.get("__rows__")
    if rows is None:
        records = await cast(Any, scope.saver).alist_actions(scope.thread_id, task_id=scope.task_id)
        rows = _retry_rule(scope, {r.action_id: r for r in records})
        scope.counters["__rows__"] = rows
    return cast(dict[str, ActionRecord], rows)


def _retry_rule(scope: TaskScope, rows: dict[str, ActionRecord]) -> dict[str, ActionRecord]:
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
        scope.saver.writer.enqueue(
            ActionRecord(
                thread_id=last.thread_id,
                action_id=last.action_id,
                action_type=last.action_type,
                status=last.status,
                attempt=last.attempt,
                replayable=False,
            )
        )
    return rows


def _decide(
    scope: TaskScope,
    rows: dict[str, ActionRecord],
    action_id: str,
    kind: str,
    name: str,
    idempotent: bool,
    request_hash: str,
    input: Any,
) -> ActionRecord | Live:
    """Serve the logged row, refuse an in-flight non-idempotent one, or start a live one."""
    old = rows.get(action_id)
    attempt = 1
    if old is not None:
        if old.status == "completed" and old.replayable:
            return old
        if old.status in ("pending", "running", "unknown") and not (idempotent and old.idempotent):
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
        started_at=_now(),
    )
    rows[action_id] = record
    return Live(scope, record)


def _served(scope: TaskScope, old: ActionRecord) -> None:
    old.replayed += 1
    scope.saver.writer.enqueue(
        ActionRecord(
            thread_id=old.thread_id,
            action_id=old.action_id,
            action_type=old.action_type,
            status=old.status,
            replayed=old.replayed,
        )
    )
    scope.saver.metrics.observe_replay(old.action_type)


def begin(
    scope: TaskScope, kind: str, name: str, request: Any, *, idempotent: bool, input: Any
) -> ActionRecord | Live:
    """Look the action up; return the logged record to serve, or a :class:`Live` to run.

    A live non-idempotent action's row is durable before this returns; an
    idempotent one's is queued. Before the first live action of a task the
    checkpoint the task was prepared from is made durable (the barrier that
    keeps task ids stable under ``durability="async"``).
    """
    if not scope.counters.get("__lease__"):
        # Before the task's rows are read: another worker may be writing them.
        _lease.acquire(scope.saver, scope.thread_id)
        scope.counters["__lease__"] = True
    h = stable_hash([kind, name, request])
    action_id = scope.action_id(kind, name, h)
    decided = _decide(scope, _rows_of_task(scope), action_id, kind, name, idempotent, h, input)
    if isinstance(decided, ActionRecord):
        _served(scope, decided)
        return decided
    _barrier(scope)
    if idempotent:
        scope.saver.writer.enqueue(decided.record)
    else:
        scope.saver.writer.write_now(decided.record)
    return decided


async def abegin(
    scope: TaskScope, kind: str, name: str, request: Any, *, idempotent: bool, input: Any
) -> ActionRecord | Live:
    """Async :func:`begin`."""
    if not scope.counters.get("__lease__"):
        await _lease.aacquire(scope.saver, scope.thread_id)
        scope.counters["__lease__"] = True
    h = stable_hash([kind, name, request])
    action_id = scope.action_id(kind, name, h)
    rows = await _arows_of_task(scope)
    decided = _decide(scope, rows, action_id, kind, name, idempotent, h, input)
    if isinstance(decided, ActionRecord):
        _served(scope, decided)
        return decided
    await _abarrier(scope)
    if idempotent:
        scope.saver.writer.enqueue(decided.record)
    else:
        await scope.saver.writer.awrite_now(decided.record)
    return decided


def _finish(live: Live, output: Any, error: BaseException | None, **fields: Any) -> ActionRecord:
    # A new record, never the queued ``running`` one: another thread's flush may
    # be copying that one right now, and must never see "completed" without
    # the output (a replay would then serve None).
    rec = dataclasses.replace(live.record)
    live.record = rec
    rec.completed_at = _now()
    rec.latency_ms = (time.perf_counter() - live.t0) * 1000.0
    if error is None:
        rec.status = "completed"
        rec.output = output
    else:
        rec.status = "failed"
        rec.error = error_payload(error)
    for key, value in fields.items():
        setattr(rec, key, value)
    return rec


def complete(live: Live, output: Any, **fields: Any) -> None:
    """Log a live action's result durably (replay will serve it)."""
    live.scope.saver.writer.write_now(_finish(live, output, None, **fields))


async def acomplete(live: Live, output: Any, **fields: Any) -> None:
    """Async :func:`complete`."""
    await live.scope.saver.writer.awrite_now(_finish(live, output, None, **fields))


def fail(live: Live, error: BaseException) -> None:
    """Log a live action's failure (failed actions are executed again, never served).

    Written now, like a completion: the row must precede the writes LangGraph
    stores for the task (its ``node``/``branch`` rows), so ``step_index`` order
    stays causal. Failures are rare, so the round trip costs little.
    """
    record = _finish(live, None, error)
    try:
        live.scope.saver.writer.write_now(record)
    except Exception as exc:  # noqa: BLE001 - never mask the action's own error
        logger.warning("could not log failure of %s now (queued): %s", record.action_id, exc)
        live.scope.saver.writer.enqueue(record)


async def afail(live: Live, error: BaseException) -> None:
    """Async :func:`fail`."""
    record = _finish(live, None, error)
    try:
        await live.scope.saver.writer.awrite_now(record)
    except Exception as exc:  # noqa: BLE001 - never mask the action's own error
        logger.warning("could not log failure of %s now (queued): %s", record.action_id, exc)
        live.scope.saver.writer.enqueue(record)


def _barrier(scope: TaskScope) -> None:
    if scope.counters.get("__durable__"):
        return
    scope.saver.wait_durable(scope.checkpoint_ids, scope.durability)
    scope.counters["__durable__"] = True


async def _abarrier(scope: TaskScope) -> None:
    if scope.counters.get("__durable__"):
        return
    await scope.saver.await_durable(scope.checkpoint_ids, scope.durability)
    scope.counters["__durable__"] = True


# ------------------------------------------------------------------- LLMs


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


_FORCED: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "actionckpt_forced_hit", default=None
)
# (thread_id, action_id) of the last cache decision in this context: the stream
# patch joins the callback run of a streamed call to it (the lookup happens
# before LangChain starts that run, so the lookup itself cannot).
_LAST: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "actionckpt_last_llm_action", default=None
)


def _serve_forced(forced: list[Any]) -> RETURN_VAL_TYPE:
    hit, last = forced.pop()
    if last is not None:
        register_run(pending_llm_run.get(), last[0], last[1], True)
    return cast(RETURN_VAL_TYPE, hit)


class ReplayLLMCache(BaseCache):
    """The global LLM cache that replays logged completions inside our graphs.

    Outside such graphs it defers to ``inner`` (the cache the user had set, if
    any), so installing it changes nothing for other code.
    """

    def __init__(self, inner: BaseCache | None = None) -> None:
        self.inner = inner

    # Pending live calls of a task execution, FIFO per request hash: lookup and
    # update of one call run back to back in the same task.
    @staticmethod
    def _pending(scope: TaskScope, h: str) -> deque[Live]:
        key = ("__llm_pending__", h)
        q = scope.counters.get(key)
        if q is None:
            q = scope.counters[key] = deque()
        return cast(deque[Live], q)

    def _request(self, prompt: str, llm_string: str) -> tuple[list[Any], str]:
        return canonical_prompt(prompt), llm_string

    def _hit(self, record: ActionRecord, scope: TaskScope) -> RETURN_VAL_TYPE:
        register_run(pending_llm_run.get(), scope.thread_id, record.action_id, True)
        _LAST.set((scope.thread_id, record.action_id))
        message = record.output
        if not isinstance(message, BaseMessage):
            message = AIMessage(content=str(message))
        return [ChatGeneration(message=message)]

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """Serve a logged completion, or note a live one (LangChain then calls the model)."""
        forced = _FORCED.get()
        if forced:
            return _serve_forced(forced)
        scope = task_scope()
        if scope is None or replaying.get():
            return self.inner.lookup(prompt, llm_string) if self.inner else None
        name, request, logged = self._action(prompt, llm_string)
        decided = begin(scope, "llm_completion", name, request, idempotent=True, input=logged)
        return self._decided(decided, scope)

    async def alookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """Async :meth:`lookup` (no thread hop)."""
        forced = _FORCED.get()
        if forced:
            return _serve_forced(forced)
        scope = task_scope()
        if scope is None or replaying.get():
            return await self.inner.alookup(prompt, llm_string) if self.inner else None
        name, request, logged = self._action(prompt, llm_string)
        decided = await abegin(
            scope, "llm_completion", name, request, idempotent=True, input=logged
        )
        return self._decided(decided, scope)

    def _action(self, prompt: str, llm_string: str) -> tuple[str, Any, Any]:
        """``(name, request, logged input)`` of the completion this prompt asks for."""
        request = self._request(prompt, llm_string)
        logged_input = {"messages": request[0], "llm": llm_string[:4000]}
        return model_name(llm_string), request, logged_input

    def _decided(self, decided: ActionRecord | Live, scope: TaskScope) -> RETURN_VAL_TYPE | None:
        """Serve a logged completion, or remember the live one for :meth:`update`."""
        if isinstance(decided, ActionRecord):
            return self._hit(decided, scope)
        register_run(pending_llm_run.get(), scope.thread_id, decided.record.action_id, False)
        _LAST.set((scope.thread_id, decided.record.action_id))
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

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Log a live completion durably (the message, with its usage)."""
        live = self._take(prompt, llm_string)
        if live is None:
            if self.inner is not None:
                self.inner.update(prompt, llm_string, return_val)
            return
        message = _first_message(return_val)
        complete(live, message, **usage_fields(message))

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Async :meth:`update`."""
        live = self._take(prompt, llm_string)
        if live is None:
            if self.inner is not None:
                await self.inner.aupdate(prompt, llm_string, return_val)
            return
        message = _first_message(return_val)
        await acomplete(live, message, **usage_fields(message))

    def clear(self, **kwargs: Any) -> None:
        """Clears the wrapped user cache only; the action log is pruned with the CLI."""
        if self.inner is not None:
            self.inner.clear(**kwargs)


def _first_message(return_val: Sequence[Any] | None) -> BaseMessage:
    if not return_val:
        return AIMessage(content="")
    gen = return_val[0]
    message = getattr(gen, "message", None)
    if isinstance(message, BaseMessage):
        return message
    return AIMessage(content=getattr(gen, "text", ""))


# ---------------------------------------------------- stream / astream patch

_orig_stream = BaseChatModel.stream
_orig_astream = BaseChatModel.astream


def _replay_cache_for(model: BaseChatModel) -> ReplayLLMCache | None:
    if model.cache is False or isinstance(model.cache, BaseCache):
        return None
    cache = get_llm_cache()
    return cache if isinstance(cache, ReplayLLMCache) else None


def _prompt_and_llm_string(
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


def _to_chunk(message: BaseMessage) -> AIMessageChunk:
    import json

    data = message.model_dump(
        exclude={"type", "tool_call_chunks", "tool_calls", "invalid_tool_calls"}
    )
    data["tool_call_chunks"] = [
        {"name": tc["name"], "args": json.dumps(tc["args"]), "id": tc["id"], "index": i}
        for i, tc in enumerate(getattr(message, "tool_calls", []) or [])
    ]
    chunk = AIMessageChunk(**data)
    chunk.chunk_position = "last"
    return chunk


def _stream(
    self: BaseChatModel,
    input: Any,
    config: Any = None,
    *,
    stop: list[str] | None = None,
    **kwargs: Any,
) -> Iterator[AIMessageChunk]:
    cache = _replay_cache_for(self)
    if cache is None or task_scope() is None or replaying.get():
        yield from _orig_stream(self, input, config, stop=stop, **kwargs)
        return
    prompt, llm_string = _prompt_and_llm_string(self, input, stop, kwargs)
    _LAST.set(None)
    hit = cache.lookup(prompt, llm_string)
    last = _LAST.get()
    if hit is not None:
        # invoke() consults the cache once more: serve the same hit
        token = _FORCED.set([(hit, last)])
        try:
            message = self.invoke(input, config, stop=stop, **kwargs)
        finally:
            _FORCED.reset(token)
        yield _to_chunk(message)
        return
    chunks: list[AIMessageChunk] = []
    pending_llm_run.set(None)
    for chunk in _orig_stream(self, input, config, stop=stop, **kwargs):
        if not chunks and last is not None:  # the callback run has started by now
            register_run(pending_llm_run.get(), last[0], last[1], False)
        chunks.append(chunk)
        yield chunk
    if chunks:
        merged = functools.reduce(lambda a, b: a + b, chunks)
        cache.update(prompt, llm_string, [ChatGeneration(message=message_chunk_to_message(merged))])


async def _astream(
    self: BaseChatModel,
    input: Any,
    config: Any = None,
    *,
    stop: list[str] | None = None,
    **kwargs: Any,
) -> AsyncIterator[AIMessageChunk]:
    cache = _replay_cache_for(self)
    if cache is None or task_scope() is None or replaying.get():
        async for chunk in _orig_astream(self, input, config, stop=stop, **kwargs):
            yield chunk
        return
    prompt, llm_string = _prompt_and_llm_string(self, input, stop, kwargs)
    _LAST.set(None)
    hit = await cache.alookup(prompt, llm_string)
    last = _LAST.get()
    if hit is not None:
        token = _FORCED.set([(hit, last)])
        try:
            message = await self.ainvoke(input, config, stop=stop, **kwargs)
        finally:
            _FORCED.reset(token)
        yield _to_chunk(message)
        return
    chunks: list[AIMessageChunk] = []
    pending_llm_run.set(None)
    async for chunk in _orig_astream(self, input, config, stop=stop, **kwargs):
        if not chunks and last is not None:  # the callback run has started by now
            register_run(pending_llm_run.get(), last[0], last[1], False)
        chunks.append(chunk)
        yield chunk
    if chunks:
        merged = functools.reduce(lambda a, b: a + b, chunks)
        await cache.aupdate(
            prompt, llm_string, [ChatGeneration(message=message_chunk_to_message(merged))]
        )


# ------------------------------------------------------------------- tools

_orig_run = BaseTool.run
_orig_arun = BaseTool.arun


def tool_is_idempotent(tool: BaseTool) -> bool:
    """Tools are idempotent unless ``metadata={"idempotent": False}`` says otherwise."""
    meta = tool.metadata or {}
    return bool(meta.get("idempotent", True))


def _tool_request(tool: BaseTool, tool_input: Any) -> Any:
    if isinstance(tool_input, dict):
        try:
            return tool._filter_injected_args(tool_input)
        except Exception:  # noqa: BLE001 - older/odd tools: hash what we have
            return {k: v for k, v in tool_input.items() if k not in ("runtime", "state", "store")}
    return tool_input


def _replaying_copy(tool: BaseTool, record: ActionRecord) -> BaseTool:
    output = record.output
    if isinstance(output, ToolMessage):
        content: Any = output.content
        artifact = output.artifact
        status = output.status
    else:
        content, artifact, status = output, None, "success"

    def _replay(*args: Any, **kwargs: Any) -> Any:
        if status == "error":
            raise ToolException(content)
        if tool.response_format == "content_and_artifact":
            return (content, artifact)
        return content

    async def _areplay(*args: Any, **kwargs: Any) -> Any:
        return _replay()

    clone = tool.model_copy()
    object.__setattr__(clone, "_run", _replay)
    object.__setattr__(clone, "_arun", _areplay)
    if status == "error" and not clone.handle_tool_error:
        object.__setattr__(clone, "handle_tool_error", True)
    return clone


def _tool_run(self: BaseTool, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
    scope = task_scope()
    if scope is None or replaying.get():
        return _orig_run(self, tool_input, *args, **kwargs)
    request = _tool_request(self, tool_input)
    decided = begin(
        scope, "tool_call", self.name, request, idempotent=tool_is_idempotent(self), input=request
    )
    run_id = kwargs.get("run_id") or _uuid()
    kwargs["run_id"] = run_id
    if isinstance(decided, ActionRecord):
        register_run(str(run_id), scope.thread_id, decided.action_id, True)
        token = replaying.set(True)
        try:
            return _orig_run(_replaying_copy(self, decided), tool_input, *args, **kwargs)
        finally:
            replaying.reset(token)
    register_run(str(run_id), scope.thread_id, decided.record.action_id, False)
    token2 = current_action_var.set(decided.record.action_id)
    try:
        output = _orig_run(self, tool_input, *args, **kwargs)
    except BaseException as exc:
        fail(decided, exc)
        raise
    finally:
        current_action_var.reset(token2)
    complete(decided, output, **_tool_fields(output))
    return output


async def _tool_arun(self: BaseTool, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
    scope = task_scope()
    if scope is None or replaying.get():
        return await _orig_arun(self, tool_input, *args, **kwargs)
    request = _tool_request(self, tool_input)
    decided = await abegin(
        scope, "tool_call", self.name, request, idempotent=tool_is_idempotent(self), input=request
    )
    run_id = kwargs.get("run_id") or _uuid()
    kwargs["run_id"] = run_id
    if isinstance(decided, ActionRecord):
        register_run(str(run_id), scope.thread_id, decided.action_id, True)
        token = replaying.set(True)
        try:
            return await _orig_arun(_replaying_copy(self, decided), tool_input, *args, **kwargs)
        finally:
            replaying.reset(token)
    register_run(str(run_id), scope.thread_id, decided.record.action_id, False)
    token2 = current_action_var.set(decided.record.action_id)
    try:
        output = await _orig_arun(self, tool_input, *args, **kwargs)
    except BaseException as exc:
        await afail(decided, exc)
        raise
    finally:
        current_action_var.reset(token2)
    await acomplete(decided, output, **_tool_fields(output))
    return output


def _tool_fields(output: Any) -> dict[str, Any]:
    if isinstance(output, ToolMessage) and output.status == "error":
        return {"error": {"type": "ToolException", "message": str(output.content)}}
    return {}


def _uuid() -> Any:
    import uuid

    return uuid.uuid4()


# ------------------------------------------------------------------ @action


@overload
def action(func: Callable[P, R]) -> Callable[P, R]: ...


@overload
def action(
    *, idempotent: bool = True, name: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def action(
    func: Callable[P, R] | None = None, *, idempotent: bool = True, name: str | None = None
) -> Any:
    """Record and replay a plain function or coroutine as one action.

    Inside a graph checkpointed by this package's saver, a call whose result is
    logged is not executed again; its logged result is returned. Outside such
    graphs the function just runs. Arguments and results are stored with the
    package's reversible JSON encoding (bytes, datetimes, pydantic models and
    LangChain messages included); non-JSON results come back as their JSON form.

    Args:
        func: The function (when used as ``@action`` without parentheses).
        idempotent: False for side effects that must not happen twice (sending
            an email, charging a card): the intent row is durable before the
            call, and a call caught in flight by a crash is not executed again
            but raises :class:`~langgraph_actionckpt.InFlightActionError`.
        name: Action name (default: the function's qualified name).

    Example::

        @action(idempotent=False)
        def send_email(to: str, body: str) -> str:
            return smtp.send(to, body, idempotency_key=current_action())
    """

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        action_name: str = name or str(
            getattr(fn, "__qualname__", getattr(fn, "__name__", "action"))
        )
        if inspect.iscoroutinefunction(fn):
            afn = cast(Callable[P, Awaitable[Any]], fn)

            @functools.wraps(fn)
            async def arun(*args: P.args, **kwargs: P.kwargs) -> Any:
                scope = task_scope()
                if scope is None or replaying.get():
                    return await afn(*args, **kwargs)
                request = {"args": list(args), "kwargs": kwargs}
                decided = await abegin(
                    scope, "function", action_name, request, idempotent=idempotent, input=request
                )
                if isinstance(decided, ActionRecord):
                    return decided.output
                token = current_action_var.set(decided.record.action_id)
                try:
                    result = await afn(*args, **kwargs)
                except BaseException as exc:
                    await afail(decided, exc)
                    raise
                finally:
                    current_action_var.reset(token)
                await acomplete(decided, result)
                return result

            return cast(Callable[P, R], arun)

        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            scope = task_scope()
            if scope is None or replaying.get():
                return fn(*args, **kwargs)
            request = {"args": list(args), "kwargs": kwargs}
            decided = begin(
                scope, "function", action_name, request, idempotent=idempotent, input=request
            )
            if isinstance(decided, ActionRecord):
                return cast(R, decided.output)
            token = current_action_var.set(decided.record.action_id)
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                fail(decided, exc)
                raise
            finally:
                current_action_var.reset(token)
            complete(decided, result)
            return result

        return run

    if func is not None:
        return wrap(func)
    return wrap


def current_action() -> str | None:
    """The idempotency key of the action running now (inside a tool or ``@action``).

    Pass it downstream (e.g. as an ``Idempotency-Key`` header) so a service can
    deduplicate a call that a crash forced to be made again.
    """
    return current_action_var.get()


# --------------------------------------------------------------- install


def install() -> None:
    """Install the process-wide hooks once (idempotent). Called by the savers."""
    global _installed
    with _lock:
        if _installed:
            return
        existing = get_llm_cache()
        if not isinstance(existing, ReplayLLMCache):
            set_llm_cache(ReplayLLMCache(existing))
        BaseChatModel.stream = _stream  # type: ignore[method-assign]
        BaseChatModel.astream = _astream  # type: ignore[method-assign]
        BaseTool.run = _tool_run  # type: ignore[method-assign]
        BaseTool.arun = _tool_arun  # type: ignore[method-assign]
        _installed = True


def uninstall() -> None:
    """Remove every global effect of :func:`install`."""
    global _installed
    with _lock:
        cache = get_llm_cache()
        if isinstance(cache, ReplayLLMCache):
            set_llm_cache(cache.inner)
        BaseChatModel.stream = _orig_stream  # type: ignore[method-assign]
        BaseChatModel.astream = _orig_astream  # type: ignore[method-assign]
        BaseTool.run = _orig_run  # type: ignore[method-assign]
        BaseTool.arun = _orig_arun  # type: ignore[method-assign]
        _installed = False


def is_installed() -> bool:
    """Whether the replay hooks are installed in this process."""
    return _installed


__all__ = [
    "ReplayLLMCache",
    "action",
    "current_action",
    "install",
    "is_installed",
    "uninstall",
]
