"""Installs that compose (issue #32): the extras resolve together, the core install runs the core.

Both tests create new virtualenvs and ask the package index, so they take a minute or more
each; ``.ci/extras.py`` (run by ``.ci/run``) resolves the union of every extra the same way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import psycopg
import pytest
from psycopg import conninfo, sql

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(900)


def _new_venv(path: Path) -> Path:
    venv.create(path, with_pip=True)
    return path / "bin" / "python"


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=840)


def test_service_and_agent_server_extras_resolve_together(tmp_path: Path) -> None:
    """``[service,agent-server]`` resolves in a new venv, keeping the service's grpcio/protobuf."""
    python = _new_venv(tmp_path / "venv")
    report = tmp_path / "report.json"
    done = _pip(
        python, "install", "--dry-run", "--quiet", "--report", str(report),
        f"{ROOT}[service,agent-server]",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    versions = {
        item["metadata"]["name"].lower(): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    # what the checked-in generated code needs (service/_pb: grpcio 1.81.1, protobuf gencode 6.33.5)
    assert versions["grpcio"].startswith("1.81."), versions["grpcio"]
    major, minor = (int(x) for x in versions["protobuf"].split(".")[:2])
    assert major == 6 and minor >= 33, versions["protobuf"]
    assert "langgraph-api" in versions


def _readme_usage() -> str:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", readme, flags=re.S)[0]


def test_bare_install_runs_the_readme_usage_and_names_the_extras(
    tmp_path: Path, pg15_dsn: str
) -> None:
    """``pip install langgraph-actionckpt`` alone: the Usage snippet runs on a DSN; the
    embedded server and the ``actionckpt`` command say in one line which extra they need."""
    python = _new_venv(tmp_path / "venv")
    done = _pip(python, "install", "--quiet", str(ROOT))
    assert done.returncode == 0, done.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACTIONCKPT_", "PYTHON"))}
    snippet = tmp_path / "usage.py"
    snippet.write_text(_readme_usage())
    # a database of its own: the snippet writes to the default schema
    database = f"actionckpt_bare_{os.getpid()}"
    with psycopg.connect(pg15_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        dsn = conninfo.make_conninfo(pg15_dsn, dbname=database)
        run = subprocess.run(
            [str(python), str(snippet)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**env, "ACTIONCKPT_DSN": dsn},
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert "node" in run.stdout and "completed" in run.stdout, run.stdout
    finally:
        with psycopg.connect(pg15_dsn, autocommit=True) as conn:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            conn.execute(drop.format(sql.Identifier(database)))

    # no DSN and no [embedded]: one line naming the extra, not a traceback about platformdirs
    code = (
        "from langgraph_actionckpt import ActionSaver\n"
        "try:\n    ActionSaver.from_conn_string().__enter__()\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    run = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert run.stdout.startswith("EmbeddedServerError"), run.stdout + run.stderr
    assert "langgraph-actionckpt[embedded]" in run.stdout

    # the console script without typer: exit 1 and one line naming [cli]
    script = python.parent / "actionckpt"
    run = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        "actionckpt needs the cli extra: pip install 'langgraph-actionckpt[cli]' "
        "(no module named 'typer')"
    ]
    assert "Traceback" not in run.stderr


def test_console_script_names_the_cli_extra_without_typer() -> None:
    """The ``actionckpt`` entry point without typer: one line naming ``[cli]``, exit 1."""
    code = (
        "import sys\n"
        "sys.modules['typer'] = None  # as if the cli extra were not installed\n"
        "from langgraph_actionckpt.service.console import main\n"
        "main()\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 1
    assert run.stderr.strip() == (
        "actionckpt needs the cli extra: pip install 'langgraph-actionckpt[cli]' "
        "(no module named 'typer')"
    )
