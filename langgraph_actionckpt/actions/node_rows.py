"""The ``node`` action row of a finished superstep task, derived from its writes.

LangGraph reports a finished task only through ``put_writes``; the saver turns
each call into one row of the action log (status, the channels written, where
the conditional edges routed it). Pure functions: no database, no saver.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT, TASKS

from langgraph_actionckpt.db.encoding import dumps, escape_text

_CANONICAL_UUID = re.compile(
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


class NodeAction(NamedTuple):
    """The fields of a node row that come from the task (ids are unescaped)."""

    action_id: str
    action_type: str
    name: str | None
    status: str
    output: str | None
    error: str | None


@functools.lru_cache(maxsize=4096)  # a graph's pull tasks have one path per node
def node_from_path(task_path: str) -> str | None:
    """The node a task runs, from its path; None for ``Send`` (push) tasks.

    Task paths look like ``"~__pregel_pull, agent"`` or ``"~__pregel_push, 0, ..."``.
    """
    parts = [p.strip() for p in task_path.lstrip("~").split(",")]
    if len(parts) >= 2 and parts[0] == "__pregel_pull":
        return parts[1]
    return None


def node_actions(
    task_id: str, task_path: str, writes: Sequence[tuple[str, Any]]
) -> list[NodeAction]:
    """The ``node`` row of a finished task (none for LangGraph's internal nodes).

    The row's output names the channels the task wrote, where its conditional
    edges routed it (``routes``) and how many ``Send`` packets it made
    (``sends``): the branch decision is part of the node's row, not a row of
    its own (one row per superstep task keeps the log, and its indexes, small).
    """
    node = node_from_path(task_path)
    # A Send task's path names no node; its row still completes (the callback
    # handler's row for the task carries the name).
    is_push = task_path.lstrip("~").startswith("__pregel_push")
    if (node is None and not is_push) or (node is not None and node.startswith("__")):
        return []
    channels = tuple([c for c, _ in writes])
    error = next((v for c, v in writes if c == ERROR), None)
    if error is not None:
        status = "failed"
    elif INTERRUPT in channels:
        status = "interrupted"
    else:
        status = "completed"
    err_json = (
        dumps({"type": type(error).__name__, "message": str(error)}).decode()
        if error is not None
        else None
    )
    output = _summary(channels)
    return [NodeAction(f"{task_id}:node", "node", node, status, output, err_json)]


@functools.lru_cache(maxsize=4096)  # a node writes the same channels superstep after superstep
def _summary(channels: tuple[str, ...]) -> str:
    """The node row's output (JSON text): channels written, routes taken, sends made.

    What ``db.encoding.dumps`` makes of this dict (fixed keys, strings escaped,
    a small int), without its walk over arbitrary values.
    """
    summary = {
        "channels": [escape_text(c) for c in channels if not c.startswith("branch:")],
        "routes": [escape_text(c.split(":", 2)[2]) for c in channels if c.startswith("branch:to:")],
        "sends": channels.count(TASKS),
    }
    return orjson.dumps(summary).decode()


def step_after(checkpoint_id: str | None) -> int | None:
    """The step of tasks prepared from a checkpoint, read from its id.

    LangGraph makes checkpoint ids with ``uuid6(clock_seq=step)`` (14 bits), so
    the step is known even before the checkpoint's own put has landed.
    """
    if not checkpoint_id:
        return None
    if _CANONICAL_UUID.fullmatch(checkpoint_id):
        # the clock_seq field, as uuid.UUID reads it (without making one: this runs per task)
        seq = int(checkpoint_id[19:23], 16) & 0x3FFF
    else:
        try:
            seq = uuid.UUID(checkpoint_id).clock_seq
        except ValueError:
            return None
    step = seq - 0x4000 if seq >= 0x3FF0 else seq
    return step + 1
