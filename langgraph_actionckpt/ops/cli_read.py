"""Read-only ``actionckpt`` commands: runs, show, failed, inflight, stats, similar."""

from __future__ import annotations

import importlib
import os
from typing import Annotated, Any

import typer

from langgraph_actionckpt.ops.cli_common import (
    ERR,
    OUT,
    Settings,
    command,
    flag,
    fmt_age,
    fmt_short,
    fmt_size,
    fmt_status,
    guard,
    new_table,
    open_schema,
    parse_duration,
    parse_since,
    printed,
    read,
    schema_of,
)
from langgraph_actionckpt.ops.cli_crypto import ReadKeyOpt, keyring_or_none
from langgraph_actionckpt.ops.display import cell, safe


def _step(step: int | None) -> str:
    """The LangGraph step, or ``-`` for an action recorded outside a graph step."""
    return "-" if step is None else str(step)


RunStatusOpt = Annotated[
    str | None, typer.Option(help="running, failed or completed (derived status)")
]
SinceOpt = Annotated[
    str | None, typer.Option(help="Activity since: a duration (7d) or an ISO date")
]
OlderThanOpt = Annotated[
    str | None, typer.Option(help="Only actions started at least this long ago (10m)")
]
RunLimitOpt = Annotated[int, typer.Option(help="At most this many runs")]
ActionLimitOpt = Annotated[int, typer.Option(help="At most this many actions")]


@command()
def runs(
    s: Settings,
    status: RunStatusOpt = None,
    since: SinceOpt = None,
    limit: RunLimitOpt = 50,
    key: ReadKeyOpt = None,
) -> None:
    """List threads with their status, last action, counts by type and age."""
    from langgraph_actionckpt.ops import reports

    since_at = parse_since(since) if since else None
    rows = read(
        s,
        lambda c, sch: reports.list_runs(
            c, sch, status=status, since=since_at, limit=limit, keyring=keyring_or_none(key)
        ),
    )
    filters = " matching the filters" if status or since else ""
    empty = None if rows else f"no runs{filters} in schema {schema_of(s)}"
    if printed(s, lambda: {"runs": [r.to_dict() for r in rows]}, empty):
        return
    columns = ("thread", "status", "actions", "by type", "last action", "age")
    table = new_table(f"runs in {schema_of(s)}", columns, right=("actions", "age"))
    for r in rows:
        last = cell(f"{r.last_action_type or ''} {r.last_action_name or ''}".strip())
        if r.last_action_status == "failed":
            last.append(" ").append(cell(fmt_short(r.last_error, 40), "red"))
        table.add_row(
            cell(r.thread_id),
            fmt_status(r.status),
            str(r.actions),
            cell(", ".join(f"{k}={v}" for k, v in sorted(r.by_type.items()))),
            last,
            fmt_age(r.age_seconds),
        )
    OUT.print(table)


@command()
def show(
    s: Settings, thread: Annotated[str, typer.Argument(help="Thread id")], key: ReadKeyOpt = None
) -> None:
    """Show a thread's action timeline (replayed vs executed, durations, tokens)."""
    from langgraph_actionckpt.ops import reports

    tl = read(s, lambda conn, sch: reports.thread_timeline(conn, thread, sch, keyring_or_none(key)))
    if printed(s, tl.to_dict):
        return
    if not tl.actions:
        ERR.print(f"no actions for thread {safe(repr(thread))} in schema {schema_of(s)}")
        raise typer.Exit(1)
    title = (
        f"{safe(thread)}: {safe(tl.status)} - {len(tl.actions)} actions, "
        f"{tl.executed} executed, {tl.replayed} replayed, {tl.tokens} tokens"
    )
    # position: the action's number in the thread; step: the LangGraph superstep
    traced = any(a.trace_id for a in tl.actions)  # OpenTelemetry was on for some actions
    columns = ("position", "step", "type", "name", "status", "ms", "tokens", "replayed", "error")
    table = new_table(
        title, columns + (("trace",) if traced else ()), right=("position", "step", "ms", "tokens")
    )
    for a in tl.actions:
        trace = [cell(a.trace_id)] if traced else []
        table.add_row(
            str(a.position),
            _step(a.step),
            cell(a.action_type),
            cell(a.name),
            fmt_status(a.status),
            f"{a.duration_ms:.1f}" if a.duration_ms is not None else "",
            str(a.tokens) if a.tokens is not None else "",
            f"[cyan]replayed x{a.replayed}[/cyan]" if a.replayed else "executed",
            cell(fmt_short(a.error), "red") if a.error else "",
            *trace,
        )
    OUT.print(table)


