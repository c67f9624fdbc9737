"""Timeline page render time for a large thread (issue #17: 10,000 actions in under 2 s).

Run::

    python -m benchmarks.bench_timeline [--dsn DSN] [--actions 10000] [--repeat 5]

Steps, each timed:

1. write a thread of N action rows (nodes, LLM calls and tool calls over 3 agents,
   a crash and a resume in the middle, some failed and replayed actions) through
   the saver's own writer (batches of 500 go through COPY);
2. read them back with ``list_actions`` and render the page with the timeline
   code (``render_timeline``);
3. open the file in headless Chromium (Debian's ``/usr/bin/chromium`` through
   Playwright, no network) and read ``window.__timeline.paintedMs``: the time from
   navigation start until the first frame after the page drew every bar
   (``performance.now()`` in a ``setTimeout`` queued from a ``requestAnimationFrame``).
   The page is loaded ``--repeat`` times in fresh tabs; the median is reported.

The target is a ratio: median first full render / 2,000 ms must be below 1.
Nothing here is a test assertion (tests/test_timeline_large.py checks the counts).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langgraph_actionckpt.actions.record import ActionRecord

TARGET_MS = 2000.0
_AGENTS = ("root", "research", "writer")
_NODES = ("plan", "search", "draft", "review")
_TOOLS = ("web_search", "fetch_page", "calculator")


def synthetic_thread(n: int, thread_id: str = "bench-timeline") -> list[ActionRecord]:
    """N action rows of one thread, shaped like a long agent run.

    Tasks of one node row, one to three LLM completions and up to two tool calls,
    spread over 3 agents x 4 nodes (12 lanes); the first run dies two thirds of the
    way (its last rows stay ``running``) and a second run resumes, replaying the
    actions of the cut-off task. One action in 50 fails.
    """
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    out: list[ActionRecord] = []
    at = 0.0  # ms since t0
    task = 0
    crash_at = int(n * 2 / 3)
    run = "run-1"
    while len(out) < n:
        agent = _AGENTS[task % len(_AGENTS)]
        node = _NODES[(task // len(_AGENTS)) % len(_NODES)]
        task_id = f"task-{task:06d}"
        ns = "" if agent == "root" else f"{agent}:{task_id}"
        started = at
        children: list[ActionRecord] = []
        for k in range(1 + task % 3):
            kind = "llm_completion" if k % 2 == 0 else "tool_call"
            name = "gpt-4o-mini" if kind == "llm_completion" else _TOOLS[task % len(_TOOLS)]
            latency = 350.0 + (task * 37 + k * 11) % 900 if kind == "llm_completion" else 40.0
            rec = ActionRecord(
                thread_id=thread_id,
                action_id=f"{task_id}:{kind}:{name}:{k}",
                action_type=kind,
                name=name,
                status="completed",
                run_id=run,
                checkpoint_ns=ns,
                task_id=task_id,
                node=node,
                agent_id=agent,
                step=task,
                input={"messages": [f"question {task}.{k} " + "lorem ipsum " * 8]},
                output={"content": f"answer {task}.{k} " + "dolor sit amet " * 8},
                model=name if kind == "llm_completion" else None,
                input_tokens=400 + task % 300 if kind == "llm_completion" else None,
                output_tokens=120 + task % 80 if kind == "llm_completion" else None,
                total_tokens=520 + task % 380 if kind == "llm_completion" else None,
                latency_ms=latency,
                started_at=t0 + dt.timedelta(milliseconds=at),
                completed_at=t0 + dt.timedelta(milliseconds=at + latency),
            )
            if (task + k) % 50 == 49:
                rec.status, rec.error = "failed", {"type": "TimeoutError", "message": "timed out"}
            at += latency + 5.0
            children.append(rec)
        node_row = ActionRecord(
            thread_id=thread_id,
            action_id=f"{task_id}:node",
            action_type="node",
            name=node,
            status="completed",
            run_id=run,
            checkpoint_ns=ns,
            task_id=task_id,
            node=node,
            agent_id=agent,
            step=task,
            started_at=t0 + dt.timedelta(milliseconds=started),
            completed_at=t0 + dt.timedelta(milliseconds=at),
        )
        rows = [node_row, *children]
        if run == "run-1" and len(out) + len(rows) >= crash_at:
            # the process dies inside this task: its rows stay running ...
            for r in rows:
                r.status, r.completed_at, r.latency_ms = "running", None, None
            out.extend(rows[: n - len(out)])
            if len(out) >= n:
                break
            # ... and a new run resumes 30 s later: the task again, its LLM calls replayed
            run = "run-2"
            at += 30_000.0
            for r in rows:
                again = ActionRecord(**{**_fields(r), "action_id": r.action_id + ":again"})
                again.run_id, again.status = run, "completed"
                again.started_at = t0 + dt.timedelta(milliseconds=at)
                again.completed_at = t0 + dt.timedelta(milliseconds=at + 3.0)
                again.replayed = 1 if r.action_type != "node" else 0
                out.append(again)
                at += 4.0
                if len(out) >= n:
                    break
        else:
            out.extend(rows[: n - len(out)])
        task += 1
    return out[:n]


def _fields(r: ActionRecord) -> dict[str, Any]:
    from langgraph_actionckpt.actions.record import COLUMNS

    return {c: getattr(r, c) for c in COLUMNS}


def chromium_path() -> str | None:
    """Debian's chromium (``.ci/run`` installs it), as tests/test_timeline.py uses it."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def open_page(page_file: Path, repeat: int) -> list[dict[str, Any]]:
    """Load the page ``repeat`` times in fresh tabs; ``window.__timeline`` of each load."""
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    results: list[dict[str, Any]] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            for _ in range(repeat + 1):  # the first load warms the browser up, not counted
                page = browser.new_page(viewport={"width": 1400, "height": 800})
                page.route(
                    "**/*",
                    lambda route: (
                        route.abort()
                        if not route.request.url.startswith("file:")
                        else route.continue_()
                    ),
                )
                wall = time.perf_counter()
                page.goto(page_file.as_uri())
                page.wait_for_function(
                    "window.__timeline !== undefined && window.__timeline.paintedMs !== undefined",
                    timeout=60_000,
                )
                info = dict(page.evaluate("window.__timeline"))
                info["wallMs"] = (time.perf_counter() - wall) * 1000.0
                click = time.perf_counter()
                page.locator("rect.bar").nth(info["bars"] // 2).dispatch_event("click")
                page.wait_for_function("document.getElementById('detail').textContent.length > 60")
                info["clickMs"] = (time.perf_counter() - click) * 1000.0
                results.append(info)
                page.close()
        finally:
            browser.close()
    return results[1:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dsn", default=os.environ.get("ACTIONCKPT_DSN"))
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    import psycopg

    from langgraph_actionckpt import ActionSaver
    from langgraph_actionckpt.embedded_postgres import embedded_dsn
    from langgraph_actionckpt.ops.timeline_html import render_timeline

    dsn = args.dsn or embedded_dsn()
    schema = f"bench_tl_{os.getpid()}"
    thread = "bench-timeline"
    records = synthetic_thread(args.actions, thread)
    try:
        with ActionSaver.from_conn_string(dsn, schema=schema, replay=False) as saver:
            saver.setup()
            t = time.perf_counter()
            for r in records:
                saver.writer.enqueue(r)
            saver.writer.flush()
            write_ms = (time.perf_counter() - t) * 1000.0
            t = time.perf_counter()
            rows = saver.list_actions(thread)
            read_ms = (time.perf_counter() - t) * 1000.0
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                psycopg.sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                    psycopg.sql.Identifier(schema)
                )
            )
    assert len(rows) == args.actions, (len(rows), args.actions)
    t = time.perf_counter()
    html = render_timeline(rows)
    render_ms = (time.perf_counter() - t) * 1000.0
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "timeline.html"
        page_file.write_text(html, encoding="utf-8")
        loads = open_page(page_file, args.repeat)
    assert all(x["bars"] == args.actions for x in loads), loads[0]
    painted = statistics.median(x["paintedMs"] for x in loads)
    script = statistics.median(x["renderMs"] for x in loads)
    wall = statistics.median(x["wallMs"] for x in loads)
    click = statistics.median(x["clickMs"] for x in loads)
    print(f"actions: {args.actions}, lanes: {loads[0]['lanes']}, markers: {loads[0]['markers']}")
    print(f"write {write_ms:.0f} ms (writer, COPY) · read {read_ms:.0f} ms (list_actions)")
    print(f"page: {len(html) / 1e6:.1f} MB, built in {render_ms:.0f} ms (render_timeline)")
    print(
        f"browser, median of {len(loads)} loads: first full render {painted:.0f} ms after "
        f"navigation start (script {script:.0f} ms; goto to painted, wall {wall:.0f} ms); "
        f"click to detail {click:.0f} ms"
    )
    print(f"target: first full render / {TARGET_MS:.0f} ms = {painted / TARGET_MS:.2f} (< 1)")
    return 0 if painted < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
