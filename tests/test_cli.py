"""The ``actionckpt`` CLI, every command, against both real servers (JSON output parsed)."""

from __future__ import annotations

import datetime as dt
import json
import operator
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt._config import LIMITS
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.ops.archiving import thread_file_name
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
                # through UTC: only immutable functions of a column (Citus's rule for UPDATE)
                psycopg.sql.SQL(
                    "{c} = ({c} AT TIME ZONE 'UTC' - %(by)s) AT TIME ZONE 'UTC'"
                ).format(c=psycopg.sql.Identifier(c))
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
    assert (tmp_path / thread_file_name(data["ok"])).exists()
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


def sql_statements(text: str) -> list[str]:
    """Split a SQL file as psql does: at a ``;`` ending a line, not inside ``$tag$`` quotes."""
    out: list[str] = []
    lines: list[str] = []
    quoted = False
    for line in text.splitlines():
        if line.startswith("--"):
            continue
        lines.append(line)
        if len(re.findall(r"\$[A-Za-z_]*\$", line)) % 2:
            quoted = not quoted
        if not quoted and line.rstrip().endswith(";"):
            body = "\n".join(lines).strip()
            if body.strip(";").strip():
                out.append(body)
            lines = []
    return out


def test_print_sql_applies_cleanly(dsn: str) -> None:
    """The printed SQL is what a DBA can run by hand; the saver then finds it current."""
    schema = new_schema_name()
    try:
        text = cli("migrate", "--print-sql", "--schema", schema, "--json")["sql"]
        # one statement at a time, in autocommit, as psql would run the file
        statements = sql_statements(text)
        with psycopg.connect(dsn, autocommit=True) as conn:
            for stmt in statements:
                conn.execute(stmt.encode())
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


# ------------------------------------------------------------ rough edges (issue 13)


def row_counts(dsn: str, schema: str) -> dict[str, int]:
    return {
        t: fetch(dsn, f'SELECT count(*) FROM "{schema}".{t}')[0][0]
        for t in ("checkpoints", "blobs", "writes", "actions")
    }


