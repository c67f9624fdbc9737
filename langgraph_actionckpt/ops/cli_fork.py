"""``actionckpt fork``: a new thread where one logged action answered differently."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from langgraph_actionckpt.ops.cli_common import (
    OUT,
    DsnOpt,
    JsonOpt,
    SchemaOpt,
    app,
    emit_json,
    guard,
    open_schema,
    schema_of,
    settings,
)


@app.command()
def fork(
    ctx: typer.Context,
    thread: Annotated[str, typer.Argument(help="Thread id")],
    action_id: Annotated[str, typer.Argument(help="The action's idempotency key (see `show`)")],
    output: Annotated[
        str | None, typer.Option("--output", help="The action's new output (text)")
    ] = None,
    output_file: Annotated[
        Path | None,
        typer.Option("--output-file", help="Read the new output from this file (UTF-8 text)"),
    ] = None,
    new_thread: Annotated[
        str | None, typer.Option("--new-thread", help="The new thread's id [default: a UUID]")
    ] = None,
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = None,
) -> None:
    """Fork THREAD at ACTION_ID as if it had returned --output; print the new thread id.

    The new thread starts from the checkpoint the action's task was prepared
    from. Resume it (``graph.invoke(None, {"configurable": {"thread_id": NEW}})``):
    the task's earlier actions are served from the log, this one answers the
    new output (an LLM completion's text, a tool's result), and the rest runs
    live. THREAD is only read.
    """
    from langgraph_actionckpt.actions.records import ActionQueries
    from langgraph_actionckpt.checkpoints.fork import new_fork_id, plan_fork
    from langgraph_actionckpt.checkpoints.sql import Queries
    from langgraph_actionckpt.db.driver import SyncDriver

    if output_file is not None:
        if output is not None:
            raise typer.BadParameter("give --output or --output-file, not both")
        output = output_file.read_text(encoding="utf-8")
    if output is None:
        raise typer.BadParameter("give the new output: --output TEXT or --output-file FILE")
    text = output
    s = settings(ctx, dsn, schema, json_)
    target = new_thread or new_fork_id()

    def body() -> str:
        with open_schema(s) as conn:
            queries, actions = Queries(schema_of(s)), ActionQueries(schema_of(s))
            return SyncDriver(conn).run(
                lambda: plan_fork(queries, actions, thread, action_id, text, target)
            )

    new_id = guard(s, body)
    if s.json:
        emit_json({"thread_id": new_id, "forked_from": thread, "action_id": action_id})
    else:
        OUT.print(new_id)
