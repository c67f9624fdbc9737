"""The ``actionckpt`` command line: inspect runs, prune and archive, migrate, search.

Every command takes ``--dsn`` (default: ``$ACTIONCKPT_DSN``, else the embedded
PostgreSQL), ``--schema`` (default ``actionckpt``) and ``--json`` (one JSON
document on stdout, for scripts). The options may also be given before the
command (``actionckpt --json runs``). The logic lives in
:mod:`langgraph_actionckpt.ops`; this module only parses and prints.

Needs the ``cli`` extra (typer, rich): ``pip install 'langgraph-actionckpt[cli]'``.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import psycopg
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.errors import ActionCkptError

T = TypeVar("T")

app = typer.Typer(
    name="actionckpt",
    help="Inspect and maintain langgraph-actionckpt action logs and checkpoints.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
embedded_app = typer.Typer(help="Manage the embedded PostgreSQL server.", no_args_is_help=True)
app.add_typer(embedded_app, name="embedded")

DsnOpt = Annotated[
    str | None,
    typer.Option("--dsn", help="PostgreSQL DSN [default: $ACTIONCKPT_DSN, else embedded]"),
]
SchemaOpt = Annotated[str | None, typer.Option("--schema", help="Schema [default: actionckpt]")]
JsonOpt = Annotated[bool | None, typer.Option("--json", help="Print one JSON document.")]


@dataclass
class Settings:
    """Options shared by every command."""

    dsn: str | None = None
    schema: str | None = None
    json: bool = False


@app.callback()
def _main(
    ctx: typer.Context, dsn: DsnOpt = None, schema: SchemaOpt = None, json_: JsonOpt = None
) -> None:
    ctx.obj = Settings(dsn=dsn, schema=schema, json=bool(json_))


def _settings(
    ctx: typer.Context, dsn: str | None, schema: str | None, json_: bool | None
) -> Settings:
    base = ctx.find_object(Settings) or Settings()
    return Settings(
        dsn=dsn or base.dsn,
        schema=schema or base.schema,
        json=base.json if json_ is None else json_,
    )


def resolve_dsn(dsn: str | None) -> str:
    """The DSN to use: the option, ``$ACTIONCKPT_DSN``, or the embedded server."""
    if dsn:
        return dsn
    env = os.environ.get("ACTIONCKPT_DSN")
    if env:
        return env
    from langgraph_actionckpt.embedded import embedded_dsn

    return embedded_dsn()


def _schema(s: Settings) -> str:
    return validate_schema(s.schema or DEFAULT_SCHEMA)


@contextmanager
def _connect(s: Settings) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(resolve_dsn(s.dsn), autocommit=True) as conn:
        yield conn


_out = Console(highlight=False, soft_wrap=False, width=160)
_err = Console(stderr=True, highlight=False)


def _emit_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, default=str, ensure_ascii=False))


def _run(s: Settings, fn: Callable[[], T]) -> T:
    """Run a command body; turn package and connection errors into a message and exit 1."""
    try:
        return fn()
    except (ActionCkptError, psycopg.Error) as exc:
        msg = str(exc).strip() or type(exc).__name__
        if s.json:
            _emit_json({"error": msg, "type": type(exc).__name__})
        else:
            _err.print(f"[red]error:[/red] {escape(msg)}")
        raise typer.Exit(1) from exc


# --------------------------------------------------------------- formatting

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> dt.timedelta:
    """Parse ``90s``, ``15m``, ``12h``, ``30d``, ``2w`` into a timedelta.

    Raises:
        typer.BadParameter: The text is not a duration.
    """
    m = _DURATION.match(text.lower())
    if not m:
        raise typer.BadParameter(f"expected a duration like 30d, 12h, 15m, 90s; got {text!r}")
    return dt.timedelta(**{_UNITS[m.group(2)]: float(m.group(1))})


def parse_since(text: str) -> dt.datetime:
    """A duration ago (``7d``) or an ISO 8601 date/time (UTC when no zone is given)."""
    if _DURATION.match(text.lower()):
        return dt.datetime.now(dt.UTC) - parse_duration(text)
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise typer.BadParameter(f"expected a duration (7d) or an ISO date; got {text!r}") from exc
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(max(seconds, 0))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"  # pragma: no cover


def _short(value: Any, width: int = 60) -> str:
    if value is None:
        return ""
    if isinstance(value, dict) and "message" in value:
        value = value["message"]
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


_STATUS_STYLE = {"failed": "red", "running": "yellow", "pending": "yellow", "completed": "green"}


def _status(text: str | None) -> str:
    if text is None:
        return "-"
    style = _STATUS_STYLE.get(text)
    return f"[{style}]{text}[/{style}]" if style else escape(text)


# ------------------------------------------------------------------ commands


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

    s = _settings(ctx, dsn, schema, json_)
    since_at = parse_since(since) if since else None

    def body() -> list[queries.RunSummary]:
        with _connect(s) as conn:
            return queries.list_runs(conn, _schema(s), status=status, since=since_at, limit=limit)

    rows = _run(s, body)
    if s.json:
        _emit_json({"runs": [r.to_dict() for r in rows]})
        return
    table = Table(title=f"runs in {_schema(s)}")
    for col in ("thread", "status", "actions", "by type", "last action", "age"):
        table.add_column(col, justify="right" if col in ("actions", "age") else "left")
    for r in rows:
        last = f"{r.last_action_type or ''} {r.last_action_name or ''}".strip()
        if r.last_action_status == "failed":
            last += f" [red]{escape(_short(r.last_error, 40))}[/red]"
        table.add_row(
            escape(r.thread_id),
            _status(r.status),
            str(r.actions),
            escape(", ".join(f"{k}={v}" for k, v in sorted(r.by_type.items()))),
            last,
            _age(r.age_seconds),
        )
    _out.print(table)


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

    s = _settings(ctx, dsn, schema, json_)

    def body() -> queries.Timeline:
        with _connect(s) as conn:
            return queries.thread_timeline(conn, thread, _schema(s))

    tl = _run(s, body)
    if s.json:
        _emit_json(tl.to_dict())
        return
    if not tl.actions:
        _err.print(f"no actions for thread {escape(thread)!r}")
        raise typer.Exit(1)
    table = Table(
        title=f"{escape(thread)}: {tl.status} - {len(tl.actions)} actions, "
        f"{tl.executed} executed, {tl.replayed} replayed, {tl.tokens} tokens"
    )
    for col in ("step", "type", "name", "status", "ms", "tokens", "replayed", "error"):
        table.add_column(col, justify="right" if col in ("step", "ms", "tokens") else "left")
    for a in tl.actions:
        table.add_row(
            str(a.step_index),
            escape(a.action_type),
            escape(a.name or ""),
            _status(a.status),
            f"{a.duration_ms:.1f}" if a.duration_ms is not None else "",
            str(a.tokens) if a.tokens is not None else "",
            f"[cyan]replayed x{a.replayed}[/cyan]" if a.replayed else "executed",
            f"[red]{escape(_short(a.error))}[/red]" if a.error else "",
        )
    _out.print(table)


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

    s = _settings(ctx, dsn, schema, json_)

    def body() -> list[queries.RunSummary]:
        with _connect(s) as conn:
            return queries.failed_runs(conn, _schema(s), limit=limit)

    rows = _run(s, body)
    if s.json:
        _emit_json({"failed": [r.to_dict() for r in rows]})
        return
    table = Table(title="failed runs")
    for col in ("thread", "last action", "error", "age"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            escape(r.thread_id),
            escape(f"{r.last_action_type} {r.last_action_name or ''}"),
            f"[red]{escape(_short(r.last_error, 80))}[/red]",
            _age(r.age_seconds),
        )
    _out.print(table)


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

    s = _settings(ctx, dsn, schema, json_)
    older = parse_duration(older_than) if older_than else None

    def body() -> list[queries.InflightAction]:
        with _connect(s) as conn:
            return queries.inflight_actions(conn, _schema(s), older_than=older, limit=limit)

    rows = _run(s, body)
    if s.json:
        _emit_json({"inflight": [r.to_dict() for r in rows]})
        return
    table = Table(title="in-flight actions (outcome unknown after a crash)")
    for col in ("thread", "step", "type", "name", "status", "idempotent", "age"):
        table.add_column(col)
    for a in rows:
        table.add_row(
            escape(a.thread_id),
            str(a.step_index),
            escape(a.action_type),
            escape(a.name or ""),
            _status(a.status),
            "yes" if a.idempotent else "[yellow]no[/yellow]",
            _age(a.age_seconds),
        )
    _out.print(table)


@contextmanager
def _progress(s: Settings, what: str) -> Iterator[Callable[[int, int], None] | None]:
    if s.json:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=False,
    ) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _print_result(title: str, data: dict[str, Any]) -> None:
    table = Table(title=title, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for k, v in data.items():
        table.add_row(k, f"{v:.2f}" if isinstance(v, float) else escape(str(v)))
    _out.print(table)


KeepFailedOpt = Annotated[
    bool,
    typer.Option("--keep-failed/--no-keep-failed", help="Keep threads whose last action failed"),
]
OlderThanOpt = Annotated[
    str, typer.Option("--older-than", help="Idle time before a thread goes (30d, 12h...)")
]
BatchOpt = Annotated[int, typer.Option(help="About this many rows per transaction")]
VacuumOpt = Annotated[
    bool, typer.Option("--vacuum/--no-vacuum", help="VACUUM (ANALYZE) the tables afterwards")
]


@app.command()
def prune(
    ctx: typer.Context,
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Delete threads idle for longer than --older-than (never in-flight ones)."""
    from langgraph_actionckpt.ops import retention

    s = _settings(ctx, dsn, schema, json_)
    age = parse_duration(older_than)

    def body() -> retention.PruneResult:
        with _connect(s) as conn, _progress(s, "pruning threads") as cb:
            return retention.prune(
                conn,
                _schema(s),
                age,
                keep_failed=keep_failed,
                batch_size=batch_size,
                progress=cb,
                vacuum=vacuum,
            )

    result = _run(s, body)
    if s.json:
        _emit_json({"prune": result.to_dict()})
    else:
        _print_result("prune", result.to_dict())


