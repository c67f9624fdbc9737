"""Batches column by column store the very bytes the JSON array of rows and psycopg stored."""

from __future__ import annotations

import datetime as dt
import math
import random
import zoneinfo
from typing import Any

import orjson
import psycopg
import pytest
from psycopg import sql

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions import batch_columns, batch_rows
from langgraph_actionckpt.actions.record import (
    ACTION_TYPES,
    COLUMNS,
    STATUSES,
    WRITE_COLUMNS,
    ActionRecord,
)
from langgraph_actionckpt.actions.records import _PG_TYPES, _arrays_op
from langgraph_actionckpt.db import arrays, encoding, lease
from langgraph_actionckpt.errors import LeaseLostError
from tests.test_records import TEXT, full_record

_PIECES = [
    "a", "Z", "0", " ", "\x00", "\ud800", "\udfff", "\ue000", encoding.MARK, "é", "漢", "🦜",
    '"', "\\", "{", "}", "[", "]", ",", "NULL", "null", "\n", "\t", "\x01", "\x7f", "'", "\u2028",
]  # fmt: skip
_ZONES = [dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), zoneinfo.ZoneInfo("Europe/Paris")]


def _text(rng: random.Random, huge: bool = True) -> str:
    if huge and rng.random() < 0.01:
        return rng.choice(_PIECES) * rng.randint(10_000, 200_000)  # huge
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))


_INDEXED = ("run_id", "task_id")  # (an index entry holds at most ~2.7 KB)


