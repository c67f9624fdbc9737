"""The saver against real servers: setup races, hostile values, dropped connections,
pool/pipeline variants, schema isolation, delta-encoded lists."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import operator
import os
import random
import time
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
import zstandard
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph, add_messages

from langgraph_actionckpt import (
    ActionSaver,
    AsyncActionSaver,
    ConfigurationError,
    SerializationError,
)
from langgraph_actionckpt.checkpoints.compress import unpack_value
from langgraph_actionckpt.db.schema_versions import MIGRATIONS

from .conftest import drop_schema, fetch, new_schema_name

# --------------------------------------------------------------------------- graphs


class ListState(TypedDict):
    items: Annotated[list[str], operator.add]
    n: int


def _looping_graph(steps: int, payload: str = "x") -> StateGraph[Any]:
    def step(state: ListState) -> dict[str, Any]:
        return {"items": [f"{state['n']}:{payload}"], "n": state["n"] + 1}

    builder = StateGraph(ListState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step")
    return builder


class TextState(TypedDict):
    text: str
    meta: dict[str, Any]


def _echo_graph() -> StateGraph[Any]:
    def node(state: TextState) -> dict[str, Any]:
        return {"text": state["text"] + "\x00end", "meta": {**state["meta"], "seen": True}}

    builder = StateGraph(TextState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder


# ---------------------------------------------------------------------- setup races


def _setup_in_process(dsn: str, schema: str, barrier: Any) -> None:
    barrier.wait()
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=0) as saver:
        saver.setup()


def test_concurrent_setup_by_ten_processes(dsn: str, schema: str) -> None:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(10)
    procs = [ctx.Process(target=_setup_in_process, args=(dsn, schema, barrier)) for _ in range(10)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 10
    versions = fetch(dsn, f'SELECT v FROM "{schema}".migrations ORDER BY v')
    assert [v for (v,) in versions] == [m.version for m in MIGRATIONS]
    tables = fetch(
        dsn,
        "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename",
        (schema,),
    )
    assert [t for (t,) in tables] == [
        "actions",
        "blobs",
        "checkpoints",
        "leases",
        "migrations",
        "reuse_entries",
        "writes",
    ]
    invalid = fetch(
        dsn,
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND NOT i.indisvalid",
        (schema,),
    )
    assert invalid == []


def test_setup_is_idempotent_and_rejects_bad_schema(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        saver.store.is_setup = False
        saver.setup()
    with pytest.raises(ConfigurationError):
        ActionSaver.from_conn_string(dsn, schema='x"; DROP TABLE y; --').__enter__()


# -------------------------------------------------------------------- hostile values

HOSTILE = {
    "nul": "a\x00b\x00",
    "surrogate": "lone \ud800 and \udfff",
    "marker": "\ue000 looks escaped \\0",
    "mixed": ["\x00", {"k\x00ey": "v\ud83d"}],
}


def test_nul_and_surrogates_round_trip_sync(saver: ActionSaver) -> None:
    graph = _echo_graph().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "hostile\x00thread"}, "metadata": {"who": "x\x00y"}}
    out = graph.invoke({"text": "in\x00\ud800", "meta": dict(HOSTILE)}, config)
    assert out["text"] == "in\x00\ud800\x00end"
    state = graph.get_state(config)
    assert state.values["text"] == "in\x00\ud800\x00end"
    assert state.values["meta"] == {**HOSTILE, "seen": True}
    assert state.metadata["who"] == "x\x00y"
    # metadata filters with hostile keys and values are bound, never interpolated
    found = list(saver.list(config, filter={"who": "x\x00y"}))
    assert found
    assert list(saver.list(config, filter={"x') OR 1=1 --": "1"})) == []


async def test_nul_and_surrogates_round_trip_async(asaver: AsyncActionSaver) -> None:
    graph = _echo_graph().compile(checkpointer=asaver)
    config = {"configurable": {"thread_id": "t-async"}}
    out = await graph.ainvoke({"text": "\x00", "meta": dict(HOSTILE)}, config)
    assert out["text"] == "\x00\x00end"
    state = await graph.aget_state(config)
    assert state.values["meta"] == {**HOSTILE, "seen": True}


def test_fifty_megabyte_value_round_trips(saver: ActionSaver) -> None:
    big = os.urandom(25 * 1024 * 1024).hex()  # 50 MB of text
    graph = _echo_graph().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "big"}}
    graph.invoke({"text": big, "meta": {}}, config)
    state = graph.get_state(config)
    assert len(state.values["text"]) == len(big) + 4
    assert state.values["text"][: len(big)] == big


def test_non_serializable_value_is_a_clear_error(saver: ActionSaver) -> None:
    class Opaque:
        def __init__(self) -> None:
            self.lock = __import__("threading").Lock()

    graph = _echo_graph().compile(checkpointer=saver)
    with pytest.raises(SerializationError, match="cannot serialize"):
        graph.invoke({"text": "x", "meta": {"obj": Opaque()}}, {"configurable": {"thread_id": "o"}})


# --------------------------------------------------------------- dropped connections


def _tagged(dsn: str, schema: str) -> str:
    """The DSN with an application_name, so a test kills only its own backends."""
    sep = "&" if "?" in dsn else "?"
    return f"{dsn}{sep}application_name={schema}"


def _terminate_backends(dsn: str, schema: str) -> int:
    # kill the saver's backends (tagged with the schema name), as a server restart would
    rows = fetch(
        dsn,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND application_name = %s",
        (schema,),
    )
    return len(rows)


@pytest.mark.parametrize("pool_size", [0, 2])
def test_terminated_backend_between_supersteps(dsn: str, schema: str, pool_size: int) -> None:
    killed: list[int] = []

    def step(state: ListState) -> dict[str, Any]:
        if state["n"] == 3:
            killed.append(_terminate_backends(dsn, schema))
        return {"items": [str(state["n"])], "n": state["n"] + 1}

    builder = StateGraph(ListState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["n"] >= 6 else "step")
    with ActionSaver.from_conn_string(
        _tagged(dsn, schema), schema=schema, pool_size=pool_size, pool_check=False
    ) as saver:
        saver.setup()
        graph = builder.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "kill"}}
        out = graph.invoke({"items": [], "n": 0}, config, durability="sync")
        assert killed and killed[0] >= 1
        assert out["items"] == [str(i) for i in range(6)]
        assert graph.get_state(config).values["n"] == 6


async def test_terminated_backend_async(dsn: str, schema: str) -> None:
    async with AsyncActionSaver.from_conn_string(
        _tagged(dsn, schema), schema=schema, pool_size=0
    ) as saver:
        await saver.setup()
        graph = _looping_graph(4).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "k"}}
        await graph.ainvoke({"items": [], "n": 0}, config)
        assert await asyncio.to_thread(_terminate_backends, dsn, schema) >= 1
        out = await graph.ainvoke(None, config)  # resumes on a fresh connection
        assert out["n"] == 4
        state = await graph.aget_state(config)
        assert len(state.values["items"]) == 4


# ------------------------------------------------------------ pool / pipeline variants


@pytest.mark.parametrize(
    ("pool_size", "pipeline", "prepare_threshold"),
    [(0, False, 5), (0, True, 5), (3, False, None), (3, True, 0)],
)
def test_connection_variants_sync(
    dsn: str, schema: str, pool_size: int, pipeline: bool, prepare_threshold: int | None
) -> None:
    with ActionSaver.from_conn_string(
        dsn,
        schema=schema,
        pool_size=pool_size,
        pipeline=pipeline,
        prepare_threshold=prepare_threshold,
    ) as saver:
        saver.setup()
        graph = _looping_graph(12).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "v"}}
        out = graph.invoke({"items": [], "n": 0}, config)
        assert out["n"] == 12
        history = list(graph.get_state_history(config))
        assert [len(h.values.get("items", [])) for h in history[:3]] == [12, 11, 10]


@pytest.mark.parametrize(("pool_size", "pipeline"), [(0, False), (0, True), (3, False), (3, True)])
async def test_connection_variants_async(
    dsn: str, schema: str, pool_size: int, pipeline: bool
) -> None:
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, pool_size=pool_size, pipeline=pipeline
    ) as saver:
        await saver.setup()
        graph = _looping_graph(12).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "v"}}
        out = await graph.ainvoke({"items": [], "n": 0}, config)
        assert out["n"] == 12
        states = [s async for s in graph.aget_state_history(config)]
        assert len(states[0].values["items"]) == 12


def test_user_supplied_connection_and_pool(dsn: str, schema: str) -> None:
    from psycopg_pool import ConnectionPool

    with psycopg.connect(dsn, autocommit=True) as conn:
        saver = ActionSaver(conn, schema=schema)
        saver.setup()
        out = (
            _looping_graph(3)
            .compile(checkpointer=saver)
            .invoke({"items": [], "n": 0}, {"configurable": {"thread_id": "c"}})
        )
        assert out["n"] == 3
        saver.close()
    with ConnectionPool(dsn, kwargs={"autocommit": True}, min_size=1, max_size=2) as pool:
        saver = ActionSaver(pool, schema=schema)
        state = (
            _looping_graph(3)
            .compile(checkpointer=saver)
            .get_state({"configurable": {"thread_id": "c"}})
        )
        assert state.values["n"] == 3
        saver.close()


# ------------------------------------------------------------------ schema isolation


def test_two_schemas_do_not_see_each_other(dsn: str) -> None:
    a, b = new_schema_name(), new_schema_name()
    try:
        with (
            ActionSaver.from_conn_string(dsn, schema=a) as sa,
            ActionSaver.from_conn_string(dsn, schema=b) as sb,
        ):
            sa.setup()
            sb.setup()
            config = {"configurable": {"thread_id": "same-thread"}}
            _looping_graph(2).compile(checkpointer=sa).invoke({"items": [], "n": 0}, config)
            assert sb.get_tuple(config) is None
            assert list(sb.list(None)) == []
            assert sb.list_actions("same-thread") == []
            assert sa.get_tuple(config) is not None
            assert len(sa.list_actions("same-thread")) > 0
    finally:
        drop_schema(dsn, a)
        drop_schema(dsn, b)


# ----------------------------------------------------------- delta-encoded lists


def _reference_state(steps: int, builder: Any) -> dict[str, Any]:
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "ref"}, "recursion_limit": 10_000}
    return graph.invoke({"items": [], "n": 0}, config)  # type: ignore[no-any-return]


def test_append_only_list_is_stored_as_deltas(dsn: str, schema: str) -> None:
    steps = 60
    payload = "p" * 1000
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _looping_graph(steps, payload).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "d"}, "recursion_limit": 10_000}
        # sync: each step's writes meet the next checkpoint's deltas (with "async"
        # the writer may flush some before, which stores them in full)
        out = graph.invoke({"items": [], "n": 0}, config, durability="sync")
        assert out == _reference_state(steps, _looping_graph(steps, payload))
        kinds = dict(fetch(dsn, f'SELECT type, count(*) FROM "{schema}".blobs GROUP BY type'))
        # 1 KB deltas of a compressible text are stored compressed
        assert kinds.get("zv:delta", 0) >= steps - 1
        stored = fetch(
            dsn, f"SELECT sum(length(blob)) FROM \"{schema}\".blobs WHERE channel = 'items'"
        )[0][0]
        assert stored < 0.2 * steps * len(payload)
        # each step's write of the appended item refers to its delta instead of a copy
        refs = fetch(
            dsn,
            f"SELECT count(*) FROM \"{schema}\".writes w, unnest(w.types) t WHERE t = 'ref'",
        )
        # one row per task: a step's writes (item, counter, branch) share it
        rows = fetch(dsn, f'SELECT count(*), sum(cardinality(channels)) FROM "{schema}".writes')
        assert rows[0][1] >= 2 * rows[0][0]
        assert refs[0][0] >= steps - 1
        # every historical version reconstructs exactly, pending writes included
        history = list(graph.get_state_history(config))
        for i, snapshot in enumerate(history):
            items = snapshot.values.get("items", [])
            assert items == out["items"][: len(items)], i
        for parent, child in zip(history[1:], history[:-1], strict=True):
            tup = saver.get_tuple(parent.config)
            assert tup is not None
            written = [v for _, ch, v in tup.pending_writes if ch == "items"]
            assert written == [child.values["items"][len(parent.values.get("items", [])) :]]


@pytest.mark.parametrize("compress_min", [0, 256])
def test_mixed_raw_and_compressed_deltas(dsn: str, schema: str, compress_min: int) -> None:
    """Small and big, compressible and random items in one chain read back exactly."""
    rng = random.Random(7)
    texts = [
        "p" * 900
        if i % 3 == 0
        else "".join(rng.choices("0123456789abcdef", k=700))
        if i % 3 == 1
        else f"short {i}"
        for i in range(40)
    ]

    def step(state: ListState) -> dict[str, Any]:
        return {"items": [texts[state["n"]]], "n": state["n"] + 1}

    builder = StateGraph(ListState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["n"] >= len(texts) else "step")
    with ActionSaver.from_conn_string(dsn, schema=schema, compress_min=compress_min) as saver:
        saver.setup()
        config = {"configurable": {"thread_id": "mixed"}, "recursion_limit": 1_000}
        out = builder.compile(checkpointer=saver).invoke({"items": [], "n": 0}, config)
        assert out["items"] == texts
        kinds = dict(fetch(dsn, f'SELECT type, count(*) FROM "{schema}".blobs GROUP BY type'))
        if compress_min:
            assert kinds.get("zv:delta", 0) > 0 and kinds.get("delta", 0) > 0, kinds
        else:
            assert "z:delta" not in kinds and not any(k.startswith("z") for k in kinds), kinds
        # a fresh saver (nothing cached) reads every version back
        with ActionSaver.from_conn_string(dsn, schema=schema) as reader:
            graph = builder.compile(checkpointer=reader)
            assert graph.get_state(config).values["items"] == texts
            for snapshot in graph.get_state_history(config):
                items = snapshot.values.get("items", [])
                assert items == texts[: len(items)]


class MessageState(TypedDict):
    messages: Annotated[list[Any], add_messages]


def test_message_deltas_without_and_with_the_value_dictionary(dsn: str, schema: str) -> None:
    """Deltas compressed before the value dictionary ("z:") and after ("zv:") mix in a chain."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    texts = [" ".join(random.Random(i).choices(words, k=120)) for i in range(30)]

    def step(state: MessageState) -> dict[str, Any]:
        i = len(state["messages"])
        return {"messages": [HumanMessage(content=texts[i], id=f"m{i}")]}

    builder = StateGraph(MessageState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges(
        "step", lambda s: END if len(s["messages"]) >= len(texts) else "step"
    )
    config = {"configurable": {"thread_id": "dict"}, "recursion_limit": 1_000}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        out = builder.compile(checkpointer=saver).invoke({"messages": []}, config)
    rows = fetch(
        dsn, f'SELECT version, type, blob FROM "{schema}".blobs WHERE type = %s', ("zv:delta",)
    )
    assert len(rows) >= len(texts) - 1
    # what an earlier version wrote: the same deltas compressed without a dictionary
    plain = zstandard.ZstdCompressor(level=3)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for version, type_, blob in rows[::2]:
            raw = unpack_value(type_, blob)[1]
            assert raw is not None
            conn.execute(
                f'UPDATE "{schema}".blobs SET type = %s, blob = %s WHERE version = %s',
                ("z:delta", plain.compress(raw), version),
            )
    kinds = dict(fetch(dsn, f'SELECT type, count(*) FROM "{schema}".blobs GROUP BY type'))
    assert kinds.get("z:delta", 0) > 0 and kinds.get("zv:delta", 0) > 0, kinds
    with ActionSaver.from_conn_string(dsn, schema=schema) as fresh:
        graph = builder.compile(checkpointer=fresh)
        assert graph.get_state(config).values["messages"] == out["messages"]
        for snapshot in graph.get_state_history(config):
            got = snapshot.values.get("messages", [])
            assert got == out["messages"][: len(got)]


def test_deltas_across_fork_copy_and_prune(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _looping_graph(8).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "f"}}
        graph.invoke({"items": [], "n": 0}, config)
        history = list(graph.get_state_history(config))
        middle = next(h for h in history if len(h.values.get("items", [])) == 4)
        # replay from a past checkpoint: a fork that appends different items
        fork_config = graph.update_state(middle.config, {"items": ["forked"], "n": 6})
        forked = graph.invoke(None, fork_config)
        assert forked["items"] == ["0:x", "1:x", "2:x", "3:x", "forked", "6:x", "7:x"]
        # the original branch still reads back unchanged
        assert graph.get_state(history[0].config).values["items"] == [f"{i}:x" for i in range(8)]
        # copy_thread then read the copy
        saver.copy_thread("f", "f-copy")
        copy_state = graph.get_state({"configurable": {"thread_id": "f-copy"}})
        assert copy_state.values["items"] == forked["items"]
        # prune keeps the latest checkpoint readable
        saver.prune(["f"], strategy="keep_latest")
        latest = graph.get_state(config)
        assert latest.values["items"] == forked["items"]
        assert len(list(saver.list(config))) == 1
        # the copy is untouched by pruning the source
        assert len(list(saver.list({"configurable": {"thread_id": "f-copy"}}))) > 1


