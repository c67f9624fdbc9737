"""Read-only ``actionckpt`` commands: runs, show, failed, inflight, stats, similar."""

from __future__ import annotations

import importlib
import os
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from langgraph_actionckpt.ops.cli_common import (
    ERR,
    FLAG,
    OUT,
    DsnOpt,
    JsonOpt,
    SchemaOpt,
    app,
    emit_json,
    fmt_age,
    fmt_short,
    fmt_size,
    fmt_status,
    guard,
    open_schema,
    parse_duration,
    parse_since,
    say_empty,
    schema_of,
    settings,
)


def _step(step: int | None) -> str:
    """The LangGraph step, or ``-`` for an action recorded outside a graph step."""
    return "-" if step is None else str(step)


@app.command()
def runs(
    ctx: typer.Context,
    status: Annotated[
        str | None, typer.Option(help="running, failed or completed (derived status)")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Activity since: a duration (7d) or an ISO date")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many runs")] = 50,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """List threads with their status, last action, counts by type and age."""
    from langgraph_actionckpt.ops import reports as queries

    s = settings(ctx, dsn, schema, json_)
    since_at = parse_since(since) if since else None

    def body() -> list[queries.RunSummary]:
        with open_schema(s) as conn:
            return queries.list_runs(conn, schema_of(s), status=status, since=since_at, limit=limit)

    rows = guard(s, body)
    if s.json:
        emit_json({"runs": [r.to_dict() for r in rows]})
        return
    if not rows:
        filters = " matching the filters" if status or since else ""
        say_empty(s, f"no runs{filters} in schema {schema_of(s)}")
        return
    table = Table(title=f"runs in {schema_of(s)}")
    for col in ("thread", "status", "actions", "by type", "last action", "age"):
        table.add_column(col, justify="right" if col in ("actions", "age") else "left")
    for r in rows:
        last = f"{r.last_action_type or ''} {r.last_action_name or ''}".strip()
        if r.last_action_status == "failed":
            last += f" [red]{escape(fmt_short(r.last_error, 40))}[/red]"
        table.add_row(
            escape(r.thread_id),
            fmt_status(r.status),
            str(r.actions),
            escape(", ".join(f"{k}={v}" for k, v in sorted(r.by_type.items()))),
            last,
            fmt_age(r.age_seconds),
        )
    OUT.print(table)


