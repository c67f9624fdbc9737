"""Ready for a distributed PostgreSQL (Citus, sharded by ``thread_id``), checked in the catalog.

Every primary key and unique index of a per-thread table must lead with
``thread_id``: a distributed table can only enforce uniqueness that includes its
distribution column, and a key that leads with it routes every lookup to one
shard. Reference tables (replicated to every node) are listed by name.
"""

from __future__ import annotations

import contextlib
import operator
import re
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from psycopg import sql

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
    action,
)
from langgraph_actionckpt.db import direct

from .conftest import fetch

REFERENCE_TABLES = {"migrations"}
"""Small tables replicated to every node: not per thread."""


def test_every_key_of_a_per_thread_table_leads_with_thread_id(dsn: str, schema: str) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
    tables = fetch(
        dsn,
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p')",
        (schema,),
    )
    per_thread = {t for (t,) in tables} - REFERENCE_TABLES
    assert {"checkpoints", "blobs", "writes", "actions"} <= per_thread
    keys = fetch(
        dsn,
        """
        SELECT c.relname, i.relname, a.attname
          FROM pg_index x
          JOIN pg_class i ON i.oid = x.indexrelid
          JOIN pg_class c ON c.oid = x.indrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0]
         WHERE n.nspname = %s AND (x.indisunique OR x.indisprimary)
        """,
        (schema,),
    )
    offenders = [(t, i, col) for t, i, col in keys if t in per_thread and col != "thread_id"]
    assert offenders == []
    for table in per_thread:
        cols = fetch(
            dsn,
            "SELECT 1 FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s AND column_name = 'thread_id'",
            (schema, table),
        )
        assert cols, f"{table} has no thread_id column to distribute by"


# ------------------------------------------------------------- the statement list
#
# The statements a graph runs are taken from the savers themselves: every statement
# executed while a graph runs (put, put_writes, get_tuple, list by thread, the action
# rows written and read by the recorder, replay and the lease) is recorded as sent,
# rendered, and checked. Each table a statement touches must be tied to one thread by
# equality: ``thread_id = %s`` (or a named parameter, or the lease fence
# ``{s}.fenced(%s, ...)``), or an INSERT whose rows bind ``thread_id`` to a parameter.
# Neither a join on thread_id to such a row (``x.thread_id = c.thread_id``) nor a
# thread taken from an array (``= ANY(...)``, ``unnest``) counts: Citus routes neither
# to one shard. This is a quick static check; the verdict is the real cluster's
# (``ACTIONCKPT_TEST_SERVERS=citus``, run by .ci/run).

PER_THREAD_TABLES = ("checkpoints", "blobs", "writes", "actions", "leases")

PLACEHOLDER = r"""(?:[\w".]+\.fenced\(\s*)?(?:%\(\w+\)s|%s)"""
THREAD_EQ = re.compile(
    rf"""(?:\b(\w+)\.)?"?thread_id"?\s*=\s*{PLACEHOLDER}|{PLACEHOLDER}\s*=\s*(?:(\w+)\.)?"?thread_id\b"""
)
THREAD_FROM_SET = re.compile(
    r"""thread_id"?\s*=\s*ANY\s*\(|thread_id"?\s+IN\s*\(|\)\s*AS\s+\w+\s*\(\s*"?thread_id\b""",
    re.IGNORECASE,
)
NOT_AN_ALIAS = {
    "where", "on", "using", "cross", "left", "right", "inner", "join", "order", "group",
    "limit", "offset", "select", "set", "values", "returning", "default", "for", "union",
}  # fmt: skip

HOT_PATH_EXCEPTIONS = {
    "actions-batch": (
        re.compile(
            r"INSERT INTO \S+\.actions AS a \(.*\bFROM \(SELECT "
            r"(\* FROM unnest\(|.* FROM ROWS FROM \(unnest\()"
        ),
        "the action writer stores the rows of every thread recorded since its last flush "
        "in one INSERT ... SELECT FROM unnest(arrays) or ROWS FROM (unnest(array), ...) "
        "(the write-behind batch): on Citus "
        "it runs through the coordinator, which sends each row to its thread's shard",
    ),
}
"""Hot-path statements that do not name their thread by equality, and why."""


