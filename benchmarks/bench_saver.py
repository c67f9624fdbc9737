"""Benchmark checkpoint savers side by side, in one process, on one PostgreSQL server.

Run from the repository root::

    python -m benchmarks.bench_saver                       # all scenarios, embedded PostgreSQL
    python -m benchmarks.bench_saver --quick               # smoke run, small sizes
    python -m benchmarks.bench_saver --scenarios a,b --repeat 7 --json out.json
    python -m benchmarks.bench_saver --dsn postgresql://postgres@127.0.0.1:5432/test

Scenarios (every saver runs the same graphs; medians over ``--repeat`` repetitions after a
warm-up; ratios are against PostgresSaver for sync savers and AsyncPostgresSaver for async ones):

a. Per-superstep cost: a chain of 30 trivial nodes, ``invoke`` (``ainvoke`` for async savers)
   on fresh threads with ``durability="sync"`` and ``"async"``; total time / (invokes * 30).
   ``DurableFloor`` / ``AsyncDurableFloor`` are references, not savers: InMemorySaver
   plus one durable one-row INSERT (of the checkpoint's serialized bytes) per put, the
   least any durable PostgreSQL checkpointer can cost here, in each world; the
   ``/ floor`` column is ours over the floor of its world.
b. Storage: one looping node appends one ~1 KB payload per superstep for 300 and 1,000
   supersteps, to an ``operator.add`` list channel and to an ``add_messages`` channel. Bytes
   on disk (``pg_total_relation_size`` over the saver's tables; file size for SQLite) over the
   raw appended bytes. The final state read back must equal the InMemorySaver run's.
c. Long thread: a looping graph builds a thread of 2,000 checkpoints (a small string appended
   per superstep); then time ``get_tuple`` (latest), ``list(limit=10)`` and a full ``list``.
d. Concurrency: 64 threads at once on the async savers (``asyncio.gather`` of 64 ``ainvoke``
   of a 5-node chain on distinct thread ids); supersteps per second, and the share of
   InMemorySaver's (``/ InMemory``). All async savers are open at once and their waves
   interleaved round by round (the order rotates), so the load of the moment hits all alike.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import operator
import os
import platform
import random
import shutil
import statistics
import sys
import time
import traceback
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Annotated, Any, Literal, TypedDict

import psycopg
from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer, add_messages
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from benchmarks.savers import (
    SAVERS,
    SYNC_BASELINE,
    BenchEnv,
    SaverHandle,
    SaverSpec,
    available_savers,
    open_inmemory,
    ours_unavailable_reason,
    redact_dsn,
    server_dsn,
    server_parser,
)

console = Console(width=None if sys.stdout.isatty() else 160)

Durability = Literal["sync", "async", "exit"]
CHAIN_NODES = 30
D_CHAIN_NODES = 5
PAYLOAD_CHARS = 1024
SEED = 20240611
C_WARMUP_BATCHES = 6  # x c_batch calls of get_tuple and of list(limit=10) before timing


# --------------------------------------------------------------------------------------------
# Sizes and results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    repeat: int
    a_invokes: int  # invokes of the 30-node chain per repetition
    b_steps: tuple[int, ...]
    c_checkpoints: int
    c_batch: int  # get_tuple / list(limit=10) calls per timed sample
    d_threads: int

    @classmethod
    def full(cls, repeat: int | None) -> Sizes:
        return cls(repeat or 5, 10, (300, 1000), 2000, 10, 64)

    @classmethod
    def quick(cls, repeat: int | None) -> Sizes:
        return cls(repeat or 2, 3, (30,), 200, 3, 8)


@dataclass
class Result:
    scenario: str
    saver: str
    metric: str
    unit: str  # "s", "bytes", "x", "1/s", "count"
    samples: list[float]
    baseline: str | None
    higher_is_better: bool = False
    note: str = ""
    ok: bool = True
    ratio: float | None = None
    reference: str | None = None  # the row of REFERENCES this one is also compared with
    ref_ratio: float | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")


@dataclass
class Report:
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, result: Result) -> None:
        self.results.append(result)
        if not result.ok:
            self.failures.append(f"{result.scenario}/{result.saver}/{result.metric}: {result.note}")

    def fail(self, scenario: str, saver: str, exc: BaseException) -> None:
        msg = f"{type(exc).__name__}: {exc}"
        self.failures.append(f"{scenario}/{saver}: {msg}")
        self.results.append(Result(scenario, saver, "ERROR", "", [], None, note=msg, ok=False))
        console.print(f"[red]{escape(scenario)}/{escape(saver)} failed: {escape(msg)}[/red]")
        traceback.print_exc()

    def compute_ratios(self) -> None:
        index = {(r.scenario, r.saver, r.metric): r for r in self.results if r.samples}
        for r in self.results:
            if r.baseline is None or not r.samples:
                continue
            base = index.get((r.scenario, r.baseline, r.metric))
            if base is not None and base.median:
                r.ratio = r.median / base.median
            r.reference = reference_of(r.scenario, r.saver)
            ref = index.get((r.scenario, r.reference or "", r.metric))
            if ref is not None and ref.median:
                r.ref_ratio = r.median / ref.median


FLOORS = {"ActionSaver": "DurableFloor", "AsyncActionSaver": "AsyncDurableFloor"}
"""Scenario a: each of our savers against the floor of its own world (issue #14, target a)."""

REFERENCE_COLUMNS = {
    "a": "/ floor",  # ours / its floor: at most 1.2 is the target
    "d": "/ InMemory",  # throughput / InMemorySaver's: at least 0.6 is the target
}


def reference_of(scenario: str, saver: str) -> str | None:
    """The second row a result is compared with (the ``REFERENCE_COLUMNS`` column)."""
    if scenario == "a":
        return FLOORS.get(saver)
    if scenario == "d" and saver != "InMemorySaver (async)":
        return "InMemorySaver (async)"
    return None


# --------------------------------------------------------------------------------------------
# Payloads
# --------------------------------------------------------------------------------------------

_LETTERS = "etaoinshrdlcumwfgypbvkjxqz"
# English letter frequencies (per mille), in the order of _LETTERS.
_LETTER_WEIGHTS: tuple[int, ...] = (
    127,
    91,
    82,
    75,
    70,
    67,
    63,
    61,
    60,
    43,
    40,
    28,
    28,
    24,
    24,
    22,
    20,
    20,
    19,
)
_LETTER_WEIGHTS += (15, 10, 8, 2, 2, 1, 1)


def make_payloads(count: int, chars: int = PAYLOAD_CHARS, seed: int = SEED) -> list[str]:
    """Deterministic ~1 KB texts: Zipf-distributed words from a 30,000-word pseudo-vocabulary,
    with a random 16-hex-digit token every ~6 words (ids, hashes), cut to ``chars`` chars."""
    rng = random.Random(seed)
    vocab: list[str] = []
    seen: set[str] = set()
    while len(vocab) < 30_000:
        word = "".join(rng.choices(_LETTERS, _LETTER_WEIGHTS, k=rng.randint(2, 11)))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    payloads: list[str] = []
    for _ in range(count):
        parts: list[str] = []
        length = 0
        while length <= chars:
            batch = rng.choices(vocab, weights, k=6)
            batch.append(f"{rng.getrandbits(64):016x}")
            parts.extend(batch)
            length += sum(len(w) + 1 for w in batch)
        payloads.append(" ".join(parts)[:chars])
    return payloads


def compressibility(payloads: Sequence[str]) -> dict[str, float]:
    """zlib (level 6) compressed size / raw size, per payload (median) and all concatenated."""
    per = [len(zlib.compress(p.encode(), 6)) / len(p.encode()) for p in payloads]
    blob = "".join(payloads).encode()
    return {
        "per_payload_median": statistics.median(per),
        "all_concatenated": len(zlib.compress(blob, 6)) / len(blob),
    }


def small_items(count: int, seed: int = SEED + 1) -> list[str]:
    rng = random.Random(seed)
    return [f"msg {i:05d} {rng.getrandbits(96):024x}" for i in range(count)]


# --------------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------------


class ChainState(TypedDict):
    x: int


def _inc(state: ChainState) -> dict[str, int]:
    return {"x": state["x"] + 1}


async def _ainc(state: ChainState) -> dict[str, int]:
    return {"x": state["x"] + 1}


def build_chain(n: int, *, is_async: bool) -> StateGraph[ChainState]:
    """``n`` trivial nodes in a line; async nodes for async savers (no thread hop)."""
    builder: StateGraph[ChainState] = StateGraph(ChainState)
    prev = START
    for i in range(n):
        name = f"n{i}"
        builder.add_node(name, _ainc if is_async else _inc)
        builder.add_edge(prev, name)
        prev = name
    builder.add_edge(prev, END)
    return builder


class ListState(TypedDict):
    items: Annotated[list[str], operator.add]
    target: int


class MessagesState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    target: int


class DeltaState(TypedDict):
    """The messages list held by LangGraph's ``DeltaChannel`` (``benchmarks.floors``' storage)."""

    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer)]
    target: int


