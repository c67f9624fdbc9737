"""The savers under LangGraph's real Agent Server: ``langgraph dev``, from ``langgraph-cli[inmem]``.

Each test starts ``langgraph dev --no-browser --no-reload`` as a subprocess on
localhost, serving a copy of ``examples/agent_server`` with
``langgraph_actionckpt.agent_server.checkpointer`` on a fresh schema of the embedded
test PostgreSQL, and talks to it through ``langgraph-sdk``. The model is the real
``ChatOpenAI`` against the local OpenAI-compatible server running in this test
process, which counts every request; the example's tool appends a line per
execution to ``AGENT_TOOL_LOG``. Every server is killed (its whole process
group) by the fixture that started it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import drop_schema, fetch, new_schema_name

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "agent_server"
# the CLI installed beside this interpreter first (a virtualenv not on PATH)
_BIN_PATH = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
LANGGRAPH = shutil.which("langgraph", path=_BIN_PATH)

if LANGGRAPH is None or importlib.util.find_spec("langgraph_api") is None:
    pytest.skip(
        "the `langgraph` CLI with its in-memory server is not installed: "
        "pip install 'langgraph-actionckpt[agent-server]'",
        allow_module_level=True,
    )
if importlib.util.find_spec("langgraph_sdk") is None:
    pytest.skip("langgraph-sdk is not installed", allow_module_level=True)

from langgraph_sdk import get_sync_client  # noqa: E402
from langgraph_sdk.client import SyncLangGraphClient  # noqa: E402
from langgraph_sdk.errors import (  # noqa: E402
    ConflictError,
    NotFoundError,
    UnprocessableEntityError,
)

sys.path.insert(0, str(EXAMPLE))
from local_llm import fake_openai_module  # noqa: E402

sys.path.remove(str(EXAMPLE))

pytestmark = pytest.mark.timeout(180)

STARTUP_TIMEOUT = 120.0
RUN_TIMEOUT = 60.0
QUESTION = "what do herons eat in winter"
# The server also lists ``aget`` as required; BaseCheckpointSaver.aget calls aget_tuple.
BASE_METHODS = ("aput", "aput_writes", "aget_tuple", "alist", "adelete_thread")
EXTENDED_METHODS = ("adelete_for_runs", "acopy_thread", "aprune")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


# prctl(PR_SET_PDEATHSIG) from libc, looked up now: the child runs as little
# Python as possible between fork and exec (this process has threads).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL me when the test process dies (Linux).

    The fixtures kill every server they start; this covers pytest itself being
    killed (a CI timeout), when no finalizer runs.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class AgentServer:
    """One ``langgraph dev`` process group serving the example app."""

    def __init__(self, app: Path, env: dict[str, str], log: Path) -> None:
        self.app = app
        self.env = env
        self.log = log
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
        cmd += ["--port", str(self.port)]
        with log.open("ab") as out:
            # own session: SIGKILL reaches the server and anything it spawned
            self.proc = subprocess.Popen(
                cmd,
                cwd=app,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self.client: SyncLangGraphClient = get_sync_client(url=self.url, timeout=RUN_TIMEOUT)
        try:
            _wait_for(self._ready, STARTUP_TIMEOUT, f"the Agent Server on {self.url}")
        except AssertionError as exc:
            self.kill()
            raise AssertionError(f"{exc}; its output:\n{self.log_text()[-4000:]}") from None

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the Agent Server exited with {self.proc.returncode}")
        try:
            return httpx.get(f"{self.url}/ok", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def log_text(self) -> str:
        """The server's output so far, without terminal colours."""
        return _ANSI.sub("", self.log.read_text(encoding="utf-8", errors="replace"))

    def kill(self) -> None:
        """SIGKILL the whole process group (a crash: nothing is flushed or closed)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def fake_openai() -> Iterator[Any]:
    """The local OpenAI-compatible server, in this process: it counts every request."""
    server = fake_openai_module().FakeOpenAIServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def pg18(dsns: dict[str, str]) -> str:
    """The embedded PostgreSQL 18 (module scope: one server serves several tests)."""
    return dsns["pg18"]


class App:
    """A copy of the example app, its environment and the servers started on it."""

    def __init__(self, root: Path, dsn: str, openai_base_url: str) -> None:
        self.root = root
        self.dir = root / "app"
        shutil.copytree(EXAMPLE, self.dir, ignore=shutil.ignore_patterns("__pycache__"))
        self.pause_dir = root / "pause"
        self.pause_dir.mkdir()
        self.tool_log = root / "tools.jsonl"
        self.dsn = dsn
        self.schema = new_schema_name()
        self.servers: list[AgentServer] = []
        pythonpath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
        self.env = {
            **os.environ,
            "PYTHONPATH": pythonpath,  # this checkout's package, not an installed one
            "ACTIONCKPT_DSN": dsn,
            "ACTIONCKPT_SCHEMA": self.schema,
            "ACTIONCKPT_POOL_SIZE": "4",
            "OPENAI_BASE_URL": openai_base_url,
            "OPENAI_API_KEY": "local",
            "AGENT_TOOL_LOG": str(self.tool_log),
            "AGENT_PAUSE_DIR": str(self.pause_dir),
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        }

    def start(self) -> AgentServer:
        server = AgentServer(self.dir, self.env, self.root / f"server-{len(self.servers)}.log")
        self.servers.append(server)
        return server

    def close(self) -> None:
        for server in self.servers:
            server.kill()
        drop_schema(self.dsn, self.schema)

    def tool_calls(self) -> int:
        if not self.tool_log.exists():
            return 0
        return len(self.tool_log.read_text(encoding="utf-8").splitlines())

    def reached(self, thread_id: str) -> bool:
        return (self.pause_dir / f"{thread_id}.reached").exists()

    def release(self, thread_id: str) -> None:
        (self.pause_dir / f"{thread_id}.go").touch()

    def actions(self, thread_id: str) -> list[tuple[Any, ...]]:
        return fetch(
            self.dsn,
            f'SELECT action_type, name, status, replayable FROM "{self.schema}".actions '
            "WHERE thread_id = %s ORDER BY action_type, name",
            (thread_id,),
        )


@pytest.fixture(scope="module")
def shared_app(
    tmp_path_factory: pytest.TempPathFactory, pg18: str, fake_openai: Any
) -> Iterator[tuple[App, AgentServer]]:
    """One app and one running server, shared by the tests that do not kill it."""
    app = App(tmp_path_factory.mktemp("agent_server"), pg18, fake_openai.base_url)
    try:
        yield app, app.start()
    finally:
        app.close()


@pytest.fixture
def own_app(tmp_path: Path, pg18: str, fake_openai: Any) -> Iterator[App]:
    """An app on its own schema, for a test that kills and restarts servers."""
    app = App(tmp_path, pg18, fake_openai.base_url)
    try:
        yield app
    finally:
        app.close()


def _input(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": question}], **extra}


def _normal(values: dict[str, Any]) -> dict[str, Any]:
    """State values without what differs between two equal runs (message and response ids)."""
    out = {k: v for k, v in values.items() if k != "messages"}
    out["messages"] = [
        (
            m["type"],
            m["content"],
            [(c["name"], c["args"], c["id"]) for c in m.get("tool_calls") or []],
            m.get("tool_call_id"),
        )
        for m in values["messages"]
    ]
    return out


def test_startup_log_shows_every_capability(shared_app: tuple[App, AgentServer]) -> None:
    """The server loads our checkpointer, detects every base and extended method, no fallback."""
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from langgraph_actionckpt import AsyncActionSaver

    _, server = shared_app
    log = server.log_text()
    entry = "langgraph_actionckpt.agent_server.checkpointer"
    assert f"Configuring custom checkpointer at {entry}" in log
    assert "Using custom checkpointer: AsyncActionSaver" in log
    # The server logs only what is missing: one line per missing extended method
    # (adelete_thread, adelete_for_runs, acopy_thread -> "generic fallback", aprune),
    # and a protocol warning or a startup failure for a missing base one.
    assert "Custom checkpointer missing" not in log, log
    assert "fallback" not in log.lower(), log
    assert "does not implement the expected checkpointer protocol" not in log, log
    assert "Application started up" in log
    # The server's own rule (langgraph_api._checkpointer._adapter._is_overridden, which
    # cannot be imported outside the server): a capability is a method overriding
    # BaseCheckpointSaver's.
    for name in (*BASE_METHODS, *EXTENDED_METHODS):
        assert getattr(AsyncActionSaver, name) is not getattr(BaseCheckpointSaver, name), name


def test_crash_mid_node_replays_completed_calls(own_app: App, fake_openai: Any) -> None:
    """SIGKILL the server inside a node after its LLM and tool calls; the rerun makes neither."""
    app = own_app
    server = app.start()
    client = server.client

    # An uninterrupted run of the same input, for the expected final state and counts.
    baseline = client.threads.create()["thread_id"]
    app.release(baseline)  # its pause point passes at once
    llm0, tools0 = fake_openai.request_count, app.tool_calls()
    client.runs.wait(baseline, "agent", input=_input(pause=True))
    expected = _normal(client.threads.get_state(baseline)["values"])
    llm_per_run = fake_openai.request_count - llm0
    tools_per_run = app.tool_calls() - tools0
    assert (llm_per_run, tools_per_run) == (2, 1)

    thread = client.threads.create()["thread_id"]
    llm1, tools1 = fake_openai.request_count, app.tool_calls()
    client.runs.create(thread, "agent", input=_input(pause=True))
    _wait_for(lambda: app.reached(thread), RUN_TIMEOUT, "the node's pause point")
    # Mid-node: the first LLM call and the tool call are done, the second LLM call is not.
    assert fake_openai.request_count - llm1 == 1
    assert app.tool_calls() - tools1 == 1
    server.kill()

    app.release(thread)
    server = app.start()
    client = server.client
    # The in-memory runtime's own thread table may not have been flushed before the
    # kill; the checkpoints are in PostgreSQL either way.
    client.threads.create(thread_id=thread, if_exists="do_nothing")
    client.runs.wait(thread, "agent", input=None)

    assert _normal(client.threads.get_state(thread)["values"]) == expected
    # Only the call that had not completed was made: no LLM or tool call twice.
    assert fake_openai.request_count - llm1 == llm_per_run
    assert app.tool_calls() - tools1 == tools_per_run
    rows = app.actions(thread)
    assert [r[0] for r in rows].count("llm_completion") == 2
    assert [r[0] for r in rows].count("tool_call") == 1
    assert all(r[2] == "completed" for r in rows if r[0] != "node"), rows
    assert all(r[3] for r in rows if r[0] in ("llm_completion", "tool_call")), rows
    # the factory's callback handler recorded the nodes; the rerun completed the same row
    assert ("node", "research", "completed") in [r[:3] for r in rows], rows
    assert [r[:2] for r in rows].count(("node", "research")) == 1, rows


def test_rollback_multitask(shared_app: tuple[App, AgentServer]) -> None:
    """A second run with multitask_strategy='rollback' cancels the first and erases it."""
    app, server = shared_app
    client = server.client
    thread = client.threads.create()["thread_id"]
    first = client.runs.create(thread, "agent", input=_input("first question", pause=True))
    _wait_for(lambda: app.reached(thread), RUN_TIMEOUT, "the first run's pause point")
    second = client.runs.create(
        thread, "agent", input=_input("second question"), multitask_strategy="rollback"
    )
    client.runs.join(thread, second["run_id"])

    state = client.threads.get_state(thread)
    texts = [m["content"] for m in state["values"]["messages"]]
    assert texts[0] == "second question" and "first question" not in texts, texts
    assert len(texts) == 4
    history = client.threads.get_history(thread, limit=100)
    run_ids = {h["metadata"].get("run_id") for h in history}
    assert first["run_id"] not in run_ids and second["run_id"] in run_ids, run_ids
    # adelete_for_runs removed the cancelled run's checkpoints from PostgreSQL too.
    rows = fetch(
        app.dsn,
        f'SELECT count(*) FROM "{app.schema}".checkpoints WHERE thread_id = %s',
        (thread,),
    )
    assert rows[0][0] == len(history)
    # ... and its action rows, while the run that replaced it has its own
    actions = dict(
        fetch(
            app.dsn,
            f'SELECT run_id, count(*) FROM "{app.schema}".actions WHERE thread_id = %s '
            "GROUP BY run_id",
            (thread,),
        )
    )
    assert first["run_id"] not in actions and actions.get(second["run_id"], 0) > 0, actions


@pytest.mark.parametrize("strategy", ["reject", "interrupt", "enqueue"])
def test_other_multitask_strategies(shared_app: tuple[App, AgentServer], strategy: str) -> None:
    """A second run on a busy thread under the server's other multitask strategies."""
    app, server = shared_app
    client = server.client
    thread = client.threads.create()["thread_id"]
    first = client.runs.create(thread, "agent", input=_input("first question", pause=True))
    _wait_for(lambda: app.reached(thread), RUN_TIMEOUT, "the first run's pause point")
    if strategy == "reject":
        with pytest.raises(ConflictError):
            client.runs.create(
                thread, "agent", input=_input("second question"), multitask_strategy="reject"
            )
        app.release(thread)
        client.runs.join(thread, first["run_id"])
        expected = ["first question", "", "facts", "Tool results"]
    else:
        # (pause is state: the second input must clear what the first one set)
        second = client.runs.create(
            thread,
            "agent",
            input=_input("second question", pause=False),
            multitask_strategy=strategy,
        )
        if strategy == "enqueue":
            app.release(thread)  # the first run finishes, then the second one runs
        client.runs.join(thread, second["run_id"])
        assert client.runs.get(thread, second["run_id"])["status"] == "success"
        if strategy == "interrupt":
            # the first run stopped mid-node: its input stays, its node never finished
            assert client.runs.get(thread, first["run_id"])["status"] == "interrupted"
            expected = ["first question", "second question", "", "facts", "Tool results"]
        else:
            assert client.runs.get(thread, first["run_id"])["status"] == "success"
            expected = ["first question", "", "facts", "Tool results"] * 2
            expected[4] = "second question"
    texts = [m["content"] for m in client.threads.get_state(thread)["values"]["messages"]]
    assert len(texts) == len(expected), texts
    for text, want in zip(texts, expected, strict=True):
        assert text == want if want in ("", "first question", "second question") else want in text


