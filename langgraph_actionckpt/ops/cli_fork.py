"""``actionckpt fork``: a new thread where one logged action answered differently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from langgraph_actionckpt.ops.cli_common import (
    OUT,
    Settings,
    command,
    emit_json,
    guard,
    open_schema,
    schema_of,
)
from langgraph_actionckpt.ops.cli_crypto import ActiveOpt, ReadKeyOpt, keyring_from
from langgraph_actionckpt.ops.display import cell


@command()
def fork(
    s: Settings,
    thread: Annotated[str, typer.Argument(help="Thread id")],
    action_id: Annotated[str, typer.Argument(help="The action's idempotency key (see `show`)")],
    output: Annotated[
        str | None, typer.Option("--output", help="The action's new output (text)")
    ] = None,
    output_file: Annotated[
        Path | None,
        typer.Option("--output-file", help="Read the new output from this file (UTF-8 text)"),
    ] = None,
    output_json: Annotated[
        str | None,
        typer.Option("--output-json", help="The new output as JSON (a tool's structured result)"),
    ] = None,
    new_thread: Annotated[
        str | None, typer.Option("--new-thread", help="The new thread's id [default: a UUID]")
    ] = None,
    key: ReadKeyOpt = None,
    active: ActiveOpt = None,
) -> None:
    """Fork THREAD at ACTION_ID as if it had returned --output; print the new thread id.

    The new thread starts from the checkpoint the action's task was prepared
    from. Resume it (``graph.invoke(None, {"configurable": {"thread_id": NEW}})``):
    the task's earlier actions are served from the log, this one answers the
    new output (an LLM completion's text, a tool's result; --output-json for
    structured results), and the rest runs live. THREAD is only read.

    An encrypted thread needs --key (as for rotate-key): the fork's values are
    sealed again for the new thread; without the key nothing is written.
    """
    from langgraph_actionckpt.actions.records import ActionQueries
    from langgraph_actionckpt.checkpoints.codec import Codec
    from langgraph_actionckpt.checkpoints.fork import new_fork_id, plan_fork
    from langgraph_actionckpt.checkpoints.setup import default_serde
    from langgraph_actionckpt.checkpoints.sql import Queries
    from langgraph_actionckpt.db.driver import SyncDriver

    given = [x for x in (output, output_file, output_json) if x is not None]
    if len(given) != 1:
        raise typer.BadParameter(
            "give the new output once: --output TEXT, --output-file FILE or --output-json JSON"
        )
    value: Any = output
    if output_file is not None:
        value = output_file.read_text(encoding="utf-8")
    elif output_json is not None:
        try:
            value = json.loads(output_json)
        except json.JSONDecodeError as exc:
            raise typer.BadParameter(f"--output-json is not JSON: {exc}") from exc
    target = new_thread or new_fork_id()

    def body() -> str:
        ring = keyring_from(key, active or key[0].partition("=")[0]) if key else None
        codec = Codec(default_serde(), schema=schema_of(s), keyring=ring)
        with open_schema(s) as conn:
            queries, actions = Queries(schema_of(s)), ActionQueries(schema_of(s), ring)
            return SyncDriver(conn).run(
                lambda: plan_fork(queries, actions, thread, action_id, value, target, codec)
            )

    new_id = guard(s, body)
    if s.json:
        emit_json({"thread_id": new_id, "forked_from": thread, "action_id": action_id})
    else:
        OUT.print(cell(new_id))