Variant = Literal["operator.add", "add_messages", "DeltaChannel"]


def build_appender(variant: Variant, texts: Sequence[str]) -> StateGraph[Any]:
    """One node looping on itself: superstep i appends ``texts[i]`` until ``target`` reached."""
    if variant == "operator.add":
        list_builder: StateGraph[ListState] = StateGraph(ListState)

        def append_item(state: ListState) -> dict[str, list[str]]:
            return {"items": [texts[len(state["items"])]]}

        def route_items(state: ListState) -> str:
            return "append" if len(state["items"]) < state["target"] else END

        list_builder.add_node("append", append_item)
        list_builder.add_edge(START, "append")
        list_builder.add_conditional_edges("append", route_items, ["append", END])
        return list_builder

    state_cls = DeltaState if variant == "DeltaChannel" else MessagesState
    msg_builder: StateGraph[Any] = StateGraph(state_cls)

    # unannotated state: LangGraph would read a node's schema from a TypedDict hint
    def append_message(state: Any) -> dict[str, list[AnyMessage]]:
        i = len(state["messages"])
        return {"messages": [HumanMessage(content=texts[i], id=f"m{i:06d}")]}

    def route_messages(state: Any) -> str:
        return "append" if len(state["messages"]) < state["target"] else END

    msg_builder.add_node("append", append_message)
    msg_builder.add_edge(START, "append")
    msg_builder.add_conditional_edges("append", route_messages, ["append", END])
    return msg_builder


