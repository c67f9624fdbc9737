"""Fork a thread at one action: a new thread where that action answered differently.

``fork_at_action(thread, action, output=...)`` copies the thread as it stood
when the action's task was prepared (the checkpoint the action row names, with
its ancestors), drops what the task itself wrote there, and copies the task's
earlier actions with the edited action. Resuming the new thread runs the task
again: replay serves the earlier actions from the log (their idempotency keys
are derived from the task id, which the copied checkpoint keeps), serves the
edited output, and everything after it runs live, because its requests now
differ (the model sees the edited answer).

What is copied, in one transaction (the source thread is only read):

* checkpoints and pending writes up to the task's checkpoint (checkpoint ids
  are time ordered, so ``checkpoint_id <= C`` is the thread's state at that
  point in every namespace); the writes of the task and of the tasks that
  enclose it (a subgraph's parent nodes) are left out, so they run again;
* the blobs those rows need (all are copied, then the unneeded ones collected);
* actions of earlier and sibling tasks (history, with their checkpoint up to
  ``C``), and of the task itself the replayable ones that completed before the
  edited action started (an enclosing tool call, still open then, is left out);
* the edited action: ``output`` replaced, completed, replayable, ``replayed``
  reset, ``meta.forked_from`` naming the source.

Free functions: :func:`plan_fork` is a plan; :func:`edited_output` and
:func:`check_forkable` decide without I/O.
"""

from __future__ import annotations

import functools
import uuid
from functools import cached_property
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from psycopg import sql

from langgraph_actionckpt.actions.reads import plan_get
from langgraph_actionckpt.actions.record import WRITE_COLUMNS, ActionRecord
from langgraph_actionckpt.actions.records import ActionQueries
from langgraph_actionckpt.checkpoints.codec import Codec, json_text
from langgraph_actionckpt.checkpoints.reseal import plan_reseal_copied
from langgraph_actionckpt.checkpoints.sql import Queries
from langgraph_actionckpt.checkpoints.sql_base import SchemaSQL
from langgraph_actionckpt.crypto import action_aad
from langgraph_actionckpt.db.driver import BEGIN, COMMIT, Op, Plan
from langgraph_actionckpt.db.encoding import escape_text, stored_id
from langgraph_actionckpt.errors import ConfigurationError

__all__ = [
    "FORKABLE_TYPES",
    "ForkQueries",
    "check_forkable",
    "edited_output",
    "enclosing_tasks",
    "new_fork_id",
    "plan_fork",
]

FORKABLE_TYPES = ("llm_completion", "tool_call", "retriever", "function")
"""Action types whose output replay serves (a ``node`` row is LangGraph's, not ours)."""


def new_fork_id() -> str:
    """A fresh thread id for a fork."""
    return str(uuid.uuid4())


def check_forkable(thread_id: str, action_id: str, record: ActionRecord | None) -> ActionRecord:
    """The action to fork at, or a :class:`ConfigurationError` saying why it cannot be.

    Raises:
        ConfigurationError: No such action, an action replay never serves (a
            ``node`` row), one not taken inside a checkpointed task, or one not
            completed.
    """
    if record is None:
        raise ConfigurationError(f"no action {action_id!r} on thread {thread_id!r}")
    if record.action_type not in FORKABLE_TYPES:
        raise ConfigurationError(
            f"action {action_id!r} is a {record.action_type!r} row; fork at an LLM completion, "
            f"a tool call, a retriever or an @action function ({', '.join(FORKABLE_TYPES)})"
        )
    if not record.task_id or not record.checkpoint_id or record.step_index is None:
        raise ConfigurationError(
            f"action {action_id!r} was not taken inside a checkpointed LangGraph task; "
            "there is no checkpoint to fork from"
        )
    if record.status != "completed":
        raise ConfigurationError(
            f"action {action_id!r} is {record.status!r}, not completed; only a completed "
            "action can be forked (settle an in-flight one with resolve_action first)"
        )
    return record


