"""The ``actionckpt`` CLI, every command, against both real servers (JSON output parsed)."""

from __future__ import annotations

import datetime as dt
import json
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.ops.cli import app, parse_duration

from .conftest import drop_schema, fetch, new_schema_name

runner = CliRunner()
OLD = dt.timedelta(days=40)


class State(TypedDict):
    items: Annotated[list[str], operator.add]


def _plan(state: State) -> dict[str, Any]:
    return {"items": ["plan"]}


def _act(state: State) -> dict[str, Any]:
    return {"items": ["act"]}


def _route(state: State) -> str:
    return "act" if len(state["items"]) < 3 else END


def run_graph(saver: ActionSaver, thread_id: str) -> None:
    """A small StateGraph run: the saver writes node actions by itself."""
    builder = StateGraph(State)
    builder.add_node("plan", _plan)
    builder.add_node("act", _act)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", _route, ["act", END])
    builder.add_edge("act", "plan")
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"items": []}, {"configurable": {"thread_id": thread_id}})


def age_thread(dsn: str, schema: str, thread_id: str, by: dt.timedelta) -> None:
    """Move every timestamp of a thread into the past (what time would have done)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table, cols in (
            ("actions", ("started_at", "completed_at")),
            ("checkpoints", ("created_at",)),
        ):
            sets = psycopg.sql.SQL(", ").join(
                psycopg.sql.SQL("{c} = {c} - %(by)s").format(c=psycopg.sql.Identifier(c))
                for c in cols
            )
            conn.execute(
                psycopg.sql.SQL("UPDATE {t} SET {sets} WHERE thread_id = %(t)s").format(
                    t=psycopg.sql.Identifier(schema, table), sets=sets
                ),
                {"by": by, "t": thread_id},
            )


def populate(saver: ActionSaver, dsn: str, schema: str) -> dict[str, str]:
    """Recorded runs of every kind; returns thread ids by role.

    * ``ok``: a graph run (node rows) plus LLM and tool rows, 40 days old;
    * ``failed``: last action a failed tool call (503), 40 days old;
    * ``running``: a tool call still running, 40 days old (in flight);
    * ``fresh``: a graph run plus a replayed LLM completion, now.
    """
    now = dt.datetime.now(dt.UTC)
    old = now - OLD
    ids = {
        "ok": "old/ok thread",
        "failed": "old-failed",
        "running": "old-running",
        "fresh": "fresh",
    }
    run_graph(saver, ids["ok"])
    run_graph(saver, ids["fresh"])
    age_thread(dsn, schema, ids["ok"], OLD)
    saver.record_actions(
        [
            ActionRecord(
                ids["ok"],
                "llm-1",
                "llm_completion",
                name="gpt-test",
                status="completed",
                input={"prompt": "hello \x00 world"},
                output={"text": "hi ✓"},
                input_tokens=12,
                output_tokens=8,
                total_tokens=20,
                latency_ms=120.5,
                model="gpt-test",
                started_at=old,
                completed_at=old + dt.timedelta(seconds=1),
            ),
            ActionRecord(
                ids["ok"],
                "tool-1",
                "tool_call",
                name="search",
                status="completed",
                input={"q": "x"},
                output="result",
                started_at=old,
                completed_at=old + dt.timedelta(milliseconds=250),
            ),
            ActionRecord(
                ids["failed"],
                "tool-1",
                "tool_call",
                name="search",
                status="completed",
                input={"q": "a"},
                output="ok",
                started_at=old,
                completed_at=old,
            ),
            ActionRecord(
                ids["failed"],
                "tool-2",
                "tool_call",
                name="fetch",
                status="failed",
                input={"url": "http://x"},
                error={"type": "HTTPError", "message": "503 service unavailable"},
                started_at=old + dt.timedelta(seconds=1),
                completed_at=old + dt.timedelta(seconds=2),
            ),
            ActionRecord(
                ids["running"],
                "tool-1",
                "tool_call",
                name="charge_card",
                status="running",
                input={"amount": 5},
                idempotent=False,
                started_at=old,
            ),
            ActionRecord(
                ids["fresh"],
                "llm-1",
                "llm_completion",
                name="gpt-test",
                status="completed",
                total_tokens=30,
                replayed=2,
                started_at=now,
                completed_at=now,
            ),
        ]
    )
    return ids


def cli(*args: str) -> Any:
    """Invoke the CLI, require success, parse the single JSON document on stdout."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout)


@pytest.fixture
def data(saver: ActionSaver, dsn: str, schema: str) -> dict[str, str]:
    return populate(saver, dsn, schema)


