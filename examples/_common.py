"""Helpers shared by the examples and notebooks (not part of the package API).

* :func:`get_model` - the real ``ChatOpenAI`` when ``OPENAI_API_KEY`` is set,
  else the deterministic offline :class:`ScriptedChatModel`, so every example
  runs without a network or a key.
* :func:`example_args` - the ``--dsn``, ``--schema``, ``--thread`` options every
  example accepts.
* :func:`print_actions` - a rich table of a thread's actions.
* :func:`run_child_and_kill` - run this same script in a child process and
  SIGKILL it as soon as a condition holds (a real crash, not an exception).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parent


# ------------------------------------------------------------------ models


def using_real_model() -> bool:
    """True when ``OPENAI_API_KEY`` is set: examples then call the real API."""
    return bool(os.environ.get("OPENAI_API_KEY"))


def get_model(
    *,
    script: Callable[..., Any] | None = None,
    calls_file: str | os.PathLike[str] | None = None,
    **kw: Any,
) -> Any:
    """The chat model the examples use.

    With ``OPENAI_API_KEY`` set: ``ChatOpenAI(model=$OPENAI_MODEL or gpt-4o-mini,
    base_url=$OPENAI_BASE_URL)`` (``script`` and ``calls_file`` are ignored, the
    real model decides). Otherwise the offline ``ScriptedChatModel``: ``script``
    decides each answer as a pure function of the conversation, and every real
    execution (never a replay) is appended to ``calls_file``.
    """
    if using_real_model():
        from langchain_openai import ChatOpenAI

        kw.setdefault("temperature", 0)
        return ChatOpenAI(
            model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
            base_url=os.environ.get("OPENAI_BASE_URL"),
            **kw,
        )
    from fake_openai.models import ScriptedChatModel

    return ScriptedChatModel(
        script=script, calls_file=str(calls_file) if calls_file else None, **kw
    )


# --------------------------------------------------------------- arguments


def example_args(
    description: str | None,
    argv: Sequence[str] | None = None,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> argparse.Namespace:
    """Parse the options every example accepts.

    ``--dsn`` (default ``$ACTIONCKPT_DSN``, else the embedded PostgreSQL),
    ``--schema`` (default ``actionckpt``), ``--thread`` (default: a fresh id) and
    the internal ``--child`` flag used when the script runs itself as the
    process that is going to be killed.
    """
    parser = argparse.ArgumentParser(
        description=(description or "").strip().splitlines()[0] if description else None
    )
    parser.add_argument(
        "--dsn",
        default=os.environ.get("ACTIONCKPT_DSN"),
        help="PostgreSQL DSN (default: $ACTIONCKPT_DSN, else embedded)",
    )
    parser.add_argument("--schema", default="actionckpt", help="schema (default actionckpt)")
    parser.add_argument("--thread", default=None, help="thread id (default: a fresh one)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", default=None, help=argparse.SUPPRESS)
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    return args


def resolve_dsn(dsn: str | None) -> str:
    """An explicit DSN, else ``$ACTIONCKPT_DSN``, else the embedded server's.

    The parent resolves it once and hands it to the child, so both processes
    talk to the same database.
    """
    if dsn:
        return dsn
    if os.environ.get("ACTIONCKPT_DSN"):
        return os.environ["ACTIONCKPT_DSN"]
    from langgraph_actionckpt import embedded_dsn

    return embedded_dsn()


def new_thread_id(prefix: str) -> str:
    """A unique thread id, e.g. ``research-3f9c2a1b``."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def workdir_for(thread: str, given: str | None = None) -> Path:
    """A scratch directory shared by the parent and the child (calls files, outbox)."""
    path = Path(given) if given else Path(os.environ.get("TMPDIR", "/tmp")) / f"actionckpt-{thread}"
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------ calls files


