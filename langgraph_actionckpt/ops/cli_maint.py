"""Maintenance ``actionckpt`` commands: prune, archive, import, migrate, embedded."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    Settings,
    app,
    connect,
    embedded_app,
    emit_json,
    guard,
    open_schema,
    parse_duration,
    schema_of,
    settings,
)


@contextmanager
def progress_bar(s: Settings, what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr (none with --json)."""
    if s.json:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=ERR,
        transient=False,
    ) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def print_result(title: str, data: dict[str, Any]) -> None:
    """A prune/archive result as a two-column table; a dry run lists the threads after it."""
    ids = data.pop("thread_ids", [])
    dry = data.get("dry_run", False)
    table = Table(title=f"{title} (dry run: nothing changed)" if dry else title, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for k, v in data.items():
        table.add_row(k, f"{v:.2f}" if isinstance(v, float) else escape(str(v)))
    OUT.print(table)
    if dry:
        if not ids:
            OUT.print(f"no threads would be affected by {title}")
        for thread_id in ids[:_LISTED]:
            OUT.print(f"would {title}: {escape(thread_id[:200])}")
        if len(ids) > _LISTED:
            OUT.print(f"... and {len(ids) - _LISTED} more (--json lists them all)")


_LISTED = 50
DryRunOpt = Annotated[
    bool,
    typer.Option(
        "--dry-run", metavar=FLAG, help="Print what would be removed or archived; change nothing"
    ),
]


KeepFailedOpt = Annotated[
    bool,
    typer.Option(
        "--keep-failed/--no-keep-failed", metavar=FLAG, help="Keep threads whose last action failed"
    ),
]
OlderThanOpt = Annotated[
    str, typer.Option("--older-than", help="Idle time before a thread goes (30d, 12h...)")
]
BatchOpt = Annotated[int, typer.Option(help="About this many rows per transaction")]
VacuumOpt = Annotated[
    bool,
    typer.Option(
        "--vacuum/--no-vacuum", metavar=FLAG, help="VACUUM (ANALYZE) the tables afterwards"
    ),
]


@app.command()
def prune(
    ctx: typer.Context,
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dry_run: DryRunOpt = False,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Delete threads idle for longer than --older-than (never in-flight ones)."""
    from langgraph_actionckpt.ops import retention

    s = settings(ctx, dsn, schema, json_)
    age = parse_duration(older_than)

    def body() -> retention.PruneResult:
        with open_schema(s) as conn, progress_bar(s, "pruning threads") as cb:
            return retention.prune(
                conn,
                schema_of(s),
                age,
                keep_failed=keep_failed,
                batch_size=batch_size,
                progress=cb,
                vacuum=vacuum,
                dry_run=dry_run,
            )

    result = guard(s, body)
    if s.json:
        emit_json({"prune": result.to_dict()})
    else:
        print_result("prune", result.to_dict())


@app.command()
def archive(
    ctx: typer.Context,
    dest: Annotated[str, typer.Argument(help="Directory or fsspec URL (s3://bucket/path)")],
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    delete: Annotated[
        bool, typer.Option("--delete/--no-delete", metavar=FLAG, help="Delete archived threads")
    ] = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dry_run: DryRunOpt = False,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Write idle threads' actions to DEST (one .jsonl per thread), then delete the threads.

    Only actions are archived; checkpoints are deleted without a copy. File names
    are a readable prefix of the thread id and a hash (any id is safe).
    """
    from langgraph_actionckpt.ops import archiving

    s = settings(ctx, dsn, schema, json_)
    age = parse_duration(older_than)

    def body() -> archiving.ArchiveResult:
        with open_schema(s) as conn, progress_bar(s, "archiving threads") as cb:
            return archiving.archive(
                conn,
                schema_of(s),
                age,
                dest,
                keep_failed=keep_failed,
                delete=delete,
                batch_size=batch_size,
                progress=cb,
                vacuum=vacuum,
                dry_run=dry_run,
            )

    result = guard(s, body)
    if s.json:
        emit_json({"archive": result.to_dict()})
    else:
        print_result("archive", result.to_dict())


@app.command("import")
def import_(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A .jsonl file, a directory, or an fsspec URL")],
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Restore archived actions (identical rows; existing ones are left alone)."""
    from langgraph_actionckpt.ops import archiving

    s = settings(ctx, dsn, schema, json_)

    def body() -> int:
        with open_schema(s) as conn:
            return archiving.import_archive(conn, schema_of(s), path)

    n = guard(s, body)
    if s.json:
        emit_json({"imported": n, "path": path})
    else:
        OUT.print(f"imported {n} actions from {escape(path)}")


@app.command()
def migrate(
    ctx: typer.Context,
    print_sql: Annotated[
        bool,
        typer.Option(
            "--print-sql", metavar=FLAG, help="Print the SQL of all migrations; run nothing"
        ),
    ] = False,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Create or upgrade the schema (the migration runner setup() uses), or print its SQL.

    Runs the migration plan directly: no saver is built, so nothing is patched
    (``BaseTool.run`` and the LLM cache stay as they are).
    """
    from langgraph_actionckpt.db.driver import SyncDriver
    from langgraph_actionckpt.db.migrations import (
        LATEST_VERSION,
        MIGRATIONS,
        plan_migrate,
        plan_schema_version,
    )
    from langgraph_actionckpt.ops.reports import migration_sql

    s = settings(ctx, dsn, schema, json_)
    if print_sql:
        text = guard(s, lambda: migration_sql(schema_of(s)))
        if s.json:
            emit_json(
                {
                    "schema": schema_of(s),
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
        sch = schema_of(s)
        with connect(s) as conn:
            driver = SyncDriver(conn)
            driver.run(lambda: plan_migrate(sch))
            return driver.run(lambda: plan_schema_version(sch))

    version = guard(s, body)
    if s.json:
        emit_json({"schema": schema_of(s), "version": version, "latest": LATEST_VERSION})
    else:
        OUT.print(f"schema {schema_of(s)} is at version {version} (latest {LATEST_VERSION})")


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
    s = settings(ctx, dsn, schema, json_)
    info = _embedded_status()
    if s.json:
        emit_json(info)
    else:
        state = "[green]running[/green]" if info["running"] else "stopped"
        pid = f" (pid {info['pid']})" if info["pid"] else ""
        OUT.print(f"embedded PostgreSQL: {state}{pid}, data in {escape(info['data_dir'])}")


@embedded_app.command("stop")
def embedded_stop(
    ctx: typer.Context,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Stop the embedded server (data is kept)."""
    from langgraph_actionckpt.embedded import stop_embedded

    s = settings(ctx, dsn, schema, json_)
    stopped = guard(s, stop_embedded)
    if s.json:
        emit_json({"stopped": stopped, **_embedded_status()})
    else:
        OUT.print(
            "embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running"
        )
