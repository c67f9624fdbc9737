"""Child process for exact-replay tests: an action returns a typed value, then SIGKILL.

Usage::

    python tests/exact_worker.py --dsn DSN --schema S --thread T --effects F --out F
        --mode sync|async --kind action|tool --value pydantic|dataclass|enum|numpy [--kill]

The graph's one node calls a ``@action`` (or a tool invoked without a tool call
id, so it returns its raw result) that appends a line to ``--effects`` and
returns a value of the chosen type; with ``--kill`` the process SIGKILLs itself
after the action returned, inside the node. Without it the thread is resumed
(``invoke(None)``) and what the node received (its type and repr) is written
as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import enum
import json
import os
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel
from typing_extensions import TypedDict

from langgraph_actionckpt import ActionSaver, AsyncActionSaver, action


class Status(enum.Enum):
    OK = "ok"
    LATE = "late"


class Item(BaseModel):
    sku: str
    qty: int


class Order(BaseModel):
    id: int
    items: list[Item]
    at: datetime


@dataclasses.dataclass
class Receipt:
    n: int
    tags: list[str]
    status: Status


def make_value(value: str) -> Any:
    """A fixed value of each kind (the same in every process)."""
    if value == "pydantic":
        return Order(id=7, items=[Item(sku="a", qty=2)], at=datetime(2026, 1, 2, tzinfo=UTC))
    if value == "dataclass":
        return Receipt(n=3, tags=["x", "y"], status=Status.LATE)
    if value == "enum":
        return Status.LATE
    return np.arange(6, dtype=np.float32).reshape(2, 3)


def describe(result: Any) -> dict[str, Any]:
    """What the node received: its type, and a repr that shows its value."""
    cls = type(result)
    text = repr(result.tolist()) if isinstance(result, np.ndarray) else repr(result)
    extra = str(result.dtype) if isinstance(result, np.ndarray) else None
    return {"type": f"{cls.__module__}.{cls.__qualname__}", "repr": text, "dtype": extra}


class State(TypedDict, total=False):
    seen: dict[str, Any]


def build(args: argparse.Namespace, saver: Any) -> Any:
    """The one-node graph; its action's return annotation names the value's class."""
    effects = Path(args.effects)
    returns = {"pydantic": Order, "dataclass": Receipt, "enum": Status, "numpy": np.ndarray}[
        args.value
    ]

    def effect() -> Any:
        with effects.open("a") as f:
            f.write("run\n")
            f.flush()
            os.fsync(f.fileno())
        return make_value(args.value)

    def produce(n: int) -> Any:
        return effect()

    async def aproduce(n: int) -> Any:
        return effect()

    produce.__annotations__["return"] = returns
    aproduce.__annotations__["return"] = returns
    if args.kind == "action":
        call: Any = action(name="produce")(aproduce if args.mode == "async" else produce)
    else:
        produce.__doc__ = aproduce.__doc__ = "Produce a value."
        t = StructuredTool.from_function(
            func=produce, coroutine=aproduce if args.mode == "async" else None, name="produce"
        )
        call = (
            (lambda n: t.ainvoke({"n": n}))
            if args.mode == "async"
            else (lambda n: t.invoke({"n": n}))
        )

    def after(result: Any) -> State:
        if args.kill:
            os.kill(os.getpid(), signal.SIGKILL)
        return {"seen": describe(result)}

    def node(state: State) -> State:
        return after(call(1))

    async def anode(state: State) -> State:
        return after(await call(1))

    builder = StateGraph(State)
    builder.add_node("work", anode if args.mode == "async" else node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder.compile(checkpointer=saver)


def main() -> None:
    p = argparse.ArgumentParser()
    for name in ("--dsn", "--schema", "--thread", "--effects", "--out"):
        p.add_argument(name, required=True)
    p.add_argument("--mode", default="sync")
    p.add_argument("--kind", default="action")
    p.add_argument("--value", default="pydantic")
    p.add_argument("--kill", action="store_true")
    args = p.parse_args()
    config = {"configurable": {"thread_id": args.thread}}
    if args.mode == "async":

        async def run() -> Any:
            async with AsyncActionSaver.from_conn_string(args.dsn, schema=args.schema) as s:
                await s.setup()
                return await build(args, s).ainvoke(None if not args.kill else {}, config)

        final = asyncio.run(run())
    else:
        with ActionSaver.from_conn_string(args.dsn, schema=args.schema) as s:
            s.setup()
            final = build(args, s).invoke(None if not args.kill else {}, config)
    Path(args.out).write_text(json.dumps({"live": describe(make_value(args.value)), **final}))


if __name__ == "__main__":
    main()
