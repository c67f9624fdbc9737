"""A thread's action log as one self-contained HTML page (``actionckpt timeline``).

The page needs no network: the data is embedded as JSON and drawn by plain
JavaScript into SVG. One lane per agent and node, with a lane under it per kind
of call made in it (LLM, tool...); one bar per action, coloured by status as
the notebooks colour them (:data:`STATUS_COLOURS`); labelled markers where a
process died and where the thread resumed; a replayed action drawn where the
resume served it; tokens and cost per action (:mod:`.cost` prices); a click on
a bar shows its input and output. Everything from rows is text (control
characters escaped, :mod:`.display`); malformed meta is listed, never trusted.

Where a process died is read off the log itself: a run (``run_id``) that left
actions ``running`` and was followed by another run of the same thread died
after its last recorded moment, and the next run's first action is the resume.
"""

from __future__ import annotations

import bisect
import datetime as dt
import html
import itertools
import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.ops.cost import PriceTable, spend
from langgraph_actionckpt.ops.display import clean, json_text

__all__ = ["STATUS_COLOURS", "render_timeline", "timeline_data"]

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


STATUS_COLOURS = {
    "completed": "#1f77b4",
    "replayed": "#2ca02c",
    "failed": "#d62728",
    "running": "#ff7f0e",
    "reused": "#9467bd",
    "superseded": "#7f7f7f",
}
"""Bar colour per status: matplotlib's tab10, as the notebooks draw executed
(``tab:blue``), replayed (``tab:green``), failed (``tab:red``) and cut short by
the crash (``tab:orange``) actions; reused by meaning is ``tab:purple``, a dead
attempt's row closed by a resume (superseded) ``tab:gray``."""

_CHILD_ORDER = {"llm_completion": 0, "tool_call": 1}


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


def _resumed_at(record: ActionRecord) -> tuple[dt.datetime | None, str | None]:
    """``meta.resumed_at`` as an aware moment, and what is wrong with it if anything.

    Any service client can write meta: a value that is not an ISO 8601 moment
    is reported, never trusted; one without a time zone is read as UTC, as the
    recorder writes it, and reported too.
    """
    meta = record.meta if isinstance(record.meta, dict) else {}
    if "resumed_at" not in meta:
        return None, None
    at = meta["resumed_at"]
    if isinstance(at, str):
        try:
            at = dt.datetime.fromisoformat(at)
        except ValueError:
            return None, "not a date and time: ignored"
    if not isinstance(at, dt.datetime):
        return None, f"a {type(at).__name__}, not a date and time: ignored"
    if at.tzinfo is None:
        return at.replace(tzinfo=dt.UTC), "no time zone: read as UTC"
    return at, None


class _Lanes:
    """Lanes of the page: one per agent and node, each with a lane per kind of call in it."""

    def __init__(self) -> None:
        self.keys: dict[tuple[str, str, str], int] = {}
        self.lanes: list[dict[str, Any]] = []

    def _lane(self, key: tuple[str, str, str], name: str, parent: int | None) -> int:
        if key not in self.keys:
            self.keys[key] = len(self.lanes)
            self.lanes.append({"name": clean(name), "depth": 0 if parent is None else 1,
                               "parent": parent})  # fmt: skip
        return self.keys[key]

    def of(self, r: ActionRecord) -> int:
        agent = r.agent_id or "root"
        if r.action_type == "node" or not r.node:
            what = r.node or r.name or r.action_type
            return self._lane((agent, what, ""), f"{agent} · {what}", None)
        parent = self._lane((agent, r.node, ""), f"{agent} · {r.node}", None)
        return self._lane((agent, r.node, r.action_type), r.action_type, parent)

    def ordered(self) -> tuple[list[dict[str, Any]], list[int]]:
        """Lanes with each node's call lanes right under it; old index -> new index."""
        order: list[int] = []
        for i, lane in enumerate(self.lanes):
            if lane["parent"] is None:
                order.append(i)
                kids = [j for j, x in enumerate(self.lanes) if x["parent"] == i]
                order += sorted(kids, key=lambda j: (_CHILD_ORDER.get(self.lanes[j]["name"], 9), j))
        new = {old: n for n, old in enumerate(order)}
        lanes = [{**self.lanes[old], "parent": new.get(self.lanes[old]["parent"])}
                 for old in order]  # fmt: skip
        return lanes, [new[i] for i in range(len(self.lanes))]


