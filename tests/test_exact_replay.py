"""Issue 28, finding 1: replay returns what the live call returned, or it runs again.

* A pydantic model, a dataclass, an enum and a numpy array returned by an
  ``@action`` and by a tool come back as themselves after a SIGKILL later in
  the same node (sync and async; ``tests/exact_worker.py`` is the child).
* A result that cannot be rebuilt (an open file) is logged with a warning and
  marked not replayable: an idempotent tool runs again on resume, a
  non-idempotent one stops the resume with ``NotReplayableError``, which
  ``resolve_action(..., output=...)`` settles. Never a lookalike.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel
from typing_extensions import TypedDict

from langgraph_actionckpt import ActionSaver, NotReplayableError, action

from .conftest import drop_schema, new_schema_name

WORKER = Path(__file__).with_name("exact_worker.py")
ROOT = WORKER.parents[1]


@pytest.fixture
def pg(pg15_dsn: str) -> Iterator[tuple[str, str]]:
    """The system PostgreSQL and a fresh schema on it."""
    schema = new_schema_name()
    yield pg15_dsn, schema
    drop_schema(pg15_dsn, schema)


def _worker(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(WORKER), *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", ["action", "tool"])
@pytest.mark.parametrize("value", ["pydantic", "dataclass", "enum", "numpy"])
def test_typed_result_survives_sigkill(
    pg: tuple[str, str], tmp_path: Path, mode: str, kind: str, value: str
) -> None:
    dsn, schema = pg
    effects, out = tmp_path / "effects", tmp_path / "out.json"
    common = ["--dsn", dsn, "--schema", schema, "--thread", f"exact-{uuid.uuid4().hex[:8]}"]
    common += ["--effects", str(effects), "--out", str(out), "--mode", mode, "--kind", kind]
    common += ["--value", value]
    killed = _worker([*common, "--kill"])
    assert killed.returncode == -9, killed.stderr
    resumed = _worker(common)
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(out.read_text())
    assert data["seen"] == data["live"]  # same type, same value (and dtype)
    assert effects.read_text().count("run") == 1  # served from the log, not run again


# ------------------------------------------------------------ not replayable


class Crash(BaseException):
    """A simulated process death after the tool returned (LangGraph stores no error)."""


class State(TypedDict, total=False):
    text: str


def _file_graph(saver: Any, tmp_path: Path, idempotent: bool, crash: list[bool]) -> Any:
    """A node that opens a file through a tool, then dies once before using it."""
    path = tmp_path / "data.txt"
    path.write_text("contents")
    runs = tmp_path / "runs"

    def open_data(name: str) -> IO[str]:
        """Open a data file."""
        with runs.open("a") as f:
            f.write("run\n")
        return path.open()

    t = StructuredTool.from_function(
        func=open_data,
        name=f"open_data_{uuid.uuid4().hex[:6]}",  # warned once per name
        metadata={"idempotent": idempotent},
    )

    def node(state: State) -> State:
        handle = t.invoke({"name": "data"})
        if crash and crash.pop():
            raise Crash
        text = handle.read() if hasattr(handle, "read") else handle
        return {"text": text}

    builder = StateGraph(State)
    builder.add_node("work", node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder.compile(checkpointer=saver), t.name, runs


def test_file_result_idempotent_runs_again(pg: tuple[str, str], tmp_path: Path) -> None:
    dsn, schema = pg
    config = {"configurable": {"thread_id": f"file-{uuid.uuid4().hex[:8]}"}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph, _, runs = _file_graph(saver, tmp_path, True, [True])
        with pytest.warns(RuntimeWarning, match="cannot be replayed"), pytest.raises(Crash):
            graph.invoke({}, config)
        row = saver.list_actions(config["configurable"]["thread_id"], action_type="tool_call")[0]
        assert row.status == "completed" and not row.replayable
        assert "TextIOWrapper" in row.output["repr"]  # logged for people
        assert "TextIOWrapper" in row.meta["not_replayable"]
        assert graph.invoke(None, config)["text"] == "contents"
        assert runs.read_text().count("run") == 2  # ran again, never a lookalike


def test_file_result_non_idempotent_stops_resume(pg: tuple[str, str], tmp_path: Path) -> None:
    dsn, schema = pg
    thread = f"nfile-{uuid.uuid4().hex[:8]}"
    config = {"configurable": {"thread_id": thread}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph, name, runs = _file_graph(saver, tmp_path, False, [True])
        with pytest.warns(RuntimeWarning, match=name), pytest.raises(Crash):
            graph.invoke({}, config)
        with pytest.raises(NotReplayableError) as info:
            graph.invoke(None, config)
        assert info.value.name == name and "resolve_action" in str(info.value)
        assert runs.read_text().count("run") == 1
        saver.resolve_action(thread, info.value.action_id, output="settled by hand")
        assert graph.invoke(None, config)["text"] == "settled by hand"
        assert runs.read_text().count("run") == 1


def test_unannotated_model_is_not_a_lookalike(pg: tuple[str, str]) -> None:
    """A class the serializer may not load is not served as its dict."""
    dsn, schema = pg
    from pydantic import BaseModel

    class Hidden(BaseModel):
        x: int

    runs: list[int] = []

    @action(name=f"hidden_{uuid.uuid4().hex[:6]}")
    def make():  # type: ignore[no-untyped-def]  # no annotation: not allowlisted
        runs.append(1)
        return Hidden(x=1)

    crash = [True]

    def node(state: State) -> State:
        value = make()
        if crash and crash.pop():
            raise Crash
        assert isinstance(value, Hidden)
        return {"text": str(value.x)}

    builder = StateGraph(State)
    builder.add_node("work", node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    config = {"configurable": {"thread_id": f"hidden-{uuid.uuid4().hex[:8]}"}}
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = builder.compile(checkpointer=saver)
        with pytest.warns(RuntimeWarning), pytest.raises(Crash):
            graph.invoke({}, config)
        assert graph.invoke(None, config)["text"] == "1"
        assert len(runs) == 2


class Quote(BaseModel):
    item: str
    price: float


def test_reused_typed_result_is_its_type(pg: tuple[str, str]) -> None:
    """Another thread served a reusable action's pydantic result gets the model, not a dict."""
    from langgraph_actionckpt.reuse import ExactReuse

    dsn, schema = pg
    priced: list[str] = []

    @action(reusable=True, name=f"quote_{uuid.uuid4().hex[:6]}")
    def quote(item: str) -> Quote:
        priced.append(item)
        return Quote(item=item, price=3.5)

    seen: list[Any] = []

    def node(state: State) -> State:
        seen.append(quote("tea"))
        return {"text": "ok"}

    builder = StateGraph(State)
    builder.add_node("work", node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    with ActionSaver.from_conn_string(dsn, schema=schema, reuse=ExactReuse()) as saver:
        saver.setup()
        graph = builder.compile(checkpointer=saver)
        for thread in ("q1", "q2"):
            graph.invoke({}, {"configurable": {"thread_id": thread}})
        row = saver.list_actions("q2", action_type="function")[0]
    assert row.meta["reused_from"]["thread_id"] == "q1"
    assert priced == ["tea"]
    assert seen == [Quote(item="tea", price=3.5)] * 2
    assert all(type(v) is Quote for v in seen)