def _table_refs(text: str, schema: str) -> list[tuple[str, str, int]]:
    """(table, alias, position) of each per-thread table the statement reads or writes."""
    refs = []
    pattern = re.compile(
        rf"""\b(FROM|JOIN|INTO|UPDATE)\s+"?{re.escape(schema)}"?\."?(\w+)"?(?:\s+(?:AS\s+)?(\w+))?""",
        re.IGNORECASE,
    )
    for m in pattern.finditer(text):
        table, alias = m.group(2), m.group(3)
        if table in PER_THREAD_TABLES:
            if alias is None or alias.lower() in NOT_AN_ALIAS:
                alias = table
            refs.append((table, alias, m.start()))
    return refs


def _scopes(text: str) -> list[int]:
    """For each position, where the innermost parenthesis around it opens (-1: none)."""
    stack, out = [-1], []
    for i, ch in enumerate(text):
        if ch == ")" and len(stack) > 1:
            stack.pop()
        out.append(stack[-1])
        if ch == "(":
            stack.append(i)
    return out


def _opening(text: str, close: int) -> int:
    """Where the parenthesis closed at ``close`` opens."""
    depth = 0
    for i in range(close, -1, -1):
        depth += text[i] == ")"
        depth -= text[i] == "("
        if depth == 0:
            return i
    return -1


