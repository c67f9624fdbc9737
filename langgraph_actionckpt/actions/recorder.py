"""The recorder: LangChain callback events in, action rows out (no I/O).

Both callback handlers feed every event to one :class:`ActionRecorder`, which
keeps the runs between their start and end and turns each finished run into an
:class:`~langgraph_actionckpt.ActionRecord`. The handlers queue the rows on the
saver's writer and take and release the thread lease; nothing here touches the
database, so the recorder is tested with plain calls.

The recorder's parts: :class:`~langgraph_actionckpt.actions.runs.TrackedRuns`
(open runs, the observer), :class:`~langgraph_actionckpt.actions.calls.CallRecorder`
(model, tool and retriever calls), and this module's root runs and chains (nodes).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langgraph.errors import GraphInterrupt, ParentCommand

from langgraph_actionckpt.actions.calls import USAGE_UNKNOWN, CallRecorder
from langgraph_actionckpt.actions.fields import error_payload
from langgraph_actionckpt.actions.observer import ActionObserver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.runs import Callback, OpenRun, now, opt_str, run_key

__all__ = ["USAGE_UNKNOWN", "ActionRecorder", "Callback"]


class ActionRecorder(CallRecorder):
    """The run state machine shared by the sync and async handlers.

    Each ``*_start`` method notes a run (it takes the start callback's
    :class:`~langgraph_actionckpt.actions.runs.Callback` and its payload); each
    ``*_end``/``*_error`` method returns the row to write for it, or None when
    there is nothing to record (a run outside a checkpointed thread, a chain
    that is not a node).

    Args:
        record_chains: Make a ``running`` node row when a node starts.
        observer: Told of each action's start and end (tracing spans); its
            ids for an action are stored on the action's row.
    """

    def __init__(
        self, *, record_chains: bool = True, observer: ActionObserver | None = None
    ) -> None:
        super().__init__(observer)
        self.record_chains = record_chains
        # root run id -> thread id whose lease that run took
        self._leases: dict[str, str] = {}
        # ids of the errors node rows were failed with, until their root ends
        self._failed_with: set[int] = set()

    # ------------------------------------------------------------ root runs

    @staticmethod
    def root_thread(parent_run_id: UUID | None, metadata: dict[str, Any] | None) -> str | None:
        """The thread a root run (one with no parent) runs, if any: the one to lease."""
        if parent_run_id is not None or not metadata:
            return None
        return opt_str(metadata.get("thread_id"))

    def hold_lease(self, run_id: UUID, thread_id: str) -> None:
        """Note that this root run took the thread's lease (released at its end)."""
        self._leases[str(run_id)] = thread_id

    def lease_end(self, run_id: UUID) -> str | None:
        """The thread whose lease this root run holds (forgotten on the way out)."""
        return self._leases.pop(str(run_id), None)

    # ---------------------------------------------------------------- chains

    def chain_start(self, call: Callback, inputs: Any) -> ActionRecord | None:
        """Note a chain; when it is a LangGraph node, its ``running`` node row."""
        run_name = call.name()
        run = OpenRun("chain", call, run_name)
        rid = run.rid
        self._runs[run.key] = run
        task_id = run.task_id
        if (
            task_id is None
            or run.thread_id is None
            or run.ns_node != run_name
            or run.metadata.get("langgraph_node") != run_name
            or str(run_name).startswith("__")  # __start__ and friends: LangGraph plumbing
        ):
            if call.parent_run_id is None:  # the graph itself: the trace's agent span
                self._observe(run, "agent", str(run_name or "LangGraph"))
            return None
        self._observe(run, "node", str(run_name))
        if not self.record_chains:
            return None
        # This run is the node itself: its row is the saver's `node` row.
        run.action_id = f"{task_id}:node"
        record = self._record(run, rid, "node", run.action_id)
        record.status = "running"
        record.started_at = now()
        if isinstance(inputs, dict):
            record.input = {"keys": sorted(str(k) for k in inputs)}
        if run.span is not None:
            ids = self.observer.ids(run.span)
            if ids is not None:
                record.trace_id, record.span_id = ids
        return record

    def chain_end(self, run_id: UUID) -> None:
        """Forget a chain that ended (the saver completes node rows)."""
        run = self._runs.pop(run_key(run_id), None)
        if run is not None and run.span is not None:
            self._observed(run, "completed", None)

    def chain_error(self, error: BaseException, run_id: UUID) -> ActionRecord | None:
        """The failed (or interrupted) node row of a chain that raised."""
        rid, run = self._finish(run_id)
        if run is None or run.action_id is None or not run.thread_id:
            if run is not None and run.span is not None:  # the graph, or a node without rows
                self._observed(run, _chain_status(error), None, error)
            if run is not None and run.parent_key is None and run.thread_id:
                return self._run_failed(run, rid, error)
            return None
        record = self._record(run, rid, "node", run.action_id)
        record.completed_at = now()
        if isinstance(error, ParentCommand):
            # A handoff (Command(graph=Command.PARENT), e.g. langgraph-swarm's
            # handoff tools) is control flow: the node ended and named its successor.
            record.status = "completed"
            record.meta = {"handoff": {"goto": _goto_names(error.args[0].goto)}}
            self._observed(run, "completed", record)
            return record
        record.status = "interrupted" if isinstance(error, GraphInterrupt) else "failed"
        record.error = error_payload(error)
        if record.status == "failed":
            self._failed_with.add(id(error))
        self._observed(run, record.status, record, error)
        return record

    def _run_failed(self, run: OpenRun, rid: str, error: BaseException) -> ActionRecord | None:
        """The row of a root run that raised what no row of it says (the thread failed).

        A node's own failure is its row already; anything else (the recursion
        limit, a checkpoint that could not be written, a lost lease...) would
        leave the thread looking completed or running.
        """
        seen = id(error) in self._failed_with
        self._failed_with.clear()  # a root's end: the ids noted in it are done with
        if seen or _chain_status(error) != "failed":
            return None
        record = self._record(run, rid, "node", f"{rid}:run")
        record.status = "failed"
        record.error = error_payload(error)
        record.meta = {"run": "failed"}
        record.started_at = record.completed_at = now()
        return record


def _chain_status(error: BaseException) -> str:
    """How a chain that raised ended: a handoff completes it, an interrupt pauses it."""
    if isinstance(error, ParentCommand):
        return "completed"
    return "interrupted" if isinstance(error, GraphInterrupt) else "failed"


def _goto_names(goto: Any) -> list[str]:
    """The node names a handoff goes to (``goto`` is a name, a Send, or a list of them)."""
    items = goto if isinstance(goto, (list, tuple)) else [goto]
    return [str(getattr(item, "node", item)) for item in items if item is not None]