def edited_output(record: ActionRecord, output: Any) -> Any:
    """``output`` in the form replay serves for an action like ``record``.

    An LLM completion takes an ``AIMessage`` (any message) or a string (the
    answer's text). A tool call whose result was logged as a ``ToolMessage``
    keeps that message's ``tool_call_id`` and name, with ``output`` as its
    content (or ``output`` itself when it is a ``ToolMessage``). Anything else
    is stored as given.

    Raises:
        ConfigurationError: ``output`` is None, or not a message or a string
            for an LLM completion.
    """
    if output is None:
        raise ConfigurationError("fork_at_action needs the action's new output (output=...)")
    if record.action_type == "llm_completion":
        if isinstance(output, BaseMessage):
            return output
        if isinstance(output, str):
            return AIMessage(content=output)
        raise ConfigurationError(
            "the new output of an LLM completion must be an AIMessage or a string, "
            f"not {type(output).__name__}"
        )
    old = record.output
    if isinstance(old, ToolMessage) and not isinstance(output, ToolMessage):
        return ToolMessage(
            content=output if isinstance(output, (str, list)) else json_text(output),
            tool_call_id=old.tool_call_id,
            name=old.name,
            status="success",
        )
    return output


def enclosing_tasks(checkpoint_ns: str) -> list[str]:
    """Task ids of the parent tasks in a subgraph namespace (``node:<task id>|...``)."""
    out: list[str] = []
    for part in checkpoint_ns.split("|") if checkpoint_ns else ():
        _, sep, task_id = part.rpartition(":")
        if sep and task_id:
            out.append(task_id)
    return out


class ForkQueries(SchemaSQL):
    """The statements of a fork (one schema)."""

    @cached_property
    def state(self) -> sql.Composed:
        """Does the source checkpoint exist; does the target thread hold anything."""
        return self.q(
            """
            SELECT EXISTS (SELECT 1 FROM {s}.checkpoints WHERE thread_id = %(source)s
                             AND checkpoint_ns = %(ns)s AND checkpoint_id = %(checkpoint_id)s),
                   EXISTS (SELECT 1 FROM {s}.checkpoints WHERE thread_id = %(target)s)
                   OR EXISTS (SELECT 1 FROM {s}.writes WHERE thread_id = %(target)s)
                   OR EXISTS (SELECT 1 FROM {s}.blobs WHERE thread_id = %(target)s)
                   OR EXISTS (SELECT 1 FROM {s}.actions WHERE thread_id = %(target)s)
            """
        )

    @cached_property
    def copy(self) -> list[sql.Composed]:
        """Checkpoints, blobs and writes up to the fork point (the task's own writes left out)."""
        return [
            self.copy_rows("checkpoints", "AND checkpoint_id <= %(checkpoint_id)s"),
            self.copy_rows("blobs"),
            self.copy_rows(
                "writes",
                "AND checkpoint_id <= %(checkpoint_id)s AND task_id <> ALL(%(skip_tasks)s::text[])",
            ),
        ]

    @cached_property
    def copy_actions(self) -> sql.Composed:
        """The action rows the new thread starts with (see the module docstring)."""
        cols = sql.SQL(", ").join(sql.Identifier(c) for c in WRITE_COLUMNS if c != "thread_id")
        return self.q(
            """
            INSERT INTO {s}.actions (thread_id, {cols})
            SELECT %(target)s, {cols} FROM {s}.actions
            WHERE thread_id = %(source)s AND (
                (task_id = %(task_id)s AND step_index < %(step_index)s
                 AND action_type = ANY(%(types)s::text[]) AND status = 'completed'
                 AND completed_at <= %(started_at)s)
                OR action_id = %(action_id)s
                OR (checkpoint_id <= %(checkpoint_id)s
                    AND COALESCE(task_id <> ALL(%(skip_tasks)s::text[]), false)))
            ORDER BY step_index
            """,
            cols=cols,
        )

    @cached_property
    def edit(self) -> sql.Composed:
        """The edited action in the new thread (the source result's typed form goes)."""
        return self.q(
            """
            UPDATE {s}.actions SET output = %(output)s::jsonb, error = NULL,
                   status = 'completed', replayable = true, replayed = 0,
                   meta = (COALESCE(meta, '{{}}'::jsonb) - 'typed' - 'not_replayable')
                          || %(meta)s::jsonb
            WHERE thread_id = %(target)s AND action_id = %(action_id)s
            """
        )


