"""The way from a public call to its SQL: which of the package's modules a call crosses.

Run from the repository root::

    python -m benchmarks.call_paths --dsn postgresql://postgres@127.0.0.1:5432/test

For each traced call (a sync and an async ``put``, a sync and an async callback handler's
LLM completion) this prints **the path**: the package's modules on the call stack at the
moment the call's statement is handed to libpq, outermost first, with a run of frames of one
module shown once. Where a call hands its work over to another thread or task (the action
writer's queue, group commit), the path is the stack at the hand-over (a call named
``enqueue`` or ``submit``) followed by the stack at the send, on the worker. A module that
appears twice in the path, with another module between, is a **climb back up** (module A
calls B, which calls A again) and is flagged.

It also prints the **walk**: how many of the package's modules run any code between the call
and the send (serialisers, key builders and other side trips included), and how many times
the walk enters a module it had already left. The path is what a reader follows from the
call to its SQL; the walk is everything they may meet on the way. A **climb** in the walk is a
call from a module into one of a higher layer (the layers of the import-linter contract in
``pyproject.toml``): possible only through a callback handed down, and what makes a reader
climb back up. A driver resuming a plan (a generator) is not one: running the plans it is
handed is the driver's job; nor is a call made by another library (the pool calling the
deque it was given, psycopg a dumper), since no code of ours calls up.

Measured with ``sys.setprofile``/``threading.setprofile`` on a real server, on the second
call of each kind (the first one's setup, such as the schema check, is not on the way), with
psycopg's pure-Python libpq wrapper (``PSYCOPG_IMPL=python``, set here): the compiled one's
functions are invisible to the profiler, so the send could not be seen.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import sys
import threading
import time
import tomllib
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

os.environ["PSYCOPG_IMPL"] = "python"  # before psycopg is imported: see the docstring

import psycopg
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.checkpoint.base import empty_checkpoint
from psycopg import sql

PACKAGE = "langgraph_actionckpt"
SEND_NAMES = frozenset(
    {"send_query_params", "send_query_prepared", "send_query", "send_prepare", "put_copy_data"}
)
HANDOFF_NAMES = frozenset({"enqueue", "submit"})


@dataclass
class Trace:
    """What one traced call did: its path and its walk."""

    name: str
    handoff: list[str] = field(default_factory=list)
    send: list[str] = field(default_factory=list)
    walk: list[str] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    sent: bool = False

    @property
    def path(self) -> list[str]:
        """Hand-over stack, then the send stack (what a reader follows)."""
        shared = 0  # frames the send stack shares with the hand-over's (same caller)
        while shared < min(len(self.handoff), len(self.send)) - 1:
            if self.handoff[shared] != self.send[shared]:
                break
            shared += 1
        return [*self.handoff, *self.send[shared:]] if self.handoff else self.send

    @property
    def climbs(self) -> list[str]:
        """Modules the path enters again after leaving them."""
        return _repeats(self.path)

    @property
    def walk_climbs(self) -> list[tuple[str, str]]:
        """Calls from a module into a higher layer's (caller, callee), each pair once."""
        ranks = layer_ranks()
        return [
            (caller, callee)
            for caller, callee in dict.fromkeys(self.calls)
            if _rank(callee, ranks) < _rank(caller, ranks)
        ]

    @property
    def walk_modules(self) -> list[str]:
        """Every module that ran code on the way, in first-entry order."""
        return list(dict.fromkeys(self.walk))

    @property
    def walk_reentries(self) -> int:
        """How often the walk enters a module it had already left."""
        return len(self.walk) - len(self.walk_modules)


def _repeats(runs: list[str]) -> list[str]:
    seen: set[str] = set()
    again = []
    for module in runs:
        if module in seen:
            again.append(module)
        seen.add(module)
    return again


def layer_ranks() -> list[tuple[str, ...]]:
    """The import-linter contract's layers, top first, as module prefixes."""
    with open("pyproject.toml", "rb") as file:
        contracts = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    return [
        tuple(part.strip()[len(PACKAGE) + 1 :] for part in layer.split("|")) for layer in layers
    ]


def _rank(module: str, ranks: list[tuple[str, ...]]) -> int:
    for rank, prefixes in enumerate(ranks):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return len(ranks)  # not in a layer: below every one (never a climb's target)


def _caller(frame: FrameType) -> str | None:
    """The calling frame's module when it is one of the package's (else None)."""
    return None if frame.f_back is None else _module(frame.f_back)


def _module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        return str(name)[len(PACKAGE) + 1 :] or "__init__"
    return None


def _stack(frame: FrameType | None) -> list[str]:
    runs: list[str] = []
    while frame is not None:
        module = _module(frame)
        if module is not None and (not runs or runs[-1] != module):
            runs.append(module)
        frame = frame.f_back
    return runs[::-1]


def _collapse(modules: list[str]) -> list[str]:
    runs: list[str] = []
    for module in modules:
        if not runs or runs[-1] != module:
            runs.append(module)
    return runs


