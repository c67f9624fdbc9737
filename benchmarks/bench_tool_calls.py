"""What a tool call costs when LangChain makes it: alone, with a no-op handler, with ours.

Run::

    python -m benchmarks.bench_tool_calls [--dsn DSN] [--calls 3000] [--rounds 4]

``bench_recorder`` calls the handler's two methods directly, so it prices the handler and
its writer alone. Here a ``@tool`` that looks its ~500-character answer up in a dict is
invoked through ``tool.invoke`` (argument parsing, the callback manager, run ids: what
every tool call of a graph goes through), with the graph's metadata in its config, in
three variants that take turns in each round (the order reversed every other round):

* ``alone``: no handler; LangChain's own cost of a call, so the most tool calls one
  process can make per second, whatever records them;
* ``no-op handler``: a handler whose two tool hooks do nothing (LangChain's dispatch to
  a handler);
* ``ActionCallbackHandler``: ours, on ``ActionSaver``, its writer storing the rows in
  the background (every call is one stored row; the count is checked).

The median per call over batches is reported for each, and what ours adds over the
no-op handler: the caller's path as a graph sees it, the writer's share of the GIL
included.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool

from benchmarks.recording import META, count_actions, drop_schema, text
from langgraph_actionckpt import ActionCallbackHandler, ActionSaver
from langgraph_actionckpt.embedded_postgres import embedded_dsn

VARIANTS = ("alone", "no-op handler", "ActionCallbackHandler")


class _NoOpHandler(BaseCallbackHandler):
    """Tool hooks that do nothing, called inline as ours are."""

    run_inline = True

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
        return None

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        return None


def bench_tool_calls(dsn: str, calls: int, rounds: int, batch: int = 100) -> dict[str, float]:
    """Median microseconds per ``tool.invoke`` in each variant, and ours over the no-op one.

    Returns:
        ``{variant}_us`` for each of :data:`VARIANTS`, ``handler_added_us`` (ours minus the
        no-op handler), ``langchain_calls_per_s`` (1 / ``alone_us``) and ``rows`` stored.
    """
    queries = [text(500) for _ in range(calls)]
    answers = {q: text(500) for q in queries}

    @tool
    def search(query: str) -> str:
        """Look the query's answer up."""
        return answers[query]

    schema = f"bench_tool_calls_{os.getpid()}"
    drop_schema(dsn, schema)
    try:
        with ActionSaver.from_conn_string(dsn, schema=schema, replay=False) as saver:
            saver.setup()
            configs: dict[str, RunnableConfig] = {
                "alone": {"metadata": META},
                "no-op handler": {"metadata": META, "callbacks": [_NoOpHandler()]},
                "ActionCallbackHandler": {
                    "metadata": META,
                    "callbacks": [ActionCallbackHandler(saver)],
                },
            }
            per_call: dict[str, list[float]] = {name: [] for name in VARIANTS}
            for q in queries[: min(200, calls)]:  # warm-up: imports, caches, prepared statements
                for config in configs.values():
                    search.invoke({"query": q}, config)
            saver.writer.flush()
            warm_rows = count_actions(dsn, schema)
            gc.collect()
            for r in range(rounds):
                order = VARIANTS if r % 2 == 0 else VARIANTS[::-1]
                for name in order:
                    for i in range(0, calls, batch):
                        chunk = queries[i : i + batch]
                        t0 = time.perf_counter()
                        for q in chunk:
                            search.invoke({"query": q}, configs[name])
                        per_call[name].append((time.perf_counter() - t0) / len(chunk))
                saver.writer.flush()
            rows = count_actions(dsn, schema) - warm_rows
    finally:
        drop_schema(dsn, schema)
    if rows != calls * rounds:
        raise AssertionError(f"stored {rows} rows for {calls * rounds} recorded tool calls")
    out = {f"{name}_us": statistics.median(per_call[name]) * 1e6 for name in VARIANTS}
    out["handler_added_us"] = out["ActionCallbackHandler_us"] - out["no-op handler_us"]
    out["langchain_calls_per_s"] = 1e6 / out["alone_us"]
    out["rows"] = float(rows)
    return out


def describe(result: dict[str, float]) -> list[str]:
    """The lines ``main`` and ``bench_recorder`` print for a result."""
    alone = result["alone_us"]
    return [
        f"a tool call through LangChain (tool.invoke, median): alone {alone:.0f} us "
        f"(at most {result['langchain_calls_per_s']:,.0f} calls/s in one process), "
        f"with a no-op handler {result['no-op handler_us']:.0f} us, "
        f"with ActionCallbackHandler {result['ActionCallbackHandler_us']:.0f} us",
        f"ActionCallbackHandler adds {result['handler_added_us']:.0f} us over the no-op "
        f"handler ({result['handler_added_us'] / alone:.0%} of the call alone)",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", default=os.environ.get("ACTIONCKPT_DSN"))
    parser.add_argument("--calls", type=int, default=3_000, help="tool calls per variant a round")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    result = bench_tool_calls(args.dsn or embedded_dsn(), args.calls, args.rounds)
    for line in describe(result):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