@app.command()
def show(
    ctx: typer.Context,
    thread: Annotated[str, typer.Argument(help="Thread id")],
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Show a thread's action timeline (replayed vs executed, durations, tokens)."""
    from langgraph_actionckpt.ops import reports as queries

    s = settings(ctx, dsn, schema, json_)

    def body() -> queries.Timeline:
        with open_schema(s) as conn:
            return queries.thread_timeline(conn, thread, schema_of(s))

    tl = guard(s, body)
    if s.json:
        emit_json(tl.to_dict())
        return
    if not tl.actions:
        ERR.print(f"no actions for thread {escape(repr(thread))} in schema {schema_of(s)}")
        raise typer.Exit(1)
    table = Table(
        title=f"{escape(thread)}: {tl.status} - {len(tl.actions)} actions, "
        f"{tl.executed} executed, {tl.replayed} replayed, {tl.tokens} tokens"
    )
    # step: the LangGraph superstep of the thread; seq: the action log's own order
    for col in ("step", "seq", "type", "name", "status", "ms", "tokens", "replayed", "error"):
        table.add_column(col, justify="right" if col in ("step", "seq", "ms", "tokens") else "left")
    for a in tl.actions:
        table.add_row(
            _step(a.step),
            str(a.step_index),
            escape(a.action_type),
            escape(a.name or ""),
            fmt_status(a.status),
            f"{a.duration_ms:.1f}" if a.duration_ms is not None else "",
            str(a.tokens) if a.tokens is not None else "",
            f"[cyan]replayed x{a.replayed}[/cyan]" if a.replayed else "executed",
            f"[red]{escape(fmt_short(a.error))}[/red]" if a.error else "",
        )
    OUT.print(table)


@app.command()
def failed(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(help="At most this many runs")] = 50,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """List runs whose last action failed, with the error."""
    from langgraph_actionckpt.ops import reports as queries

    s = settings(ctx, dsn, schema, json_)

    def body() -> list[queries.RunSummary]:
        with open_schema(s) as conn:
            return queries.failed_runs(conn, schema_of(s), limit=limit)

    rows = guard(s, body)
    if s.json:
        emit_json({"failed": [r.to_dict() for r in rows]})
        return
    if not rows:
        say_empty(s, f"no failed runs in schema {schema_of(s)}")
        return
    table = Table(title="failed runs")
    for col in ("thread", "last action", "error", "age"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            escape(r.thread_id),
            escape(f"{r.last_action_type} {r.last_action_name or ''}"),
            f"[red]{escape(fmt_short(r.last_error, 80))}[/red]",
            fmt_age(r.age_seconds),
        )
    OUT.print(table)


@app.command()
def inflight(
    ctx: typer.Context,
    older_than: Annotated[
        str | None, typer.Option(help="Only actions started at least this long ago (10m)")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many actions")] = 100,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """List actions pending/running with no completion, oldest first."""
    from langgraph_actionckpt.ops import reports as queries

    s = settings(ctx, dsn, schema, json_)
    older = parse_duration(older_than) if older_than else None

    def body() -> list[queries.InflightAction]:
        with open_schema(s) as conn:
            return queries.inflight_actions(conn, schema_of(s), older_than=older, limit=limit)

    rows = guard(s, body)
    if s.json:
        emit_json({"inflight": [r.to_dict() for r in rows]})
        return
    if not rows:
        say_empty(s, f"no in-flight actions in schema {schema_of(s)}")
        return
    table = Table(title="in-flight actions (outcome unknown after a crash)")
    for col in ("thread", "step", "seq", "type", "name", "status", "idempotent", "age"):
        table.add_column(col)
    for a in rows:
        table.add_row(
            escape(a.thread_id),
            _step(a.step),
            str(a.step_index),
            escape(a.action_type),
            escape(a.name or ""),
            fmt_status(a.status),
            "yes" if a.idempotent else "[yellow]no[/yellow]",
            fmt_age(a.age_seconds),
        )
    OUT.print(table)


@app.command()
def stats(
    ctx: typer.Context,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Row counts and sizes per table, actions per type and status, oldest/newest."""
    from langgraph_actionckpt.ops import reports as queries

    s = settings(ctx, dsn, schema, json_)

    def body() -> tuple[queries.TableStats, list[tuple[str, str, int, int, int, int]]]:
        from langgraph_actionckpt.db.driver import SyncDriver
        from langgraph_actionckpt.reuse.plans import plan_reuse_stats

        with open_schema(s) as conn:
            reuse = SyncDriver(conn).run(lambda: plan_reuse_stats(schema_of(s)))
            return queries.stats(conn, schema_of(s)), reuse

    st, reuse = guard(s, body)
    if s.json:
        data = st.to_dict()
        data["reuse"] = [
            {"action_type": t, "outcome": o, "actions": n, "tokens_saved": tot}
            for t, o, n, _, _, tot in reuse
        ]
        emit_json(data)
        return
    t = Table(title=f"schema {st.schema} (version {st.schema_version})")
    for col in ("table", "rows", "total", "table", "indexes"):
        t.add_column(col, justify="left" if col == "table" else "right")
    for name, v in st.tables.items():
        t.add_row(
            name,
            str(v["rows"]),
            fmt_size(v["total_bytes"]),
            fmt_size(v["table_bytes"]),
            fmt_size(v["index_bytes"]),
        )
    OUT.print(t)
    if not st.actions_by_type_status:
        say_empty(s, f"no actions in schema {st.schema}")
        return
    a = Table(
        title=f"actions: {st.threads} threads, oldest {st.oldest_action}, newest {st.newest_action}"
    )
    a.add_column("type")
    a.add_column("status")
    a.add_column("count", justify="right")
    for typ, by_status in st.actions_by_type_status.items():
        for status, n in by_status.items():
            a.add_row(escape(typ), fmt_status(status), str(n))
    OUT.print(a)
    if reuse:
        r = Table(title="reuse by meaning: hits (exact, semantic) and misses")
        for col in ("type", "outcome", "actions", "input saved", "output saved", "tokens saved"):
            r.add_column(col, justify="left" if col in ("type", "outcome") else "right")
        for typ, outcome, n, tin, tout, tot in reuse:
            r.add_row(escape(typ), outcome, str(n), str(tin), str(tout), str(tot))
        OUT.print(r)


EMBEDDING_SHORTHANDS = {
    "local": "langgraph_actionckpt.ops.embeddings:LocalEmbeddings",
    "openai": "langchain_openai:OpenAIEmbeddings",
}
"""``--embeddings local`` (offline all-MiniLM-L6-v2, the local-embeddings extra) and ``openai``."""


def load_embeddings(spec: str) -> Any:
    """Build an embedding model from ``module:attribute`` (called with no arguments).

    Example: ``langchain_openai:OpenAIEmbeddings``. The spec comes from the
    command line or ``$ACTIONCKPT_EMBEDDINGS`` (the operator's own input).
    """
    spec = EMBEDDING_SHORTHANDS.get(spec, spec)
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise typer.BadParameter(f"expected module:attribute, got {spec!r}")
    obj = getattr(importlib.import_module(module), attr)
    return obj() if callable(obj) else obj


@app.command()
def similar(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="Text to search for (an error, a prompt...)")],
    k: Annotated[int, typer.Option("-k", "--k", help="How many results")] = 5,
    action_type: Annotated[str | None, typer.Option("--type", help="Only this action type")] = None,
    status: Annotated[str | None, typer.Option(help="Only this status (failed...)")] = None,
    embeddings: Annotated[
        str | None,
        typer.Option(
            help="local (offline all-MiniLM-L6-v2, the local-embeddings extra), openai, or a "
            "model as module:attr [default: $ACTIONCKPT_EMBEDDINGS]"
        ),
    ] = None,
    embed_pending: Annotated[
        bool,
        typer.Option(
            "--embed-pending/--no-embed-pending", metavar=FLAG, help="Embed new actions first"
        ),
    ] = True,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Find the actions most similar to TEXT (pgvector cosine distance)."""
    from langgraph_actionckpt.errors import VectorUnavailableError

    s = settings(ctx, dsn, schema, json_)
    spec = embeddings or os.environ.get("ACTIONCKPT_EMBEDDINGS")

    def body() -> tuple[int, list[tuple[Any, float]]]:
        if not spec:
            raise VectorUnavailableError(
                "no embedding model: pass --embeddings local (offline), openai or "
                "module:attr, or set ACTIONCKPT_EMBEDDINGS"
            )
        from langgraph_actionckpt.ops.vector import VectorIndex

        model = load_embeddings(spec)
        with open_schema(s) as conn:
            index = VectorIndex(conn, schema_of(s), model)
            index.ensure()
            n = index.embed_pending() if embed_pending else 0
            return n, index.similar_actions(text, k, action_type=action_type, status=status)

    embedded, hits = guard(s, body)
    if s.json:
        emit_json(
            {
                "query": text,
                "embedded": embedded,
                "results": [
                    {
                        "distance": d,
                        "thread_id": r.thread_id,
                        "step_index": r.step_index,
                        "step": r.step,
                        "action_id": r.action_id,
                        "action_type": r.action_type,
                        "name": r.name,
                        "status": r.status,
                        "error": fmt_short(r.error, 500) if r.error is not None else None,
                        "output": fmt_short(r.output, 500) if r.output is not None else None,
                    }
                    for r, d in hits
                ],
            }
        )
        return
    if not hits:
        say_empty(s, "no similar actions (nothing embedded matches the filters)")
        return
    table = Table(title=f"nearest to {escape(fmt_short(text, 60))!r}")
    for col in ("distance", "thread", "step", "seq", "type", "name", "status", "error/output"):
        table.add_column(col)
    for r, d in hits:
        table.add_row(
            f"{d:.3f}",
            escape(r.thread_id),
            _step(r.step),
            str(r.step_index),
            escape(r.action_type),
            escape(r.name or ""),
            fmt_status(r.status),
            escape(fmt_short(r.error if r.error is not None else r.output)),
        )
    OUT.print(table)