@app.command()
def archive(
    ctx: typer.Context,
    dest: Annotated[str, typer.Argument(help="Directory or fsspec URL (s3://bucket/path)")],
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    delete: Annotated[
        bool, typer.Option("--delete/--no-delete", help="Delete archived threads")
    ] = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Write idle threads' actions to DEST/<thread_id>.jsonl, then delete the threads.

    Only actions are archived; checkpoints are deleted without a copy.
    """
    from langgraph_actionckpt.ops import retention

    s = _settings(ctx, dsn, schema, json_)
    age = parse_duration(older_than)

    def body() -> retention.ArchiveResult:
        with _connect(s) as conn, _progress(s, "archiving threads") as cb:
            return retention.archive(
                conn,
                _schema(s),
                age,
                dest,
                keep_failed=keep_failed,
                delete=delete,
                batch_size=batch_size,
                progress=cb,
                vacuum=vacuum,
            )

    result = _run(s, body)
    if s.json:
        _emit_json({"archive": result.to_dict()})
    else:
        _print_result("archive", result.to_dict())


@app.command("import")
def import_(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A .jsonl file, a directory, or an fsspec URL")],
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Restore archived actions (identical rows; existing ones are left alone)."""
    from langgraph_actionckpt.ops import retention

    s = _settings(ctx, dsn, schema, json_)

    def body() -> int:
        with _connect(s) as conn:
            return retention.import_archive(conn, _schema(s), path)

    n = _run(s, body)
    if s.json:
        _emit_json({"imported": n, "path": path})
    else:
        _out.print(f"imported {n} actions from {escape(path)}")


@app.command()
def migrate(
    ctx: typer.Context,
    print_sql: Annotated[
        bool, typer.Option("--print-sql", help="Print the SQL of all migrations; run nothing")
    ] = False,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Create or upgrade the schema (the saver's setup()), or print its SQL."""
    from langgraph_actionckpt.db.migrations import LATEST_VERSION, MIGRATIONS
    from langgraph_actionckpt.ops.reports import migration_sql

    s = _settings(ctx, dsn, schema, json_)
    if print_sql:
        text = _run(s, lambda: migration_sql(_schema(s)))
        if s.json:
            _emit_json(
                {
                    "schema": _schema(s),
                    "sql": text,
                    "migrations": [
                        {"version": m.version, "description": m.description} for m in MIGRATIONS
                    ],
                }
            )
        else:
            typer.echo(text, nl=False)
        return

    def body() -> int | None:
        from langgraph_actionckpt.saver import ActionSaver

        with ActionSaver.from_conn_string(resolve_dsn(s.dsn), schema=_schema(s), pool_size=0) as sv:
            sv.setup()
        with _connect(s) as conn:
            row = conn.execute(
                psycopg.sql.SQL("SELECT max(v) FROM {}").format(
                    psycopg.sql.Identifier(_schema(s), "migrations")
                )
            ).fetchone()
        return None if row is None else row[0]

    version = _run(s, body)
    if s.json:
        _emit_json({"schema": _schema(s), "version": version, "latest": LATEST_VERSION})
    else:
        _out.print(f"schema {_schema(s)} is at version {version} (latest {LATEST_VERSION})")


@app.command()
def stats(
    ctx: typer.Context,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Row counts and sizes per table, actions per type and status, oldest/newest."""
    from langgraph_actionckpt.ops import reports as queries

    s = _settings(ctx, dsn, schema, json_)

    def body() -> queries.TableStats:
        with _connect(s) as conn:
            return queries.stats(conn, _schema(s))

    st = _run(s, body)
    if s.json:
        _emit_json(st.to_dict())
        return
    t = Table(title=f"schema {st.schema} (version {st.schema_version})")
    for col in ("table", "rows", "total", "table", "indexes"):
        t.add_column(col, justify="left" if col == "table" else "right")
    for name, v in st.tables.items():
        t.add_row(
            name,
            str(v["rows"]),
            _size(v["total_bytes"]),
            _size(v["table_bytes"]),
            _size(v["index_bytes"]),
        )
    _out.print(t)
    a = Table(
        title=f"actions: {st.threads} threads, oldest {st.oldest_action}, newest {st.newest_action}"
    )
    a.add_column("type")
    a.add_column("status")
    a.add_column("count", justify="right")
    for typ, by_status in st.actions_by_type_status.items():
        for status, n in by_status.items():
            a.add_row(escape(typ), _status(status), str(n))
    _out.print(a)


def load_embeddings(spec: str) -> Any:
    """Build an embedding model from ``module:attribute`` (called with no arguments).

    Example: ``langchain_openai:OpenAIEmbeddings``. The spec comes from the
    command line or ``$ACTIONCKPT_EMBEDDINGS`` (the operator's own input).
    """
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
            help="local (offline all-MiniLM-L6-v2, the local-embeddings extra), openai, "
            "or an embedding model as module:attr",
            envvar="ACTIONCKPT_EMBEDDINGS",
            # the two shorthands name load_embeddings() specs (the env var's value too)
            callback=lambda spec: {
                "local": "langgraph_actionckpt.ops.embeddings:LocalEmbeddings",
                "openai": "langchain_openai:OpenAIEmbeddings",
            }.get(spec, spec),
        ),
    ] = None,
    embed_pending: Annotated[
        bool,
        typer.Option("--embed-pending/--no-embed-pending", help="Embed new actions first"),
    ] = True,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Find the actions most similar to TEXT (pgvector cosine distance)."""
    from langgraph_actionckpt.errors import VectorUnavailableError

    s = _settings(ctx, dsn, schema, json_)
    spec = embeddings or os.environ.get("ACTIONCKPT_EMBEDDINGS")

    def body() -> tuple[int, list[tuple[Any, float]]]:
        if not spec:
            raise VectorUnavailableError(
                "no embedding model: pass --embeddings module:attr (for example "
                "langchain_openai:OpenAIEmbeddings) or set ACTIONCKPT_EMBEDDINGS"
            )
        from langgraph_actionckpt.ops.vector import VectorIndex

        model = load_embeddings(spec)
        with _connect(s) as conn:
            index = VectorIndex(conn, _schema(s), model)
            index.ensure()
            n = index.embed_pending() if embed_pending else 0
            return n, index.similar_actions(text, k, action_type=action_type, status=status)

    embedded, hits = _run(s, body)
    if s.json:
        _emit_json(
            {
                "query": text,
                "embedded": embedded,
                "results": [
                    {
                        "distance": d,
                        "thread_id": r.thread_id,
                        "step_index": r.step_index,
                        "action_id": r.action_id,
                        "action_type": r.action_type,
                        "name": r.name,
                        "status": r.status,
                        "error": _short(r.error, 500) if r.error is not None else None,
                        "output": _short(r.output, 500) if r.output is not None else None,
                    }
                    for r, d in hits
                ],
            }
        )
        return
    table = Table(title=f"nearest to {escape(_short(text, 60))!r}")
    for col in ("distance", "thread", "step", "type", "name", "status", "error/output"):
        table.add_column(col)
    for r, d in hits:
        table.add_row(
            f"{d:.3f}",
            escape(r.thread_id),
            str(r.step_index),
            escape(r.action_type),
            escape(r.name or ""),
            _status(r.status),
            escape(_short(r.error if r.error is not None else r.output)),
        )
    _out.print(table)


# ------------------------------------------------------------------ embedded


def _embedded_status() -> dict[str, Any]:
    from langgraph_actionckpt.embedded import embedded_data_dir

    path = embedded_data_dir()
    pid_file = path / "postmaster.pid"
    pid: int | None = None
    running = False
    if pid_file.exists():
        try:
            pid = int(pid_file.read_text().splitlines()[0])
            os.kill(pid, 0)
            running = True
        except (ValueError, IndexError, ProcessLookupError, PermissionError, OSError):
            running = False
    return {"data_dir": str(path), "running": running, "pid": pid if running else None}


@embedded_app.command("status")
def embedded_status(
    ctx: typer.Context,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Whether the embedded server runs, and where its data lives."""
    s = _settings(ctx, dsn, schema, json_)
    info = _embedded_status()
    if s.json:
        _emit_json(info)
    else:
        state = "[green]running[/green]" if info["running"] else "stopped"
        pid = f" (pid {info['pid']})" if info["pid"] else ""
        _out.print(f"embedded PostgreSQL: {state}{pid}, data in {escape(info['data_dir'])}")


@embedded_app.command("stop")
def embedded_stop(
    ctx: typer.Context,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Stop the embedded server (data is kept)."""
    from langgraph_actionckpt.embedded import stop_embedded

    s = _settings(ctx, dsn, schema, json_)
    stopped = _run(s, stop_embedded)
    if s.json:
        _emit_json({"stopped": stopped, **_embedded_status()})
    else:
        _out.print(
            "embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running"
        )


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