def _split_top(text: str) -> list[str]:
    """``a, f(b, c), d`` -> the three items (commas inside parentheses kept)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


PARAM = re.compile(r"""(?:%\(\w+\)s|%s|[\w".]+\.fenced\(\s*(?:%\(\w+\)s|%s)\s*,[^()]*\))""")


FENCE_WRAP = re.compile(r"\(SELECT (.*?)(?: FROM fence)?\)")
"""A fenced thread id: ``(SELECT %s FROM fence)``, ``(SELECT {s}.fenced(%s, ...))``."""


def _is_param(item: str) -> bool:
    """``%s``, ``%(name)s`` or ``{s}.fenced(%s, ...)``, with any cast, maybe fenced."""
    item = item.strip()
    wrapped = FENCE_WRAP.fullmatch(item)
    if wrapped is not None:  # one row from the fence check: still the one parameter
        item = wrapped.group(1).strip()
    return PARAM.fullmatch(re.sub(r"(::[\w ]+(\[\])?)+$", "", item)) is not None


def _closing(text: str, start: int) -> int:
    """Where the parenthesis opened at ``start`` closes."""
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == "("
        depth -= text[i] == ")"
        if depth == 0:
            return i
    return len(text)


def _insert_binds_thread(text: str, at: int) -> bool:
    """Whether the statement at ``at`` is an INSERT giving each row's ``thread_id`` a parameter.

    Rows come from ``VALUES (...), (...)`` or from one ``SELECT item, ...`` (no FROM).
    """
    cols = re.compile(r"INTO[^(]*\(([^)]*)\)\s*(VALUES|SELECT)\s*", re.IGNORECASE).match(text, at)
    if cols is None:
        return False
    names = [c.strip().strip('"') for c in cols.group(1).split(",")]
    if "thread_id" not in names:
        return False
    index, pos = names.index("thread_id"), cols.end()
    if cols.group(2).upper() == "SELECT":  # one row, unless it has a FROM of its own
        rest = text[pos:]
        depth = _scopes(rest)
        ends = [m for m in re.finditer(r" (FROM|ON CONFLICT|WHERE|RETURNING)\b", rest)]
        end = next((m for m in ends if depth[m.start()] == -1), None)
        # FROM fence: the one-row CTE of the fence check (checkpoints/sql.py), no other rows
        if (
            end is not None
            and end.group(1) == "FROM"
            and not rest[end.start() :].startswith(" FROM fence")
        ):
            return False
        items = _split_top(rest[: end.start() if end else len(rest)])
        return _is_param(items[index])
    rows = 0
    while pos < len(text) and text[pos] == "(":
        end = _closing(text, pos)
        if not _is_param(_split_top(text[pos + 1 : end])[index]):
            return False
        rows += 1
        pos = end + 1
        while text[pos : pos + 2] == ", ":
            pos += 2
    return rows > 0


def unrouted_tables(text: str, schema: str) -> list[str]:
    """The per-thread tables of a statement that are not tied to one thread by equality."""
    refs = _table_refs(text, schema)
    if not refs:
        return []
    if THREAD_FROM_SET.search(text):
        return [table for table, _, _ in refs]
    scope = _scopes(text)
    bound = {m.group(1) or m.group(2) for m in THREAD_EQ.finditer(text)} - {None}
    # an unqualified thread_id = %s binds the tables of its own (sub)query ...
    for m in THREAD_EQ.finditer(text):
        if not (m.group(1) or m.group(2)):
            bound |= {alias for _, alias, at in refs if scope[at] == scope[m.start()]}
    # ... and a derived table made of them: ``(SELECT ... WHERE thread_id = %s) c``
    for m in re.finditer(r"\)\s*(?:AS\s+)?(\w+)\b", text):
        opened = _opening(text, m.start())
        if any(alias in bound and scope[at] == opened for _, alias, at in refs):
            bound.add(m.group(1))
    bound |= {alias for _, alias, at in refs if _insert_binds_thread(text, at)}
    # A join on thread_id to a bound row (x.thread_id = c.thread_id) does not
    # count: Citus refuses it ("complex joins are only supported when all
    # distributed tables are co-located and joined on their distribution columns").
    return [table for table, alias, _ in refs if alias not in bound]


@contextlib.contextmanager
def recorded_statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement sent by any connection of this process, rendered and minified."""
    seen: list[str] = []

    def render(cur: Any, query: Any) -> None:
        if isinstance(query, sql.Composable):
            query = query.as_string(cur)
        if isinstance(query, bytes):
            query = query.decode()
        seen.append(" ".join(str(query).split()))

    with monkeypatch.context() as m:
        for cls in (psycopg.Cursor, psycopg.AsyncCursor):
            for name in ("execute", "executemany"):
                original = getattr(cls, name)
                if cls is psycopg.Cursor:

                    def wrapped(
                        self: Any, query: Any, *a: Any, _o: Any = original, **k: Any
                    ) -> Any:
                        render(self, query)
                        return _o(self, query, *a, **k)
                else:

                    async def wrapped(  # type: ignore[misc]
                        self: Any, query: Any, *a: Any, _o: Any = original, **k: Any
                    ) -> Any:
                        render(self, query)
                        return await _o(self, query, *a, **k)

                m.setattr(cls, name, wrapped)
        # the hot statements that go to libpq directly, below the cursor (db.direct)
        usable = direct.usable

        def usable_recorded(conn: Any, op: Any) -> Any:
            stmt = usable(conn, op)
            if stmt is not None:
                render(conn, op.query)
            return stmt

        m.setattr(direct, "usable", usable_recorded)
        yield seen


class Steps(TypedDict):
    out: Annotated[list[str], operator.add]


def _graph() -> StateGraph[Steps]:
    @action(idempotent=False)
    def charge(n: int) -> int:
        return n * 2

    model = GenericFakeChatModel(messages=iter([AIMessage("hello")] * 8))

    def first(state: Steps) -> dict[str, Any]:
        return {"out": [str(charge(3)), str(model.invoke("q").content)]}

    def second(state: Steps) -> dict[str, Any]:
        return {"out": ["done"]}

    graph = StateGraph(Steps).add_sequence([first, second])
    return graph.add_edge(START, "first").add_edge("second", END)


def _check_hot_path(seen: list[str], schema: str) -> None:
    statements = sorted(set(seen))
    touched = {t for s in statements for t, _, _ in _table_refs(s, schema)}
    assert {"checkpoints", "blobs", "writes", "actions"} <= touched  # the run covered them
    excused: set[str] = set()
    offenders = []
    for text in statements:
        tables = unrouted_tables(text, schema)
        if not tables:
            continue
        names = [n for n, (pattern, _) in HOT_PATH_EXCEPTIONS.items() if pattern.search(text)]
        if names:
            excused.update(names)
        else:
            offenders.append((tables, text[:300]))
    assert offenders == []
    assert excused == set(HOT_PATH_EXCEPTIONS), "a listed exception no longer occurs"
    reports = cross_thread_statements(schema)
    ran = [name for name, text in reports.items() if " ".join(text.split()) in statements]
    assert ran == [], "a cross-thread report ran on the graph's path"


def cross_thread_statements(schema: str) -> dict[str, str]:
    """Statements that read or change many threads, with why they are not on the hot path.

    On Citus each goes to every shard (scatter-gather); see the docs' "Scaling out" page.
    """
    from langgraph_actionckpt.checkpoints.sql import Queries
    from langgraph_actionckpt.ops import reports, retention

    return {
        # actionckpt runs / failed: every thread's actions, grouped by thread
        "runs": reports._q(schema, reports._RUNS_SQL, unsettled=reports._UNSETTLED).as_string(),
        # actionckpt inflight: every unfinished action of every thread
        "inflight": reports._q(
            schema, reports._INFLIGHT_SQL, unsettled=reports._UNSETTLED
        ).as_string(),
        # actionckpt prune / archive: idle threads are found by scanning them all
        "prune-candidates": retention._Sql(schema).candidates().as_string(),
        # delete_for_runs: by run id, whatever the thread
        "delete-runs": Queries(schema).delete_runs.as_string(),
    }


def test_the_statements_of_the_hot_path_name_one_thread_sync(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph = _graph().compile(checkpointer=saver)
        cfg: Any = {
            "configurable": {"thread_id": "t1"},
            "callbacks": [ActionCallbackHandler(saver)],
        }
        with recorded_statements(monkeypatch) as seen:
            graph.invoke({"out": []}, cfg)
            graph.invoke({"out": []}, cfg)
            graph.get_state(cfg)
            assert len(list(graph.get_state_history(cfg))) >= 6
            assert saver.list_actions("t1") and saver.last_action("t1") is not None
    _check_hot_path(seen, schema)


async def test_the_statements_of_the_hot_path_name_one_thread_async(
    dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as saver:
        await saver.setup()
        graph = _graph().compile(checkpointer=saver)
        cfg: Any = {
            "configurable": {"thread_id": "t1"},
            "callbacks": [AsyncActionCallbackHandler(saver)],
        }
        with recorded_statements(monkeypatch) as seen:
            await graph.ainvoke({"out": []}, cfg)
            await graph.ainvoke({"out": []}, cfg)
            await graph.aget_state(cfg)
            assert len([s async for s in graph.aget_state_history(cfg)]) >= 6
            assert await saver.alist_actions("t1") and await saver.alast_action("t1")
    _check_hot_path(seen, schema)


def test_the_checker_tells_routed_from_scattered_statements() -> None:
    s = '"sch"'
    routed = [
        f"SELECT * FROM {s}.actions WHERE thread_id = %(thread_id)s AND task_id = %(t)s",
        f"DELETE FROM {s}.writes WHERE thread_id = %s",
        f"INSERT INTO {s}.blobs (thread_id, channel) VALUES (%(thread_id)s, %(c)s), (%s, %s)",
        f"SELECT c.x FROM (SELECT * FROM {s}.checkpoints WHERE thread_id = %(thread_id)s) c "
        f"LEFT JOIN LATERAL (SELECT 1 FROM {s}.writes w WHERE w.thread_id = %(thread_id)s) wr",
        f"UPDATE {s}.leases SET token = 1 WHERE thread_id = {s}.fenced(%(thread)s, %(token)s)",
        f"INSERT INTO {s}.writes (thread_id, idx) VALUES ({s}.fenced(%s, %s), %s::int)",
        f"INSERT INTO {s}.leases AS l (thread_id, holder) SELECT %(thread)s, %(holder)s "
        "ON CONFLICT (thread_id) DO UPDATE SET holder = excluded.holder",
    ]
    scattered = [
        f"SELECT * FROM {s}.actions WHERE status = 'failed'",
        f"DELETE FROM {s}.writes WHERE thread_id = ANY(%(ids)s::text[])",
        f"SELECT * FROM unnest(%s::text[]) AS t(thread_id) JOIN {s}.blobs b USING (thread_id)",
        f"INSERT INTO {s}.actions (thread_id) SELECT x FROM unnest(%s::text[]) AS x",
        f"INSERT INTO {s}.actions (thread_id) SELECT %s FROM {s}.checkpoints",
        f"SELECT * FROM {s}.checkpoints c JOIN {s}.writes w ON w.thread_id = c.thread_id",
        # a join to a routed row: Citus refuses it (complex joins)
        f"SELECT c.x FROM (SELECT * FROM {s}.checkpoints WHERE thread_id = %(thread_id)s) c "
        f"LEFT JOIN LATERAL (SELECT 1 FROM {s}.writes w WHERE w.thread_id = c.thread_id) wr",
    ]
    assert [unrouted_tables(t, "sch") for t in routed] == [[]] * len(routed)
    assert all(unrouted_tables(t, "sch") for t in scattered)


def test_the_lease_statements_name_one_thread() -> None:
    from langgraph_actionckpt.db.fence import LeaseQueries

    lease = LeaseQueries("sch")
    statements = {
        name: value.as_string()
        for name, value in vars(lease).items()
        if isinstance(value, sql.Composable) and name != "fenced"  # a fragment of writes
    }
    assert statements  # acquire, renew, release
    assert {name: unrouted_tables(text, "sch") for name, text in statements.items()} == {
        name: [] for name in statements
    }
