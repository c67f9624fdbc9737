"""The way from ``put`` to its SQL, as ``benchmarks.call_paths`` traces it (issue #30).

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

import pytest

from tests.conftest import drop_schema, new_schema_name

ROOT = Path(__file__).resolve().parent.parent

# What the API declaration calls: its abstract ``_put`` is the saver's (accepted by issue #30).
API_CALLS = {("checkpoints._sync_api", "_sync_saver"), ("checkpoints._async_api", "_async_saver")}

_SCRIPT = """
import asyncio, json, sys
from benchmarks import call_paths as cp

dsn, schema = sys.argv[1], sys.argv[2]


def counted(name, run):
    # calls of a function named ``name`` of the package's while ``run`` runs
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == name and cp._module(frame):
            calls.append(cp._module(frame))

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return len(calls)


def thread_keys_of_a_put():
    from langgraph_actionckpt import ActionSaver

    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.put(*cp._put_args("count", 1))
        return counted("thread_key", lambda: saver.put(*cp._put_args("count", 2)))


traces = cp.trace_sync(dsn, schema) + asyncio.run(cp.trace_async(dsn, schema))
print(json.dumps({
    "traces": [
        {
            "name": t.name,
            "path": t.path,
            "climbs": t.climbs,
            "walk_climbs": t.walk_climbs,
            "walk_modules": t.walk_modules,
        }
        for t in traces
        if "put" in t.name
    ],
    "thread_keys": thread_keys_of_a_put(),
}))
"""


@pytest.fixture
def traced(pg15_dsn: str) -> dict[str, object]:
    """The put traces of ``benchmarks.call_paths`` on the system PostgreSQL."""
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
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_put_paths(traced: dict[str, object]) -> None:
    traces = traced["traces"]
    assert isinstance(traces, list)
    assert sorted(t["name"] for t in traces) == ["aput (AsyncActionSaver)", "put (ActionSaver)"]
    for trace in traces:
        path = trace["path"]
        assert path, f"{trace['name']}: the send was not seen"
        assert len(set(path)) <= 8, (trace["name"], path)
        assert len(path) == len(set(path)), f"{trace['name']}: a module twice in {path}"
        assert trace["climbs"] == [], (trace["name"], trace["climbs"])
        # the walk climbs into a higher layer only where the API declaration calls its saver
        climbs = {tuple(pair) for pair in trace["walk_climbs"]}
        assert climbs <= API_CALLS, (trace["name"], climbs - API_CALLS)


def test_thread_key_once_per_put(traced: dict[str, object]) -> None:
    assert traced["thread_keys"] == 1
