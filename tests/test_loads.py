"""Loads of untrusted bytes and writes the database refuses (issue #12 findings 3, 4, 6).

* every load error names where the value is stored and says it was refused as
  untrusted, whatever the corrupt bytes make a decoder raise;
* one decompression budget per load, counted across all its values;
* a value with bytes after its end is refused, never loaded as something else;
* ids and names over their limits are refused before any SQL;
* one thread's held write that the database refuses fails only that thread.
"""

from __future__ import annotations

import operator
import os
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated, Any, TypedDict

import ormsgpack
import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import (
    ActionSaver,
    AsyncActionSaver,
    ConfigurationError,
    SerializationError,
)
from langgraph_actionckpt._config import LIMITS
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.checkpoints.budget import LoadBudget
from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.compress import pack_value
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.checkpoints.setup import default_serde

from .conftest import fetch

PLACE = Place("s", "blobs", "t1", "", channel="c", version="v1", column="blob")


class Wide(TypedDict):
    a: Annotated[list[str], operator.add]
    b: Annotated[list[str], operator.add]
    c: Annotated[list[str], operator.add]


def _wide_graph() -> StateGraph[Any]:
    builder: StateGraph[Any] = StateGraph(Wide)
    builder.add_node("fill", lambda s: {k: ["word " * 2000] for k in "abc"})  # compressible
    builder.add_edge(START, "fill")
    builder.add_edge("fill", END)
    return builder


def _config(thread: str, ns: str = "") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ns}}


@contextmanager
def _sync(dsn: str, schema: str, **options: Any) -> Iterator[ActionSaver]:
    with ActionSaver.from_conn_string(dsn, schema=schema, **options) as saver:
        saver.setup()
        yield saver


@asynccontextmanager
async def _async(dsn: str, schema: str, **options: Any) -> AsyncIterator[AsyncActionSaver]:
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, **options) as saver:
        await saver.setup()
        yield saver


# ------------------------------------------------------------------ the codec


def test_the_budget_counts_every_value_of_a_load() -> None:
    codec = Codec(default_serde(), max_load_bytes=25_000)
    type_, data = pack_value(*codec.serde.dumps_typed(["x" * 10_000]), 256)
    assert type_.startswith("zv:")
    budget = codec.budget()
    assert codec.loads(type_, data, PLACE, budget) == ["x" * 10_000]
    assert codec.loads(type_, data, PLACE, budget) == ["x" * 10_000]
    with pytest.raises(SerializationError, match="budget of 25000 bytes") as caught:
        codec.loads(type_, data, PLACE, budget)  # each fits, the third passes the sum
    assert "thread id 't1'" in str(caught.value) and "untrusted" in str(caught.value)
    # a new load gets a new budget
    assert codec.loads(type_, data, PLACE, codec.budget()) == ["x" * 10_000]


def test_a_value_is_refused_before_its_memory_is_taken() -> None:
    budget = LoadBudget(1000)
    with pytest.raises(SerializationError, match="1001 declared bytes"):
        budget.take(1001, PLACE)
    assert budget.used == 0


def test_bytes_after_a_value_are_refused_not_ignored() -> None:
    codec = Codec(default_serde())
    # ormsgpack alone reads 0 from a gigabyte of zeros: the "'log': 0"
    assert ormsgpack.unpackb(b"\x00" * 100) == 0
    with pytest.raises(SerializationError, match="does not end where its bytes do"):
        codec.loads("msgpack", b"\x00" * 100, PLACE)
    with pytest.raises(SerializationError, match="untrusted"):
        codec.loads("msgpack", b"\x92\x01", PLACE)  # truncated
    assert codec.loads("msgpack", ormsgpack.packb({"k": [1, 2]}), PLACE) == {"k": [1, 2]}


def test_garbage_only_ever_raises_a_serialization_error_naming_the_place() -> None:
    codec = Codec(default_serde())
    rng = random.Random(12)
    samples = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))) for _ in range(400)]
    samples += [b"\xc7\x05\x05" + os.urandom(5), b"\xd6\x02abcd", b"\x81\xa1k\xc7\x01\x00x"]
    for data in samples:
        for type_ in ("msgpack", "msgpack+esc", "z:msgpack", "zc:msgpack", "json", "nonsense"):
            try:
                codec.loads(type_, data, PLACE)
            except SerializationError as exc:
                assert "table s.blobs, thread id 't1'" in str(exc), exc
                assert "untrusted" in str(exc)


