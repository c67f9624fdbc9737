"""Child process for crash tests of runs without a graph: agents in one ActionRun.

Usage::

    python tests/any_agent_worker.py --dsn DSN --schema S --run R --calls F --effects F
        --out F [--mode sync|async] [--agents N] [--kill-after K] [--kill-inside NAME]

Each agent (``a0``, ``a1``...) runs the same five actions under
``ActionRun(saver, R, agent_id=...)``: an LLM call (``ScriptedChatModel``), an
idempotent tool, a non-idempotent ``@action`` (``charge``), an idempotent
``run.step`` (``note``), and a second LLM call. Agents run in parallel: asyncio
tasks (``async``) or threads (``sync``).

* ``--kill-after K``: SIGKILL right after the K-th live action of this process
  is durably logged;
* ``--kill-inside NAME``: SIGKILL inside the first ``lookup``/``charge``/``note``
  body, after its side effect.

Every real model execution is a line in ``--calls``; every tool/action body
appends ``<name> <idempotency key>`` to ``--effects``. The result (each agent's
outputs, or the error) is written as JSON to ``--out``; exit codes: 0 done,
3 InFlightActionError.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from examples.fake_openai.models import ScriptedChatModel
from langgraph_actionckpt import (
    ActionRun,
    ActionSaver,
    AsyncActionSaver,
    InFlightActionError,
    action,
    current_action,
)
from tests.crash_worker import install_killer

EXIT_INFLIGHT = 3
ACTIONS_PER_AGENT = 5


class Effects:
    """Side effects appended to a file (fsync'd) so a SIGKILL cannot lose them."""

    def __init__(self, path: str, kill_inside: str | None) -> None:
        self.path = path
        self.kill_inside = kill_inside

    def record(self, name: str) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{name} {current_action()}\n")
            fh.flush()
            os.fsync(fh.fileno())
        if self.kill_inside == name:
            os.kill(os.getpid(), signal.SIGKILL)


def charge_output(agent: str) -> str:
    """What ``charge`` returns for an agent (for resolve_action in tests)."""
    return f"charged {agent} 10"


class Program:
    """The agents' code, the same in every process (what makes replay valid)."""

    def __init__(self, args: argparse.Namespace) -> None:
        effects = Effects(args.effects, args.kill_inside)
        self.model = ScriptedChatModel(calls_file=args.calls)

        @tool
        def lookup(query: str) -> str:
            """Look something up."""
            effects.record("lookup")
            return f"found({query})"

        @action(idempotent=False, name="charge")
        def charge(agent: str, amount: int) -> str:
            effects.record("charge")
            return f"charged {agent} {amount}"

        @action(idempotent=False, name="charge")
        async def acharge(agent: str, amount: int) -> str:
            effects.record("charge")
            return f"charged {agent} {amount}"

        def note(agent: str, found: str) -> str:
            effects.record("note")
            return f"note {agent}: {found}"

        async def anote(agent: str, found: str) -> str:
            return note(agent, found)

        self.lookup, self.charge, self.acharge = lookup, charge, acharge
        self.note, self.anote = note, anote

    def agent(self, saver: Any, run_id: str, agent: str) -> list[str]:
        with ActionRun(saver, run_id, agent_id=agent) as run:
            a = self.model.invoke([HumanMessage(f"{agent}: plan the trip")])
            found = self.lookup.invoke({"query": str(a.content)[:24]})
            paid = self.charge(agent, 10)
            noted = run.step("note", self.note, agent, found)
            b = self.model.invoke([HumanMessage(f"{agent}: summarize {found} {paid} {noted}")])
            return [str(a.content), found, paid, noted, str(b.content)]

    async def aagent(self, saver: Any, run_id: str, agent: str) -> list[str]:
        async with ActionRun(saver, run_id, agent_id=agent) as run:
            a = await self.model.ainvoke([HumanMessage(f"{agent}: plan the trip")])
            found = await self.lookup.ainvoke({"query": str(a.content)[:24]})
            paid = await self.acharge(agent, 10)
            noted = await run.step("note", self.anote, agent, found)
            b = await self.model.ainvoke(
                [HumanMessage(f"{agent}: summarize {found} {paid} {noted}")]
            )
            return [str(a.content), found, paid, noted, str(b.content)]


def _write(path: str, data: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(data), encoding="utf-8")


def _inflight(exc: InFlightActionError) -> dict[str, Any]:
    return {"status": "inflight", "action_id": exc.action_id, "name": exc.name}


def run_sync(args: argparse.Namespace, names: list[str]) -> int:
    program = Program(args)
    with (
        ActionSaver.from_conn_string(args.dsn, schema=args.schema) as saver,
        ThreadPoolExecutor(len(names)) as pool,
    ):
        futures = [pool.submit(program.agent, saver, args.run, n) for n in names]
        try:
            outputs = {n: f.result() for n, f in zip(names, futures, strict=True)}
        except InFlightActionError as exc:
            _write(args.out, _inflight(exc))
            return EXIT_INFLIGHT
    _write(args.out, {"status": "ok", "outputs": outputs})
    return 0


async def run_async(args: argparse.Namespace, names: list[str]) -> int:
    program = Program(args)
    async with AsyncActionSaver.from_conn_string(args.dsn, schema=args.schema) as saver:
        results = await asyncio.gather(
            *(program.aagent(saver, args.run, n) for n in names), return_exceptions=True
        )
    for result in results:
        if isinstance(result, InFlightActionError):
            _write(args.out, _inflight(result))
            return EXIT_INFLIGHT
        if isinstance(result, BaseException):
            raise result
    _write(args.out, {"status": "ok", "outputs": dict(zip(names, results, strict=True))})
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    for name in ("dsn", "schema", "run", "calls", "effects", "out"):
        p.add_argument(f"--{name}", required=True)
    p.add_argument("--mode", choices=("sync", "async"), default="sync")
    p.add_argument("--agents", type=int, default=2)
    p.add_argument("--kill-after", type=int, default=0)
    p.add_argument("--kill-inside", default=None)
    args = p.parse_args(argv)
    if args.kill_after:
        install_killer(args.kill_after)
    names = [f"a{i}" for i in range(args.agents)]
    if args.mode == "async":
        return asyncio.run(run_async(args, names))
    return run_sync(args, names)


if __name__ == "__main__":
    sys.exit(main())