@pytest.mark.parametrize("flush_between", [False, True])
def test_repeated_put_writes_match_inmemory_saver(
    dsn: str, schema: str, flush_between: bool
) -> None:
    """A task's writes share one row; repeated calls keep stored writes and add later
    ones, special writes replace theirs: the same pending writes as InMemorySaver."""
    from langgraph.checkpoint.base import empty_checkpoint

    calls: list[tuple[list[tuple[str, Any]], str]] = [
        ([("a", 1), ("b", "x" * 300)], "t1"),
        ([("a", 9), ("b", 9), ("c", 3)], "t1"),  # keeps a, b; adds c
        ([("a", 5)], "t2"),
        ([("__error__", ValueError("first"))], "t3"),
        ([("__error__", ValueError("second"))], "t3"),  # replaces
        ([("__interrupt__", "x"), ("d", 4)], "t4"),
    ]
    reference = InMemorySaver()
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        results = []
        for target in (reference, saver):
            config: Any = {"configurable": {"thread_id": "pw", "checkpoint_ns": ""}}
            config = target.put(config, empty_checkpoint(), {"step": -1}, {})
            for writes, task_id in calls:
                target.put_writes(config, writes, task_id, task_path="")
                if flush_between and target is saver:
                    saver.flush_writes()
            tup = target.get_tuple(config)
            assert tup is not None
            results.append(
                sorted(
                    (t, c, repr(v) if isinstance(v, Exception) else v)
                    for t, c, v in tup.pending_writes
                )
            )
        assert results[1] == results[0]