def test_interrupt_resumed_with_command(
    shared_app: tuple[App, AgentServer], fake_openai: Any
) -> None:
    """``interrupt()`` in a node, resumed through the SDK with ``Command(resume=...)``."""
    app, server = shared_app
    client = server.client
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input=_input(ask_approval=True))
    state = client.threads.get_state(thread)
    assert state["next"] == ["review"]
    (pending,) = state["interrupts"] if "interrupts" in state else state["tasks"][0]["interrupts"]
    assert pending["value"]["question"] == "approve this answer?"

    llm0, tools0 = fake_openai.request_count, app.tool_calls()
    client.runs.wait(thread, "agent", command={"resume": {"approved": True, "by": "ops"}})
    state = client.threads.get_state(thread)
    assert state["next"] == []
    assert state["values"]["approved"] == {"approved": True, "by": "ops"}
    # The resume ran only the interrupted node: research is not run or replayed again.
    assert (fake_openai.request_count, app.tool_calls()) == (llm0, tools0)


def test_copy_and_prune_threads(shared_app: tuple[App, AgentServer]) -> None:
    """The server's thread copy (acopy_thread) and prune (aprune, adelete_thread)."""
    app, server = shared_app
    client = server.client
    source = client.threads.create()["thread_id"]
    client.runs.wait(source, "agent", input=_input("copy me"))
    values = client.threads.get_state(source)["values"]
    history = client.threads.get_history(source, limit=100)
    assert len(history) > 1

    copied = client.threads.copy(source)
    copy_id = copied["thread_id"] if isinstance(copied, dict) else None
    if copy_id is None:  # older SDKs return nothing: find the copy by its metadata
        found = [t for t in client.threads.search(limit=100) if t["thread_id"] != source]
        copy_id = max(found, key=lambda t: t["created_at"])["thread_id"]
    assert copy_id != source
    assert client.threads.get_state(copy_id)["values"] == values
    assert len(client.threads.get_history(copy_id, limit=100)) == len(history)

    # keep_latest pruning (our aprune) is reached only through runtimes that support it;
    # the in-memory runtime of `langgraph dev` refuses it before any checkpointer call.
    try:
        client.threads.prune([source], strategy="keep_latest")
    except UnprocessableEntityError as exc:
        assert "not supported in in-memory runtime" in str(exc)
    else:
        assert len(client.threads.get_history(source, limit=100)) == 1
        assert client.threads.get_state(source)["values"] == values

    client.threads.prune([source], strategy="delete")
    rows = fetch(
        app.dsn, f'SELECT count(*) FROM "{app.schema}".checkpoints WHERE thread_id = %s', (source,)
    )
    assert rows[0][0] == 0
    with pytest.raises(NotFoundError):
        client.threads.get(source)
    # the copy does not share rows with the source
    assert client.threads.get_state(copy_id)["values"] == values


