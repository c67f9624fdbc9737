"""Maintenance ``actionckpt`` commands: prune, archive, import, migrate, embedded."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from langgraph_actionckpt.ops.cli_common import (
    OUT,
    Settings,
    command,
    connect,
    embedded_app,
    flag,
    guard,
    new_progress,
    new_table,
    open_schema,
    parse_duration,
    printed,
    read,
    schema_of,
)
from langgraph_actionckpt.ops.display import cell, safe


@contextmanager
def progress_bar(s: Settings, what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr (none with --json)."""
    if s.json:
        yield None
        return
    with new_progress(transient=False) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def print_result(title: str, data: dict[str, Any]) -> None:
    """A prune/archive result as a two-column table; a dry run lists the threads after it."""
    ids = data.pop("thread_ids", [])
    dry = data.get("dry_run", False)
    heading = f"{title} (dry run: nothing changed)" if dry else title
    table = new_table(heading, ("what", "value"), right=("value",), show_header=False)
    for k, v in data.items():
        table.add_row(cell(k), f"{v:.2f}" if isinstance(v, float) else cell(v))
    OUT.print(table)
    if dry:
        if not ids:
            OUT.print(f"no threads would be affected by {title}")
        for thread_id in ids[:_LISTED]:
            OUT.print(f"would {title}: {safe(thread_id[:200])}")
        if len(ids) > _LISTED:
            OUT.print(f"... and {len(ids) - _LISTED} more (--json lists them all)")


_LISTED = 50
DryRunOpt = Annotated[
    bool,
    flag("--dry-run", "Print what would be removed or archived; change nothing"),
]


KeepFailedOpt = Annotated[
    bool,
    flag("--keep-failed/--no-keep-failed", "Keep threads whose last action failed"),
]
OlderThanOpt = Annotated[
    str, typer.Option("--older-than", help="Idle time before a thread goes (30d, 12h...)")
]
BatchOpt = Annotated[int, typer.Option(help="About this many rows per transaction")]
VacuumOpt = Annotated[
    bool,
    flag("--vacuum/--no-vacuum", "VACUUM (ANALYZE) the tables afterwards"),
]


def _sweep(s: Settings, title: str, doing: str, sweep: Callable[..., Any], **options: Any) -> None:
    """``sweep(conn, schema, progress=..., **options)`` under a progress bar; print its result."""

    def body() -> Any:
        with open_schema(s) as conn, progress_bar(s, f"{doing} threads") as cb:
            return sweep(conn, schema_of(s), progress=cb, **options)

    result = guard(s, body).to_dict()
    if not printed(s, lambda: {title: result}):
        print_result(title, result)


@command()
def prune(
    s: Settings,
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dry_run: DryRunOpt = False,
) -> None:
    """Delete threads idle for longer than --older-than (never in-flight ones)."""
    from langgraph_actionckpt.ops import retention

    age = parse_duration(older_than)
    options = {"keep_failed": keep_failed, "batch_size": batch_size, "vacuum": vacuum}
    _sweep(s, "prune", "pruning", retention.prune, older_than=age, dry_run=dry_run, **options)


@command()
def archive(
    s: Settings,
    dest: Annotated[str, typer.Argument(help="Directory or fsspec URL (s3://bucket/path)")],
    older_than: OlderThanOpt = "30d",
    keep_failed: KeepFailedOpt = True,
    delete: Annotated[bool, flag("--delete/--no-delete", "Delete archived threads")] = True,
    batch_size: BatchOpt = 5000,
    vacuum: VacuumOpt = True,
    dry_run: DryRunOpt = False,
) -> None:
    """Write idle threads' actions to DEST (one .jsonl per thread), then delete the threads.

    Only actions are archived; checkpoints are deleted without a copy. File names
    are a readable prefix of the thread id and a hash (any id is safe).
    """
    from langgraph_actionckpt.ops import archiving

    age = parse_duration(older_than)
    options = {"keep_failed": keep_failed, "batch_size": batch_size, "vacuum": vacuum}
    run = functools.partial(archiving.archive, dest=dest, delete=delete, dry_run=dry_run)
    _sweep(s, "archive", "archiving", run, older_than=age, **options)


@command("import")
def import_(
    s: Settings,
    path: Annotated[str, typer.Argument(help="A .jsonl file, a directory, or an fsspec URL")],
) -> None:
    """Restore archived actions (identical rows; existing ones are left alone)."""
    from langgraph_actionckpt.ops import archiving

    r = read(s, lambda conn, sch: archiving.import_archive(conn, sch, path))
    if not printed(s, lambda: {**r.to_dict(), "path": path}):
        OUT.print(f"imported {r.imported} actions from {safe(path)}")
        for skip in r.skipped:
            OUT.print(f"skipped {safe(repr(skip['file']))}: {safe(repr(skip['reason']))}")
    if r.skipped:  # the others are in; exit 1 says some are not
        raise typer.Exit(1)


@command()
def migrate(
    s: Settings,
    print_sql: Annotated[
        bool,
        flag("--print-sql", "Print the SQL of all migrations; run nothing"),
    ] = False,
    distributed: Annotated[
        bool,
        flag(
            "--distributed",
            "Then distribute the per-thread tables by thread_id (Citus coordinator only)",
        ),
    ] = False,
) -> None:
    """Create or upgrade the schema (the migration runner setup() uses), or print its SQL.

    Runs the migration plan directly: no saver is built, so nothing is patched
    (``BaseTool.run`` and the LLM cache stay as they are).
    """
    from langgraph_actionckpt.db.driver import SyncDriver
    from langgraph_actionckpt.db.migrations import (
        plan_migrate,
        plan_schema_version,
    )
    from langgraph_actionckpt.db.schema_versions import LATEST_VERSION, MIGRATIONS
    from langgraph_actionckpt.ops.reports import migration_sql

    if print_sql:
        text = guard(s, lambda: migration_sql(schema_of(s)))
        steps = [{"version": m.version, "description": m.description} for m in MIGRATIONS]
        if not printed(s, lambda: {"schema": schema_of(s), "sql": text, "migrations": steps}):
            typer.echo(text, nl=False)
        return

    def body() -> int | None:
        sch = schema_of(s)
        with connect(s) as conn:
            driver = SyncDriver(conn)
            driver.run(lambda: plan_migrate(sch, distributed=distributed))
            return driver.run(lambda: plan_schema_version(sch))

    version = guard(s, body)
    doc = {"schema": schema_of(s), "version": version, "latest": LATEST_VERSION}
    if not printed(s, lambda: doc):
        OUT.print(f"schema {schema_of(s)} is at version {version} (latest {LATEST_VERSION})")


# ------------------------------------------------------------------ embedded


def _embedded_status() -> dict[str, Any]:
    from langgraph_actionckpt.embedded_postgres import embedded_data_dir

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


@command("status", on=embedded_app)
def embedded_status(s: Settings) -> None:
    """Whether the embedded server runs, and where its data lives."""
    info = _embedded_status()
    if not printed(s, lambda: info):
        state = "[green]running[/green]" if info["running"] else "stopped"
        pid = f" (pid {info['pid']})" if info["pid"] else ""
        OUT.print(f"embedded PostgreSQL: {state}{pid}, data in {safe(info['data_dir'])}")


@command("stop", on=embedded_app)
def embedded_stop(s: Settings) -> None:
    """Stop the embedded server (data is kept)."""
    from langgraph_actionckpt.embedded_postgres import stop_embedded

    stopped = guard(s, stop_embedded)
    if not printed(s, lambda: {"stopped": stopped, **_embedded_status()}):
        OUT.print(
            "embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running"
        )