def test_runs(data: dict[str, str], dsn: str, schema: str) -> None:
    out = cli("runs", "--dsn", dsn, "--schema", schema, "--json")
    runs = {r["thread_id"]: r for r in out["runs"]}
    assert set(runs) == set(data.values())
    assert runs[data["ok"]]["status"] == "completed"
    assert runs[data["failed"]]["status"] == "failed"
    assert runs[data["running"]]["status"] == "running"
    assert runs[data["fresh"]]["status"] == "completed"
    ok = runs[data["ok"]]
    assert ok["by_type"] == {"node": 3, "llm_completion": 1, "tool_call": 1}
    assert ok["checkpoints"] > 0 and ok["age_seconds"] > 39 * 86400
    assert runs[data["failed"]]["last_error"]["message"] == "503 service unavailable"
    assert out["runs"][0]["thread_id"] == data["fresh"]  # newest activity first

    failed = cli("runs", "--dsn", dsn, "--schema", schema, "--json", "--status", "failed")
    assert [r["thread_id"] for r in failed["runs"]] == [data["failed"]]
    recent = cli("runs", "--dsn", dsn, "--schema", schema, "--json", "--since", "1d")
    assert [r["thread_id"] for r in recent["runs"]] == [data["fresh"]]
    limited = cli("--dsn", dsn, "--schema", schema, "--json", "runs", "--limit", "2")
    assert len(limited["runs"]) == 2


def test_show(data: dict[str, str], dsn: str, schema: str) -> None:
    out = cli("show", data["ok"], "--dsn", dsn, "--schema", schema, "--json")
    assert out["thread_id"] == data["ok"] and out["status"] == "completed"
    types = [a["action_type"] for a in out["actions"]]
    assert types.count("node") == 3
    steps = [a["step_index"] for a in out["actions"]]
    assert steps == sorted(steps)
    llm = next(a for a in out["actions"] if a["action_type"] == "llm_completion")
    assert llm["tokens"] == 20 and llm["duration_ms"] == 120.5 and llm["replayed"] == 0
    tool = next(a for a in out["actions"] if a["action_type"] == "tool_call")
    assert tool["duration_ms"] == pytest.approx(250.0)
    assert out["executed"] == len(out["actions"]) and out["replayed"] == 0
    assert out["tokens"] == 20

    fresh = cli("show", data["fresh"], "--dsn", dsn, "--schema", schema, "--json")
    assert fresh["replayed"] == 1
    assert any(a["replayed"] == 2 for a in fresh["actions"])


def test_failed_and_inflight(data: dict[str, str], dsn: str, schema: str) -> None:
    out = cli("failed", "--dsn", dsn, "--schema", schema, "--json")
    assert [r["thread_id"] for r in out["failed"]] == [data["failed"]]
    assert out["failed"][0]["last_action_name"] == "fetch"
    assert out["failed"][0]["last_error"] == {
        "type": "HTTPError",
        "message": "503 service unavailable",
    }
    out = cli("inflight", "--dsn", dsn, "--schema", schema, "--json")
    assert [(a["thread_id"], a["name"]) for a in out["inflight"]] == [
        (data["running"], "charge_card")
    ]
    assert out["inflight"][0]["idempotent"] is False
    assert out["inflight"][0]["age_seconds"] > 39 * 86400
    none = cli("inflight", "--older-than", "50d", "--dsn", dsn, "--schema", schema, "--json")
    assert none["inflight"] == []


def test_stats(data: dict[str, str], dsn: str, schema: str) -> None:
    out = cli("stats", "--dsn", dsn, "--schema", schema, "--json")
    n_actions = fetch(dsn, f'SELECT count(*) FROM "{schema}".actions')[0][0]
    assert out["tables"]["actions"]["rows"] == n_actions
    assert set(out["tables"]) >= {"checkpoints", "blobs", "writes", "actions"}
    assert all(t["total_bytes"] > 0 for t in out["tables"].values())
    assert out["actions_by_type_status"]["tool_call"] == {
        "completed": 2,
        "failed": 1,
        "running": 1,
    }
    assert out["threads"] == 4 and out["schema_version"] >= 2
    assert out["oldest_action"] < out["newest_action"]


