"""A small agent for timeline tests: an LLM plans, a tool acts, an LLM reports.

Run as a script it invokes the graph on a thread and, with ``--kill``, SIGKILLs
itself inside the ``act`` node right after the tool ran: the crash the timeline
must show. ``build`` gives the same graph to the test that resumes the thread.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_actionckpt import ActionCallbackHandler, ActionSaver


def _reply(text: str, tokens: int) -> AIMessage:
    return AIMessage(
        content=text,
        usage_metadata={
            "input_tokens": tokens,
            "output_tokens": tokens // 2,
            "total_tokens": tokens + tokens // 2,
        },
        response_metadata={"model_name": "gpt-4o-mini"},
    )


@tool
def lookup(city: str) -> str:
    """Look up the weather of a city."""
    return f"sunny in {city}"


def build(kill: bool) -> StateGraph[Any]:
    """The graph; with ``kill`` the process dies inside ``act`` after the tool."""
    # One model per node: a resumed process starts each fresh, as a real API would answer.
    planner = GenericFakeChatModel(messages=iter([_reply("plan: look up lisbon", 120)]))
    drafter = GenericFakeChatModel(messages=iter([_reply("draft: it is sunny", 90)]))
    reporter = GenericFakeChatModel(messages=iter([_reply("report: sunny in lisbon", 60)]))

    def plan(state: MessagesState) -> dict[str, Any]:
        return {"messages": [planner.invoke(state["messages"])]}

    def act(state: MessagesState) -> dict[str, Any]:
        draft = drafter.invoke(state["messages"])
        found = lookup.invoke({"city": "lisbon"})
        if kill:
            os.kill(os.getpid(), signal.SIGKILL)
        return {"messages": [draft, AIMessage(content=found)]}

    def report(state: MessagesState) -> dict[str, Any]:
        return {"messages": [reporter.invoke(state["messages"])]}

    builder: StateGraph[Any] = StateGraph(MessagesState)
    builder.add_node("plan", plan)
    builder.add_node("act", act)
    builder.add_node("report", report)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "act")
    builder.add_edge("act", "report")
    builder.add_edge("report", END)
    return builder


def run(dsn: str, schema: str, thread: str, kill: bool, resume: bool) -> dict[str, Any]:
    """Invoke (or resume) the thread with the callback handler attached."""
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=0) as saver:
        saver.setup()
        graph = build(kill).compile(checkpointer=saver)
        config: Any = {
            "configurable": {"thread_id": thread},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        inputs = None if resume else {"messages": [HumanMessage("weather in lisbon?")]}
        return graph.invoke(inputs, config, durability="sync")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--thread", required=True)
    parser.add_argument("--kill", action="store_true")
    args = parser.parse_args()
    run(args.dsn, args.schema, args.thread, args.kill, resume=False)
