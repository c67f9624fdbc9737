"""What rows hold is printed as data by every command: no terminal control, no rich markup.

A name, error or thread id is written by whoever can write to the database or
call the service; printing it must not clear the reader's screen, retitle the
terminal, reorder the line (bidi overrides) or be read as rich markup.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.display import cell, clean, json_text, safe

runner = CliRunner()

CLEAR = "\x1b[2J\x1b[31mFAKE"
MARKUP = "[/]"
STYLED = "[bold red]alert[/bold red] :warning:"
BIDI = "evil\u202etxt.exe"
TITLE = "t\x1b]0;owned\x07 \r\n"
FORBIDDEN = ("\x1b", "\x07", "\r", "\u202e", "⚠")


def hostile_rows(now: dt.datetime) -> list[ActionRecord]:
    """A failed, a running and a completed action per hostile text, over three threads."""
    rows = []
    for i, text in enumerate((CLEAR, MARKUP, STYLED, BIDI)):
        at = now + dt.timedelta(seconds=i)
        rows += [
            ActionRecord(
                TITLE + text,
                f"fail-{i}",
                "tool_call",
                name=text,
                status="failed",
                error={"type": text, "message": f"boom {text}"},
                started_at=at,
                completed_at=at,
            ),
            ActionRecord(
                "inflight " + text,
                f"run-{i}",
                "tool_call",
                name=text,
                status="running",
                idempotent=False,
                started_at=at - dt.timedelta(hours=1),
            ),
            ActionRecord(
                text,
                f"llm-{i}",
                "llm_completion",
                name=text,
                model=text,
                status="completed",
                output={"text": text},
                started_at=at,
                completed_at=at,
            ),
        ]
    return rows


@pytest.fixture
def hostile(saver: ActionSaver) -> list[ActionRecord]:
    rows = hostile_rows(dt.datetime.now(dt.UTC))
    saver.record_actions(rows)
    return rows


def invoke(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result.stdout + result.stderr


def commands(rows: list[ActionRecord]) -> list[list[str]]:
    threads = sorted({r.thread_id for r in rows})
    return [["runs"], ["failed"], ["inflight"], ["stats"], ["to-resume"]] + [
        ["show", t] for t in threads
    ]


def test_human_output_shows_rows_as_escaped_text(
    hostile: list[ActionRecord], dsn: str, schema: str
) -> None:
    base = ["--dsn", dsn, "--schema", schema]
    seen = ""
    for cmd in commands(hostile):
        out = invoke(*cmd, *base)
        for bad in FORBIDDEN:
            assert bad not in out, (cmd, bad, out)
        seen += out
    # every hostile text is there, as text: escapes for controls, brackets as typed
    assert "\\x1b[2J\\x1b[31mFAKE" in seen
    assert MARKUP in seen and "[bold red]alert[/bold red] :warning:" in seen
    assert "evil\\u202etxt.exe" in seen and "\\x1b]0;owned\\x07" in seen


def test_json_output_round_trips_rows(hostile: list[ActionRecord], dsn: str, schema: str) -> None:
    base = ["--dsn", dsn, "--schema", schema, "--json"]
    names: set[str] = set()
    for cmd in commands(hostile):
        out = invoke(*cmd, *base)
        assert "\x1b" not in out and "\u202e" not in out  # JSON escapes them itself
        doc = json.loads(out)
        for key in ("runs", "failed", "inflight", "actions"):
            for item in doc.get(key, []):
                names.add(item.get("name") or item.get("last_action_name") or "")
    assert {CLEAR, MARKUP, STYLED, BIDI} <= names


def test_to_resume_lists_hostile_runs_and_agents_as_text(
    hostile: list[ActionRecord], saver: ActionSaver, dsn: str, schema: str
) -> None:
    """``to-resume``: runs with a hostile id, each agent (a hostile one too), as data."""
    run_id = "run " + BIDI
    at = dt.datetime.now(dt.UTC)
    saver.record_actions(
        [
            ActionRecord(
                run_id, "agent-row", "function", name=STYLED, status="running",
                agent_id=CLEAR, task_id=f"{run_id}/{CLEAR}", run_id=run_id, started_at=at,
            )
        ]
    )  # fmt: skip
    # to resume: a failed last action (TITLE + text), an action in flight ("inflight " + text)
    expected = {r.thread_id for r in hostile if r.status != "completed"} | {run_id}
    base = ["--dsn", dsn, "--schema", schema]
    out = invoke("to-resume", *base)
    for bad in FORBIDDEN:
        assert bad not in out, (bad, out)
    assert "\\x1b[2J\\x1b[31mFAKE" in out and "evil\\u202etxt.exe" in out
    assert "[bold red]alert[/bold red]" in out
    doc = json.loads(invoke("to-resume", *base, "--json"))
    assert {r["run_id"] for r in doc["runs"]} == expected
    (mine,) = [r for r in doc["runs"] if r["run_id"] == run_id]
    assert list(mine["agents"]) == [CLEAR]
    assert [a["name"] for a in mine["agents"][CLEAR]["in_flight"]] == [STYLED]
    only = json.loads(invoke("to-resume", *base, "--json", "--action-runs-only"))
    assert [r["run_id"] for r in only["runs"]] == [run_id]  # the one recorded as by ActionRun


def test_timeline_command_names_hostile_paths_as_text(
    hostile: list[ActionRecord], dsn: str, schema: str, tmp_path: Path
) -> None:
    page = tmp_path / "t\x1b[2J.html"
    out = invoke("timeline", CLEAR, "--html", str(page), "--dsn", dsn, "--schema", schema)
    assert "\x1b" not in out and "\\x1b[2J.html" in out
    drawn = page.read_text(encoding="utf-8")
    assert "\x1b" not in drawn and "\\u001b[2J" in drawn  # names drawn as escaped text
    missing = invoke("timeline", "nope\x1b[2J", "--dsn", dsn, "--schema", schema, code=1)
    assert "\x1b" not in missing and "nope\\x1b[2J" in missing


@pytest.mark.parametrize(("json_flag", "code"), [([], 1), (["--json"], 0)], ids=["human", "json"])
def test_undecodable_thread_argument_is_reported_not_crashed(
    saver: ActionSaver, dsn: str, schema: str, json_flag: list[str], code: int
) -> None:
    # a command-line argument that is not UTF-8 reaches Python as a lone surrogate
    out = invoke("show", "bad\udcff\x1b", "--dsn", dsn, "--schema", schema, *json_flag, code=code)
    assert "\x1b" not in out and "\\udcff" in out, out


def test_display_helpers() -> None:
    assert clean("a\x1b[2Jb\x00\x7f\x9b\u2028\u202e\u2066\ud800é✓") == (
        "a\\x1b[2Jb\\x00\\x7f\\x9b\\u2028\\u202e\\u2066\\ud800é✓"
    )
    assert clean(None) == "" and clean(12) == "12"
    assert cell("[/]").plain == "[/]" and cell("x", "red").style == "red"
    assert safe("[/] \x1b") == "\\[/] \\x1b"
    doc: Any = {"k\udcff": "v\ud800\x1b", "ok": "é"}
    text = json_text(doc)
    text.encode("utf-8")
    assert json.loads(text) == doc and "é" in text
