"""The timeline page with 10,000 actions draws every one of them (counts, not time).

The render time is measured by ``benchmarks/bench_timeline.py`` (benchmarks/README.md);
here the same synthetic thread is drawn in headless Chromium and counted.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks.bench_timeline import CHROMIUM_ARGS, chromium_path, synthetic_thread
from langgraph_actionckpt.ops.timeline_html import render_timeline, timeline_data

N = 10_000
CHROMIUM = chromium_path()


def test_synthetic_thread_has_the_shape_the_benchmark_promises() -> None:
    rows = synthetic_thread(N)
    assert len(rows) == N == len({r.action_id for r in rows})
    data = timeline_data(rows)
    assert len(data["bars"]) == N
    assert sum(1 for lane in data["lanes"] if lane["depth"] == 0) == 12  # 3 agents x 4 nodes
    assert [m["kind"] for m in data["markers"]] == ["crash", "resume"]
    statuses = Counter(b["status"] for b in data["bars"])
    assert statuses["replayed"] >= 1 and statuses["failed"] >= 1 and statuses["running"] >= 1


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (installed by .ci/run)")
def test_page_draws_ten_thousand_actions(tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
    rows = synthetic_thread(N)
    data = timeline_data(rows)
    expected = Counter(b["status"] for b in data["bars"])
    page_file = tmp_path / "timeline.html"
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
            info = page.evaluate("window.__timeline")
            assert (info["bars"], info["lanes"], info["markers"]) == (N, len(data["lanes"]), 2)
            assert page.locator("rect.bar").count() == N
            for status, count in expected.items():
                assert page.locator(f"rect.bar.{status}").count() == count, status
            assert page.locator("line.crash").count() == page.locator("line.resume").count() == 1
            last = page.locator("rect.bar").nth(N - 1)
            last.dispatch_event("click")
            detail = page.inner_text("#detail")
            assert data["bars"][N - 1]["id"] in detail and "input:" in detail
        finally:
            browser.close()
