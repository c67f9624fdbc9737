"""From an LLM completion to its action row, as ``benchmarks.call_paths`` traces it (issue #30).

The callback handler's ``on_llm_end`` hands the row to the action writer, which
writes it with its own plan on the saver's driver, fenced by the leases it was
handed: no module calls up into a higher layer on the way, sync or async.

The traces run in a child interpreter: ``benchmarks.call_paths`` needs psycopg's
pure-Python libpq wrapper (the compiled one's send is invisible to the profiler),
chosen before psycopg is imported, and this process imported psycopg long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import drop_schema, new_schema_name

ROOT = Path(__file__).resolve().parent.parent

_SCRIPT = """
import asyncio, json, sys
from benchmarks import call_paths as cp

dsn, schema = sys.argv[1], sys.argv[2]
traces = cp.trace_sync(dsn, schema) + asyncio.run(cp.trace_async(dsn, schema))
print(json.dumps([
    {
        "name": t.name,
        "path": t.path,
        "climbs": t.climbs,
        "walk_climbs": t.walk_climbs,
        "walk_modules": t.walk_modules,
    }
    for t in traces
    if t.name.startswith("LLM completion")
]))
"""


@pytest.fixture
def llm_traces(pg15_dsn: str) -> list[dict[str, Any]]:
    """The LLM-completion traces of ``benchmarks.call_paths`` on the system PostgreSQL."""
    schema = new_schema_name()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT, pg15_dsn, schema],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        drop_schema(pg15_dsn, schema)
    assert done.returncode == 0, done.stderr[-3000:]
    traces: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return traces


def test_llm_completion_path_is_short_and_never_climbs(llm_traces: list[dict[str, Any]]) -> None:
    named = {t["name"]: t for t in llm_traces}
    assert sorted(named) == [
        "LLM completion (ActionCallbackHandler)",
        "LLM completion (AsyncActionCallbackHandler)",
    ]
    for name, trace in named.items():
        path = trace["path"]
        assert path, f"{name}: the send was not seen"
        assert path[0].startswith("actions.") and path[0].endswith("_handler"), (name, path)
        assert len(set(path)) <= 8, (name, path)
        assert len(path) == len(set(path)), f"{name}: a module twice in {path}"
        assert trace["climbs"] == [], (name, trace["climbs"])
        # the walk: no call up into a higher layer (the lease hold, the fencing, the plan)
        assert trace["walk_climbs"] == [], (name, trace["walk_climbs"])
        # the writer asks the leases it was handed, not the checkpoint store's fencing
        assert "checkpoints.fencing" not in trace["walk_modules"], (name, trace["walk_modules"])