def test_deleting_a_run_keeps_deltas_that_earlier_writes_refer_to(dsn: str, schema: str) -> None:
    """A pending write stored as a reference outlives the checkpoint that stored its delta.

    The later checkpoints are marked as another run's (as when a run resumes a thread
    after an interrupt); deleting that run collects blobs, and must keep the delta the
    surviving checkpoint's write refers to.
    """
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _looping_graph(4, "b" * 500).compile(checkpointer=saver)
        config: Any = {"configurable": {"thread_id": "runs"}}
        graph.invoke({"items": [], "n": 0}, config, durability="sync")
        history = list(graph.get_state_history(config))  # newest first
        keep = history[2]  # a checkpoint whose step appended one item afterwards
        child = history[1]
        keep_id = keep.config["configurable"]["checkpoint_id"]
        refs = fetch(
            dsn,
            f'SELECT count(*) FROM "{schema}".writes w, unnest(w.types) t '
            "WHERE t = 'ref' AND checkpoint_id = %s",
            (keep_id,),
        )
        assert refs[0][0] == 1
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                f"UPDATE \"{schema}\".checkpoints SET run_id = 'later' WHERE checkpoint_id > %s",
                (keep_id,),
            )
        saver.delete_for_runs(["later"])
        assert [t.config["configurable"]["checkpoint_id"] for t in saver.list(config)][0] == keep_id
    with ActionSaver.from_conn_string(dsn, schema=schema) as fresh:
        after = fresh.get_tuple(keep.config)
        assert after is not None
        assert after.checkpoint["channel_values"]["items"] == keep.values["items"]
        appended = child.values["items"][len(keep.values["items"]) :]
        assert [v for _, ch, v in after.pending_writes if ch == "items"] == [appended]