def _json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randint(0, 11 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind in (1, 2):
        return _text(rng)
    if kind == 3:
        return rng.choice([0, -1, 2**31, 2**70, -(2**63), True, False])
    if kind == 4:
        return rng.choice([0.1, -0.0, 1e-300, 5e-324, 1e308, math.nan, math.inf])
    if kind == 5:
        return rng.choice([b"\x00\xff", dt.datetime(2026, 1, 1), (1, "x"), {1, 2}])
    if kind == 6:
        return "".join(rng.choice("abc xyz") for _ in range(rng.randint(0, 50)))  # plain ASCII
    if kind in (7, 8):
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = [_text(rng)[:20] for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.1:
        keys.append(encoding.TAG)
    return {k: _json(rng, depth + 1) for k in keys}


def _maybe(rng: random.Random, value: Any) -> Any:
    return None if rng.random() < 0.3 else value


def _float(rng: random.Random) -> Any:
    # (no -0.0: the JSON path stored 0, its numeric dropping the sign; see the test below)
    return rng.choice([0.0, 0.125, 1e-7, 1e300, 5e-324, math.nan, math.inf, -math.inf])


def _time(rng: random.Random, naive: bool) -> dt.datetime:
    t = dt.datetime(2020, 1, 1) + dt.timedelta(microseconds=rng.randint(0, 10**15))
    if rng.random() < 0.2:
        t = t.replace(microsecond=0)
    return t if naive and rng.random() < 0.2 else t.replace(tzinfo=rng.choice(_ZONES))


def random_records(rng: random.Random, n: int, *, naive: bool = True) -> list[ActionRecord]:
    """Rows with random values of every kind a column holds (text: NUL, surrogates, huge).

    ``naive``: some datetimes have no time zone (read in the session's).
    """
    out: list[ActionRecord] = []
    for i in range(n):
        r = ActionRecord(
            thread_id=rng.choice(["t", "t\x00", "t\ud800", "t🦜", '"t\\"']),
            action_id=f"{_text(rng)[:40]}:{i}",
            action_type=rng.choice(ACTION_TYPES),
            status=rng.choice(STATUSES),
        )
        for name in TEXT - {"thread_id", "action_id", "action_type", "status", "lc_run_id"}:
            setattr(r, name, _maybe(rng, _text(rng, huge=name not in _INDEXED)))
        r.lc_run_id = _maybe(rng, str(rng.choice([0, 2**127, rng.getrandbits(128)])).zfill(32))
        for name in ("input", "output", "error", "meta"):
            setattr(r, name, _json(rng))
        for name in ("step", "input_tokens", "output_tokens", "total_tokens"):
            setattr(r, name, _maybe(rng, rng.randint(-(2**31), 2**31 - 1)))
        r.cached_tokens = r.reasoning_tokens = _maybe(rng, 0)
        r.attempt, r.replayed = rng.randint(1, 9), rng.randint(0, 3)
        r.idempotent, r.replayable = rng.random() < 0.5, rng.random() < 0.5
        r.latency_ms, r.ttft_ms = _maybe(rng, _float(rng)), _maybe(rng, _float(rng))
        r.started_at, r.completed_at = (
            _maybe(rng, _time(rng, naive)),
            _maybe(rng, _time(rng, naive)),
        )
        out.append(r)
    for r in out:  # the uuid column takes canonical text
        if r.lc_run_id is not None:
            h = r.lc_run_id[-32:]
            r.lc_run_id = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return out


def _stored(conn: psycopg.Connection[Any], schema: str) -> list[tuple[Any, ...]]:
    cols = sql.SQL(", ").join(
        sql.SQL("{}::text").format(sql.Identifier(c)) for c in COLUMNS if c != "step_index"
    )
    query = sql.SQL("SELECT {} FROM {}.actions ORDER BY step_index").format(
        cols, sql.Identifier(schema)
    )
    return conn.execute(query).fetchall()


@pytest.mark.parametrize("seed", [1, 2])
def test_columns_store_what_the_json_rows_stored(dsn: str, schema: str, seed: int) -> None:
    rng = random.Random(seed)
    # psycopg dumps a list of datetimes as the first one is (aware or naive): a
    # batch of both kinds went wrong the general way; no longer (seed 1)
    records = random_records(rng, 300, naive=seed == 1)  # x 36 columns: ~10,800 values
    other, third = f"{schema}_json", f"{schema}_arrays"
    try:
        for s in (schema, other, third):
            with ActionSaver.from_conn_string(dsn, schema=s) as saver:
                saver.setup()
                q = saver.store.action_queries
        with psycopg.connect(dsn) as conn:  # one transaction: one now() for both
            arrays.register(conn)
            cur = conn.cursor(binary=True)
            for i in range(0, len(records), 100):
                chunk = records[i : i + 100]
                params = batch_columns.column_params(chunk, None, schema)
                assert params is not None
                cur.execute(type(q)(schema).upsert_columns(False, merge=False), params)
                data = batch_rows.json_chunk(chunk, None, other)
                assert data is not None
                cur.execute(
                    type(q)(other).upsert_json(False, merge=False), [batch_rows.raw_jsonb(data)]
                )
                op = _arrays_op(type(q)(third), chunk, [])  # psycopg's adapters
                cur.execute(op.query, op.params)
            conn.commit()
            got, want = _stored(conn, schema), _stored(conn, other)
            arrays_rows = _stored(conn, third)
        assert len(got) == len(records)
        names = [c for c in COLUMNS if c != "step_index"]
        for g, w in zip(arrays_rows if seed != 1 else want, want, strict=True):
            diff = [(c, x, y) for c, x, y in zip(names, g, w, strict=True) if x != y]
            assert [(c, (x or "")[:300], (y or "")[:300]) for c, x, y in diff] == []
        for g, w in zip(got, want, strict=True):  # the differing columns, shortened
            diff = [(c, x, y) for c, x, y in zip(names, g, w, strict=True) if x != y]
            assert [(c, (x or "")[:300], (y or "")[:300]) for c, x, y in diff] == []
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for s in (other, third):
                conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(s)))


def test_the_column_kinds_match_the_write_columns() -> None:
    texts = {WRITE_COLUMNS[i] for i in batch_columns._TEXT_AT}
    assert texts == {c for c in WRITE_COLUMNS if _PG_TYPES.get(c, "text") in ("text", "uuid")}
    assert {WRITE_COLUMNS[i] for i in batch_columns._FLOAT_AT} == {"latency_ms", "ttft_ms"}
    record = full_record()
    columns = batch_columns._columns([record])
    assert len(columns) == len(WRITE_COLUMNS)
    assert [c[0] for c in columns] == [getattr(record, c) for c in WRITE_COLUMNS]