async def test_checkpointer_entry_point_reads_the_environment(
    pg18: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``server.checkpointer`` outside the server: env DSN, schema and pool; set up; registered."""
    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver, server
    from langgraph_actionckpt.errors import ConfigurationError

    schema = new_schema_name()
    monkeypatch.setenv("ACTIONCKPT_DSN", pg18)
    monkeypatch.setenv("ACTIONCKPT_SCHEMA", schema)
    monkeypatch.setenv("ACTIONCKPT_POOL_SIZE", "2")
    try:
        async with server.checkpointer() as saver:
            assert isinstance(saver, AsyncActionSaver) and saver.schema == schema
            assert fetch(
                pg18,
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema = %s AND table_name = 'actions'",
                (schema,),
            ) == [(1,)]
            assert server.current_saver() is saver
            (handler,) = server.action_callbacks()
            assert isinstance(handler, AsyncActionCallbackHandler) and handler.saver is saver
        with pytest.raises(
            RuntimeError, match=re.escape("langgraph_actionckpt.agent_server.checkpointer")
        ):
            server.current_saver()
    finally:
        drop_schema(pg18, schema)

    monkeypatch.setenv("ACTIONCKPT_POOL_SIZE", "ten")
    with pytest.raises(ConfigurationError, match="ACTIONCKPT_POOL_SIZE"):
        async with server.checkpointer():
            pass


def test_service_and_agent_server_side_by_side(
    shared_app: tuple[App, AgentServer], tmp_path: Path
) -> None:
    """``[service]`` and ``[agent-server]`` in one environment (issue #32): ``actionckpt serve``
    (the console script) and ``langgraph dev`` run at once, each serving its graph's checkpoints.

    Installing ``[agent-server]`` after ``[service]`` once downgraded grpcio below what the
    service's generated code needs, and ``actionckpt serve`` died on a protobuf gencode/runtime
    mismatch; the pins in pyproject.toml keep both on one grpcio/protobuf series.
    """
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    from langgraph_actionckpt import RemoteActionSaver

    app, server = shared_app
    script = shutil.which("actionckpt", path=_BIN_PATH)
    assert script is not None, "the actionckpt console script is not installed"
    schema = new_schema_name()
    port = _free_port()
    log = tmp_path / "serve.log"
    cmd = [script, "serve", "--listen", f"127.0.0.1:{port}", "--dsn", app.dsn, "--schema", schema]
    with log.open("ab") as out:
        serve = subprocess.Popen(
            cmd, env=app.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _wait_for(
            lambda: serve.poll() is not None or "listening on" in log.read_text(),
            STARTUP_TIMEOUT,
            "actionckpt serve",
        )
        assert serve.poll() is None, log.read_text()

        class State(TypedDict):
            n: int

        builder = StateGraph(State)
        builder.add_node("step", lambda state: {"n": state["n"] + 1})
        builder.add_edge(START, "step")
        with RemoteActionSaver.from_target(f"127.0.0.1:{port}") as saver:
            saver.setup()
            graph = builder.compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "side-by-side"}}
            # an Agent Server run while the service serves this one
            thread = server.client.threads.create()["thread_id"]
            app.release(thread)
            run = server.client.runs.create(thread, "agent", input=_input())
            assert graph.invoke({"n": 1}, config) == {"n": 2}
            server.client.runs.join(thread, run["run_id"])
            assert saver.get_tuple(config) is not None
        state = server.client.threads.get_state(thread)
        assert state["values"]["messages"][-1]["type"] == "ai"
        assert serve.poll() is None, log.read_text()
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=60)
        drop_schema(app.dsn, schema)
