"""The timeline page: data from a crashed-and-resumed run, drawn in real headless Chromium."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.ops.cost import PriceTable, spend
from langgraph_actionckpt.ops.timeline_html import render_timeline, timeline_data

from .timeline_worker import run

WORKER = Path(__file__).with_name("timeline_worker.py")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def crashed_and_resumed(dsn: str, schema: str, thread: str) -> list[Any]:
    """Run the worker until it SIGKILLs itself mid-node, resume here, return the rows."""
    proc = subprocess.run(
        [
            sys.executable,
            str(WORKER),
            "--dsn",
            dsn,
            "--schema",
            schema,
            "--thread",
            thread,
            "--kill",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr
    out = run(dsn, schema, thread, kill=False, resume=True)
    assert out["messages"][-1].content.startswith("report")
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=0) as saver:
        return saver.list_actions(thread)


def test_timeline_data_shows_the_crash_and_the_resume(dsn: str, schema: str) -> None:
    rows = crashed_and_resumed(dsn, schema, "tl-data")
    data = timeline_data(rows)
    kinds = [m["kind"] for m in data["markers"]]
    assert kinds == ["crash", "resume"], data["markers"]
    assert len(data["bars"]) == len(rows)
    statuses = {b["status"] for b in data["bars"]}
    assert "replayed" in statuses  # the LLM call made before the crash, served on resume
    assert any(lane["name"].endswith("act") for lane in data["lanes"])
    llm = [b for b in data["bars"] if b["type"] == "llm_completion"]
    assert llm and all(b["cost"] is not None and b["cost"] > 0 for b in llm)
    # the killed node's duration counts from the resume, not across the downtime
    act = next(r for r in rows if r.action_type == "node" and r.node == "act")
    assert act.status == "completed" and set(act.meta) >= {"resumed_at", "first_started_at"}
    assert act.started_at is not None and act.completed_at is not None
    assert act.started_at.isoformat() >= act.meta["first_started_at"][:19]
    money = spend(rows)
    assert data["totals"]["saved"] == pytest.approx(money.saved) and money.saved > 0


def test_prices_fall_back_to_the_base_model_and_unknown_is_not_zero() -> None:
    table = PriceTable({"m": (1.0, 0.5, 2.0)})
    assert table.price("m-2025-01-01") == table.price("m")
    assert table.price("other") is None
    assert PriceTable().price("gpt-4o-mini-2024-07-18") is not None


def test_hostile_text_stays_text() -> None:
    import datetime as dt

    from langgraph_actionckpt.actions.record import ActionRecord

    now = dt.datetime.now(dt.UTC)
    rec = ActionRecord(
        thread_id="t</script><script>alert(1)</script>",
        action_id="a",
        action_type="tool_call",
        name="<img src=x onerror=alert(1)>",
        status="completed",
        node="</script>",
        input={"q": "</script><b>"},
        started_at=now,
        completed_at=now,
    )
    page = render_timeline([rec])
    assert "</script><script>alert(1)" not in page
    assert "<img src=x" not in page


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (installed by .ci/run)")
def test_timeline_page_in_headless_chromium(dsn: str, schema: str, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    rows = crashed_and_resumed(dsn, schema, "tl-page")
    page_file = tmp_path / "timeline.html"
    page_file.write_text(render_timeline(rows))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 700})
            page.route(
                "**/*",
                lambda route: (
                    route.abort()
                    if not route.request.url.startswith("file:")
                    else route.continue_()
                ),
            )
            page.goto(page_file.as_uri())
            page.wait_for_function("window.__timeline !== undefined")
            info = page.evaluate("window.__timeline")
            data = timeline_data(rows)
            assert info["lanes"] == len(data["lanes"]) >= 3
            assert info["bars"] == len(rows)
            assert page.locator("line.crash").count() == 1
            assert page.locator("line.resume").count() == 1
            assert page.locator("rect.bar.replayed").count() >= 1
            tool_bar = page.locator("rect.bar").nth(
                next(i for i, b in enumerate(data["bars"]) if b["type"] == "tool_call")
            )
            tool_bar.click()
            detail = page.inner_text("#detail")
            assert "lookup" in detail and "lisbon" in detail and "output:" in detail
            page.screenshot(path=str(tmp_path / "timeline.png"), full_page=True)
        finally:
            browser.close()
    assert (tmp_path / "timeline.png").stat().st_size > 10_000


def test_cli_timeline_writes_the_page(dsn: str, schema: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    rows = crashed_and_resumed(dsn, schema, "tl-cli")
    out = tmp_path / "t.html"
    args = ["timeline", "tl-cli", "--html", str(out), "--dsn", dsn, "--schema", schema]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert page.startswith("<!doctype html>") and "http://" not in page.split("<svg")[0]
    assert '"bars": [' in page and len(rows) == len(timeline_data(rows)["bars"])
    missing = CliRunner().invoke(app, ["timeline", "nope", "--dsn", dsn, "--schema", schema])
    assert missing.exit_code == 1


def _row(meta: Any, **fields: Any) -> Any:
    import datetime as dt

    from langgraph_actionckpt.actions.record import ActionRecord

    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    base = {"action_type": "node", "name": "act", "node": "act", "status": "completed",
            "started_at": now, "completed_at": now + dt.timedelta(seconds=1)}  # fmt: skip
    return ActionRecord(thread_id="t", action_id=fields.pop("action_id", "a"), meta=meta,
                        **{**base, **fields})  # fmt: skip


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("yesterday", "not a date and time: ignored"),
        (12, "a int, not a date and time: ignored"),
        ("2026-01-01T00:00:00.5", "no time zone: read as UTC"),
    ],
)
def test_malformed_resumed_at_is_flagged_not_a_traceback(value: Any, problem: str) -> None:
    import datetime as dt

    early = dt.datetime(2025, 12, 31, 23, 59, tzinfo=dt.UTC)
    rows = [
        _row({"resumed_at": value}),
        _row({"resumed_at": "2026-01-01T00:00:00+00:00"}, action_id="b", started_at=early),
    ]
    data = timeline_data(rows)
    assert data["warnings"] == [
        {"action_id": "a", "field": "meta.resumed_at", "value": repr(value), "problem": problem}
    ]
    flagged = next(b for b in data["bars"] if b["id"] == "a")
    assert flagged["flags"] == [problem]
    page = render_timeline(rows)
    assert "malformed" in page and problem in page


def test_cli_timeline_survives_malformed_meta(saver: ActionSaver, dsn: str, schema: str) -> None:
    from typer.testing import CliRunner

    from langgraph_actionckpt.ops.cli import app

    rows = [_row({"resumed_at": v}, action_id=f"a{i}") for i, v in
            enumerate(("2026-01-01T00:00:00", "not a time", "\x1b[2J"))]  # fmt: skip
    saver.record_actions(rows)
    result = CliRunner().invoke(app, ["timeline", "t", "--dsn", dsn, "--schema", schema,
                                      "--html", "/dev/null"])  # fmt: skip
    assert result.exit_code == 0, (result.output, result.exception)


def test_costs_come_from_a_price_file(tmp_path: Path) -> None:
    import json

    llm = _row(None, action_type="llm_completion", model="scripted", input_tokens=40,
               output_tokens=25, total_tokens=65, replayed=1)  # fmt: skip
    unpriced = timeline_data([llm], PriceTable({}))["totals"]
    assert unpriced["unpriced"] == 1 and unpriced["priced"] == 0
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"*": [2.0, 2.0, 2.0]}))
    totals = timeline_data([llm], PriceTable.from_file(prices))["totals"]
    assert totals["unpriced"] == 0 and totals["saved"] == pytest.approx(65 * 2.0 / 1e6)
    assert PriceTable.from_file(prices).price("gpt-4o-mini") is not None  # defaults kept
    prices.write_text('{"m": "cheap"}')
    from langgraph_actionckpt.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="price file"):
        PriceTable.from_file(prices)