class _Text(str):
    __slots__ = ()


def test_plain_dicts_are_their_own_json_values() -> None:
    """The writer's shortcut for dicts of ASCII strings encodes what ``to_jsonable`` does."""
    m = encoding.MARK
    values: list[Any] = [
        {"query": "plain"},
        {"tool_call_id": "call_1", "": ""},
        {},
        {"q": "a\x00b"},
        {"a\x00": "b"},
        {"q": m + "x"},
        {m: "x"},
        {"q": "\ud800"},
        {"q": "é"},
        {encoding.TAG: "x"},
        {"q": None},
        {"q": 1, "r": "s"},
        {"q": {"nested": "x"}},
        {1: "x"},
        {_Text("k"): _Text("v")},
        {"q": _Text("\x00")},
        (("q", "x"),),
        "text",
        None,
    ]
    got = batch_columns._jsonable(values)
    want = [None if v is None else encoding.to_jsonable(v) for v in values]
    assert got == want
    assert [_dumped(v) for v in got] == [_dumped(v) for v in want]


def _dumped(value: Any) -> bytes | str:
    try:
        return orjson.dumps(value)
    except TypeError as exc:  # (a str subclass key): the writer takes the JSON path, both ways
        return str(exc)


def test_an_object_in_a_scalar_column_is_left_to_the_json_path() -> None:
    record = ActionRecord(thread_id="t", action_id="a", action_type="tool_call")
    record.step = [1]  # type: ignore[assignment]
    assert batch_columns.column_params([record], None, "s") is None
    record.step, record.name = 1, "{a}[b]"  # braces in text are quoted
    assert batch_columns.column_params([record], None, "s") is not None


def test_a_negative_zero_is_stored_as_the_small_path_stores_it(
    dsn: str, schema: str, saver: ActionSaver
) -> None:
    # The JSON path stored 0 (jsonb numbers are numeric, which has no -0).
    records = [
        ActionRecord(thread_id="z", action_id=f"a{i}", action_type="tool_call") for i in range(40)
    ]
    records[0].latency_ms = -0.0
    saver.record_actions(records)
    saver.record_actions(
        [ActionRecord(thread_id="one", action_id="a", action_type="tool_call", latency_ms=-0.0)]
    )
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            sql.SQL(
                "SELECT latency_ms::text FROM {}.actions WHERE action_id IN ('a0', 'a')"
            ).format(sql.Identifier(schema))
        ).fetchall()
    assert rows == [("-0",), ("-0",)]


def _rows(prefix: str, n: int) -> list[ActionRecord]:
    return [ActionRecord("T", f"{prefix}{i}", "tool_call") for i in range(n)]


@pytest.mark.parametrize("n", [3, 40])
def test_a_fenced_batch_of_a_lost_lease_writes_nothing(dsn: str, schema: str, n: int) -> None:
    with (
        ActionSaver.from_conn_string(dsn, schema=schema, lease="wait", lease_ttl=0.3) as a,
        ActionSaver.from_conn_string(
            dsn, schema=schema, lease="wait", lease_ttl=5, lease_timeout=10
        ) as b,
    ):
        a.setup()
        assert lease.acquire(a, "T")
        a.record_actions(_rows("x", n))  # fenced by a's current token: written
        keeper_a = lease.keeper(a)
        assert keeper_a is not None
        keeper_a._stop.set()  # a stalls: no heartbeat
        keeper_a.renew_now = lambda: None  # type: ignore[method-assign]
        assert lease.acquire(b, "T")  # a's lease expires, b takes it
        with pytest.raises(LeaseLostError):
            a.record_actions(_rows("y", n))
        assert [r.action_id for r in b.list_actions("T", limit=100)] == [f"x{i}" for i in range(n)]
        b.record_actions(_rows("y", n))
        assert len(b.list_actions("T", limit=100)) == 2 * n
