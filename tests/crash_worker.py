"""Child process for crash tests: run a graph on a thread, optionally SIGKILL itself.

Usage::

    python tests/crash_worker.py --dsn DSN --schema S --thread T --calls F --effects F
        --out F [--mode sync|async] [--durability sync|async|exit]
        [--graph reference|create_agent|toolnode] [--kill-after K] [--kill-inside TOOL]
        [--lease wait|error|off] [--resume] [--barrier-file F --parties N]

* ``--kill-after K``: SIGKILL this process right after the K-th live action
  (LLM completion or tool call) of this process is *durably* logged;
* ``--kill-inside TOOL``: SIGKILL inside the body of TOOL, after its side effect;
* ``--resume``: invoke with ``None`` (continue the thread) instead of the input.

Side effects are counted outside the process: every real model execution is a
line in ``--calls`` (ScriptedChatModel), every tool body appends
``<tool> <idempotency key>`` to ``--effects``. The result (final state, or the
error) is written as JSON to ``--out``; exit codes: 0 done, 3 InFlightActionError,
4 ThreadBusyError.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import os
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from examples.fake_openai.models import ScriptedChatModel
from langgraph_actionckpt import replay
from langgraph_actionckpt.replay import _async_log, _sync_log

EXIT_INFLIGHT = 3
EXIT_BUSY = 4

INPUT = "please plan the trip to lisbon"


class RefState(MessagesState):
    notes: Annotated[list[str], operator.add]


class Effects:
    """Tool side effects, appended to a file (fsync'd) so a killer cannot lose them."""

    def __init__(self, path: str, kill_inside: str | None) -> None:
        self.path = path
        self.kill_inside = kill_inside

    def record(self, tool_name: str) -> None:
        key = replay.current_action()
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{tool_name} {key}\n")
            fh.flush()
            os.fsync(fh.fileno())
        if self.kill_inside == tool_name:
            os.kill(os.getpid(), signal.SIGKILL)


def make_tools(effects: Effects) -> dict[str, BaseTool]:
    """lookup / lookup2 (idempotent) and charge (non-idempotent)."""

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        effects.record("lookup")
        return f"found({query})"

    @tool
    def lookup2(topic: str) -> str:
        """Look something else up."""
        effects.record("lookup2")
        return f"facts({topic})"

    @tool
    def charge(amount: int) -> str:
        """Charge a card (must not happen twice)."""
        effects.record("charge")
        return f"charged {amount}"

    charge.metadata = {"idempotent": False}
    return {"lookup": lookup, "lookup2": lookup2, "charge": charge}


def charge_output(amount: int) -> str:
    """What ``charge`` returns (for resolve_action in tests)."""
    return f"charged {amount}"


def reference_graph(model: ScriptedChatModel, tools: dict[str, BaseTool], is_async: bool) -> Any:
    """plan (3 LLM calls + 2 direct tool calls) -> tools (ToolNode) -> sub (subgraph LLM)."""
    lookup, charge, lookup2 = tools["lookup"], tools["charge"], tools["lookup2"]
    bound = model.bind_tools([lookup2])

    def plan(state: RefState) -> dict[str, Any]:
        q = str(state["messages"][-1].content)
        a = model.invoke([HumanMessage(f"idea for: {q}")])
        b = model.invoke([HumanMessage(f"budget for: {q}")])
        found = lookup.invoke({"query": str(a.content)[:20]})
        paid = charge.invoke({"amount": 42})
        c = bound.invoke([HumanMessage(f"research {q}")])
        return {"messages": [a, b, c], "notes": [found, paid]}

    async def aplan(state: RefState) -> dict[str, Any]:
        q = str(state["messages"][-1].content)
        a = await model.ainvoke([HumanMessage(f"idea for: {q}")])
        b = await model.ainvoke([HumanMessage(f"budget for: {q}")])
        found = await lookup.ainvoke({"query": str(a.content)[:20]})
        paid = await charge.ainvoke({"amount": 42})
        c = await bound.ainvoke([HumanMessage(f"research {q}")])
        return {"messages": [a, b, c], "notes": [found, paid]}

    def summarize(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke([HumanMessage("sum up"), state["messages"][-1]])]}

    async def asummarize(state: MessagesState) -> dict[str, Any]:
        msg = await model.ainvoke([HumanMessage("sum up"), state["messages"][-1]])
        return {"messages": [msg]}

    sub = StateGraph(MessagesState)
    sub.add_node("summarize", asummarize if is_async else summarize)
    sub.add_edge(START, "summarize")
    sub.add_edge("summarize", END)

    builder = StateGraph(RefState)
    builder.add_node("plan", aplan if is_async else plan)
    builder.add_node("tools", ToolNode([lookup2]))
    builder.add_node("sub", sub.compile())
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "tools")
    builder.add_edge("tools", "sub")
    builder.add_edge("sub", END)
    return builder