def appender_input(variant: Variant, target: int) -> dict[str, Any]:
    key = "items" if variant == "operator.add" else "messages"
    return {key: [], "target": target}


def thread_config(thread_id: str, recursion_limit: int = 100) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": recursion_limit}


# --------------------------------------------------------------------------------------------
# Timing helpers
# --------------------------------------------------------------------------------------------


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect, then keep the cyclic GC off during a timed region."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def timed(fn: Callable[[], object]) -> float:
    with gc_paused():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


_thread_ids = iter(range(10**12))


def fresh_thread(prefix: str) -> str:
    return f"{prefix}-{os.getpid()}-{next(_thread_ids)}"


# --------------------------------------------------------------------------------------------
# Scenario a: per-superstep cost
# --------------------------------------------------------------------------------------------

DURABILITIES: tuple[Durability, ...] = ("sync", "async")


def _a_result(spec: SaverSpec, durability: str, samples: list[float], ok: bool) -> Result:
    return Result(
        "a",
        spec.name,
        f"per superstep, durability={durability}",
        "s",
        samples,
        spec.baseline,
        note="" if ok else "wrong final state",
        ok=ok,
    )


def scenario_a(env: BenchEnv, specs: list[SaverSpec], sizes: Sizes, report: Report) -> None:
    steps = sizes.a_invokes * CHAIN_NODES
    for spec in specs:
        console.print(f"  a: {spec.name}", markup=False)
        try:
            if spec.open_sync is not None:
                with spec.open_sync(env) as handle:
                    _scenario_a_sync(handle, spec, sizes, steps, report)
            elif spec.open_async is not None:
                asyncio.run(_scenario_a_async(env, spec, sizes, steps, report))
        except Exception as exc:  # noqa: BLE001 - report it, go on with the other savers
            report.fail("a", spec.name, exc)


