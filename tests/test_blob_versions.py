"""How a delta row stores its base and snapshot versions, and that rows stored whole still load."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import psycopg
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.checkpoints.blobs import (
    DeltaPolicy,
    base_from_stored,
    stored_base,
    stored_snap,
)
from tests.conftest import fetch

V3 = "000000000003.c1ff6d6c059b"
V4 = "000000000004.80ca589e7e43"


def test_base_keeps_its_random_part_when_it_is_the_previous_counter() -> None:
    assert stored_base(V4, V3) == "wf9tbAWb"  # base64 of the six bytes c1ff6d6c059b
    assert base_from_stored(V4, "wf9tbAWb") == V3
    # any other base is stored whole, and a whole one reads back unchanged
    other = "000000000002.aaaaaaaaaaaa"
    assert stored_base(V4, other) == other
    assert base_from_stored(V4, other) == other
    assert base_from_stored(V4, V3) == V3
    assert base_from_stored(V4, None) is None
    assert stored_base("000000000000.aaaaaaaaaaaa", V3) == V3
    assert stored_base("7", "6") == "6" and base_from_stored("7", "6") == "6"
    big = "999999999999.0123456789ab"
    assert base_from_stored(big, stored_base(big, "999999999998.ba9876543210")) == (
        "999999999998.ba9876543210"
    )


def test_snapshot_version_loses_its_leading_zeros_only() -> None:
    assert stored_snap(V3) == "3.c1ff6d6c059b"
    assert stored_snap("000000000000.c1ff6d6c059b") == "0.c1ff6d6c059b"
    assert stored_snap("123456789012.c1ff6d6c059b") == "123456789012.c1ff6d6c059b"
    assert stored_snap("not-a-version") == "not-a-version"
    # what the statements read: lpad(snap_version, 25, '0')
    for v in (V3, "000000000000.c1ff6d6c059b", "123456789012.c1ff6d6c059b"):
        assert stored_snap(v).rjust(25, "0") == v


class Items(TypedDict):
    items: Annotated[list[str], operator.add]
    n: int


def _graph(steps: int) -> StateGraph[Any]:
    def step(state: Items) -> dict[str, Any]:
        return {"items": [f"{state['n']}:" + "y" * 80], "n": state["n"] + 1}

    builder = StateGraph(Items)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step")
    return builder


def _old_form(dsn: str, schema: str) -> int:
    """Rewrite every delta row's versions whole, as earlier packages stored them."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(
            f"UPDATE \"{schema}\".blobs SET snap_version = lpad(snap_version, 25, '0'), "
            "base_version = CASE WHEN strpos(base_version, '.') = 0 THEN "
            "lpad((left(version, 12)::bigint - 1)::text, 12, '0') || '.' "
            "|| encode(decode(base_version, 'base64'), 'hex') "
            "ELSE base_version END WHERE base_version IS NOT NULL"
        )
        return cur.rowcount


def _history(graph: Any, config: Any) -> list[list[str]]:
    return [s.values.get("items", []) for s in graph.get_state_history(config)]


def test_short_and_whole_versions_read_alike(dsn: str, schema: str) -> None:
    policy = DeltaPolicy(min_chain=4, ratio=0.5, cheap_chain=1000)  # snapshots mid-chain
    config = {"configurable": {"thread_id": "bv"}}
    with ActionSaver.from_conn_string(dsn, schema=schema, delta_policy=policy) as saver:
        saver.setup()
        graph = _graph(12).compile(checkpointer=saver)
        graph.invoke({"items": [], "n": 0}, config)
        rows = fetch(
            dsn,
            f'SELECT version, base_version, snap_version, item_count FROM "{schema}".blobs '
            "WHERE base_version IS NOT NULL",
        )
        assert len(rows) > 8
        assert all(len(base) == 8 and len(snap) < 25 and n == 1 for _, base, snap, n in rows)
        assert len({snap for _, _, snap, _ in rows}) > 1  # more than one snapshot
        expected = _history(graph, config)
        middle = next(s for s in graph.get_state_history(config) if len(s.values["items"]) == 6)
        fork = graph.invoke(None, graph.update_state(middle.config, {"items": ["f"], "n": 10}))
        forked_history = _history(graph, config)
    # rows stored whole, then read by a saver with no cached list state
    assert _old_form(dsn, schema) == len(rows) + 2  # and the fork's two deltas
    with ActionSaver.from_conn_string(dsn, schema=schema, delta_policy=policy) as saver:
        graph = _graph(14).compile(checkpointer=saver)
        assert _history(graph, config) == forked_history
        assert forked_history[0] == fork["items"]
        assert expected[0] in forked_history
        # a thread with whole rows goes on with short ones
        out = graph.invoke(None, graph.update_state(config, {"n": 12}))
        assert out["items"][: len(fork["items"])] == fork["items"]
        assert len(out["items"]) == len(fork["items"]) + 2
        saver.prune(["bv"], strategy="keep_latest")  # collects blobs by the chain ranges
        assert graph.get_state(config).values["items"] == out["items"]
