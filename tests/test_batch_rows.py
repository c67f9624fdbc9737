"""Large batches go as one JSON array: each column in place, stored as the small path does."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import os
from typing import Any

import psycopg
import pytest
from langchain_core.messages import AIMessage

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.actions import batch_rows
from langgraph_actionckpt.actions.record import COLUMNS, WRITE_COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import JSON_THRESHOLD
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db import encoding
from tests.test_records import JSON, TEXT, full_record


def expected_json(record: ActionRecord) -> list[Any]:
    """What each column of a JSON row must hold, looked up by column name."""
    out: list[Any] = []
    for name in WRITE_COLUMNS:
        value = getattr(record, name)
        if value is None:
            out.append(None)
        elif name in JSON:
            out.append(encoding.to_jsonable(value))
        elif name in TEXT:
            out.append(encoding.escape_text(value))
        else:
            out.append(value)
    return out


def test_json_row_puts_each_column_in_its_place() -> None:
    record = full_record()  # every text value holds a NUL: the escaping path
    row = batch_rows.json_row(record)
    assert len(row) == len(WRITE_COLUMNS)
    assert row == expected_json(record)
    assert len({repr(v) for v in row}) == len(row)
    for name, at in batch_rows.JSON_AT.items():
        assert WRITE_COLUMNS[at] == name


def test_json_row_of_plain_ascii_and_of_a_marked_string() -> None:
    record = ActionRecord(thread_id="t", action_id="a", action_type="tool_call", name="x")
    record.output = AIMessage("hi")
    assert batch_rows.json_row(record) == expected_json(record)
    # a string starting with the escape marker is escaped even without NUL
    marked = ActionRecord(thread_id="t", action_id=f"{encoding.MARK}a", action_type="tool_call")
    assert batch_rows.json_row(marked) == expected_json(marked)
    assert batch_rows.json_row(marked)[1] != marked.action_id


def test_values_nested_past_the_depth_limit_are_stored_as_a_repr() -> None:
    """Dicts, lists and the general path all stop at one limit, ``encoding.MAX_DEPTH``."""
    for leaf in ({}, [], (1,)):
        value: Any = leaf
        for _ in range(encoding.MAX_DEPTH + 1):
            value = [value] if isinstance(value, list) else {"k": value}
        out = encoding.to_jsonable(value)
        for _ in range(encoding.MAX_DEPTH + 1):
            out = out[0] if isinstance(out, list) else out["k"]
        assert out[encoding.TAG] == "repr" and out["repr"] == "<nested too deeply>"
    shallow: Any = {}
    for _ in range(encoding.MAX_DEPTH):
        shallow = [shallow]
    assert encoding.from_jsonable(encoding.to_jsonable(shallow)) == shallow


def test_json_row_sends_non_finite_floats_as_float8_text() -> None:
    record = ActionRecord(thread_id="t", action_id="a", action_type="tool_call")
    record.latency_ms, record.ttft_ms = math.nan, -math.inf
    row = batch_rows.json_row(record)
    assert row[WRITE_COLUMNS.index("latency_ms")] == "NaN"
    assert row[WRITE_COLUMNS.index("ttft_ms")] == "-Infinity"


def _records(thread_id: str, n: int) -> list[ActionRecord]:
    """Rows with every kind of value the columns can hold."""
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    out: list[ActionRecord] = []
    for i in range(n):
        r = ActionRecord(thread_id=thread_id, action_id=f"a{i:03d}", action_type="tool_call")
        r.name = ["plain", "nul\x00in", f"{encoding.MARK}marked", "lone\ud800", "ünï"][i % 5]
        r.status = "completed" if i % 3 else "running"
        r.input = [None, {}, [], 0, "", {"q": "x\x00y"}, {encoding.TAG: 1}, (1, 2)][i % 8]
        r.output = [AIMessage(f"m{i}"), b"\x00bytes", 1.5, None, {"n": 2**70}][i % 5]
        r.error = None if i % 4 else {"type": "E", "message": f"e{i}"}
        r.meta = None if i % 2 else {"k": i}
        r.step, r.attempt, r.idempotent, r.replayable = i, 1 + i % 2, i % 2 == 0, i % 3 == 0
        r.input_tokens = None if i % 2 else i
        r.latency_ms = [0.1, math.nan, math.inf, None, 1e-300][i % 5]
        r.lc_run_id = f"00000000-0000-0000-0000-{i:012d}"
        r.started_at = t0 + dt.timedelta(seconds=i) if i % 6 else None  # None: now()
        r.completed_at = None if i % 2 else t0 + dt.timedelta(microseconds=i)
        r.trace_id = f"{i:032x}"
        out.append(r)
    return out


def _stored(dsn: str, schema: str, thread_id: str) -> list[tuple[Any, ...]]:
    cols = [c for c in COLUMNS if c not in ("thread_id", "step_index", "started_at")]
    query = psycopg.sql.SQL(
        "SELECT {}, started_at IS NOT NULL FROM {}.actions WHERE thread_id = %s ORDER BY step_index"
    ).format(psycopg.sql.SQL(", ").join(map(psycopg.sql.Identifier, cols)),
             psycopg.sql.Identifier(schema))  # fmt: skip
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(query, [thread_id]).fetchall()
    return [tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in r) for r in rows]


def _listed(saver: ActionSaver, thread_id: str, n: int) -> list[dict[str, Any]]:
    skip = ("thread_id", "step_index", "started_at", "lc_run_id")
    out = []
    for r in saver.list_actions(thread_id, limit=n):
        d = {k: v for k, v in r.to_dict().items() if k not in skip}
        out.append(
            {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in d.items()}
        )
    return out


def _compare_paths(
    saver: ActionSaver, dsn: str, schema: str, n: int, *, sealed: bool = False
) -> None:
    big, small = _records("big", n), _records("small", n)
    assert n >= JSON_THRESHOLD
    saver.record_actions(big)
    for r in small:
        saver.record_actions([r])  # one row at a time: the small path
    got, want = _stored(dsn, schema, "big"), _stored(dsn, schema, "small")
    assert [r[0] for r in got] == [f"a{i:03d}" for i in range(n)]  # arrival order kept
    if not sealed:  # sealed values differ (a fresh nonce each, bound to the thread)
        assert got == want
    assert _listed(saver, "big", n) == _listed(saver, "small", n)
    listed = saver.list_actions("big", limit=n)
    assert listed[1].name == "nul\x00in" and listed[3].name == "lone\ud800"
    assert listed[5].input == {"q": "x\x00y"} and listed[7].input == (1, 2)
    assert listed[4].output == {"n": 2**70} and listed[1].output == b"\x00bytes"
    assert listed[0].input is None and listed[3].input == 0


def test_a_large_batch_is_stored_as_row_by_row(dsn: str, schema: str, saver: ActionSaver) -> None:
    _compare_paths(saver, dsn, schema, 40)


def test_a_batch_of_several_statements_is_one_transaction(
    dsn: str, schema: str, saver: ActionSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_rows, "MAX_ROWS", 7)
    _compare_paths(saver, dsn, schema, 40)
    # a data error in the last statement leaves nothing of the first ones
    bad = _records("bad", 40)
    bad[-1].input_tokens = 2**40  # over int
    with pytest.raises(psycopg.errors.NumericValueOutOfRange):
        saver.record_actions(bad)
    assert _stored(dsn, schema, "bad") == []


def test_a_value_orjson_does_not_encode_takes_the_general_path(
    dsn: str, schema: str, saver: ActionSaver
) -> None:
    records = _records("dec", 40)
    for r in records:
        r.latency_ms = decimal.Decimal("2.5")  # type: ignore[assignment]
    assert batch_rows.json_chunk(records, None, schema) is None
    saver.record_actions(records)
    assert saver.list_actions("dec", limit=1)[0].latency_ms == 2.5


def test_from_a_chunk_orjson_does_not_encode_on_psycopg_binds_the_rows(
    dsn: str, schema: str, saver: ActionSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_rows, "MAX_ROWS", 7)
    records = _records("mix", 40)
    for r in records[14:]:  # the third chunk on
        r.latency_ms = decimal.Decimal("2.5")  # type: ignore[assignment]
    saver.record_actions(records)
    rows = saver.list_actions("mix", limit=100)
    assert [r.action_id for r in rows] == [f"a{i:03d}" for i in range(40)]
    assert [r.latency_ms for r in rows[14:]] == [2.5] * 26
    assert rows[0].latency_ms == 0.1


def test_sealed_columns_of_a_large_batch(dsn: str, schema: str) -> None:
    ring = KeyRing({"k1": os.urandom(32)})
    with ActionSaver.from_conn_string(dsn, schema=schema, encryption=ring) as saver:
        saver.setup()
        _compare_paths(saver, dsn, schema, 40, sealed=True)
    with psycopg.connect(dsn, autocommit=True) as conn:
        raw = conn.execute(
            psycopg.sql.SQL("SELECT output::text FROM {}.actions WHERE thread_id = 'big'").format(
                psycopg.sql.Identifier(schema)
            )
        ).fetchall()
    assert raw and all('"ct"' in text and "content" not in text for (text,) in raw if text)


def test_the_writer_inserts_new_rows_and_merges_when_one_exists(
    dsn: str, schema: str, saver: ActionSaver
) -> None:
    first = _records("w", 40)
    saver.action_rows.write(first)  # all new: inserted without the merge
    assert saver.action_rows.merge_next == 0
    later = _records("w", 80)[40:]
    started = ActionRecord(thread_id="w", action_id="a000", action_type="tool_call")
    started.status, started.attempt = "completed", 1
    started.output = "done"
    saver.action_rows.write([*later, started])  # a000 exists: the batch is merged
    assert saver.action_rows.merge_next == saver.action_rows.MERGE_AFTER_CONFLICT
    rows = saver.list_actions("w", limit=200)
    assert len(rows) == 80
    assert [r.action_id for r in rows] == [f"a{i:03d}" for i in range(80)]
    assert rows[0].status == "completed" and rows[0].output == "done"
    assert rows[0].name == "plain"  # merged: a column the later row left out is kept
    saver.action_rows.write(_records("w2", 40))  # merged while the count lasts
    assert saver.action_rows.merge_next == saver.action_rows.MERGE_AFTER_CONFLICT - 1
    assert len(saver.list_actions("w2", limit=100)) == 40


def test_a_pipelined_batch_that_meets_an_existing_row_is_merged(
    dsn: str, schema: str, saver: ActionSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_rows, "MAX_ROWS", 7)  # 6 statements, pipelined
    saver.action_rows.write(_records("p", 20))
    again = _records("p", 40)  # the first 20 exist: the insert fails, the merge writes
    saver.action_rows.write(again)
    assert saver.action_rows.merge_next == saver.action_rows.MERGE_AFTER_CONFLICT
    rows = saver.list_actions("p", limit=100)
    assert [r.action_id for r in rows] == [f"a{i:03d}" for i in range(40)]
    bad = _records("pbad", 40)
    bad[-1].input_tokens = 2**40  # over int, in the last statement
    with pytest.raises(psycopg.errors.NumericValueOutOfRange):
        saver.action_rows.write(bad)
    assert _stored(dsn, schema, "pbad") == []
    saver.action_rows.write(_records("after", 40))  # the connection is usable again
    assert len(_stored(dsn, schema, "after")) == 40


async def test_the_async_writer_pipelines_a_large_batch(
    dsn: str, schema: str, asaver: AsyncActionSaver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_rows, "MAX_ROWS", 7)
    await asaver.action_rows.write(_records("a", 20))
    await asaver.action_rows.write(_records("a", 40))  # 20 exist: merged
    assert asaver.action_rows.merge_next == asaver.action_rows.MERGE_AFTER_CONFLICT
    rows = await asaver.alist_actions("a", limit=100)
    assert [r.action_id for r in rows] == [f"a{i:03d}" for i in range(40)]