def _scenario_a_sync(
    handle: SaverHandle, spec: SaverSpec, sizes: Sizes, steps: int, report: Report
) -> None:
    graph = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=handle.saver)
    for durability in DURABILITIES:
        out = graph.invoke({"x": 0}, thread_config(fresh_thread("a-warm")), durability=durability)
        ok = out == {"x": CHAIN_NODES}

        def run(d: Durability = durability) -> None:
            for _ in range(sizes.a_invokes):
                graph.invoke({"x": 0}, thread_config(fresh_thread("a")), durability=d)

        samples = [timed(run) / steps for _ in range(sizes.repeat)]
        report.add(_a_result(spec, durability, samples, ok))


async def _scenario_a_async(
    env: BenchEnv, spec: SaverSpec, sizes: Sizes, steps: int, report: Report
) -> None:
    assert spec.open_async is not None
    async with spec.open_async(env) as handle:
        graph = build_chain(CHAIN_NODES, is_async=True).compile(checkpointer=handle.saver)
        for durability in DURABILITIES:
            out = await graph.ainvoke(
                {"x": 0}, thread_config(fresh_thread("a-warm")), durability=durability
            )
            ok = out == {"x": CHAIN_NODES}
            samples: list[float] = []
            for _ in range(sizes.repeat):
                with gc_paused():
                    t0 = time.perf_counter()
                    for _ in range(sizes.a_invokes):
                        await graph.ainvoke(
                            {"x": 0}, thread_config(fresh_thread("a")), durability=durability
                        )
                    samples.append((time.perf_counter() - t0) / steps)
            report.add(_a_result(spec, durability, samples, ok))


# --------------------------------------------------------------------------------------------
# Scenario b: storage
# --------------------------------------------------------------------------------------------

VARIANTS: tuple[Variant, ...] = ("operator.add", "add_messages")


def _run_appender(
    handle: SaverHandle, variant: Variant, n: int, payloads: Sequence[str]
) -> tuple[float, dict[str, Any]]:
    graph = build_appender(variant, payloads).compile(checkpointer=handle.saver)
    config = thread_config(fresh_thread(f"b-{n}"), recursion_limit=n + 10)
    with gc_paused():
        t0 = time.perf_counter()
        graph.invoke(appender_input(variant, n), config, durability="sync")
        elapsed = time.perf_counter() - t0
    # Read back through the saver (a fresh compiled graph, so nothing is cached in Python).
    reader = build_appender(variant, payloads).compile(checkpointer=handle.saver)
    return elapsed, dict(reader.get_state(config).values)


def scenario_b(env: BenchEnv, specs: list[SaverSpec], sizes: Sizes, report: Report) -> None:
    payloads = make_payloads(max(sizes.b_steps))
    sync_specs = [s for s in specs if not s.is_async]
    for variant in VARIANTS:
        for n in sizes.b_steps:
            raw = sum(len(p.encode()) for p in payloads[:n])
            with open_inmemory(env) as ref_handle:
                _, reference = _run_appender(ref_handle, variant, n, payloads)
            key = "items" if variant == "operator.add" else "messages"
            if len(reference[key]) != n:
                raise AssertionError(f"reference run appended {len(reference[key])} != {n}")
            for spec in sync_specs:
                console.print(f"  b: {spec.name} {variant} n={n}", markup=False)
                assert spec.open_sync is not None
                try:
                    with spec.open_sync(env) as handle:
                        empty = handle.size_bytes()
                        elapsed, state = _run_appender(handle, variant, n, payloads)
                        size = handle.size_bytes()
                except Exception as exc:  # noqa: BLE001
                    report.fail("b", spec.name, exc)
                    continue
                same = state == reference
                note = "state == InMemorySaver" if same else "STATE DIFFERS FROM InMemorySaver"
                label = f"{variant}, {n} steps"
                report.add(
                    Result(
                        "b",
                        spec.name,
                        f"{label}: bytes",
                        "bytes",
                        [size],
                        spec.baseline,
                        note=f"{handle.size_note}; {empty / 1e3:.0f} kB right after setup()",
                    )
                )
                report.add(
                    Result(
                        "b",
                        spec.name,
                        f"{label}: x raw ({raw:,} B)",
                        "x",
                        [size / raw],
                        spec.baseline,
                        note=note,
                        ok=same,
                    )
                )
                report.add(
                    Result(
                        "b", spec.name, f"{label}: per superstep", "s", [elapsed / n], spec.baseline
                    )
                )


