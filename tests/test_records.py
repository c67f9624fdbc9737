"""Action rows as written: the encoding of each write column, by name (no database)."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_actionckpt.actions.records import COLUMNS, WRITE_COLUMNS, ActionRecord, write_row
from langgraph_actionckpt.db import encoding

JSON = {"input", "output", "error", "meta"}
TEXT = {f.name for f in fields(ActionRecord) if f.type in ("str", "str | None")}


def expected(record: ActionRecord) -> tuple[Any, ...]:
    """What each write column must hold, looked up by column name."""
    out: list[Any] = []
    for name in WRITE_COLUMNS:
        value = getattr(record, name)
        if value is None:
            out.append(None)
        elif name in JSON:
            out.append(encoding.dumps(value).decode())
        elif name in TEXT:
            out.append(encoding.escape_text(value))
        else:
            out.append(value)
    return tuple(out)


def full_record() -> ActionRecord:
    """Every field set, each to a value no other field has."""
    values: dict[str, Any] = {}
    for i, f in enumerate(fields(ActionRecord)):
        if f.name == "extra":
            continue
        if f.name in JSON:
            values[f.name] = {"field": f.name, "nul": "a\x00b"}
        elif f.name in TEXT:
            values[f.name] = f"{f.name}\x00{i}"
        elif f.type in ("int", "int | None"):
            values[f.name] = 1000 + i
        elif f.type in ("float | None",):
            values[f.name] = 0.5 + i
        elif f.type == "bool":
            values[f.name] = f.name == "replayable"
        else:
            values[f.name] = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=i)
    return ActionRecord(**values)


def test_write_row_puts_each_column_in_its_place() -> None:
    assert set(WRITE_COLUMNS) == set(COLUMNS) - {"step_index"}
    record = full_record()
    row = write_row(record)
    assert len(row) == len(WRITE_COLUMNS)
    assert row == expected(record)
    # distinct values: a swapped pair of columns cannot hide in the comparison
    assert len({repr(v) for v in row}) == len(row)
    assert row[WRITE_COLUMNS.index("thread_id")] == encoding.escape_text("thread_id\x000")


def test_write_row_of_a_sparse_record() -> None:
    record = ActionRecord(thread_id="t", action_id="a", action_type="llm_completion")
    record.output = AIMessage("hi")
    assert write_row(record) == expected(record)
    assert write_row(record)[WRITE_COLUMNS.index("input")] is None
