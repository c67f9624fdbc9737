"""An agent for LangGraph's Agent Server, checkpointed action by action in PostgreSQL.

``langgraph.json`` names :func:`make_graph` (a graph factory, called by the
server for each run) and ``langgraph_actionckpt.agent_server.checkpointer`` (a module
path with dots: langgraph-api splits it at the last dot, so the colon form is not
found). The factory's one line, ``with_action_log(graph)``, records node, LLM and tool rows;
replay of completed LLM and tool calls after a crash needs no line at all.

The ``research`` node makes an LLM call that asks for tools, runs the tools,
then makes a second LLM call: a crash between the two replays the first call
and the tools from the log and only makes the second call. The ``review`` node
asks a human (``interrupt()``) when the input sets ``ask_approval``.

Environment:

* ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` / ``OPENAI_MODEL``: the model
  endpoint (the local fake server in ``local_llm.py`` needs any key);
* ``AGENT_TOOL_LOG``: append one JSON line per *executed* tool call (a replayed
  call appends nothing), to see replay at work;
* ``AGENT_PAUSE_DIR``: with ``"pause": true`` in the input, ``research`` stops
  after its tools, writes ``<dir>/<thread_id>.reached`` and waits for
  ``<dir>/<thread_id>.go`` (how the tests crash the server mid-node).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt

from langgraph_actionckpt.agent_server import with_action_log


class State(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    pause: bool
    ask_approval: bool
    approved: Any


def _record_tool(name: str, args: dict[str, Any]) -> None:
    path = os.environ.get("AGENT_TOOL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"tool": name, "args": args, "pid": os.getpid()}) + "\n")


@tool
def lookup(query: str) -> str:
    """Look up what is known about a topic."""
    _record_tool("lookup", {"query": query})
    return f"{len(query.split())} facts about {query!r}"


def model() -> ChatOpenAI:
    """The chat model; replay works through LangChain's LLM cache (leave ``cache`` unset)."""
    return ChatOpenAI(
        model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
        base_url=os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY", "local"),  # type: ignore[arg-type]
        temperature=0,
        max_retries=0,
    )


async def _pause_point(state: State, config: RunnableConfig) -> None:
    pause_dir = os.environ.get("AGENT_PAUSE_DIR")
    if not (pause_dir and state.get("pause")):
        return
    thread_id = str(config["configurable"]["thread_id"])
    base = Path(pause_dir)
    # file I/O off the event loop (the server flags blocking calls on it)
    await asyncio.to_thread((base / f"{thread_id}.reached").touch)
    while not await asyncio.to_thread((base / f"{thread_id}.go").exists):
        await asyncio.sleep(0.05)


async def research(state: State, config: RunnableConfig) -> dict[str, Any]:
    """LLM call with tools, the tool calls, then an LLM call that sums them up."""
    asked = await model().bind_tools([lookup]).ainvoke(state["messages"])
    new: list[AnyMessage] = [asked]
    for call in asked.tool_calls:
        new.append(await lookup.ainvoke(call))
    await _pause_point(state, config)
    answer = await model().ainvoke([*state["messages"], *new])
    return {"messages": [*new, answer]}


def review(state: State) -> dict[str, Any]:
    """Ask a human to approve the answer when the input asked for it."""
    if not state.get("ask_approval"):
        return {}
    decision = interrupt({"question": "approve this answer?", "answer": state["messages"][-1].text})
    return {"approved": decision}


builder = StateGraph(State)
builder.add_node("research", research)
builder.add_node("review", review)
builder.add_edge(START, "research")
builder.add_edge("research", "review")
builder.add_edge("review", END)
# The server sets the checkpointer (langgraph.json); compile without one.
graph = builder.compile()


def make_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The graph factory ``langgraph.json`` names: the graph, recording its action rows."""
    return with_action_log(graph)