# --------------------------------------------------------------------------------------------
# Scenario c: a thread with many checkpoints
# --------------------------------------------------------------------------------------------


def scenario_c(env: BenchEnv, specs: list[SaverSpec], sizes: Sizes, report: Report) -> None:
    n_ckpt = sizes.c_checkpoints
    loops = n_ckpt - 2  # + the input checkpoint (step -1) and the START step (step 0)
    texts = small_items(loops)
    for spec in (s for s in specs if not s.is_async):
        console.print(f"  c: {spec.name}", markup=False)
        assert spec.open_sync is not None
        try:
            with spec.open_sync(env) as handle:
                _scenario_c_one(handle, spec, sizes, loops, texts, report)
        except Exception as exc:  # noqa: BLE001
            report.fail("c", spec.name, exc)


def _scenario_c_one(
    handle: SaverHandle,
    spec: SaverSpec,
    sizes: Sizes,
    loops: int,
    texts: Sequence[str],
    report: Report,
) -> None:
    saver = handle.saver
    graph = build_appender("operator.add", texts).compile(checkpointer=saver)
    thread_id = fresh_thread("c")
    config = thread_config(thread_id, recursion_limit=loops + 10)
    build = timed(lambda: graph.invoke(appender_input("operator.add", loops), config))
    query: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}

    count = sum(1 for _ in saver.list(query))
    latest = saver.get_tuple(query)
    ok = (
        count == sizes.c_checkpoints
        and latest is not None
        and len(latest.checkpoint["channel_values"]["items"]) == loops
    )
    note = f"{count} checkpoints" + ("" if ok else f" (EXPECTED {sizes.c_checkpoints})")
    batch = sizes.c_batch

    def get_latest() -> None:
        for _ in range(batch):
            saver.get_tuple(query)

    def list_10() -> None:
        for _ in range(batch):
            for _ in saver.list(query, limit=10):
                pass

    def list_all() -> None:
        for _ in saver.list(query):
            pass

    # Warm-up to steady state: PostgreSQL plans a prepared statement afresh for its
    # first five executions on each connection, and a pool hands its connections
    # out in turn, so a pooled saver needs ~5 x pool size calls (every saver gets
    # the same warm-up; one-connection savers are warm after the first batch).
    for _ in range(C_WARMUP_BATCHES):
        get_latest()
        list_10()
    report.add(
        Result(
            "c",
            spec.name,
            "build, per superstep",
            "s",
            [build / loops],
            spec.baseline,
            note=note,
            ok=ok,
        )
    )
    report.add(
        Result(
            "c",
            spec.name,
            "get_tuple (latest)",
            "s",
            [timed(get_latest) / batch for _ in range(sizes.repeat)],
            spec.baseline,
        )
    )
    report.add(
        Result(
            "c",
            spec.name,
            "list(limit=10)",
            "s",
            [timed(list_10) / batch for _ in range(sizes.repeat)],
            spec.baseline,
        )
    )
    report.add(
        Result(
            "c",
            spec.name,
            f"list() all {count}",
            "s",
            [timed(list_all) for _ in range(sizes.repeat)],
            spec.baseline,
        )
    )


# --------------------------------------------------------------------------------------------
# Scenario d: concurrent threads on async savers
# --------------------------------------------------------------------------------------------


def scenario_d(env: BenchEnv, specs: list[SaverSpec], sizes: Sizes, report: Report) -> None:
    try:
        asyncio.run(_scenario_d(env, [s for s in specs if s.is_async], sizes, report))
    except Exception as exc:  # noqa: BLE001
        report.fail("d", "all", exc)


