"""``actionckpt to-resume``: the runs an orchestrator should resume, agent by agent.

The query is ``saver.runs_to_resume``'s
(:func:`~langgraph_actionckpt.replay.progress.plan_runs_to_resume`), run on the
command's connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from langgraph_actionckpt.ops.cli_common import (
    OUT,
    Settings,
    command,
    flag,
    fmt_status,
    new_table,
    parse_since,
    printed,
    read,
    schema_of,
)
from langgraph_actionckpt.ops.cli_crypto import ReadKeyOpt, keyring_or_none
from langgraph_actionckpt.ops.display import cell

if TYPE_CHECKING:  # the replay package is imported when the command runs
    from langgraph_actionckpt.replay.progress import RunProgress


@command("to-resume")
def to_resume(
    s: Settings,
    since: Annotated[
        str | None, typer.Option(help="Activity since: a duration (7d) or an ISO date")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many runs")] = 50,
    action_runs_only: Annotated[
        bool,
        flag("--action-runs-only/--all-threads", "Only runs recorded by ActionRun"),
    ] = False,
    key: ReadKeyOpt = None,
) -> None:
    """List runs with actions in flight, agents not finished, or a failed last action."""
    from langgraph_actionckpt.actions.records import ActionQueries
    from langgraph_actionckpt.db.driver import SyncDriver
    from langgraph_actionckpt.replay.progress import plan_runs_to_resume

    since_at = parse_since(since) if since else None

    def query(conn: Any, schema: str) -> list[RunProgress]:
        queries = ActionQueries(schema, keyring_or_none(key))
        return SyncDriver(conn).run(
            lambda: plan_runs_to_resume(
                queries, limit=limit, since=since_at, action_runs_only=action_runs_only
            )
        )

    runs = read(s, query)
    empty = None if runs else f"no runs to resume in schema {schema_of(s)}"
    if printed(s, lambda: {"runs": [progress_json(r) for r in runs]}, empty):
        return
    columns = ("run", "agent", "completed", "last completed", "in flight or failed", "status")
    table = new_table(f"runs to resume in {schema_of(s)}", columns, right=("completed",))
    for run in runs:
        for agent in run.agents.values():
            last = agent.last_completed
            open_ = [*agent.in_flight, *([agent.failed] if agent.failed else [])]
            table.add_row(
                cell(run.run_id),
                cell(agent.agent_id),
                str(agent.completed),
                cell(f"{last.action_type} {last.name or ''}".strip() if last else "-"),
                cell(", ".join(_open(r) for r in open_) if open_ else "-"),
                fmt_status(_status(agent, open_)),
            )
    OUT.print(table)


def _status(agent: Any, open_: list[Any]) -> str:
    """An action's status when one is open; else how the agent's run ended.

    ``not finished``: its run row is still ``running`` (the agent was killed
    between two actions, or it runs now); ``failed``/``interrupted``: its block
    raised; ``completed``: it finished (or, a graph's, its actions did).
    """
    if open_:
        return str(open_[0].status)
    if agent.run is None or agent.run.status == "completed":
        return "completed"
    return "not finished" if agent.run.status == "running" else str(agent.run.status)


def _open(rec: Any) -> str:
    """An action in flight or failed: its name, and whether it may run again by itself."""
    settle = rec.status != "failed" and not rec.idempotent
    return f"{rec.action_type} {rec.name or ''}" + (" (resolve_action first)" if settle else "")


def progress_json(run: RunProgress) -> dict[str, Any]:
    """``to-resume --json``: a run's progress, each action as ``ActionRecord.to_dict``."""

    def one(rec: Any) -> dict[str, Any] | None:
        return None if rec is None else dict(rec.to_dict())

    return {
        "run_id": run.run_id,
        "last_completed": one(run.last_completed),
        "in_flight": [one(r) for r in run.in_flight],
        "agents": {
            a.agent_id: {
                "completed": a.completed,
                "last_completed": one(a.last_completed),
                "in_flight": [one(r) for r in a.in_flight],
                "failed": one(a.failed),
                "run": one(a.run),
                "finished": a.finished,
            }
            for a in run.agents.values()
        },
    }