def test_unknown_schema_is_named(dsn: str, tmp_path: Path) -> None:
    missing = new_schema_name()
    reads = [
        ["runs"],
        ["stats"],
        ["show", "t"],
        ["failed"],
        ["inflight"],
        ["prune"],
        ["archive", str(tmp_path / "a")],
        ["import", str(tmp_path)],
    ]
    for args in reads:
        result = runner.invoke(app, [*args, "--dsn", dsn, "--schema", missing, "--json"])
        assert result.exit_code == 1, (args, result.stdout)
        err = json.loads(result.stdout)
        assert missing in err["error"] and "not set up" in err["error"], args
        human = runner.invoke(app, [*args, "--dsn", dsn, "--schema", missing])
        assert human.exit_code == 1 and missing in human.stderr, (args, human.stderr)
        assert "version None" not in human.stdout
    assert not (tmp_path / "a").exists()
    exists = fetch(dsn, "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (missing,))
    assert exists == [(0,)]  # reading never creates the schema


def test_prune_and_archive_dry_run_change_nothing(
    data: dict[str, str], dsn: str, schema: str, tmp_path: Path
) -> None:
    before = row_counts(dsn, schema)
    base = ["--older-than", "30d", "--dsn", dsn, "--schema", schema]
    out = cli("prune", "--dry-run", *base, "--json")["prune"]
    assert out["dry_run"] is True and out["thread_ids"] == [data["ok"]]
    assert out["threads"] == 1 and out["kept_failed"] == 1 and out["kept_inflight"] == 1
    ok_actions = fetch(
        dsn, f'SELECT count(*) FROM "{schema}".actions WHERE thread_id = %s', (data["ok"],)
    )[0][0]
    assert out["actions"] == ok_actions and out["checkpoints"] > 0 and out["batches"] == 0
    assert row_counts(dsn, schema) == before

    dest = tmp_path / "arch"
    out = cli("archive", str(dest), "--dry-run", *base, "--json")["archive"]
    assert out["dry_run"] is True and out["threads"] == 1 and out["files"] == 1
    assert out["archived_actions"] == ok_actions and out["deleted_threads"] == 0
    assert not dest.exists()
    assert row_counts(dsn, schema) == before

    human = runner.invoke(app, ["prune", "--dry-run", *base])
    assert human.exit_code == 0 and "dry run" in human.stdout
    assert f"would prune: {data['ok']}" in human.stdout
    human = runner.invoke(app, ["archive", str(dest), "--dry-run", *base])
    assert human.exit_code == 0 and f"would archive: {data['ok']}" in human.stdout
    assert row_counts(dsn, schema) == before and not dest.exists()


def test_archive_no_delete_counts_archived_threads(
    data: dict[str, str], dsn: str, schema: str, tmp_path: Path
) -> None:
    before = row_counts(dsn, schema)
    out = cli(
        "archive",
        str(tmp_path),
        "--no-delete",
        "--no-keep-failed",
        "--dsn",
        dsn,
        "--schema",
        schema,
        "--json",
    )["archive"]
    assert out["threads"] == 2 and out["files"] == 2 and out["deleted_threads"] == 0
    assert out["actions"] == 0 and row_counts(dsn, schema) == before
    assert len(list(tmp_path.iterdir())) == 2


def test_empty_results_say_so(dsn: str, schema: str) -> None:
    cli("migrate", "--dsn", dsn, "--schema", schema, "--json")
    base = ["--dsn", dsn, "--schema", schema]
    for args, text in (
        (["runs"], f"no runs in schema {schema}"),
        (["runs", "--status", "failed"], "no runs matching the filters"),
        (["failed"], "no failed runs"),
        (["inflight"], "no in-flight actions"),
        (["stats"], f"no actions in schema {schema}"),
    ):
        result = runner.invoke(app, [*args, *base])
        assert result.exit_code == 0, (args, result.output)
        assert text in result.stdout, (args, result.stdout)
        assert "┃" not in result.stdout or args == ["stats"]  # no empty table (stats: sizes)
    assert cli("runs", *base, "--json") == {"runs": []}


def test_json_is_a_flag() -> None:
    for command in ("runs", "show", "stats", "prune", "archive", "migrate"):
        result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        line = next(ln for ln in result.stdout.splitlines() if "--json" in ln)
        assert "--no-json" in line
        assert "<bool>" not in line and "BOOLEAN" not in line, line
    for command, flag in (
        ("prune", "--dry-run"),
        ("archive", "--dry-run"),
        ("archive", "--no-delete"),
    ):
        result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        line = next(ln for ln in result.stdout.splitlines() if flag in ln)
        assert "<bool>" not in line, line


def test_step_is_the_langgraph_step_of_the_thread(
    data: dict[str, str], dsn: str, schema: str
) -> None:
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    ok = cli("show", data["ok"], *base)
    fresh = cli("show", data["fresh"], *base)
    for thread, out in ((data["ok"], ok), (data["fresh"], fresh)):
        stored = fetch(
            dsn,
            f'SELECT step, step_index FROM "{schema}".actions WHERE thread_id = %s '
            "ORDER BY step_index",
            (thread,),
        )
        assert [(a["step"], a["step_index"]) for a in out["actions"]] == stored
    # per thread: both graph runs have the same node steps, at different log positions
    ok_nodes = [a for a in ok["actions"] if a["action_type"] == "node"]
    fresh_nodes = [a for a in fresh["actions"] if a["action_type"] == "node"]
    assert [a["step"] for a in ok_nodes] == [a["step"] for a in fresh_nodes]
    assert ok_nodes[0]["step"] in (0, 1)
    assert [a["step_index"] for a in ok_nodes] != [a["step_index"] for a in fresh_nodes]
    human = runner.invoke(app, ["show", data["ok"], "--dsn", dsn, "--schema", schema])
    header = next(line for line in human.stdout.splitlines() if "type" in line)
    assert "position" in header and "step" in header and "seq" not in header


def test_position_numbers_actions_per_thread(data: dict[str, str], dsn: str, schema: str) -> None:
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    for thread in data.values():
        actions = cli("show", thread, *base)["actions"]
        assert [a["position"] for a in actions] == list(range(1, len(actions) + 1))
    # the log's order is shared by every thread: one thread's step_index has gaps
    ok = cli("show", data["ok"], *base)["actions"]
    assert ok[-1]["step_index"] > len(ok)
    inflight = cli("inflight", *base)["inflight"]
    running = cli("show", data["running"], *base)["actions"]
    want = {a["action_id"]: a["position"] for a in running}
    assert [a["position"] for a in inflight] == [want[a["action_id"]] for a in inflight] == [1]
    human = runner.invoke(app, ["inflight", "--dsn", dsn, "--schema", schema])
    header = next(line for line in human.stdout.splitlines() if "type" in line)
    assert "position" in header and "seq" not in header


def test_archive_any_thread_id(saver: ActionSaver, dsn: str, schema: str, tmp_path: Path) -> None:
    old = dt.datetime.now(dt.UTC) - OLD
    # the longest id the saver accepts (1 KB; a file name holds 255 bytes)
    ids = ["z" * LIMITS["thread id"], "../../etc/passwd", "..", "ключ/日本語"]
    saver.record_actions(
        [
            ActionRecord(t, "a", "tool_call", status="completed", started_at=old, completed_at=old)
            for t in ids
        ]
    )
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    out = cli("archive", str(tmp_path / "arch"), *base)["archive"]
    assert out["files"] == 4 and out["deleted_threads"] == 4
    names = {p.name for p in (tmp_path / "arch").iterdir()}
    assert names == {thread_file_name(t) for t in ids}
    assert all(len(n) < 100 and "/" not in n for n in names)
    assert cli("import", str(tmp_path / "arch"), *base)["imported"] == 4
    threads = fetch(dsn, f'SELECT thread_id FROM "{schema}".actions ORDER BY thread_id')
    assert sorted(t for (t,) in threads) == sorted(ids)


_PROBE = """
import sys
from langchain_core.tools import BaseTool
from langchain_core.language_models import BaseChatModel
from langgraph_actionckpt.ops.cli import app
run, stream = BaseTool.run, BaseChatModel.stream
app(sys.argv[1:], standalone_mode=False)
from langgraph_actionckpt import replay
print("PROBE", replay.is_installed(), BaseTool.run is run, BaseChatModel.stream is stream)
"""


def test_migrate_patches_nothing(dsn: str) -> None:
    schema = new_schema_name()
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, "migrate", "--dsn", dsn, "--schema", schema],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert f"schema {schema} is at version" in proc.stdout
        assert "PROBE False True True" in proc.stdout
    finally:
        drop_schema(dsn, schema)