def toolnode_graph(model: ScriptedChatModel, tools: dict[str, BaseTool], is_async: bool) -> Any:
    """agent <-> ToolNode([lookup, lookup2]) with tools_condition-like routing."""
    tool_list = [tools["lookup"], tools["lookup2"]]
    bound = model.bind_tools(tool_list)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    async def aagent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("agent", aagent if is_async else agent)
    builder.add_node("tools", ToolNode(tool_list))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder


def build(kind: str, model: ScriptedChatModel, tools: dict[str, BaseTool], is_async: bool) -> Any:
    """The uncompiled graph of a kind (``create_agent`` is returned compiled=None)."""
    if kind == "reference":
        return reference_graph(model, tools, is_async)
    if kind == "toolnode":
        return toolnode_graph(model, tools, is_async)
    raise ValueError(kind)


def normalize(message: BaseMessage) -> dict[str, Any]:
    """A message without its random ids, for comparing runs."""
    out: dict[str, Any] = {"type": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["tool_calls"] = [[c["name"], c["args"], c["id"]] for c in calls]
    if getattr(message, "tool_call_id", None):
        out["tool_call_id"] = message.tool_call_id
        out["status"] = getattr(message, "status", None)
    if message.name:
        out["name"] = message.name
    return out


def normalize_state(values: dict[str, Any]) -> dict[str, Any]:
    """Final state values without ids."""
    return {
        "messages": [normalize(m) for m in values.get("messages", [])],
        "notes": list(values.get("notes", [])),
    }


def install_killer(kill_after: int) -> None:
    """SIGKILL this process right after the k-th live action is durably logged."""
    count = [0]

    def bump() -> None:
        count[0] += 1
        if count[0] == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    orig_complete, orig_acomplete = _sync_log.complete, _async_log.complete

    def complete(live: Any, output: Any, **fields: Any) -> None:
        orig_complete(live, output, **fields)
        bump()

    async def acomplete(live: Any, output: Any, **fields: Any) -> None:
        await orig_acomplete(live, output, **fields)
        bump()

    _sync_log.complete = complete  # type: ignore[assignment]
    _async_log.complete = acomplete  # type: ignore[assignment]


def wait_barrier(path: str | None, parties: int) -> None:
    """A file barrier across processes: register, then wait until all have."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(path, encoding="utf-8") as fh:
            if sum(1 for line in fh if line.strip()) >= parties:
                return
        time.sleep(0.005)
    raise TimeoutError("barrier")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--dsn", required=True)
    p.add_argument("--schema", required=True)
    p.add_argument("--thread", required=True)
    p.add_argument("--calls", required=True)
    p.add_argument("--effects", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=("sync", "async"), default="sync")
    p.add_argument("--durability", choices=("sync", "async", "exit"), default="async")
    p.add_argument(
        "--graph", choices=("reference", "create_agent", "toolnode"), default="reference"
    )
    p.add_argument("--kill-after", type=int, default=0)
    p.add_argument("--kill-inside", default=None)
    p.add_argument("--lease", choices=("wait", "error", "off"), default="wait")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--barrier-file", default=None)
    p.add_argument("--parties", type=int, default=1)
    p.add_argument("--input", default=INPUT)
    # through the checkpoint service (RemoteActionSaver) instead of the database
    p.add_argument("--target", default=None)
    p.add_argument("--token", default=None)
    return p.parse_args(argv)


def _compile(args: argparse.Namespace, saver: Any, is_async: bool) -> Any:
    effects = Effects(args.effects, args.kill_inside)
    tools = make_tools(effects)
    if args.graph == "create_agent":
        from langchain.agents import create_agent

        model = ScriptedChatModel(calls_file=args.calls, tool_calls_per_turn=2)
        return create_agent(model, [tools["lookup"], tools["lookup2"]], checkpointer=saver)
    per_turn = 2 if args.graph == "toolnode" else 1
    model = ScriptedChatModel(calls_file=args.calls, tool_calls_per_turn=per_turn)
    return build(args.graph, model, tools, is_async).compile(checkpointer=saver)


def _write(path: str, data: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(data), encoding="utf-8")


def _result_of(exc: BaseException) -> tuple[int, dict[str, Any]]:
    from langgraph_actionckpt import InFlightActionError, ThreadBusyError

    if isinstance(exc, InFlightActionError):
        return EXIT_INFLIGHT, {
            "status": "inflight",
            "action_id": exc.action_id,
            "name": exc.name,
            "action_type": exc.action_type,
            "message": str(exc),
        }
    if isinstance(exc, ThreadBusyError):
        return EXIT_BUSY, {"status": "busy", "thread_id": exc.thread_id, "message": str(exc)}
    raise exc


def run_sync(args: argparse.Namespace) -> int:
    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    if args.target:
        from langgraph_actionckpt import RemoteActionSaver

        opened: Any = RemoteActionSaver.from_target(args.target, args.token)
    else:
        opened = ActionSaver.from_conn_string(args.dsn, schema=args.schema, lease=args.lease)
    with opened as saver:
        saver.setup()
        graph = _compile(args, saver, False)
        cfg: dict[str, Any] = {
            "configurable": {"thread_id": args.thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        inputs = None if args.resume else {"messages": [HumanMessage(args.input)]}
        wait_barrier(args.barrier_file, args.parties)
        try:
            values = graph.invoke(inputs, cfg, durability=args.durability)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            code, data = _result_of(exc)
            _write(args.out, data)
            return code
        _write(args.out, {"status": "ok", "state": normalize_state(values)})
    return 0


async def run_async(args: argparse.Namespace) -> int:
    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

    if args.target:
        from langgraph_actionckpt import AsyncRemoteActionSaver

        opened: Any = AsyncRemoteActionSaver.from_target(args.target, args.token)
    else:
        opened = AsyncActionSaver.from_conn_string(args.dsn, schema=args.schema, lease=args.lease)
    async with opened as saver:
        await saver.setup()
        graph = _compile(args, saver, True)
        cfg: dict[str, Any] = {
            "configurable": {"thread_id": args.thread},
            "callbacks": [AsyncActionCallbackHandler(saver)],
        }
        inputs = None if args.resume else {"messages": [HumanMessage(args.input)]}
        await asyncio.to_thread(wait_barrier, args.barrier_file, args.parties)
        try:
            values = await graph.ainvoke(inputs, cfg, durability=args.durability)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            code, data = _result_of(exc)
            _write(args.out, data)
            return code
        _write(args.out, {"status": "ok", "state": normalize_state(values)})
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.kill_after:
        install_killer(args.kill_after)
    if args.mode == "async":
        return asyncio.run(run_async(args))
    return run_sync(args)


if __name__ == "__main__":
    sys.exit(main())
