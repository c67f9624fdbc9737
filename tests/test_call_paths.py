"""The way from a call to its SQL, as ``benchmarks.call_paths`` traces it (issue #30).

``put`` and ``aput`` reach their statement through at most 8 of the package's modules,
none twice, and their walk calls up into a higher layer only where the public API
declaration calls its saver. An LLM completion's row goes from the callback handler to
the action writer, which writes it with its own plan on the saver's driver, fenced by the
leases it was handed: nothing on its way calls up into a higher layer, sync or async.

The traces run in a child interpreter: ``benchmarks.call_paths`` needs psycopg's
pure-Python libpq wrapper (the compiled one's send is invisible to the profiler),
chosen before psycopg is imported, and this process imported psycopg long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SERVERS, drop_schema, new_schema_name

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
    "traces": {
        t.name: {
            "path": t.path,
            "climbs": t.climbs,
            "walk_climbs": [list(pair) for pair in t.walk_climbs],
            "walk_modules": t.walk_modules,
        }
        for t in traces
    },
    "thread_keys": thread_keys_of_a_put(),
}))
"""


@pytest.fixture(scope="module")
def traced(dsns: Mapping[str, str]) -> dict[str, Any]:
    """Every trace of ``benchmarks.call_paths`` on the system PostgreSQL, run once."""
    pg15_dsn = dsns["citus" if "citus" in SERVERS else "pg15"]  # as the pg15_dsn fixture
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
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _short_without_repeats(name: str, trace: dict[str, Any]) -> None:
    path = trace["path"]
    assert path, f"{name}: the send was not seen"
    assert len(set(path)) <= 8, (name, path)
    assert len(path) == len(set(path)), f"{name}: a module twice in {path}"
    assert trace["climbs"] == [], (name, trace["climbs"])


@pytest.mark.parametrize("name", ["put (ActionSaver)", "aput (AsyncActionSaver)"])
def test_put_path_is_short_and_climbs_only_from_the_api_declaration(
    traced: dict[str, Any], name: str
) -> None:
    trace = traced["traces"][name]
    _short_without_repeats(name, trace)
    climbs = {tuple(pair) for pair in trace["walk_climbs"]}
    assert climbs <= API_CALLS, (name, climbs - API_CALLS)


def test_thread_key_once_per_put(traced: dict[str, Any]) -> None:
    assert traced["thread_keys"] == 1


@pytest.mark.parametrize(
    "name",
    ["LLM completion (ActionCallbackHandler)", "LLM completion (AsyncActionCallbackHandler)"],
)
def test_llm_completion_path_is_short_and_never_climbs(traced: dict[str, Any], name: str) -> None:
    trace = traced["traces"][name]
    _short_without_repeats(name, trace)
    path = trace["path"]
    assert path[0].startswith("actions.") and path[0].endswith("_handler"), (name, path)
    # the walk: no call up into a higher layer (the lease hold, the fencing, the plan)
    assert trace["walk_climbs"] == [], (name, trace["walk_climbs"])
    # the writer asks the leases it was handed, not the checkpoint store's fencing
    assert "checkpoints.fencing" not in trace["walk_modules"], (name, trace["walk_modules"])
