"""Help says what options take; `serve` logs what it does; the shared embedded server says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from typer.main import get_command
from typer.testing import CliRunner

from langgraph_actionckpt.service.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def all_commands() -> list[list[str]]:
    group = get_command(app)
    out: list[list[str]] = [[]]
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        subs = getattr(cmd, "commands", None)
        out += [[name, sub] for sub in subs] if subs else [[name]]
    return out


@pytest.mark.parametrize("cmd", all_commands(), ids=lambda c: " ".join(c) or "actionckpt")
def test_help_names_values_not_python_types(cmd: list[str]) -> None:
    result = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for tag in ("<str>", "<bool>", "<int>", "<float>", "<path>"):
        assert tag not in result.stdout, (cmd, tag, result.stdout)
    words = " ".join(result.stdout.split())
    assert "[default: $ACTIONCKPT_DSN, else the embedded server, shared" in words


def test_help_text_keeps_its_brackets() -> None:
    result = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert "one 'token tenant schema [ro]' a line" in result.stdout
    assert "--log-level LEVEL" in result.stdout
    assert "--token-file PATH" in result.stdout and "--grace NUMBER" in result.stdout


def test_serve_logs_start_each_call_and_shutdown(dsn: str, schema: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "langgraph_actionckpt.service.cli", "serve", "--dsn", dsn,
         "--schema", schema, "--listen", "127.0.0.1:0", "--log-level", "debug"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening on"), line
        target = line.split()[-1]
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert f"listening on {target}" in err and schema in err
    assert "call /grpc.health.v1.Health/Check" in err
    assert "shutting down" in err and err.rstrip().endswith("stopped")


def test_starting_the_embedded_server_says_it_is_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from langgraph_actionckpt import embedded_postgres as embedded
    from langgraph_actionckpt.ops.cli_common import resolve_dsn

    monkeypatch.delenv("ACTIONCKPT_DSN", raising=False)
    monkeypatch.setattr(embedded, "embedded_data_dir", lambda: tmp_path)
    monkeypatch.setattr(embedded, "embedded_dsn", lambda: "postgresql:///x")
    assert resolve_dsn(None) == "postgresql:///x"
    first = capsys.readouterr().err
    assert "shared by every process of this user" in first and str(tmp_path)[:20] in first
    (tmp_path / "postmaster.pid").write_text("1\n")  # already running: nothing to say
    assert resolve_dsn(None) == "postgresql:///x"
    assert capsys.readouterr().err == ""
