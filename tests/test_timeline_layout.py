"""The timeline page's layout, measured in headless Chromium.

Three threads: the swarm example (three agents, a SIGKILL, a resume), a
crashed-and-resumed graph whose nodes call an LLM and a tool (nested lanes), and
10,000 synthetic actions. On each: no two bars overlap, every label is inside the
drawing (and, when the chart fits the window, inside the window), axis labels
are distinct, crash and resume markers are labelled without covering each other,
and replayed actions are drawn at the resume that served them. The screenshots
go to docs/assets/timeline-*.png for the documentation.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from benchmarks.bench_timeline import CHROMIUM_ARGS, chromium_path, synthetic_thread
from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.ops.timeline_html import render_timeline, timeline_data

from .test_timeline import crashed_and_resumed

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "docs" / "assets"
CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)"
)

MEASURE = """() => {
  const box = (el) => el.getBoundingClientRect();
  const bars = [...document.querySelectorAll("rect.bar")].map((el) => {
    const b = box(el); return [b.left, b.right, b.top, b.bottom];
  });
  const svg = box(document.getElementById("svg"));
  const labels = [...document.querySelectorAll("text")].map((el) => {
    const b = box(el);
    return {cls: el.getAttribute("class"), text: el.textContent,
            left: b.left, right: b.right, top: b.top, bottom: b.bottom};
  });
  const chart = document.getElementById("chart");
  return {bars, labels, svg: [svg.left, svg.right], view: window.innerWidth,
          fits: chart.scrollWidth <= chart.clientWidth, info: window.__timeline};
}"""


def overlapping(bars: list[list[float]]) -> list[tuple[list[float], list[float]]]:
    """Pairs of bars whose rectangles intersect (more than a rounding error)."""
    rows: dict[float, list[list[float]]] = {}
    for b in bars:
        rows.setdefault(round(b[2], 1), []).append(b)
    found = []
    for same_row in rows.values():
        same_row.sort()
        for a, b in itertools.pairwise(same_row):
            if a[1] > b[0] + 0.01:
                found.append((a, b))
    return found


def draw(rows: list[Any], name: str, tmp_path: Path) -> dict[str, Any]:
    """Draw ``rows`` in Chromium at 1400x800, check the layout, save the screenshot."""
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    page_file = tmp_path / f"{name}.html"
    page_file.write_text(render_timeline(rows), encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 800})
            page.route(
                "**/*",
                lambda route: (
                    route.abort()
                    if not route.request.url.startswith("file:")
                    else route.continue_()
                ),
            )
            page.goto(page_file.as_uri())
            page.wait_for_function(
                "window.__timeline !== undefined && window.__timeline.paintedMs !== undefined",
                timeout=120_000,
            )
            m = page.evaluate(MEASURE)
            ASSETS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ASSETS / f"timeline-{name}.png"))
        finally:
            browser.close()
    assert len(m["bars"]) == len(rows)
    assert overlapping(m["bars"]) == [], "bars overlap"
    left, right = m["svg"]
    for label in m["labels"]:
        if label["cls"] and "lane" in label["cls"]:
            assert label["left"] >= 0 and label["right"] <= left + 1, label  # the name column
        else:
            assert left - 0.5 <= label["left"] and label["right"] <= right + 0.5, label
        if m["fits"]:
            assert label["right"] <= m["view"], label
    ticks = [x["text"] for x in m["labels"] if x["cls"] == "tick"]
    assert len(ticks) >= 3 and len(ticks) == len(set(ticks)), ticks
    marks = [x for x in m["labels"] if x["cls"] and x["cls"].startswith("mark")]
    assert {x["text"] for x in marks} <= {"crash", "resumed"}
    for a in marks:
        for b in marks:
            if a is not b:
                apart = a["right"] <= b["left"] or b["right"] <= a["left"]
                assert apart or a["bottom"] <= b["top"] or b["bottom"] <= a["top"], (a, b)
    return m


def check_replayed_at_resume(data: dict[str, Any]) -> None:
    resumes = sorted(mk["at"] for mk in data["markers"] if mk["kind"] == "resume")
    replayed = [b for b in data["bars"] if b["status"] == "replayed"]
    assert replayed and resumes
    for b in replayed:  # never left of the resume that served it
        assert b["start"] >= resumes[0], b
        if b["first_ran"] is not None:  # recorded before the crash: moved to the resume
            assert b["start"] in resumes and b["first_ran"] < b["start"]


def check_nested(data: dict[str, Any]) -> None:
    lanes = data["lanes"]
    for b in data["bars"]:
        lane = lanes[b["lane"]]
        if b["type"] in ("llm_completion", "tool_call"):
            assert lane["depth"] == 1 and lane["name"] == b["type"], (b, lane)
            parent = lanes[lane["parent"]]
            assert parent["depth"] == 0 and lane["parent"] < b["lane"]
        elif b["type"] == "node":
            assert lane["depth"] == 0


def test_nested_lanes_crash_and_resume(dsn: str, schema: str, tmp_path: Path) -> None:
    rows = crashed_and_resumed(dsn, schema, "tl-nested")
    data = timeline_data(rows)
    check_nested(data)
    check_replayed_at_resume(data)
    m = draw(rows, "nested", tmp_path)
    assert m["fits"]  # a short thread fits the window: nothing to scroll
    assert [x["text"] for x in m["labels"] if x["cls"] == "mark crash"] == ["crash"]


def test_ten_thousand_actions(tmp_path: Path) -> None:
    rows = synthetic_thread(10_000)
    data = timeline_data(rows)
    check_nested(data)
    check_replayed_at_resume(data)
    assert sum(1 for lane in data["lanes"] if lane["depth"] == 0) == 12
    m = draw(rows, "10000", tmp_path)
    assert m["info"]["bars"] == 10_000


@pytest.fixture
def swarm_schema(pg18_dsn: str) -> Iterator[str]:
    name = f"tl_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(pg18_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def test_swarm_example(pg18_dsn: str, swarm_schema: str, tmp_path: Path) -> None:
    thread = f"swarm-{uuid.uuid4().hex[:6]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # offline model
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "swarm.py"), "--dsn", pg18_dsn,
         "--schema", swarm_schema, "--thread", thread, "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=180, env=env, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    with ActionSaver.from_conn_string(pg18_dsn, schema=swarm_schema, pool_size=0) as saver:
        rows = saver.list_actions(thread)
    data = timeline_data(rows)
    # one SIGKILL, one resume (that restarted every agent's node): one pair of markers
    assert [m["kind"] for m in data["markers"]] == ["crash", "resume"]
    check_nested(data)
    draw(rows, "swarm", tmp_path)
