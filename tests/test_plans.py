"""Plans driven with fake rows: no database.

Each plan is a generator of :class:`Op`; :func:`drive` plays the database: it
records every op and sends back what ``answer`` returns for it. The
real-server tests (test_saver, test_conformance...) check the SQL itself;
these check which statements a plan yields, with which parameters, and what it
makes of the rows it gets back.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import Checkpoint, CheckpointMetadata, empty_checkpoint
from langgraph.checkpoint.serde.types import ERROR

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.checkpoints.blobs import DELTA_TYPE, WRITE_REF_TYPE
from langgraph_actionckpt.checkpoints.codec import Codec, thread_key
from langgraph_actionckpt.checkpoints.core import CheckpointStore
from langgraph_actionckpt.checkpoints.maintenance import (
    plan_copy_thread,
    plan_delete_thread,
    plan_prune,
)
from langgraph_actionckpt.checkpoints.pending import WriteCall
from langgraph_actionckpt.checkpoints.plans_read import (
    list_pages,
    plan_get_tuple,
    plan_list_page,
)
from langgraph_actionckpt.checkpoints.plans_write import (
    CHUNK_PARAMS,
    INLINE_VERSION,
    PutResult,
    merge_metadata,
    next_version,
    plan_put,
    plan_store_writes,
    prepare_writes,
)
from langgraph_actionckpt.checkpoints.rows import BlobChainRow, CheckpointRow, ValueColumns
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.errors import (
    ConfigurationError,
    InFlightActionError,
    SerializationError,
)

Q = Queries("plans")
AQ = ActionQueries("plans")
CODEC = Codec(default_serde())
PULL = "~__pregel_pull, agent"


def default_answer(op: Op) -> Any:
    """What an op returns when the test does not care: no row, no rows."""
    return [] if op.fetch == "all" else None


def drive(plan: Plan[Any], answer: Callable[[Op], Any] = default_answer) -> tuple[list[Op], Any]:
    """Run ``plan`` the way the drivers do; return the ops it yielded and its result.

    ``answer`` may raise: the plan is then closed (as the drivers close it in
    their ``finally``) and the error propagates.
    """
    ops: list[Op] = []
    result: Any = None
    try:
        while True:
            try:
                op = plan.send(result)
            except StopIteration as stop:
                return ops, stop.value
            ops.append(op)
            result = answer(op)
    finally:
        plan.close()


def replies(*values: Any) -> Callable[[Op], Any]:
    """Answer the ops that fetch rows with ``values`` in order (others get None)."""
    it: Iterator[Any] = iter(values)
    return lambda op: next(it) if op.fetch in ("one", "all") else None


def config(thread: str = "t1", checkpoint_id: str | None = None, ns: str = "") -> RunnableConfig:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def hold(
    store: CheckpointStore, cfg: RunnableConfig, writes: list[tuple[str, Any]], task: str, path: str
) -> WriteCall | None:
    """``put_writes`` as the saver hands it to its store (None: the call is held)."""
    return store.held.prepare(thread_key(cfg), cfg, writes, task, path)


def checkpoint(values: dict[str, Any], checkpoint_id: str = "c2") -> Checkpoint:
    ckpt = empty_checkpoint()
    ckpt["id"] = checkpoint_id
    ckpt["channel_values"] = dict(values)
    ckpt["channel_versions"] = {ch: next_version(None) for ch in values}
    return ckpt


def named(op: Op) -> dict[str, Any]:
    """The named parameters of an op."""
    assert isinstance(op.params, dict)
    return op.params


def packed(value: Any) -> tuple[str, bytes]:
    return CODEC.dumps(value, "test value")


# ---------------------------------------------------------------------- put


def test_put_stores_checkpoint_and_changed_blob_in_one_statement() -> None:
    messages = [f"message {i} " * 40 for i in range(3)]
    ckpt = checkpoint({"count": 1, "messages": messages})
    meta: CheckpointMetadata = {"source": "loop", "step": 4, "parents": {}}
    ops, done = drive(
        plan_put(Q, AQ, CODEC, config(checkpoint_id="c1"), ckpt, meta, ckpt["channel_versions"])
    )
    assert len(ops) == 1
    (op,) = ops
    assert op.query == Q.store(0, 0, 0, 1, checkpoint=True, async_commit=False, shared=True)
    assert op.prepare and op.lock_key == "t1"
    p = named(op)
    assert (p["thread_id"], p["ns"], p["checkpoint_id"], p["parent"], p["step"]) == (
        "t1",
        "",
        "c2",
        "c1",
        4,
    )
    # the small int lives in the checkpoint row; the list is a blob row
    assert p["channels"] == ["count", "messages"]
    assert p["versions"] == [INLINE_VERSION, ckpt["channel_versions"]["messages"]]
    assert p["b0_channel"] == "messages"
    assert CODEC.loads(p["b0_type"], p["b0_blob"]) == messages
    stored = CODEC.loads(p["type"], p["checkpoint"])
    assert stored["channel_values"] == {"count": 1}
    assert isinstance(done, PutResult)
    assert done.config == {
        "configurable": {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": "c2"}
    }
    assert (done.step_key, done.step) == (("t1", "", "c2"), 4)
    assert [key for key, _ in done.lists] == [("t1", "", "messages")]


def test_put_stores_a_list_as_delta_and_a_held_write_as_reference() -> None:
    first = [f"first {i} " * 20 for i in range(4)]
    ckpt1 = checkpoint({"messages": first}, "c1")
    _, done1 = drive(plan_put(Q, AQ, CODEC, config(), ckpt1, {}, ckpt1["channel_versions"]))
    state = dict(done1.lists)
    # uncompressed, so the bound bytes show what is stored
    codec = Codec(CODEC.serde, compress_min=1 << 30, last_list=state.get)
    added = [f"added {i} " * 20 for i in range(2)]
    ckpt2 = checkpoint({"messages": first + added}, "c2")
    ckpt2["channel_versions"]["messages"] = next_version(ckpt1["channel_versions"]["messages"])
    # the task of step c1 wrote exactly the appended messages
    held = prepare_writes(codec, config(checkpoint_id="c1"), [("messages", added)], "task-1", PULL)
    assert held is not None
    ops, _ = drive(
        plan_put(Q, AQ, codec, config("t1", "c1"), ckpt2, {}, ckpt2["channel_versions"], [held])
    )
    (op,) = ops
    assert op.query == Q.store(1, 0, 1, 1, checkpoint=True, async_commit=False, shared=True)
    p = named(op)
    assert p["b0_type"] == DELTA_TYPE
    # one copy of the appended bytes: the write refers to the delta row by version
    assert p["w0_ty"] == [WRITE_REF_TYPE]
    assert p["w0_b"] == [str(ckpt2["channel_versions"]["messages"]).encode()]
    assert p["a0_id"] == "task-1:node" and p["a0_status"] == "completed"


def test_put_refuses_an_unserializable_value_before_any_statement() -> None:
    ckpt = checkpoint({"bad": object()})
    with pytest.raises(SerializationError, match="channel 'bad'"):
        drive(plan_put(Q, AQ, CODEC, config(), ckpt, {}, ckpt["channel_versions"]))


def test_put_adapter_restores_held_writes_when_the_statement_fails() -> None:
    core = CheckpointStore(SaverOptions(schema="plans"), on_pending=lambda: None)
    call = hold(core, config(checkpoint_id="c1"), [("x", "value")], "task-1", PULL)
    assert call is None and core.held.pending  # held for the next checkpoint
    ckpt = checkpoint({"x": "value"})

    def fail(op: Op) -> Any:
        raise ConnectionError("server gone")

    with pytest.raises(ConnectionError):
        drive(
            core.plan_put(thread_key(config()), config(), ckpt, {}, ckpt["channel_versions"]), fail
        )
    assert len(core.held.pending) == 1  # back in the buffer for the retry
    assert core.durable.missing(["c2"]) == ["c2"]  # never marked durable
    ops, _ = drive(
        core.plan_put(thread_key(config()), config(), ckpt, {}, ckpt["channel_versions"])
    )
    assert named(ops[0])["w0_task"] == "task-1"
    assert not core.held.pending and core.durable.missing(["c2"]) == []


def test_put_keeps_writes_of_its_own_checkpoint_until_the_tick_is_due() -> None:
    # durability="async": a task's writes can be held before its checkpoint is put
    core = CheckpointStore(
        SaverOptions(schema="plans", writer_interval=0.05), on_pending=lambda: None
    )
    hold(core, config(checkpoint_id="c2"), [("x", "value")], "task-1", PULL)
    ckpt = checkpoint({"x": "value"})
    ops, _ = drive(
        core.plan_put(
            thread_key(config(checkpoint_id="c1")),
            config(checkpoint_id="c1"),
            ckpt,
            {},
            ckpt["channel_versions"],
        )
    )
    assert "w0_task" not in named(ops[0]) and len(core.held.pending) == 1  # for the next put
    for calls in core.held.pending._held.values():
        calls[0].held_at -= 0.03  # held longer than half an interval: the tick would store it
    ops, _ = drive(
        core.plan_put(
            thread_key(config(checkpoint_id="c1")),
            config(checkpoint_id="c1"),
            ckpt,
            {},
            ckpt["channel_versions"],
        )
    )
    assert named(ops[0])["w0_task"] == "task-1" and not core.held.pending


# --------------------------------------------------------------- put_writes


def test_prepare_writes_makes_named_rows_and_the_node_row() -> None:
    writes = [("messages", ["hi"]), ("branch:to:tools", None)]
    call = prepare_writes(CODEC, config(checkpoint_id="c1"), writes, "task-1", PULL)
    assert call is not None and not call.special and call.failed_task is None
    assert [(r.task_id, r.task_path, r.idx, r.channel) for r in call.rows] == [
        ("task-1", PULL, 0, "messages"),
        ("task-1", PULL, 1, "branch:to:tools"),
    ]
    assert call.key == ("t1", "")
    (node,) = call.actions
    assert (node.action_id, node.name, node.status) == ("task-1:node", "agent", "completed")
    assert node.output is not None and '"routes":["tools"]' in node.output


def test_store_writes_binds_one_row_per_call_and_marks_failed_tasks() -> None:
    ok = prepare_writes(CODEC, config(checkpoint_id="c1"), [("a", 1), ("b", 2)], "t-ok", PULL)
    failed = prepare_writes(
        CODEC, config(checkpoint_id="c1"), [(ERROR, ValueError("boom"))], "t-bad", PULL
    )
    assert ok is not None and failed is not None
    assert failed.special and failed.failed_task == "t-bad"
    assert failed.actions[0].status == "failed"
    ops, _ = drive(plan_store_writes(Q, AQ, [ok, failed], async_commit=True))
    store, mark = ops
    assert store.query == Q.store(1, 1, 2, 0, checkpoint=False, async_commit=True)
    p = named(store)
    assert (p["w0_t"], p["w0_task"], p["w0_ch"]) == ("t1", "t-ok", ["a", "b"])
    assert (p["s0_task"], p["s0_ch"]) == ("t-bad", [ERROR])
    assert mark.query == AQ.not_replayable()
    assert mark.params == {"thread_id": "t1", "task_id": "t-bad"}


def test_chunked_store_writes_stays_under_psycopgs_parse_cache_limit() -> None:
    """Many threads' writes (the writer's tick): a statement per few calls, in order."""
    calls = [
        prepare_writes(CODEC, config(f"t{i:02d}", "c1"), [("a", i)], f"task-{i}", PULL)
        for i in range(9)
    ]
    assert all(calls)
    whole, _ = drive(plan_store_writes(Q, AQ, calls, async_commit=True))  # type: ignore[arg-type]
    assert len(whole) == 1 and len(named(whole[0])) > CHUNK_PARAMS
    ops, _ = drive(plan_store_writes(Q, AQ, calls, async_commit=True, chunked=True))  # type: ignore[arg-type]
    assert len(ops) == 5  # 23 parameters a call (write row and node row): two a statement
    assert all(len(named(op)) <= CHUNK_PARAMS for op in ops)
    assert [named(op)["w0_t"] for op in ops] == ["t00", "t02", "t04", "t06", "t08"]
    fenced, _ = drive(
        plan_store_writes(Q, AQ, calls[:2], async_commit=True, fences={"t01": 7}, chunked=True)  # type: ignore[arg-type]
    )
    assert len(fenced) == 1 and named(fenced[0])["fence_t"] == ["t01"]


def test_in_flight_error_is_no_failed_task_and_bad_values_raise() -> None:
    in_flight = InFlightActionError("t1", "task:tool:0", "send_email", "tool_call")
    call = prepare_writes(CODEC, config(checkpoint_id="c1"), [(ERROR, in_flight)], "t", PULL)
    assert call is not None and call.special and call.failed_task is None
    ops, _ = drive(plan_store_writes(Q, AQ, [call], async_commit=False))
    assert len(ops) == 1  # nothing marked not replayable
    with pytest.raises(SerializationError, match="write to 'x'"):
        prepare_writes(CODEC, config(), [("x", object())], "t", PULL)
    assert list(plan_store_writes(Q, AQ, [], async_commit=True)) == []


# ---------------------------------------------------------------- get_tuple


def checkpoint_row(
    values: dict[str, Any],
    blob_channels: dict[str, str],
    *,
    checkpoint_id: str = "c2",
    parent: str | None = "c1",
    writes: Sequence[tuple[str, str, Any]] = (),
) -> CheckpointRow:
    """A fake checkpoint row: inline ``values`` plus blob channels at versions."""
    ckpt = empty_checkpoint()
    ckpt["id"] = checkpoint_id
    ckpt["channel_values"] = values
    type_, data = packed(ckpt)
    channels = [*values, *blob_channels]
    versions = [INLINE_VERSION] * len(values) + list(blob_channels.values())
    w = [(task, ch, *packed(v)) for task, ch, v in writes]
    return CheckpointRow(
        "t1",
        "",
        checkpoint_id,
        parent,
        type_,
        data,
        {"source": "loop", "step": 2},
        channels,
        versions,
        [x[0] for x in w] or None,
        [x[1] for x in w] or None,
        [x[2] for x in w] or None,
        [x[3] for x in w] or None,
        [None for _ in w] or None,
        [None for _ in w] or None,
    )


def test_get_tuple_decodes_inline_blob_and_pending_writes() -> None:
    messages = ["a " * 200]
    row = checkpoint_row({"count": 3}, {"messages": "v1"}, writes=[("task-1", "count", 4)])
    b_type, b_blob = packed(messages)
    values = ValueColumns(
        ["messages"], [b_type], [b_blob], [None], [None], [None], [None], [None], [None], [None]
    )
    ops, loaded = drive(plan_get_tuple(Q, CODEC, config()), replies((*row, *values)))
    (op,) = ops
    assert op.query == Q.get_tuple(False) and op.fetch == "one"
    assert op.params == {"thread_id": "t1", "ns": "", "checkpoint_id": None}
    tup = loaded.tuple
    assert tup.checkpoint["channel_values"] == {"count": 3, "messages": messages}
    assert tup.pending_writes == [("task-1", "count", 4)]
    assert tup.metadata == {"source": "loop", "step": 2}
    assert tup.parent_config == {
        "configurable": {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": "c1"}
    }
    assert loaded.lists == {}  # a full value, no delta chain


def test_get_tuple_stores_first_the_held_writes_of_its_own_thread_only() -> None:
    core = CheckpointStore(SaverOptions(schema="plans"), on_pending=lambda: None)
    for thread in ("t1", "t2"):
        hold(core, config(thread, checkpoint_id="c1"), [("x", 1)], "task-1", PULL)
    ops, loaded = drive(core.plan_get_tuple(config("t1")), replies(None))
    assert loaded is None and [op.fetch for op in ops] == ["none", "sync", "one"]
    assert named(ops[0])["w0_t"] == "t1" and "w1_t" not in named(ops[0])
    assert core.held.pending.threads() == ["t2"]  # its checkpoint's put will store it


def test_get_tuple_by_id_none_and_missing_blob() -> None:
    ops, loaded = drive(plan_get_tuple(Q, CODEC, config(checkpoint_id="c9")), replies(None))
    assert loaded is None
    assert ops[0].query == Q.get_tuple(True) and named(ops[0])["checkpoint_id"] == "c9"
    row = checkpoint_row({}, {"messages": "v1"})
    no_values = ValueColumns(None, [], [], [], [], [], [], [], [], [])
    with pytest.raises(SerializationError, match="'messages' version 'v1', which is not stored"):
        drive(plan_get_tuple(Q, CODEC, config()), replies((*row, *no_values)))


# --------------------------------------------------------------------- list


def test_list_page_fetches_blob_chains_once_and_returns_a_cursor() -> None:
    rows = [
        checkpoint_row({"n": 2}, {"messages": "v2"}, checkpoint_id="c2"),
        checkpoint_row({"n": 1}, {}, checkpoint_id="c1", parent=None),
    ]
    b_type, b_blob = packed(["hello"])
    chain = [BlobChainRow("t1", "", "messages", "v2", b_type, b_blob, None, None)]
    one = {"thread_id": "t1", "page": 2}
    ops, (tuples, cursor) = drive(
        plan_list_page(Q, CODEC, "page query", one, 2), replies(rows, chain)
    )
    page, blobs = ops
    assert (page.query, page.params, page.fetch) == ("page query", one, "all")
    assert blobs.query == Q.blob_chains
    assert blobs.params == {
        "thread_id": "t1",
        "ns": [""],
        "channels": ["messages"],
        "versions": ["v2"],
    }
    assert [t.checkpoint["channel_values"] for t in tuples] == [
        {"n": 2, "messages": ["hello"]},
        {"n": 1},
    ]
    assert tuples[1].parent_config is None
    assert cursor == ("c1", "t1", "")  # a full page: there may be more
    _, (_, last) = drive(
        plan_list_page(Q, CODEC, "q", {"thread_id": "t1"}, 5), replies(rows, chain)
    )
    assert last is None
    with pytest.raises(SerializationError, match="not stored"):
        drive(plan_list_page(Q, CODEC, "q", {"thread_id": "t1"}, 5), replies(rows[:1], []))


def test_a_cross_thread_page_reads_its_keys_then_each_thread_apart() -> None:
    # On Citus a statement must stay on one thread's shard to join a thread's
    # tables; a page of several threads is its keys first, then one read per thread.
    a = checkpoint_row({"n": 2}, {}, checkpoint_id="c2")
    b = checkpoint_row({"n": 1}, {}, checkpoint_id="c1", parent=None)._replace(thread_id="t2")
    keys = [("t1", "", "c2"), ("t2", "", "c1"), ("t1", "", "c0")]  # c0: deleted meanwhile
    ops, (tuples, cursor) = drive(
        plan_list_page(Q, CODEC, "keys query", {"page": 3}, 3), replies(keys, [a], [b])
    )
    assert [op.params["thread_id"] for op in ops[1:]] == ["t1", "t2"]
    assert ops[1].params["ids"] == ["c0", "c2"] and ops[1].query == ops[2].query
    assert [(t.config["configurable"]["thread_id"], t.checkpoint["id"]) for t in tuples] == [
        ("t1", "c2"),
        ("t2", "c1"),
    ]
    assert cursor == ("c0", "t1", "")  # the keys' page was full


def test_list_pages_pages_by_keyset_until_the_limit() -> None:
    seen: list[tuple[Any, dict[str, Any], int]] = []

    def page_plan(
        query: Any, params: dict[str, Any], page: int, cursor_out: list[Any]
    ) -> Plan[tuple[list[Any], bool]]:
        seen.append((query, params, page))
        cursor_out.append((f"c{len(seen)}", "t1", ""))
        return [], True
        yield  # a generator, like the real page plan

    factories = list_pages(Q, config(), {"source": "loop"}, None, 250, page_plan)
    for factory in factories:
        drive(factory())
    assert [page for _, _, page in seen] == [200, 50]
    first, second = (params for _, params, _ in seen)
    assert first == {"thread_id": "t1", "ns": "", "filter": '{"source":"loop"}', "page": 200}
    assert (second["c_id"], second["c_t"], second["c_ns"]) == ("c1", "t1", "")
    assert seen[0][0] == Q.list_page(
        ("thread_id = %(thread_id)s", "checkpoint_ns = %(ns)s", "metadata @> %(filter)s::jsonb")
    )
    assert list(list_pages(Q, None, None, None, 0, page_plan)) == []


# -------------------------------------------------------------- maintenance


def test_prune_keep_latest_delete_and_unknown_strategy() -> None:
    ops, pruned = drive(plan_prune(Q, ["a", "b"], "keep_latest"))
    ids = {"thread_ids": ["a", "b"]}
    assert [(op.query, op.params) for op in ops] == [
        (BEGIN.query, None),
        (Q.prune_keep_latest, ids),
        (Q.gc_blobs, ids),
        (COMMIT.query, None),
    ]
    assert [op.fetch for op in ops] == ["begin", "none", "none", "commit"]
    assert pruned == ["a", "b"]
    ops, _ = drive(plan_prune(Q, ["a"], "delete"))
    assert [op.query for op in ops[1:-1]] == Q.prune_delete
    assert drive(plan_prune(Q, [], "delete")) == ([], [])
    with pytest.raises(ConfigurationError, match="unknown prune strategy"):
        drive(plan_prune(Q, ["a"], "everything"))


def test_delete_thread_in_one_transaction_and_adapter_flushes_first() -> None:
    ops, deleted = drive(plan_delete_thread(Q, "t1"))
    # checkpoints, blobs, writes, actions, then a released or expired lease row
    assert [op.fetch for op in ops] == ["begin"] + ["none"] * 5 + ["commit"]
    assert [op.query for op in ops[1:-1]] == Q.delete_thread
    assert all(op.params == {"thread_id": "t1"} for op in ops[1:-1])
    assert deleted == ["t1"]
    core = CheckpointStore(SaverOptions(schema="plans"), on_pending=lambda: None)
    hold(core, config(checkpoint_id="c1"), [("x", 1)], "task-1", PULL)
    ops, _ = drive(core.plan_delete_thread("t1"))
    assert ops[0].query == Q.store(1, 0, 1, 0, checkpoint=False, async_commit=True)  # held first
    assert ops[1].fetch == "sync"  # its errors surface while the plan can restore them
    assert [op.fetch for op in ops[2:]] == ["begin"] + ["none"] * 5 + ["commit"]
    assert not core.held.pending


def test_copy_thread_binds_source_and_target_and_stops_on_error() -> None:
    ops, _ = drive(plan_copy_thread(Q, "from", "to"))
    assert [op.query for op in ops[1:-1]] == Q.copy_thread
    assert all(op.params == {"source": "from", "target": "to"} for op in ops[1:-1])
    assert (ops[0].fetch, ops[-1].fetch) == ("begin", "commit")
    seen: list[Op] = []

    def fail_on_blobs(op: Op) -> Any:
        seen.append(op)
        if op.query == Q.copy_thread[1]:
            raise RuntimeError("disk full")
        return None

    with pytest.raises(RuntimeError, match="disk full"):
        drive(plan_copy_thread(Q, "from", "to"), fail_on_blobs)
    assert seen[-1].query == Q.copy_thread[1]  # no COMMIT after the failure
    assert COMMIT not in seen


def test_write_call_adapter_keeps_held_writes_on_failure() -> None:
    core = CheckpointStore(SaverOptions(schema="plans"), on_pending=lambda: None)
    hold(core, config(checkpoint_id="c1"), [("x", 1)], "held", PULL)
    special = hold(core, config(checkpoint_id="c1"), [(ERROR, ValueError("boom"))], "bad", PULL)
    assert isinstance(special, WriteCall)

    def fail(op: Op) -> Any:
        raise ConnectionError("gone")

    with pytest.raises(ConnectionError):
        drive(core.held.plan_write_call(special), fail)
    assert len(core.held.pending) == 1  # the held call is back; the special one is the caller's


@pytest.mark.parametrize("wrap", [dict, lambda d: ChainMap({}, d)], ids=["dict", "chainmap"])
def test_merge_metadata_takes_primitives_from_config(wrap: Callable[[dict[str, Any]], Any]) -> None:
    # LangGraph's config metadata is a ChainMap; merged over its maps, the first map wins
    metadata = ChainMap({"user": "first", "n": 1}, wrap({"user": "second", "flag": True}))
    configurable = {
        "thread_id": "t",  # LangGraph's own keys are left out
        "checkpoint_ns": "",
        "__pregel_runtime": object(),  # as are private ones
        "model": "m",
        "opts": {"not": "primitive"},
        "source": "config",  # the checkpoint's own metadata wins
    }
    conf: RunnableConfig = {"metadata": metadata, "configurable": configurable}  # type: ignore[typeddict-item]
    step: CheckpointMetadata = {"source": "loop", "step": 2, "parents": {}}
    merged = merge_metadata(conf, {**step, "writes": {"x": 1}})  # type: ignore[typeddict-unknown-key]
    assert merged == {
        "source": "loop",
        "step": 2,
        "parents": {},
        "user": "first",
        "n": 1,
        "flag": True,
        "model": "m",
    }
    # in the ChainMap's own order (its last map's keys first), as iterating it gives
    assert list(merged) == [
        "source",
        "step",
        "parents",
        *[k for k in metadata if k != "writes"],
        "model",
    ]
