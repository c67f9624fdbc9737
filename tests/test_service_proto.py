"""The service's generated protobuf/gRPC code is what grpcio-tools makes of the .proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_generated_service_code_is_current() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "gen_proto.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_stale_file_is_reported(tmp_path: Path) -> None:
    """The check compares text: a changed .proto makes the checked-in code stale."""
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        import gen_proto
    finally:
        sys.path.pop(0)
    generated = gen_proto.generate()
    assert set(generated) == {*gen_proto.FILES, "__init__.py"}
    current = (ROOT / "langgraph_actionckpt/service/_pb/checkpoint_pb2.py").read_text()
    assert generated["checkpoint_pb2.py"] == current
    assert "CheckpointService" in generated["checkpoint_pb2_grpc.py"]


def test_grpc_is_imported_only_when_the_service_is_used() -> None:
    code = (
        "import sys, langgraph_actionckpt as m\n"
        "from langgraph_actionckpt.ops.cli import app\n"
        "import langgraph_actionckpt.service.cli\n"
        "assert 'grpc' not in sys.modules, 'grpc imported early'\n"
        "m.RemoteActionSaver\n"
        "assert 'grpc' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_serve_command_checks_its_tls_options(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from langgraph_actionckpt.service.cli import app

    cert = tmp_path / "c.pem"
    cert.write_text("x")
    result = CliRunner().invoke(app, ["serve", "--tls-cert", str(cert)])
    assert result.exit_code == 2
    assert "--tls-cert and --tls-key go together" in result.output
    assert "serve" in CliRunner().invoke(app, ["--help"]).output