@functools.cache
def fork_queries(schema: str) -> ForkQueries:
    """The fork statements of a schema (composed once)."""
    return ForkQueries(schema)


def plan_fork(
    queries: Queries,
    action_queries: ActionQueries,
    thread_id: str,
    action_id: str,
    output: Any,
    new_thread_id: str,
    codec: Codec | None = None,
) -> Plan[str]:
    """Create ``new_thread_id`` as ``thread_id`` forked at ``action_id`` with ``output``.

    With encryption on (``codec.keyring``) the copied values are sealed again
    for the new thread, and the edited output is sealed for its new row; a
    plain value is copied as it is, never sealed (see ``plan_reseal_copied``).

    Returns:
        The new thread id.

    Raises:
        ConfigurationError: No such action or it cannot be forked (see
            :func:`check_forkable`), its checkpoint is gone (pruned), the new
            thread already holds rows, or the output does not fit the action
            (see :func:`edited_output`). Nothing is written then.
        DecryptionError: The thread is encrypted and ``codec`` has no key ring
            (or the key ring refuses a plain value): nothing is written.
    """
    stored_id("thread id", thread_id)
    stored_id("thread id", new_thread_id)
    if str(new_thread_id) == str(thread_id):
        raise ConfigurationError("a fork needs a new thread id, not the source thread's")
    found = yield from plan_get(action_queries, thread_id, action_id)
    record = check_forkable(thread_id, action_id, found)
    edited = edited_output(record, output)
    assert record.checkpoint_id is not None and record.task_id is not None  # check_forkable
    fq = fork_queries(queries.schema)
    params = {
        "source": escape_text(str(thread_id)),
        "target": escape_text(str(new_thread_id)),
        "ns": escape_text(record.checkpoint_ns or ""),
        "checkpoint_id": escape_text(record.checkpoint_id),
        "task_id": escape_text(record.task_id),
        "skip_tasks": [
            escape_text(t) for t in [record.task_id, *enclosing_tasks(record.checkpoint_ns)]
        ],
        "action_id": escape_text(action_id),
        "step_index": record.step_index,
        "started_at": record.started_at,
        "types": list(FORKABLE_TYPES),
        "output": json_text(edited),
        "meta": json_text({"forked_from": {"thread_id": thread_id, "action_id": action_id}}),
    }
    yield BEGIN
    source_ok, target_used = yield Op(fq.state, params, "one")
    if not source_ok:
        raise ConfigurationError(
            f"the checkpoint {record.checkpoint_id!r} that action {action_id!r} was prepared "
            f"from is not stored on thread {thread_id!r} (pruned, or the run used "
            "durability='exit'); cannot fork there"
        )
    if target_used:
        raise ConfigurationError(f"thread {new_thread_id!r} already exists; pick a new thread id")
    for stmt in fq.copy:
        yield Op(stmt, params)
    yield Op(queries.gc_blobs, {"thread_ids": [params["target"]]})
    yield Op(fq.copy_actions, params)
    if codec is not None:
        source, target = escape_text(str(thread_id)), escape_text(str(new_thread_id))
        # before the edit: the re-seal opens each copied value at the source's place
        # (without a key ring it refuses a sealed one: the fork would be unreadable)
        yield from plan_reseal_copied(codec, source, target)
        ring = codec.keyring
        if ring is not None:
            aad = action_aad(codec.schema, target, escape_text(action_id), "output")
            params["output"] = ring.seal_json(json_text(edited), aad)
    yield Op(fq.edit, params)
    yield COMMIT
    return str(new_thread_id)