def test_operations_on_whatever_the_saver_stores(
    saver: ActionSaver, dsn: str, schema: str, tmp_path: Path
) -> None:
    """Issue 28.4 / 29.8: lone surrogates, NUL, 1 MB values: JSON output, archive, import."""
    from .test_retention import HOSTILE_THREADS, _hostile

    _hostile(saver)
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    shown = cli("show", "sur-\ud800", *base)
    assert shown["thread_id"] == "sur-\ud800"  # escaped in the JSON text, read back as is
    assert {r["thread_id"] for r in cli("runs", *base)["runs"]} >= {"sur-\ud800", "meta"}
    assert cli("prune", "--dry-run", *base)["prune"]["threads"] == len(HOSTILE_THREADS)
    out = cli("archive", str(tmp_path / "arch"), *base)["archive"]
    assert out["deleted_threads"] == len(HOSTILE_THREADS) and out["skipped"] == []
    (tmp_path / "arch" / "broken.jsonl").write_text("not json\n")
    result = runner.invoke(app, ["import", str(tmp_path / "arch"), *base])
    assert result.exit_code == 1  # one file skipped: said, and the others are in
    got = json.loads(result.stdout)
    assert got["imported"] == len(HOSTILE_THREADS)
    assert [s["file"].endswith("broken.jsonl") for s in got["skipped"]] == [True]
    assert [a.name for a in saver.list_actions("name")] == ["f\ud800\x00"]
