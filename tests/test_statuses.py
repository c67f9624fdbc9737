"""Issue 28.2: statuses are facts.

* A run that ends in an exception marks its thread failed, whatever raised it:
  a node whose result the saver cannot serialize (``SerializationError``) is
  listed by ``actionckpt failed``, with or without the callback handler.
* A resume closes the rows a dead attempt left open: ``superseded``, with
  ``meta.superseded_by`` naming the row that replaced them; ``inflight`` then
  lists only what is genuinely unknown (a non-idempotent action cut off).
* One unsettled rule (``actions.settle``) for every report.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, TypedDict

import pytest
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from typer.testing import CliRunner

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    SerializationError,
)
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.settle import is_unsettled
from langgraph_actionckpt.ops.cli import app

runner = CliRunner()


class State(TypedDict):
    n: Any


def _graph(result: Any) -> Any:
    g = StateGraph(State)
    g.add_node("step", lambda s: {"n": result})
    g.add_edge(START, "step")
    g.add_edge("step", END)
    return g


def cli(dsn: str, schema: str, *args: str) -> Any:
    out = runner.invoke(app, [*args, "--dsn", dsn, "--schema", schema, "--json"])
    assert out.exit_code == 0, (out.stdout, out.exception)
    return json.loads(out.stdout)


@pytest.mark.parametrize("handler", [True, False])
def test_unserializable_result_fails_the_thread(
    saver: ActionSaver, dsn: str, schema: str, handler: bool
) -> None:
    graph = _graph(lambda: 1).compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "bad"}}
    if handler:
        cfg["callbacks"] = [ActionCallbackHandler(saver)]
    with pytest.raises(SerializationError):
        graph.invoke({"n": 0}, cfg)
    rows = saver.list_actions("bad")
    (node,) = [r for r in rows if r.name == "step"]
    assert (node.action_type, node.status) == ("node", "failed")
    assert node.error["type"] == "SerializationError"
    assert all(r.status == "failed" for r in rows)  # and the run's row, with the handler
    failed = cli(dsn, schema, "failed")["failed"]
    assert [f["thread_id"] for f in failed] == ["bad"]
    assert [r["status"] for r in cli(dsn, schema, "runs")["runs"]] == ["failed"]
    assert cli(dsn, schema, "inflight")["inflight"] == []


async def test_unserializable_result_fails_the_thread_async(
    asaver: AsyncActionSaver, dsn: str, schema: str
) -> None:
    graph = _graph(lambda: 1).compile(checkpointer=asaver)
    cfg: Any = {"configurable": {"thread_id": "abad"}}
    cfg["callbacks"] = [AsyncActionCallbackHandler(asaver)]
    with pytest.raises(SerializationError):
        await graph.ainvoke({"n": 0}, cfg)
    (node,) = [r for r in await asaver.alist_actions("abad") if r.name == "step"]
    assert (node.status, node.error["type"]) == ("failed", "SerializationError")


def test_any_exception_fails_the_run(saver: ActionSaver, dsn: str, schema: str) -> None:
    """The recursion limit: every node completed, the run did not."""
    g = StateGraph(State)
    g.add_node("again", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "again")
    g.add_conditional_edges("again", lambda s: "again")
    cfg: Any = {"configurable": {"thread_id": "loop"}, "recursion_limit": 3}
    cfg["callbacks"] = [ActionCallbackHandler(saver)]
    with pytest.raises(GraphRecursionError):
        g.compile(checkpointer=saver).invoke({"n": 0}, cfg)
    last = saver.list_actions("loop")[-1]
    assert (last.status, last.error["type"], last.meta) == (
        "failed",
        "GraphRecursionError",
        {"run": "failed"},
    )
    (failed,) = cli(dsn, schema, "failed")["failed"]
    assert failed["thread_id"] == "loop" and "Recursion limit" in failed["last_error"]["message"]


def test_a_node_failure_is_not_recorded_twice(saver: ActionSaver) -> None:
    def boom(state: State) -> State:
        raise ValueError("boom")

    g = StateGraph(State)
    g.add_node("boom", boom)
    g.add_edge(START, "boom")
    cfg: Any = {"configurable": {"thread_id": "b"}, "callbacks": [ActionCallbackHandler(saver)]}
    with pytest.raises(ValueError, match="boom"):
        g.compile(checkpointer=saver).invoke({"n": 0}, cfg)
    assert [(r.name, r.status) for r in saver.list_actions("b")] == [("boom", "failed")]


def _dead_attempt(saver: ActionSaver, thread: str, *, non_idempotent: bool) -> None:
    """Rows a SIGKILLed attempt leaves open: its node, an idempotent call, maybe a charge."""
    then = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    rows = [
        ActionRecord(thread, "dead-task:node", "node", name="step", node="step", started_at=then),
        ActionRecord(thread, "lookup-1", "function", name="lookup", node="step", started_at=then),
    ]
    if non_idempotent:
        rows.append(
            ActionRecord(
                thread, "charge-1", "function", name="charge", idempotent=False, started_at=then
            )
        )
    saver.record_actions(rows)


def test_resume_supersedes_what_a_dead_attempt_left_open(
    saver: ActionSaver, dsn: str, schema: str
) -> None:
    _dead_attempt(saver, "t", non_idempotent=False)
    assert [r["status"] for r in cli(dsn, schema, "runs")["runs"]] == ["running"]
    graph = _graph(1).compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "t"}, "callbacks": [ActionCallbackHandler(saver)]}
    assert graph.invoke({"n": 0}, cfg) == {"n": 1}
    rows = {r.action_id: r for r in saver.list_actions("t")}
    (new_node,) = [r for r in rows.values() if r.action_type == "node" and r.status == "completed"]
    dead = rows["dead-task:node"]
    assert dead.status == "superseded" and dead.completed_at is not None
    assert dead.meta["superseded_by"] == {
        "action_id": new_node.action_id,
        "step_index": new_node.step_index,
    }
    assert rows["lookup-1"].status == "superseded"
    assert set(rows["lookup-1"].meta["superseded_by"]) == {"run_id"}  # nothing did its work
    assert cli(dsn, schema, "inflight")["inflight"] == []
    assert [r["status"] for r in cli(dsn, schema, "runs")["runs"]] == ["completed"]
    assert cli(dsn, schema, "show", "t")["status"] == "completed"


def test_a_cut_off_non_idempotent_action_stays_unknown(
    saver: ActionSaver, dsn: str, schema: str
) -> None:
    _dead_attempt(saver, "t", non_idempotent=True)
    graph = _graph(1).compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "t"}, "callbacks": [ActionCallbackHandler(saver)]}
    graph.invoke({"n": 0}, cfg)
    rows = {r.action_id: r for r in saver.list_actions("t")}
    assert rows["charge-1"].status == "running"  # its side effect may have happened
    assert rows["dead-task:node"].status == "superseded"
    assert [a["action_id"] for a in cli(dsn, schema, "inflight")["inflight"]] == ["charge-1"]
    assert [r["status"] for r in cli(dsn, schema, "runs")["runs"]] == ["running"]


def test_the_unsettled_rule() -> None:
    def rec(status: str, kind: str = "function", idempotent: bool = True) -> ActionRecord:
        return ActionRecord("t", "a", kind, status=status, idempotent=idempotent)

    assert is_unsettled(rec("running")) and is_unsettled(rec("pending"))
    assert is_unsettled(rec("unknown"))
    assert is_unsettled(rec("interrupted", idempotent=False))
    assert not is_unsettled(rec("interrupted"))  # an idempotent one may simply run again
    assert not is_unsettled(rec("interrupted", "node", idempotent=False))
    for status in ("completed", "failed", "skipped", "superseded"):
        assert not is_unsettled(rec(status))


def test_reports_and_retention_use_the_unsettled_rule(
    saver: ActionSaver, dsn: str, schema: str
) -> None:
    old = dt.datetime.now(dt.UTC) - dt.timedelta(days=40)
    saver.record_actions(
        [
            ActionRecord("unk", "a", "tool_call", status="unknown", started_at=old),
            ActionRecord(
                "cut", "a", "function", status="interrupted", idempotent=False, started_at=old
            ),
            ActionRecord("sup", "a", "node", status="superseded", started_at=old),
        ]
    )
    runs = {r["thread_id"]: r["status"] for r in cli(dsn, schema, "runs")["runs"]}
    assert runs == {"unk": "running", "cut": "running", "sup": "completed"}
    assert sorted(a["thread_id"] for a in cli(dsn, schema, "inflight")["inflight"]) == [
        "cut",
        "unk",
    ]
    pruned = cli(dsn, schema, "prune", "--older-than", "30d")["prune"]
    assert (pruned["threads"], pruned["kept_inflight"]) == (1, 2)


def test_the_timeline_shows_a_superseded_row_as_such() -> None:
    from langgraph_actionckpt.ops.timeline_html import timeline_data

    now = dt.datetime.now(dt.UTC)
    rows = [
        ActionRecord("t", "a", "node", name="n", status="superseded", step_index=1, started_at=now),
        ActionRecord("t", "b", "node", name="n", status="completed", step_index=2, started_at=now),
    ]
    bars = timeline_data(rows)["bars"]
    assert [b["status"] for b in bars] == ["superseded", "completed"]  # not "running"