def test_corrupt_stored_values_are_clear_errors(dsn: str, schema: str) -> None:
    """Compressed values that do not decompress and references to missing deltas raise
    SerializationError; nothing crashes or returns wrong data."""
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _looping_graph(4, "z" * 600).compile(checkpointer=saver)
        config: Any = {"configurable": {"thread_id": "bad"}}
        graph.invoke({"items": [], "n": 0}, config, durability="sync")
        history = list(saver.list(config))
        with psycopg.connect(dsn, autocommit=True) as conn:
            # a pending write's referenced delta disappears
            conn.execute(
                f'DELETE FROM "{schema}".blobs b USING "{schema}".writes w, '
                "unnest(w.types, w.blobs) AS x(type, blob) "
                "WHERE x.type = 'ref' AND b.version = encode(x.blob, 'escape') "
                "AND w.checkpoint_id = %s AND b.thread_id = 'bad' AND w.thread_id = 'bad'",
                (history[2].config["configurable"]["checkpoint_id"],),
            )
        with (
            ActionSaver.from_conn_string(dsn, schema=schema) as fresh,
            pytest.raises(SerializationError),
        ):
            fresh.get_tuple(history[2].config)
        with psycopg.connect(dsn, autocommit=True) as conn:
            # a compressed checkpoint replaced by bytes that are not zstd data,
            # (tests/test_compress.py covers frames that declare too much)
            conn.execute(
                f"UPDATE \"{schema}\".checkpoints SET checkpoint = %s, type = 'zc:msgpack' "
                "WHERE checkpoint_id = %s",
                (b"\xff\x00garbage", history[0].config["configurable"]["checkpoint_id"]),
            )
        with (
            ActionSaver.from_conn_string(dsn, schema=schema) as fresh,
            pytest.raises(SerializationError),
        ):
            fresh.get_tuple(history[0].config)