# ------------------------------------------------------------------ saver loads


def test_a_load_over_its_budget_names_thread_and_checkpoint(dsn: str, schema: str) -> None:
    with _sync(dsn, schema, max_load_bytes=25_000) as saver:
        graph = _wide_graph().compile(checkpointer=saver)
        graph.invoke({}, _config("wide"), durability="sync")
        with pytest.raises(SerializationError) as caught:
            saver.get_tuple(_config("wide"))
        text = str(caught.value)
        assert "'wide'" in text and "checkpoint '" in text and "max_load_bytes" in text
        with pytest.raises(SerializationError, match="max_load_bytes"):
            list(saver.list(_config("wide")))
    with _sync(dsn, schema) as saver:  # the default budget loads it
        assert saver.get_tuple(_config("wide")) is not None


async def test_async_load_over_its_budget(dsn: str, schema: str) -> None:
    async with _async(dsn, schema, max_load_bytes=25_000) as saver:
        graph = _wide_graph().compile(checkpointer=saver)
        await graph.ainvoke({}, _config("wide"), durability="sync")
        with pytest.raises(SerializationError, match="'wide'"):
            await saver.aget_tuple(_config("wide"))


@pytest.mark.parametrize(
    ("table", "column", "value", "named"),
    [
        ("checkpoints", "checkpoint", b"\xc1", "column checkpoint"),
        ("checkpoints", "type", "z:msgpack", "column checkpoint"),
        ("blobs", "blob", b"\x00" * 64, "column blob"),
        ("blobs", "type", "delta", "column blob"),  # a delta with no base
        ("blobs", "type", "z:json", "column blob"),
        ("writes", "blobs", [b"\xc1\xff"], "column blobs"),
    ],
)
def test_corrupt_rows_give_errors_naming_the_place(
    dsn: str, schema: str, table: str, column: str, value: Any, named: str
) -> None:
    with _sync(dsn, schema) as saver:
        graph = _wide_graph().compile(checkpointer=saver)
        graph.invoke({}, _config("h"), durability="sync")
        latest = saver.get_tuple(_config("h"))
        assert latest is not None
        if table == "writes":  # a pending write on the latest checkpoint
            saver.put_writes(latest.config, [("a", ["w"])], "task-1")
            saver.flush_writes()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                f'UPDATE "{schema}".{table} SET {column} = %s WHERE thread_id = %s',
                (value, "h"),
            )
        for load in (
            lambda: saver.get_tuple(_config("h")),
            lambda: list(saver.list(_config("h"))),
        ):
            with pytest.raises(SerializationError) as caught:
                load()
            text = str(caught.value)
            assert f"table {schema}.{table}" in text and named in text, text
            assert "thread id 'h'" in text and "untrusted" in text, text


# ------------------------------------------------------------------ limits


@pytest.mark.parametrize(
    ("what", "call"),
    [
        ("thread id", lambda s: s.get_tuple(_config("t" * 1025))),
        ("checkpoint namespace", lambda s: s.get_tuple(_config("t", "n" * 1025))),
        (
            "thread id",
            lambda s: s.put(_config("é" * 513), empty_checkpoint(), {}, {}),  # 1026 bytes
        ),
        ("task id", lambda s: s.put_writes(_config("t"), [("a", 1)], "k" * 257)),
        ("channel name", lambda s: s.put_writes(_config("t"), [("c" * 257, 1)], "task")),
        (
            "action name",
            lambda s: s.record_actions(
                [
                    ActionRecord(
                        thread_id="t", action_id="a", action_type="function", name="n" * 1025
                    )
                ]
            ),
        ),
    ],
)
def test_limits_are_checked_before_any_sql(dsn: str, schema: str, what: str, call: Any) -> None:
    refused = pytest.raises(ConfigurationError, match=f"{what} of \\d+ bytes is longer")
    with _sync(dsn, schema, defer_writes=False) as saver, refused:
        call(saver)
    for table in ("checkpoints", "writes", "actions"):
        assert fetch(dsn, f'SELECT count(*) FROM "{schema}".{table}') == [(0,)]