@command()
def failed(s: Settings, limit: RunLimitOpt = 50, key: ReadKeyOpt = None) -> None:
    """List runs whose last action failed, with the error."""
    from langgraph_actionckpt.ops import reports

    rows = read(
        s,
        lambda conn, sch: reports.failed_runs(conn, sch, limit=limit, keyring=keyring_or_none(key)),
    )
    empty = None if rows else f"no failed runs in schema {schema_of(s)}"
    if printed(s, lambda: {"failed": [r.to_dict() for r in rows]}, empty):
        return
    table = new_table("failed runs", ("thread", "last action", "error", "age"))
    for r in rows:
        table.add_row(
            cell(r.thread_id),
            cell(f"{r.last_action_type} {r.last_action_name or ''}"),
            cell(fmt_short(r.last_error, 80), "red"),
            fmt_age(r.age_seconds),
        )
    OUT.print(table)


@command()
def inflight(s: Settings, older_than: OlderThanOpt = None, limit: ActionLimitOpt = 100) -> None:
    """List actions pending/running with no completion, oldest first."""
    from langgraph_actionckpt.ops import reports

    older = parse_duration(older_than) if older_than else None
    rows = read(
        s, lambda conn, sch: reports.inflight_actions(conn, sch, older_than=older, limit=limit)
    )
    empty = None if rows else f"no in-flight actions in schema {schema_of(s)}"
    if printed(s, lambda: {"inflight": [r.to_dict() for r in rows]}, empty):
        return
    columns = ("thread", "position", "step", "type", "name", "status", "idempotent", "age")
    table = new_table("in-flight actions (outcome unknown after a crash)", columns)
    for a in rows:
        table.add_row(
            cell(a.thread_id),
            str(a.position),
            _step(a.step),
            cell(a.action_type),
            cell(a.name),
            fmt_status(a.status),
            "yes" if a.idempotent else "[yellow]no[/yellow]",
            fmt_age(a.age_seconds),
        )
    OUT.print(table)


@command()
def stats(s: Settings) -> None:
    """Row counts and sizes per table, actions per type and status, oldest/newest."""
    from langgraph_actionckpt.ops import table_stats

    def query(conn: Any, schema: str) -> tuple[table_stats.TableStats, list[Any], list[Any]]:
        from langgraph_actionckpt.db.driver import SyncDriver
        from langgraph_actionckpt.reuse.plans import plan_reuse_refusals, plan_reuse_stats

        reuse = SyncDriver(conn).run(lambda: plan_reuse_stats(schema))
        refused = SyncDriver(conn).run(lambda: plan_reuse_refusals(schema))
        return table_stats.stats(conn, schema), reuse, refused

    st, reuse, refused = read(s, query)

    def doc() -> dict[str, Any]:
        data = st.to_dict()
        data["reuse"] = [
            {"action_type": t, "outcome": o, "actions": n, "tokens_saved": tot}
            for t, o, n, _, _, tot in reuse
        ]
        data["reuse_refused"] = [{"reason": why, "candidates": n} for why, n in refused]
        return data

    if printed(s, doc):
        return
    title = f"schema {st.schema} (version {st.schema_version})"
    columns = ("table", "rows", "total", "table", "indexes")
    t = new_table(title, columns, right=("rows", "total", "indexes"))
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
        OUT.print(f"no actions in schema {st.schema}")
        return
    title = f"actions: {st.threads} threads, oldest {st.oldest_action}, newest {st.newest_action}"
    a = new_table(title, ("type", "status", "count"), right=("count",))
    for typ, by_status in st.actions_by_type_status.items():
        for status, n in by_status.items():
            a.add_row(cell(typ), fmt_status(status), str(n))
    OUT.print(a)
    if reuse:
        title = "reuse by meaning: hits (exact, semantic) and misses"
        saved = ("actions", "input saved", "output saved", "tokens saved")
        r = new_table(title, ("type", "outcome", *saved), right=saved)
        for typ, outcome, n, tin, tout, tot in reuse:
            r.add_row(cell(typ), cell(outcome), str(n), str(tin), str(tout), str(tot))
        OUT.print(r)
    if refused:
        title = "reuse: candidates refused, by reason"
        f = new_table(title, ("reason", "candidates"), right=("candidates",))
        for why, n in refused:
            f.add_row(cell(why), str(n))
        OUT.print(f)