def timeline_data(
    records: Sequence[ActionRecord], prices: PriceTable | None = None
) -> dict[str, Any]:
    """The JSON the page draws: lanes, bars, markers, totals and what was malformed.

    Args:
        records: One thread's actions (any order).
        prices: Prices for the cost column (default: :class:`PriceTable`, which
            reads ``ACTIONCKPT_PRICES``).
    """
    table = prices or PriceTable()
    rows = sorted(
        (r for r in records if r.started_at is not None),
        key=lambda r: (r.started_at, r.step_index or 0),
    )
    empty: dict[str, Any] = {
        "thread_id": None,
        "lanes": [],
        "bars": [],
        "markers": [],
        "totals": {},
    }
    if not rows:
        return {**empty, "colours": STATUS_COLOURS, "warnings": []}
    origin = rows[0].started_at
    assert origin is not None
    end_of_log = max((r.completed_at or r.started_at) for r in rows if r.started_at)
    runs: dict[str | None, list[ActionRecord]] = {}
    for r in rows:
        runs.setdefault(r.run_id, []).append(r)
    run_order = sorted(runs, key=lambda k: runs[k][0].started_at or origin)
    run_last: dict[str | None, dt.datetime] = {
        k: max((x.completed_at or x.started_at or origin) for x in v) for k, v in runs.items()
    }
    warnings: list[dict[str, Any]] = []
    resumes: list[dt.datetime] = []
    for r in rows:
        at, problem = _resumed_at(r)
        if at is not None:
            resumes.append(at)
        if problem is not None:
            value = (r.meta or {}).get("resumed_at")
            warnings.append({"action_id": clean(r.action_id), "field": "meta.resumed_at",
                             "value": clean(repr(value))[:200], "problem": problem})  # fmt: skip
    markers = _crash_markers(rows, runs, run_order, resumes, origin)
    resume_at = sorted(m["at"] for m in markers if m["kind"] == "resume")
    lanes = _Lanes()
    bars: list[dict[str, Any]] = []
    for r in rows:
        start = _ms(r.started_at, origin) or 0.0
        if r.completed_at is not None:
            end = _ms(r.completed_at, origin)
        elif r.latency_ms is not None:
            end = start + r.latency_ms
        else:  # never completed: drawn up to the end of its run
            end = _ms(run_last.get(r.run_id, end_of_log), origin)
        end = max(end or start, start)
        status = _status(r)
        first_ran: float | None = None
        if status == "replayed":
            # served from the log by the first resume after it ran: drawn there
            served = next((m for m in resume_at if m >= end), None)
            if served is not None:
                first_ran, start, end = start, served, served
        bars.append(
            {
                "lane": lanes.of(r),
                "start": start,
                "end": end,
                "first_ran": first_ran,
                "status": status,
                "type": clean(r.action_type),
                "name": clean(r.name or r.node or r.action_type),
                "id": clean(r.action_id),
                "step": r.step,
                "attempt": r.attempt,
                "tokens": r.total_tokens,
                "cost": table.cost(r),
                "replayed": r.replayed,
                "model": clean(r.model) or None,
                "trace": clean(r.trace_id) or None,
                "input": _preview(r.input),
                "output": _preview(r.output),
                "error": _preview(r.error),
                "flags": [w["problem"] for w in warnings if w["action_id"] == clean(r.action_id)],
            }
        )
    ordered, renumber = lanes.ordered()
    for bar in bars:
        bar["lane"] = renumber[bar["lane"]]
    money = spend(rows, table)
    return {
        "thread_id": clean(rows[0].thread_id),
        "lanes": ordered,
        "bars": bars,
        "markers": markers,
        "colours": STATUS_COLOURS,
        "warnings": warnings,
        "totals": {
            "actions": len(bars),
            "spent": money.spent,
            "saved": money.saved,
            "tokens_spent": money.tokens_spent,
            "tokens_saved": money.tokens_saved,
            "unpriced": money.unknown,
            "priced": money.priced,
        },
    }


def _crash_markers(
    rows: Sequence[ActionRecord],
    runs: dict[str | None, list[ActionRecord]],
    run_order: list[str | None],
    resumed_at: list[dt.datetime],
    origin: dt.datetime,
) -> list[dict[str, Any]]:
    """Where a process died and where the thread resumed, read off the rows.

    Two signals: a node row the recorder found still ``running`` when the
    thread resumed carries ``meta.resumed_at``; and a run (``run_id``) that left
    rows ``running`` and was followed by another run. The crash is drawn at the
    last moment anything was recorded before the resume.
    """
    resumes = set(resumed_at)
    for previous, current in itertools.pairwise(run_order):
        if any(x.status == "running" for x in runs[previous]):
            first = runs[current][0].started_at
            if first is not None:
                resumes.add(first)
    moments = sorted(m for r in rows for m in (r.started_at, r.completed_at) if m is not None)
    done = sorted(r.completed_at for r in rows if r.completed_at is not None)
    markers: list[dict[str, Any]] = []
    last: dt.datetime | None = None
    for resumed in sorted(resumes):
        # one resume restarts every node the crash cut short, a few ms apart: a
        # new crash needs something completed since the last resume
        if last is not None and bisect.bisect_left(done, resumed) == bisect.bisect_right(
            done, last
        ):
            continue
        k = bisect.bisect_left(moments, resumed)
        if k:
            markers.append({"kind": "crash", "at": _ms(moments[k - 1], origin)})
        markers.append({"kind": "resume", "at": _ms(resumed, origin)})
        last = resumed
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
    payload = json_text(data).replace("<", "\\u003c")
    title = html.escape(f"actionckpt timeline: {data['thread_id']}")
    page = resources.files(__package__).joinpath("timeline.html").read_text(encoding="utf-8")
    return page.replace("__TITLE__", title).replace("__DATA__", payload)
