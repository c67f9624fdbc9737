# Generated from langgraph_actionckpt/actions/_async_api.py by .ci/gen_sync.py.
# Edit the async source, not this file, then run: python .ci/gen_sync.py
"""The action log's public reads, declared once for the direct and the remote saver.

``_async_api.py`` is the source; ``.ci/gen_sync.py`` generates ``_sync_api.py``
from it. A saver that mixes :class:`AsyncActionLogAPI` in provides ``writer``
(whose queued rows every read flushes first) and four ports: ``_query_actions``,
``_query_action``, ``_query_last_action`` and ``_settle_action``. The direct
saver runs plans there, the remote saver makes gRPC calls; the signatures and
docstrings users read stay the same in both.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langgraph_actionckpt.actions.reads import records_to_jsonl
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.writer import SyncActionWriter
from langgraph_actionckpt.db.encoding import stored_id


class SyncActionLogAPI:
    """``list_actions``, ``get_action``, ``last_action``, ``resolve_action`` and the export."""

    writer: SyncActionWriter

    def _query_actions(
        self, thread_id: str | None, filters: dict[str, Any]
    ) -> builtins.list[ActionRecord]:
        raise NotImplementedError

    def _query_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        raise NotImplementedError

    def _query_last_action(
        self, thread_id: str, status: str | Sequence[str] | None
    ) -> ActionRecord | None:
        raise NotImplementedError

    def _settle_action(
        self,
        thread_id: str,
        action_id: str,
        output: Any,
        retry: bool,
        note: str | None,
        override: bool,
    ) -> None:
        raise NotImplementedError

    def list_actions(
        self,
        thread_id: str | None = None,
        *,
        action_type: str | Sequence[str] | None = None,
        status: str | Sequence[str] | None = None,
        node: str | None = None,
        since: datetime | int | None = None,
        run_id: str | None = None,
        task_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[ActionRecord]:
        """Actions of a thread (or all threads) in the order they were recorded.

        Args:
            thread_id: The thread; ``None`` for every thread.
            action_type: One type or several (``llm_completion``, ``tool_call``...).
            status: One status or several (``completed``, ``failed``...).
            node: Only actions taken inside this graph node.
            since: A datetime (started at or after) or a ``step_index`` (after).
            run_id: Only actions of this run.
            task_id: Only actions of this task.
            limit: At most this many rows.

        Raises:
            ConfigurationError: An id longer than its limit (nothing is sent).
        """
        _check_ids(thread_id, run_id=run_id, task_id=task_id)
        self.writer.flush()  # reads see every row recorded so far
        filters = dict(
            action_type=action_type,
            status=status,
            node=node,
            since=since,
            run_id=run_id,
            task_id=task_id,
            limit=limit,
        )
        return self._query_actions(thread_id, filters)

    def get_action(self, thread_id: str, action_id: str) -> ActionRecord | None:
        """One action by its idempotency key, or None.

        Raises:
            ConfigurationError: An id longer than its limit (nothing is sent).
        """
        _check_ids(thread_id, action_id=action_id)
        self.writer.flush()
        return self._query_action(thread_id, action_id)

    def last_action(
        self, thread_id: str, *, status: str | Sequence[str] | None = "completed"
    ) -> ActionRecord | None:
        """The last recorded action of a thread (by default the last completed one).

        Raises:
            ConfigurationError: The thread id is longer than its limit (nothing is sent).
        """
        _check_ids(thread_id)
        self.writer.flush()
        return self._query_last_action(thread_id, status)

    def export_actions_jsonl(self, thread_id: str, *, run_id: str | None = None) -> str:
        """A thread's (or one run's) actions as JSON Lines, one action per line."""
        return records_to_jsonl(self.list_actions(thread_id, run_id=run_id))

    def resolve_action(
        self,
        thread_id: str,
        action_id: str,
        *,
        output: Any = None,
        retry: bool = False,
        note: str | None = None,
        override: bool = False,
    ) -> None:
        """Settle an action whose outcome is unknown (see :class:`InFlightActionError`).

        An action whose outcome is unknown is ``running``, ``pending``,
        ``unknown`` or ``interrupted``, or ``completed`` with a result that
        cannot be replayed (see :class:`NotReplayableError`). A known outcome
        (``completed``, ``failed``) is replaced only with ``override=True``; the
        row then keeps what it replaced in ``meta.overridden`` (status and
        output) and its result is never reused by other threads.

        Args:
            thread_id: The thread.
            action_id: The action's idempotency key (from the error).
            output: The result the action had: it is marked ``completed`` and the
                resumed run receives this output instead of executing it.
            retry: Allow one more execution instead (marks it ``failed``).
            note: Free text stored in ``meta.resolution``.
            override: Replace a known outcome (``completed`` or ``failed``).

        Raises:
            ConfigurationError: Neither or both of ``output`` and ``retry`` given,
                or no such action (the remote saver: ``ServiceError`` with
                ``INVALID_ARGUMENT`` or ``NOT_FOUND``).
            OutcomeKnownError: The action's outcome is known and ``override``
                was not given (the remote saver: ``ServiceError`` with
                ``FAILED_PRECONDITION``).
        """
        _check_ids(thread_id, action_id=action_id)
        self.writer.flush()
        self._settle_action(thread_id, action_id, output, retry, note, override)


def _check_ids(
    thread_id: str | None,
    *,
    action_id: str | None = None,
    run_id: str | None = None,
    task_id: str | None = None,
) -> None:
    # a read with an over-long id is refused as its write would be, not answered []
    for what, value in (
        ("thread id", thread_id),
        ("action id", action_id),
        ("run id", run_id),
        ("task id", task_id),
    ):
        if value is not None:
            stored_id(what, value)