EMBEDDING_SHORTHANDS = {
    "local": "langgraph_actionckpt.ops.embeddings:LocalEmbeddings",
    "openai": "langchain_openai:OpenAIEmbeddings",
}
"""``--embeddings local`` (offline USE multilingual v3, the local-embeddings extra), ``openai``."""


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


@command()
def similar(
    s: Settings,
    text: Annotated[str, typer.Argument(help="Text to search for (an error, a prompt...)")],
    k: Annotated[int, typer.Option("-k", "--k", help="How many results")] = 5,
    action_type: Annotated[str | None, typer.Option("--type", help="Only this action type")] = None,
    status: Annotated[str | None, typer.Option(help="Only this status (failed...)")] = None,
    embeddings: Annotated[
        str | None,
        typer.Option(
            help="local (offline USE multilingual v3, the local-embeddings extra), openai, or a "
            "model as module:attr [default: $ACTIONCKPT_EMBEDDINGS]"
        ),
    ] = None,
    embed_pending: Annotated[
        bool,
        flag("--embed-pending/--no-embed-pending", "Embed new actions first"),
    ] = True,
    key: ReadKeyOpt = None,
) -> None:
    """Find the actions most similar to TEXT (pgvector cosine distance)."""
    from langgraph_actionckpt.errors import VectorUnavailableError
    from langgraph_actionckpt.ops import reports

    spec = embeddings or os.environ.get("ACTIONCKPT_EMBEDDINGS")

    def body() -> tuple[int, list[tuple[Any, float]], dict[tuple[str, int], int]]:
        if not spec:
            raise VectorUnavailableError(
                "no embedding model: pass --embeddings local (offline), openai or "
                "module:attr, or set ACTIONCKPT_EMBEDDINGS"
            )
        from langgraph_actionckpt.ops.vector import VectorIndex

        model = load_embeddings(spec)
        with open_schema(s) as conn:
            index = VectorIndex(conn, schema_of(s), model, encryption=keyring_or_none(key))
            index.ensure()
            n = index.embed_pending() if embed_pending else 0
            hits = index.similar_actions(text, k, action_type=action_type, status=status)
            keys = [(r.thread_id, r.step_index) for r, _ in hits if r.step_index is not None]
            return n, hits, reports.positions(conn, keys, schema_of(s))

    embedded, hits, at = guard(s, body)
    empty = None if hits else "no similar actions (nothing embedded matches the filters)"
    if printed(s, lambda: _similar_json(text, embedded, hits, at), empty):
        return
    columns = ("distance", "thread", "position", "step", "type", "name", "status", "error/output")
    table = new_table(f"nearest to {safe(repr(fmt_short(text, 60)))}", columns)
    for r, d in hits:
        table.add_row(
            f"{d:.3f}",
            cell(r.thread_id),
            str(at.get((r.thread_id, r.step_index), "")),
            _step(r.step),
            cell(r.action_type),
            cell(r.name),
            fmt_status(r.status),
            cell(fmt_short(r.error if r.error is not None else r.output)),
        )
    OUT.print(table)


def _similar_json(
    text: str,
    embedded: int,
    hits: list[tuple[Any, float]],
    at: dict[tuple[str, int], int],
) -> dict[str, Any]:
    """``similar --json``: the query, how many actions were embedded first, the hits."""
    results = []
    for r, d in hits:
        fields = ("thread_id", "step_index", "step", "action_id", "action_type", "name", "status")
        hit = {"distance": d, **{f: getattr(r, f) for f in fields}}
        hit["position"] = at.get((r.thread_id, r.step_index))
        for long in ("error", "output"):  # cut: a hit is for finding, not for reading
            value = getattr(r, long)
            hit[long] = fmt_short(value, 500) if value is not None else None
        results.append(hit)
    return {"query": text, "embedded": embedded, "results": results}
