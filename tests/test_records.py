"""Action rows as written: the encoding of each write column, by name (no database)."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_actionckpt.actions.record import COLUMNS, WRITE_COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import write_row
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


def test_check_record_takes_each_id_at_its_limit_and_refuses_one_over() -> None:
    """The one-length checks of plain ASCII rows refuse what the byte-exact check refuses."""
    from dataclasses import replace

    import pytest

    from langgraph_actionckpt._config import LIMITS
    from langgraph_actionckpt.actions import limits
    from langgraph_actionckpt.errors import ConfigurationError

    checked = {what for _, what in limits._LIMITED}
    assert min(LIMITS[w] for w in checked) == limits._SMALLEST
    assert min(LIMITS[w] for a, w in limits._LIMITED if a != "checkpoint_id") == limits._SECOND
    base = ActionRecord("t", "a", "function")
    for attr, what in limits._LIMITED:
        limit = LIMITS[what]
        for size in (limits._SMALLEST, limits._SECOND, limit):
            if size <= limit:
                limits.check_record(replace(base, **{attr: "x" * size}))
        with pytest.raises(ConfigurationError, match=f"{what} of {limit + 1} bytes"):
            limits.check_record(replace(base, **{attr: "x" * (limit + 1)}))
        # all the others at their limits too: the total is far over every limit
        full = replace(base, **{a: "y" * LIMITS[w] for a, w in limits._LIMITED})
        limits.check_record(full)
        with pytest.raises(ConfigurationError, match=f"{what} of {limit + 1} bytes"):
            limits.check_record(replace(full, **{attr: "x" * (limit + 1)}))
    with pytest.raises(ConfigurationError, match="thread id of 1026 bytes"):
        limits.check_record(replace(base, thread_id="é" * 513))  # non-ASCII: its UTF-8 bytes
