"""Issue 28.3 / 29.9: one limit check on every path, reads as well as writes.

A 1 MB thread id through the callback handler (and its lease), through
``list_actions``/``get_action``/``last_action``, ``fork_at_action`` and
``copy_thread`` raises the same :class:`ConfigurationError`, and no statement
carrying it reaches the server. A malformed DSN is a ``ConfigurationError`` too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    ConfigurationError,
)

HUGE = "t" * (1 << 20)


class State(TypedDict):
    n: int


def _graph() -> Any:
    g = StateGraph(State)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_edge("step", END)
    return g


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every parameter list sent to the server by psycopg while the test runs."""
    seen: list[Any] = []
    sync_execute, async_execute = psycopg.Cursor.execute, psycopg.AsyncCursor.execute

    def execute(self: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        seen.append(params)
        return sync_execute(self, query, params, **kw)

    async def aexecute(self: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        seen.append(params)
        return await async_execute(self, query, params, **kw)

    monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    monkeypatch.setattr(psycopg.AsyncCursor, "execute", aexecute)
    yield seen


def _carried_huge(seen: list[Any]) -> bool:
    def walk(v: Any) -> bool:
        if isinstance(v, str):
            return len(v) >= len(HUGE)
        if isinstance(v, dict):
            return any(walk(x) for x in v.values())
        if isinstance(v, list | tuple):
            return any(walk(x) for x in v)
        return False

    return any(walk(p) for p in seen)


def test_huge_thread_id_through_handler_and_reads(saver: ActionSaver, sent: list[Any]) -> None:
    graph = _graph().compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": HUGE}, "callbacks": [ActionCallbackHandler(saver)]}
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        graph.invoke({"n": 0}, cfg)
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        saver.list_actions(HUGE)
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        saver.get_action(HUGE, "a")
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        saver.last_action(HUGE)
    with pytest.raises(ConfigurationError, match="action id of"):
        saver.get_action("t", "a" * 4096)
    with pytest.raises(ConfigurationError, match="thread id of"):
        saver.copy_thread("t", HUGE)
    with pytest.raises(ConfigurationError, match="thread id of"):
        saver.fork_at_action("t", "a", output="x", new_thread_id="x" * 2000)
    with pytest.raises(ConfigurationError, match="thread id of"):
        saver.fork_at_action("t", "a", output="x", new_thread_id="\udcff" * 3000)
    assert not _carried_huge(sent)


async def test_huge_thread_id_through_handler_and_reads_async(
    asaver: AsyncActionSaver, sent: list[Any]
) -> None:
    graph = _graph().compile(checkpointer=asaver)
    cfg: Any = {
        "configurable": {"thread_id": HUGE},
        "callbacks": [AsyncActionCallbackHandler(asaver)],
    }
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        await graph.ainvoke({"n": 0}, cfg)
    with pytest.raises(ConfigurationError, match="thread id of 1048576 bytes"):
        await asaver.alist_actions(HUGE)
    with pytest.raises(ConfigurationError, match="thread id of"):
        await asaver.acopy_thread(HUGE, "t")
    with pytest.raises(ConfigurationError, match="thread id of"):
        await asaver.afork_at_action("t", "a", output="x", new_thread_id="x" * 2000)
    assert not _carried_huge(sent)


def test_thread_id_at_the_limit_is_accepted(saver: ActionSaver) -> None:
    tid = "\x00" + "t" * 1000  # NUL is stored escaped; still under 1024 bytes
    graph = _graph().compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": tid}, "callbacks": [ActionCallbackHandler(saver)]}
    assert graph.invoke({"n": 0}, cfg) == {"n": 1}
    assert [a.action_type for a in saver.list_actions(tid)] == ["node"]
    # a fork to an id at the limit passes the check and fails on the missing action
    with pytest.raises(ConfigurationError, match="no action"):
        saver.fork_at_action(tid, "missing", output="x", new_thread_id="f" * 1024)


@pytest.mark.parametrize("dsn_text", ["hello world", "host=x port", "dbname='unterminated"])
def test_malformed_dsn_is_a_configuration_error(dsn_text: str) -> None:
    refused = pytest.raises(ConfigurationError, match="not a PostgreSQL connection string")
    with refused, ActionSaver.from_conn_string(dsn_text):
        pass


async def test_malformed_dsn_is_a_configuration_error_async() -> None:
    refused = pytest.raises(ConfigurationError, match="not a PostgreSQL connection string")
    with refused:
        async with AsyncActionSaver.from_conn_string("hello world"):
            pass


def test_cli_refuses_an_over_long_thread_id(saver: ActionSaver, dsn: str, schema: str) -> None:
    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    base = ["--dsn", dsn, "--schema", schema]
    for cmd in (["show", "--json"], ["show"], ["timeline"]):
        result = CliRunner().invoke(app, [cmd[0], HUGE[:5000], *base, *cmd[1:]])
        assert result.exit_code == 1, (cmd, result.stdout)
        said = result.stdout + result.stderr
        assert "thread id of 5000 bytes is longer than the limit" in said, (cmd, said)