def test_resumed_process_continues_deltas_from_stored_state(dsn: str, schema: str) -> None:
    config = {"configurable": {"thread_id": "r"}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        _looping_graph(5).compile(checkpointer=saver).invoke({"items": [], "n": 0}, config)
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver2:  # a "new process"
        graph = _looping_graph(10).compile(checkpointer=saver2)
        out = graph.invoke({"items": [], "n": 5}, config)
        assert out["items"] == [f"{i}:x" for i in range(10)]


# ----------------------------------------------------------------- messages and API


class ChatState(TypedDict):
    messages: Annotated[list[Any], add_messages]


def test_add_messages_history_round_trips(saver: ActionSaver) -> None:
    def reply(state: ChatState) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage(f"reply {n}\x00", id=f"ai-{n}")]}

    builder = StateGraph(ChatState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "chat"}}
    for i in range(5):
        out = graph.invoke({"messages": [HumanMessage(f"q{i}", id=f"h-{i}")]}, config)
    assert len(out["messages"]) == 10
    assert out["messages"][-1].content == "reply 9\x00"
    assert graph.get_state(config).values["messages"] == out["messages"]


def test_sync_and_async_savers_expose_the_same_api() -> None:
    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_")}

    sync_names, async_names = public(ActionSaver), public(AsyncActionSaver)
    assert sync_names == async_names, sync_names ^ async_names
    for name in sync_names:
        if name.startswith("a") and name[1:] in sync_names:
            assert asyncio.iscoroutinefunction(getattr(AsyncActionSaver, name)) or name in (
                "alist",
            ), name