async def _scenario_d(env: BenchEnv, specs: list[SaverSpec], sizes: Sizes, report: Report) -> None:
    """Every async saver open at once, their waves interleaved round by round.

    One saver after the other would put the load of its own minutes into its rate (on a
    shared machine InMemorySaver alone moved between 970/s and 1,650/s from one run to
    the next); here each round runs one wave of every saver, in an order that rotates, so
    a drift of the load hits them all alike and the ratios of one run compare like with like.
    """
    threads = sizes.d_threads
    async with AsyncExitStack() as stack:
        graphs: dict[str, Any] = {}
        for spec in specs:
            assert spec.open_async is not None
            console.print(f"  d: {spec.name}", markup=False)
            try:
                handle = await stack.enter_async_context(spec.open_async(env))
            except Exception as exc:  # noqa: BLE001
                report.fail("d", spec.name, exc)
                continue
            graphs[spec.name] = build_chain(D_CHAIN_NODES, is_async=True).compile(
                checkpointer=handle.saver
            )
        for durability in DURABILITIES:

            async def wave(graph: Any, prefix: str, d: Durability = durability) -> list[Any]:
                results: list[Any] = await asyncio.gather(
                    *(
                        graph.ainvoke({"x": 0}, thread_config(fresh_thread(prefix)), durability=d)
                        for _ in range(threads)
                    )
                )
                return results

            ok: dict[str, bool] = {}
            for name, graph in graphs.items():
                outs = await wave(graph, "d-warm")
                ok[name] = all(o == {"x": D_CHAIN_NODES} for o in outs)
            samples: dict[str, list[float]] = {name: [] for name in graphs}
            names = list(graphs)
            for round_ in range(sizes.repeat):
                shift = round_ % len(names)
                for name in names[shift:] + names[:shift]:
                    with gc_paused():
                        t0 = time.perf_counter()
                        await wave(graphs[name], "d")
                        samples[name].append(threads * D_CHAIN_NODES / (time.perf_counter() - t0))
            for spec in specs:
                if spec.name not in graphs:
                    continue
                report.add(
                    Result(
                        "d",
                        spec.name,
                        f"{threads} threads, durability={durability}",
                        "1/s",
                        samples[spec.name],
                        spec.baseline,
                        higher_is_better=True,
                        ok=ok[spec.name],
                        note="" if ok[spec.name] else "wrong final state",
                    )
                )


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

SCENARIOS: dict[str, tuple[str, Callable[[BenchEnv, list[SaverSpec], Sizes, Report], None]]] = {
    "a": ("a. per-superstep cost, chain of 30 trivial nodes", scenario_a),
    "b": ("b. storage, ~1 KB appended per superstep", scenario_b),
    "c": ("c. thread with many checkpoints", scenario_c),
    "d": ("d. concurrent threads on async savers (supersteps/s, higher is better)", scenario_d),
}


def fmt_value(value: float, unit: str) -> str:
    if unit == "s":
        if value >= 1:
            return f"{value:.3f} s"
        if value >= 1e-3:
            return f"{value * 1e3:.3f} ms"
        return f"{value * 1e6:.1f} us"
    if unit == "bytes":
        return f"{value / 1e6:.2f} MB"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "1/s":
        return f"{value:,.0f}/s"
    return f"{value:g}"


def print_table(title: str, results: list[Result], scenario: str = "") -> None:
    ref_column = REFERENCE_COLUMNS.get(scenario)
    if not any(r.ref_ratio is not None for r in results):
        ref_column = None
    explain = {
        "a": "; / floor = ActionSaver / DurableFloor, AsyncActionSaver / AsyncDurableFloor",
        "d": "; / InMemory = saver / InMemorySaver (async)",
    }
    table = Table(
        title=f"{title}\nratio = saver / PostgresSaver (sync savers) or / AsyncPostgresSaver "
        "(async savers); a saver marked (encrypted): / the same saver unencrypted"
        + (explain.get(scenario, "") if ref_column else ""),
        title_justify="left",
    )
    table.add_column("saver")
    table.add_column("metric")
    table.add_column("median", justify="right")
    table.add_column("min..max", justify="right")
    table.add_column("ratio", justify="right")
    if ref_column:
        table.add_column(ref_column, justify="right")
    table.add_column("note")
    order = {name: i for i, name in enumerate(SAVERS)}
    metric_order: dict[str, int] = {}
    for r in results:
        metric_order.setdefault(r.metric, len(metric_order))

    def key(r: Result) -> tuple[int, bool, bool, int]:
        return (
            metric_order[r.metric],
            r.baseline != SYNC_BASELINE,
            r.saver != r.baseline,
            order.get(r.saver, 99),
        )

    previous_metric = None
    for r in sorted(results, key=key):
        if previous_metric is not None and r.metric != previous_metric:
            table.add_section()
        previous_metric = r.metric
        if not r.samples:
            dashes = ["-"] * (4 if ref_column else 3)
            table.add_row(r.saver, r.metric, *dashes, f"[red]{escape(r.note)}[/red]")
            continue
        spread = (
            f"{fmt_value(min(r.samples), r.unit)}..{fmt_value(max(r.samples), r.unit)}"
            if len(r.samples) > 1
            else ""
        )
        ratios = [f"{r.ratio:.2f}" if r.ratio is not None else "-"]
        if ref_column:
            ratios.append(f"{r.ref_ratio:.2f}" if r.ref_ratio is not None else "-")
        note = escape(r.note) if r.ok else f"[red]{escape(r.note)}[/red]"
        table.add_row(r.saver, r.metric, fmt_value(r.median, r.unit), spread, *ratios, note)
    console.print(table)


