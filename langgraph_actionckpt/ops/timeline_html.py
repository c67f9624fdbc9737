"""A thread's action log as one self-contained HTML page (``actionckpt timeline``).

The page needs no network: the data is embedded as JSON and drawn by a few lines
of plain JavaScript into SVG. One lane per agent and node; one bar per action,
coloured by status (completed, failed, running, replayed, reused); markers where
a process died and where the thread resumed; tokens and cost per action; a click
on a bar shows its input and output.

Where a process died is read off the log itself: a run (``run_id``) that left
actions ``running`` and was followed by another run of the same thread died
after its last recorded moment, and the next run's first action is the resume.
"""

from __future__ import annotations

import datetime as dt
import html
import itertools
import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from langgraph_actionckpt.actions.records import ActionRecord
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.ops.cost import PriceTable, spend

__all__ = ["render_timeline", "timeline_data"]

PREVIEW_CHARS = 2000
"""Characters of input, output and error kept per action (the page stays small)."""


def _preview(value: Any) -> str | None:
    if value is None:
        return None
    try:
        text = json.dumps(_encoding.to_jsonable(value), ensure_ascii=False, default=str, indent=1)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " ..."


def _ms(moment: dt.datetime | None, origin: dt.datetime) -> float | None:
    return None if moment is None else (moment - origin).total_seconds() * 1000.0


def _status(record: ActionRecord) -> str:
    meta = record.meta if isinstance(record.meta, dict) else {}
    if meta.get("reused_from"):
        return "reused"
    if record.replayed and record.status == "completed":
        return "replayed"
    # a dead attempt's row closed by a resume (actions.settle) is not in flight
    shown = ("completed", "failed", "running", "superseded")
    return record.status if record.status in shown else "running"


def timeline_data(
    records: Sequence[ActionRecord], prices: PriceTable | None = None
) -> dict[str, Any]:
    """The JSON the page draws: lanes, bars, markers and totals.

    Args:
        records: One thread's actions (any order).
        prices: Prices for the cost column (default: :class:`PriceTable`).
    """
    table = prices or PriceTable()
    rows = sorted(
        (r for r in records if r.started_at is not None),
        key=lambda r: (r.started_at, r.step_index or 0),
    )
    if not rows:
        return {"thread_id": None, "lanes": [], "bars": [], "markers": [], "totals": {}}
    origin = rows[0].started_at
    assert origin is not None
    end_of_log = max((r.completed_at or r.started_at) for r in rows if r.started_at)
    lanes: dict[str, int] = {}
    bars: list[dict[str, Any]] = []
    runs: dict[str | None, list[ActionRecord]] = {}
    for r in rows:
        runs.setdefault(r.run_id, []).append(r)
    run_order = sorted(runs, key=lambda k: runs[k][0].started_at or origin)
    run_last: dict[str | None, dt.datetime] = {
        k: max((x.completed_at or x.started_at or origin) for x in v) for k, v in runs.items()
    }
    for r in rows:
        lane = f"{r.agent_id or 'root'} · {r.node or r.name or r.action_type}"
        lanes.setdefault(lane, len(lanes))
        start = _ms(r.started_at, origin) or 0.0
        if r.completed_at is not None:
            end = _ms(r.completed_at, origin)
        elif r.latency_ms is not None:
            end = start + r.latency_ms
        else:  # never completed: drawn up to the end of its run
            end = _ms(run_last.get(r.run_id, end_of_log), origin)
        cost = table.cost(r)
        bars.append(
            {
                "lane": lanes[lane],
                "start": start,
                "end": max(end or start, start),
                "status": _status(r),
                "type": r.action_type,
                "name": r.name or r.node or r.action_type,
                "id": r.action_id,
                "step": r.step,
                "attempt": r.attempt,
                "tokens": r.total_tokens,
                "cost": cost,
                "replayed": r.replayed,
                "model": r.model,
                "trace": r.trace_id,
                "input": _preview(r.input),
                "output": _preview(r.output),
                "error": _preview(r.error),
            }
        )
    markers = _crash_markers(rows, runs, run_order, run_last, origin)
    money = spend(rows, table)
    return {
        "thread_id": rows[0].thread_id,
        "lanes": list(lanes),
        "bars": bars,
        "markers": markers,
        "totals": {
            "actions": len(bars),
            "spent": money.spent,
            "saved": money.saved,
            "tokens_spent": money.tokens_spent,
            "tokens_saved": money.tokens_saved,
            "unpriced": money.unknown,
        },
    }


def _crash_markers(
    rows: Sequence[ActionRecord],
    runs: dict[str | None, list[ActionRecord]],
    run_order: list[str | None],
    run_last: dict[str | None, dt.datetime],
    origin: dt.datetime,
) -> list[dict[str, Any]]:
    """Where a process died and where the thread resumed, read off the rows.

    Two signals: a node row the recorder found still ``running`` when the
    thread resumed carries ``meta.resumed_at``; and a run (``run_id``) that left
    rows ``running`` and was followed by another run. The crash is drawn at the
    last moment anything was recorded before the resume.
    """
    resumes: set[dt.datetime] = set()
    for r in rows:
        meta = r.meta if isinstance(r.meta, dict) else {}
        at = meta.get("resumed_at")
        if isinstance(at, str):
            resumes.add(dt.datetime.fromisoformat(at))
        elif isinstance(at, dt.datetime):
            resumes.add(at)
    for previous, current in itertools.pairwise(run_order):
        if any(x.status == "running" for x in runs[previous]):
            first = runs[current][0].started_at
            if first is not None:
                resumes.add(first)
    markers: list[dict[str, Any]] = []
    for resumed in sorted(resumes):
        before = [
            m for r in rows for m in (r.started_at, r.completed_at) if m is not None and m < resumed
        ]
        if before:
            markers.append({"kind": "crash", "at": _ms(max(before), origin)})
        markers.append({"kind": "resume", "at": _ms(resumed, origin)})
    return markers


def render_timeline(records: Sequence[ActionRecord], prices: PriceTable | None = None) -> str:
    """One self-contained HTML page of a thread's timeline.

    Args:
        records: One thread's actions.
        prices: Prices for cost per action and totals.

    Returns:
        The page's HTML text (no external resources).
    """
    data = timeline_data(records, prices)
    # No "<" at all in the embedded JSON: nothing in it can end the script element.
    payload = json.dumps(data, ensure_ascii=False, default=str).replace("<", "\\u003c")
    title = html.escape(f"actionckpt timeline: {data['thread_id']}")
    page = resources.files(__package__).joinpath("timeline.html").read_text(encoding="utf-8")
    return page.replace("__TITLE__", title).replace("__DATA__", payload)