def test_node_rows_are_written_by_the_saver(saver: ActionSaver) -> None:
    graph = _looping_graph(3).compile(checkpointer=saver)
    graph.invoke({"items": [], "n": 0}, {"configurable": {"thread_id": "rows"}})
    rows = saver.list_actions("rows")
    kinds = [(r.action_type, r.name, r.status) for r in rows]
    assert kinds.count(("node", "step", "completed")) == 3
    # the conditional edge's decision is part of each node row
    routes = [r.output["routes"] for r in rows if r.action_type == "node"]
    assert routes.count(["step"]) == 2 and not any(r.action_type == "branch" for r in rows)
    # writes of consecutive steps are stored by background threads, so their
    # rows may land a step apart; each carries its own step number
    steps = [r.step for r in rows if r.action_type == "node"]
    assert sorted(steps) == [1, 2, 3]


def _wait_for_writes_row(dsn: str, schema: str, timeout: float = 30.0) -> float:
    """Seconds until the writes table has a row (polled from another connection)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if fetch(dsn, f'SELECT count(*) FROM "{schema}".writes')[0][0]:
            return time.monotonic() - start
        time.sleep(0.02)
    raise AssertionError("held writes were never flushed by the writer")


def test_writer_tick_flushes_held_writes_once_half_an_interval_old(dsn: str, schema: str) -> None:
    """A write held a moment before a tick waits for the next one (so a step's writes
    meet its checkpoint and become references), and no write waits past two ticks."""
    from langgraph.checkpoint.base import empty_checkpoint

    interval = 1.0
    with ActionSaver.from_conn_string(dsn, schema=schema, writer_interval=interval) as saver:
        saver.setup()
        config: Any = {"configurable": {"thread_id": "tick", "checkpoint_ns": ""}}
        config = saver.put(config, empty_checkpoint(), {"step": -1}, {})
        held_at = time.monotonic()
        saver.put_writes(config, [("a", 1)], "t1", task_path="")
        waited = _wait_for_writes_row(dsn, schema)
        assert interval / 2 <= time.monotonic() - held_at
        assert waited <= 2 * interval + 5.0  # 1.5 intervals, plus a loaded machine's delay


async def test_writer_tick_flushes_held_writes_once_half_an_interval_old_async(
    dsn: str, schema: str
) -> None:
    from langgraph.checkpoint.base import empty_checkpoint

    interval = 1.0
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, writer_interval=interval
    ) as saver:
        await saver.setup()
        config: Any = {"configurable": {"thread_id": "tick", "checkpoint_ns": ""}}
        config = await saver.aput(config, empty_checkpoint(), {"step": -1}, {})
        held_at = time.monotonic()
        await saver.aput_writes(config, [("a", 1)], "t1", task_path="")
        waited = await asyncio.to_thread(_wait_for_writes_row, dsn, schema)
        assert interval / 2 <= time.monotonic() - held_at
        assert waited <= 2 * interval + 5.0


@pytest.mark.parametrize(("defer", "durable"), [(False, False), (False, True), (True, True)])
def test_write_modes(dsn: str, schema: str, defer: bool, durable: bool) -> None:
    with ActionSaver.from_conn_string(
        dsn, schema=schema, defer_writes=defer, durable_writes=durable
    ) as saver:
        saver.setup()
        graph = _looping_graph(5).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "modes"}}
        assert graph.invoke({"items": [], "n": 0}, config)["n"] == 5
        history = list(graph.get_state_history(config))
        assert [len(h.values.get("items", [])) for h in history[:3]] == [5, 4, 3]
        # every finished task's writes are readable under its checkpoint
        assert any(h.tasks and h.tasks[0].result for h in history[1:])
        nodes = [a for a in saver.list_actions("modes") if a.action_type == "node"]
        assert len(nodes) == 5 and {a.status for a in nodes} == {"completed"}