@contextmanager
def tracing(trace: Trace) -> Iterator[None]:
    """Record ``trace`` in every thread until the first statement is sent."""
    calls: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if trace.sent:
            return
        if event == "c_call":
            name = getattr(arg, "__name__", "")
        elif event == "call":
            name = frame.f_code.co_name
            module = _module(frame)
            if module is not None:
                calls.append(module)
                caller = _caller(frame)
                resumed = frame.f_code.co_flags & inspect.CO_GENERATOR
                if caller is not None and caller != module and not resumed:
                    trace.calls.append((caller, module))
                if name in HANDOFF_NAMES and not trace.handoff:
                    trace.handoff = _stack(frame)
                return
        else:
            return
        if name in SEND_NAMES:
            trace.send = _stack(frame)
            trace.sent = True

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        trace.walk = _collapse(calls)


def _wait_sent(trace: Trace, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not trace.sent and time.monotonic() < deadline:
        time.sleep(0.005)


def _put_args(thread: str, step: int) -> tuple[Any, ...]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"x": step}
    checkpoint["channel_versions"] = {"x": f"{step:032}.0"}
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    metadata = {"source": "loop", "step": step, "parents": {}}
    return config, checkpoint, metadata, {"x": f"{step:032}.0"}


def _llm_end(handler: Any, thread: str) -> None:
    run_id, parent = uuid.uuid4(), uuid.uuid4()
    handler.on_chain_start(
        {"name": "agent"},
        {},
        run_id=parent,
        metadata={"thread_id": thread, "langgraph_node": "agent", "langgraph_step": 1},
    )
    handler.on_chat_model_start(
        {"name": "fake"},
        [[]],
        run_id=run_id,
        parent_run_id=parent,
        metadata={"thread_id": thread, "langgraph_node": "agent", "langgraph_step": 1},
    )
    result = LLMResult(generations=[[ChatGeneration(message=AIMessage("hi"))]])
    handler.on_llm_end(result, run_id=run_id, parent_run_id=parent)


async def _allm_end(handler: Any, thread: str) -> None:
    run_id, parent = uuid.uuid4(), uuid.uuid4()
    meta = {"thread_id": thread, "langgraph_node": "agent", "langgraph_step": 1}
    await handler.on_chain_start({"name": "agent"}, {}, run_id=parent, metadata=meta)
    await handler.on_chat_model_start(
        {"name": "fake"}, [[]], run_id=run_id, parent_run_id=parent, metadata=meta
    )
    result = LLMResult(generations=[[ChatGeneration(message=AIMessage("hi"))]])
    await handler.on_llm_end(result, run_id=run_id, parent_run_id=parent)


def trace_sync(dsn: str, schema: str) -> list[Trace]:
    """A sync ``put`` and a sync handler's LLM completion, each traced on its second call."""
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    traces = []
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        saver.put(*_put_args("warm", 1))
        put = Trace("put (ActionSaver)")
        with tracing(put):
            saver.put(*_put_args("warm", 2))
        traces.append(put)
        handler = ActionCallbackHandler(saver)
        _llm_end(handler, "warm")
        handler.flush()
        llm = Trace("LLM completion (ActionCallbackHandler)")
        with tracing(llm):
            _llm_end(handler, "warm")
            handler.flush()
            _wait_sent(llm)
        traces.append(llm)
    return traces


async def trace_async(dsn: str, schema: str) -> list[Trace]:
    """The async twins of :func:`trace_sync`."""
    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

    traces = []
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
        await saver.setup()
        await saver.aput(*_put_args("warm", 1))
        put = Trace("aput (AsyncActionSaver)")
        with tracing(put):
            await saver.aput(*_put_args("warm", 2))
        traces.append(put)
        handler = AsyncActionCallbackHandler(saver)
        await _allm_end(handler, "warm")
        await handler.aflush()
        llm = Trace("LLM completion (AsyncActionCallbackHandler)")
        with tracing(llm):
            await _allm_end(handler, "warm")
            await handler.aflush()
        traces.append(llm)
    return traces


def report(
    traces: list[Trace], say: Callable[[str], None] = print, *, verbose: bool = False
) -> None:
    """Print each trace's path and walk."""
    for trace in traces:
        path = trace.path
        say(f"{trace.name}: path {len(set(path))} modules, climbs back up: {trace.climbs or 0}")
        say("    " + " -> ".join(path))
        say(
            f"    walk: {len(trace.walk_modules)} modules ran code on the way,"
            f" {trace.walk_reentries} re-entries, climbs: {len(trace.walk_climbs)}"
        )
        for caller, callee in trace.walk_climbs:
            say(f"    climb: {caller} -> {callee}")
        if verbose:
            say("    walk: " + " -> ".join(trace.walk))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--verbose", action="store_true", help="print each walk in full")
    args = parser.parse_args(argv)
    schema = f"call_paths_{uuid.uuid4().hex[:8]}"
    try:
        traces = trace_sync(args.dsn, schema) + asyncio.run(trace_async(args.dsn, schema))
        report(traces, verbose=args.verbose)
    finally:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


if __name__ == "__main__":
    main()