def log_call(path: str | os.PathLike[str], **fields: Any) -> None:
    """Append one JSON line (fsynced: it must survive a SIGKILL a moment later)."""
    line = json.dumps({"pid": os.getpid(), "t": time.time(), **fields})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_calls(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The JSON lines written by :func:`log_call` (or ScriptedChatModel's calls_file)."""
    p = Path(path)
    if not p.exists():
        return []
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


# ------------------------------------------------------------- the crash


def count_actions(
    dsn: str,
    schema: str,
    thread: str,
    *,
    status: str = "completed",
    action_type: str | Sequence[str] | None = None,
    name: str | None = None,
) -> int:
    """How many actions of a thread have a status (read on a fresh connection)."""
    import psycopg
    from psycopg import sql

    types = [action_type] if isinstance(action_type, str) else action_type
    query = sql.SQL(
        "SELECT count(*) FROM {}.actions WHERE thread_id = %s AND status = %s"
        " AND (%s::text[] IS NULL OR action_type = ANY(%s::text[]))"
        " AND (%s::text IS NULL OR name = %s)"
    ).format(sql.Identifier(schema))
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(query, (thread, status, types, types, name, name)).fetchone()
    except psycopg.errors.UndefinedTable:
        return 0
    return int(row[0]) if row else 0


def run_child_and_kill(
    argv: Sequence[str],
    kill_when: Callable[[], bool],
    *,
    timeout: float = 60.0,
    poll: float = 0.02,
    env: dict[str, str] | None = None,
    label: str = "child",
) -> int:
    """Start ``python <argv>`` and SIGKILL it the moment ``kill_when()`` is true.

    The child gets no chance to clean up: no exception, no ``finally``, no
    flush - exactly what an OOM kill or a pulled plug does. Returns the child's
    return code (``-9`` when it was killed; ``0`` if it finished first).
    """
    cmd = [sys.executable, *argv]
    proc = subprocess.Popen(
        cmd,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # relay the child's output through this process (so it lands in the right
    # notebook cell, or in the captured output of a test)
    relay = threading.Thread(target=_relay, args=(proc.stdout,), daemon=True)
    relay.start()
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None:
            if kill_when():
                os.kill(proc.pid, signal.SIGKILL)
                break
            if time.monotonic() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
                raise TimeoutError(f"{label} did not reach the kill condition in {timeout}s")
            time.sleep(poll)
    finally:
        proc.wait()
        relay.join(timeout=5)
    return proc.returncode


def child_exit_hint(rc: int, waited_for: str) -> str:
    """Why a child that should have been killed ended by itself, stated from its return code.

    A non-zero code means the child failed (its traceback was relayed above): most often a
    missing dependency, not the model. A zero code means it finished before ``waited_for``
    happened, which a real model that chose another plan can cause.
    """
    if rc != 0:
        return (
            f"   the child failed (returncode={rc}) before {waited_for}: see its traceback "
            "above (a missing package? `pip install -e '.[all]'` installs what the examples "
            "import)"
        )
    reason = (
        "the real model chose another plan"
        if using_real_model()
        else "the scripted model's plan changed"
    )
    return f"   the child finished (returncode=0) before {waited_for}: {reason}"


def _relay(stream: Any) -> None:
    for line in stream:
        sys.stdout.write(line)
        sys.stdout.flush()


# ------------------------------------------------------------------ output


def fmt_ms(ms: float | None) -> str:
    return "" if ms is None else f"{ms:,.0f}"


def action_rows(
    actions: Sequence[Any], thread_actions: Sequence[Any] | None = None
) -> list[dict[str, Any]]:
    """Actions as plain dicts (for tables and pandas).

    ``position`` is the action's number in its thread (1, 2, 3...): its place in
    ``thread_actions`` (every action of the thread) when given, else in ``actions``.
    """
    numbered = {x.action_id: n for n, x in enumerate(thread_actions or actions, 1)}
    rows = []
    for a in actions:
        rows.append(
            {
                "position": numbered[a.action_id],
                "agent": a.agent_id,
                "node": a.node,
                "type": a.action_type,
                "name": a.name,
                "status": a.status,
                "attempt": a.attempt,
                "replayed": a.replayed,
                "tokens": a.total_tokens,
                "latency_ms": None if a.latency_ms is None else round(a.latency_ms, 1),
                "started_at": a.started_at,
                "completed_at": a.completed_at,
                "error": (a.error or {}).get("message") if isinstance(a.error, dict) else a.error,
            }
        )
    return rows


def print_actions(
    actions: Sequence[Any],
    title: str = "actions",
    *,
    types: Sequence[str] | None = None,
    thread_actions: Sequence[Any] | None = None,
    console: Any = None,
) -> None:
    """Print actions as a rich table (position, agent, node, type, name, status, replay...).

    ``position`` is the action's number in its thread (1, 2, 3...): its place in
    ``thread_actions`` (every action of the thread) when given, else in ``actions``.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console(width=130)
    table = Table(title=title, title_justify="left")
    for col, just in (
        ("position", "right"),
        ("agent", "left"),
        ("node", "left"),
        ("type", "left"),
        ("name", "left"),
        ("status", "left"),
        ("attempt", "right"),
        ("served", "left"),
        ("tokens", "right"),
        ("ms", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    colour = {"completed": "green", "failed": "red", "running": "yellow", "pending": "yellow"}
    numbered = {x.action_id: n for n, x in enumerate(thread_actions or actions, 1)}
    for a in actions:
        if types and a.action_type not in types:
            continue
        status = a.status
        c = colour.get(status)
        table.add_row(
            str(numbered[a.action_id]),
            escape(a.agent_id or ""),
            escape(a.node or ""),
            a.action_type,
            escape((a.name or "")[:28]),
            f"[{c}]{status}[/{c}]" if c else status,
            str(a.attempt),
            f"[cyan]replayed x{a.replayed}[/cyan]" if a.replayed else "executed",
            "" if a.total_tokens is None else str(a.total_tokens),
            fmt_ms(a.latency_ms),
        )
    console.print(table)


def normalize_messages(messages: Sequence[Any]) -> list[tuple[Any, ...]]:
    """What a conversation *says* (ids, usage and timing metadata left out)."""
    out = []
    for m in messages:
        calls = tuple(
            (tc["name"], json.dumps(tc["args"], sort_keys=True), tc.get("id"))
            for tc in getattr(m, "tool_calls", None) or []
        )
        out.append((m.type, str(m.content), calls, getattr(m, "tool_call_id", None)))
    return out