def test_prune_archive_import(data: dict[str, str], dsn: str, schema: str, tmp_path: Path) -> None:
    before = fetch(dsn, f'SELECT * FROM "{schema}".actions ORDER BY thread_id, step_index')
    out = cli(
        "archive",
        str(tmp_path),
        "--older-than",
        "30d",
        "--dsn",
        dsn,
        "--schema",
        schema,
        "--json",
    )
    assert out["archive"]["threads"] == 1 and out["archive"]["files"] == 1
    assert out["archive"]["kept_failed"] == 1 and out["archive"]["kept_inflight"] == 1
    assert (tmp_path / "old%2Fok%20thread.jsonl").exists()
    remaining = {r[0] for r in fetch(dsn, f'SELECT DISTINCT thread_id FROM "{schema}".actions')}
    assert remaining == {data["failed"], data["running"], data["fresh"]}

    out = cli("import", str(tmp_path), "--dsn", dsn, "--schema", schema, "--json")
    assert out["imported"] == out["imported"] > 0
    after = fetch(dsn, f'SELECT * FROM "{schema}".actions ORDER BY thread_id, step_index')
    assert after == before

    out = cli(
        "prune",
        "--older-than",
        "30d",
        "--no-keep-failed",
        "--dsn",
        dsn,
        "--schema",
        schema,
        "--json",
    )
    assert out["prune"]["threads"] == 2  # ok (re-imported) and failed; running is in flight
    assert out["prune"]["kept_inflight"] == 1 and out["prune"]["vacuumed"] is True
    remaining = {r[0] for r in fetch(dsn, f'SELECT DISTINCT thread_id FROM "{schema}".actions')}
    assert remaining == {data["running"], data["fresh"]}


def test_migrate(dsn: str) -> None:
    schema = new_schema_name()
    try:
        out = cli("migrate", "--dsn", dsn, "--schema", schema, "--json")
        assert out["version"] == out["latest"] >= 2
        tables = {
            r[0]
            for r in fetch(
                dsn,
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                (schema,),
            )
        }
        assert {"checkpoints", "blobs", "writes", "actions", "migrations"} <= tables
        again = cli("--json", "migrate", "--dsn", dsn, "--schema", schema)
        assert again["version"] == out["version"]
    finally:
        drop_schema(dsn, schema)


def test_migrate_print_sql_runs_nothing() -> None:
    # no DSN needed: nothing is executed, identifiers are quoted by psycopg.sql
    result = runner.invoke(app, ["migrate", "--print-sql", "--schema", "dba_review"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert 'CREATE SCHEMA IF NOT EXISTS "dba_review";' in text
    for table in ("checkpoints", "blobs", "writes", "actions"):
        assert f'CREATE TABLE IF NOT EXISTS "dba_review".{table}' in text
    assert "CREATE INDEX CONCURRENTLY" in text
    assert 'INSERT INTO "dba_review".migrations (v, description) VALUES (2, ' in text
    out = cli("migrate", "--print-sql", "--schema", "dba_review", "--json")
    assert 'CREATE TABLE IF NOT EXISTS "dba_review".actions' in out["sql"]
    bad = runner.invoke(app, ["migrate", "--print-sql", "--schema", 'x"; DROP TABLE y; --'])
    assert bad.exit_code == 1


def test_print_sql_applies_cleanly(dsn: str) -> None:
    """The printed SQL is what a DBA can run by hand; the saver then finds it current."""
    schema = new_schema_name()
    try:
        text = cli("migrate", "--print-sql", "--schema", schema, "--json")["sql"]
        # one statement at a time, in autocommit, as psql would run the file
        statements = [s for s in text.split(";\n") if s.strip() and not s.strip().startswith("--")]
        with psycopg.connect(dsn, autocommit=True) as conn:
            for stmt in text.split(";\n"):
                body = "\n".join(ln for ln in stmt.splitlines() if not ln.startswith("--"))
                if body.strip():
                    conn.execute(body.encode())
        assert len(statements) > 8
        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            s.setup()
            s.record_actions([ActionRecord("t", "a", "tool_call", status="completed")])
            assert [a.action_id for a in s.list_actions("t")] == ["a"]
    finally:
        drop_schema(dsn, schema)


def test_human_output(data: dict[str, str], dsn: str, schema: str) -> None:
    for args in (["runs"], ["show", data["ok"]], ["failed"], ["inflight"], ["stats"]):
        result = runner.invoke(app, [*args, "--dsn", dsn, "--schema", schema])
        assert result.exit_code == 0, (args, result.output, result.exception)
        assert result.stdout.strip()
    result = runner.invoke(app, ["show", data["failed"], "--dsn", dsn, "--schema", schema])
    assert "503 service unavailable" in result.stdout


def test_errors_are_json(dsn: str) -> None:
    result = runner.invoke(app, ["runs", "--dsn", dsn, "--schema", new_schema_name(), "--json"])
    assert result.exit_code == 1
    err = json.loads(result.stdout)
    assert "does not exist" in err["error"]


def test_embedded_status_and_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONCKPT_HOME", str(tmp_path))
    out = cli("embedded", "status", "--json")
    assert out == {"data_dir": str(tmp_path / "pg18"), "running": False, "pid": None}
    out = cli("embedded", "stop", "--json")
    assert out["stopped"] is False and out["running"] is False


def test_parse_duration() -> None:
    assert parse_duration("30d") == dt.timedelta(days=30)
    assert parse_duration("1.5h") == dt.timedelta(minutes=90)
    with pytest.raises(Exception, match="duration"):
        parse_duration("soon")