def test_ids_at_their_limits_are_stored(dsn: str, schema: str) -> None:
    """The limits fit the indexes: ids at their limits, all at once, are stored."""
    thread, ns = "t" * LIMITS["thread id"], "n" * LIMITS["checkpoint namespace"]
    ckpt = empty_checkpoint()
    with _sync(dsn, schema, defer_writes=False) as saver:
        stored = saver.put(_config(thread, ns), ckpt, {}, {})
        saver.put_writes(stored, [("c" * LIMITS["channel name"], 1)], "k" * LIMITS["task id"])
        latest = saver.get_tuple(_config(thread, ns))
        assert latest is not None and len(latest.pending_writes or []) == 1


# ------------------------------------------------------------------ isolation


@pytest.mark.parametrize("world", ["sync", "async"])
async def test_a_refused_held_write_fails_only_its_thread(
    dsn: str, schema: str, world: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A held write the database refuses beside a good one: the good one stored, close() clean."""
    monkeypatch.setitem(LIMITS, "thread id", 1 << 20)  # let the bad id reach the server
    poison = os.urandom(6000).hex()  # incompressible, beyond a B-tree entry
    ckpt = empty_checkpoint()

    if world == "sync":
        with _sync(dsn, schema) as saver:
            good = saver.put(_config("good"), ckpt, {}, {})
            saver.put_writes(good, [("a", ["kept"])], "task-b")
            saver.put_writes(_config(poison), [("a", ["bad"])], "task-a")
            saver.flush_writes()  # one statement for both fails; each thread alone then
            latest = saver.get_tuple(_config("good"))
            with pytest.raises(SerializationError) as caught:
                saver.put_writes(_config(poison), [("a", ["again"])], "task-a")
    else:
        async with _async(dsn, schema) as asaver:
            good = await asaver.aput(_config("good"), ckpt, {}, {})
            await asaver.aput_writes(good, [("a", ["kept"])], "task-b")
            await asaver.aput_writes(_config(poison), [("a", ["bad"])], "task-a")
            await asaver.aflush_writes()  # one statement for both fails; each thread alone then
            latest = await asaver.aget_tuple(_config("good"))
            with pytest.raises(SerializationError) as caught:
                await asaver.aput_writes(_config(poison), [("a", ["again"])], "task-a")
    # close() above was clean; the good thread's write was stored
    assert latest is not None and latest.pending_writes == [("task-b", "a", ["kept"])]
    text = str(caught.value)
    assert poison[:40] in text and "bytes" in text and "could not be stored" in text
    assert fetch(
        dsn, f'SELECT count(*) FROM "{schema}".writes WHERE thread_id = %s', (poison,)
    ) == [(0,)]


@pytest.mark.parametrize("world", ["sync", "async"])
async def test_a_refused_action_row_does_not_block_the_others(
    dsn: str, schema: str, world: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LIMITS, "action id", 1 << 20)  # let the bad id reach the server
    bad = ActionRecord(thread_id="bad", action_id=os.urandom(6000).hex(), action_type="function")
    good = ActionRecord(thread_id="good", action_id="a1", action_type="function")
    if world == "sync":
        with _sync(dsn, schema) as saver:
            saver.writer.enqueue(bad)
            saver.writer.enqueue(good)
            saver.writer.flush()  # one statement fails; row by row, the good one is stored
            assert [r.action_id for r in saver.list_actions("good")] == ["a1"]
            assert saver.writer.depth == 0
    else:
        async with _async(dsn, schema) as asaver:
            asaver.writer.enqueue(bad)
            asaver.writer.enqueue(good)
            await asaver.writer.aflush()
            assert [r.action_id for r in await asaver.alist_actions("good")] == ["a1"]
            assert asaver.writer.depth == 0
    assert fetch(
        dsn, f'SELECT count(*) FROM "{schema}".actions WHERE thread_id = %s', ("bad",)
    ) == [(0,)]


def test_a_corrupt_action_row_names_its_place(dsn: str, schema: str) -> None:
    with _sync(dsn, schema) as saver:
        saver.record_actions(
            [ActionRecord(thread_id="t", action_id="a1", action_type="function", input={"x": 1})]
        )
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                f'UPDATE "{schema}".actions SET input = %s::jsonb WHERE thread_id = %s',
                ('{"__ack__": "bytes", "v": 5}', "t"),
            )
        for load in (lambda: saver.list_actions("t"), lambda: saver.get_action("t", "a1")):
            with pytest.raises(SerializationError) as caught:
                load()
            text = str(caught.value)
            assert f"table {schema}.actions, thread id 't', action id 'a1', column input" in text
            assert "untrusted" in text