def environment(env: BenchEnv, sizes: Sizes) -> dict[str, Any]:
    with psycopg.Connection.connect(env.dsn, autocommit=True) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    versions: dict[str, str | None] = {}
    for dist in (
        "langgraph",
        "langgraph-checkpoint",
        "langgraph-checkpoint-postgres",
        "langgraph-checkpoint-sqlite",
        "psycopg",
        "langchain-core",
        "langgraph-actionckpt",
    ):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "postgres": row[0] if row else None,
        "dsn": redact_dsn(env.dsn),
        "versions": versions,
        "sizes": asdict(sizes),
    }


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = server_parser("benchmarks.bench_saver", __doc__)
    p.add_argument("--scenarios", default="a,b,c,d", help="comma list of a,b,c,d")
    p.add_argument("--savers", help="comma list of saver names (default: all available)")
    p.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    p.add_argument("--repeat", type=int, help="repetitions per measure (default 5, quick 2)")
    p.add_argument("--json", dest="json_out", help="also write the results to this JSON file")
    p.add_argument(
        "--keep-databases",
        action="store_true",
        help="do not drop the scratch databases (for inspection)",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = Sizes.quick(args.repeat) if args.quick else Sizes.full(args.repeat)
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        console.print(f"[red]unknown scenarios: {unknown}[/red]")
        return 2

    dsn = server_dsn(args)
    env = BenchEnv(dsn=dsn, keep_databases=args.keep_databases)
    report = Report()

    reason = ours_unavailable_reason()
    if reason is not None:
        note = f"our savers skipped (langgraph_actionckpt does not import: {reason})"
        console.print(f"[yellow]{escape(note)}[/yellow]")
        report.notes.append(note)
    names = [n.strip() for n in args.savers.split(",")] if args.savers else None
    specs = available_savers(names)

    info = environment(env, sizes)
    console.print(f"server: {info['postgres']}  dsn: {info['dsn']}  cpus: {info['cpus']}")
    console.print(f"versions: {info['versions']}", markup=False)
    if "b" in scenarios:
        comp = compressibility(make_payloads(max(sizes.b_steps)))
        info["payload_compressibility"] = comp
        console.print(
            f"payload: {PAYLOAD_CHARS} chars; zlib compressed/raw: "
            f"{comp['per_payload_median']:.2f} per payload, "
            f"{comp['all_concatenated']:.2f} over all payloads concatenated"
        )

    try:
        for key in scenarios:
            title, fn = SCENARIOS[key]
            console.print(f"[bold]running {title}[/bold]")
            t0 = time.perf_counter()
            fn(env, [s for s in specs if key in s.scenarios], sizes, report)
            console.print(f"  ({time.perf_counter() - t0:.1f} s)")
    finally:
        shutil.rmtree(env.tmpdir, ignore_errors=True)

    report.compute_ratios()
    for key in scenarios:
        rows = [r for r in report.results if r.scenario == key]
        if rows:
            print_table(SCENARIOS[key][0], rows, key)
    for note in report.notes:
        console.print(f"[yellow]note: {escape(note)}[/yellow]")

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(
                {
                    "environment": info,
                    "notes": report.notes,
                    "failures": report.failures,
                    "results": [asdict(r) | {"median": r.median} for r in report.results],
                },
                f,
                indent=2,
            )
    if report.failures:
        console.print("[red]failures:[/red]")
        for failure in report.failures:
            console.print(f"[red]  {escape(failure)}[/red]")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
