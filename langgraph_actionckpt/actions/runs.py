"""The LangChain runs the recorder has seen start and not yet end.

LangChain reports a run in two callbacks (start, then end or error); what the
start tells (parent run, metadata, inputs, model parameters, start time) is
kept in an :class:`OpenRun` until the end, when the action row is made.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, NamedTuple
from uuid import UUID

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult

from langgraph_actionckpt.actions.fields import agent_id_for
from langgraph_actionckpt.actions.record import ActionRecord

__all__ = [
    "Callback",
    "OpenRun",
    "llm_call_meta",
    "ns_parts",
    "opt_str",
    "response_message",
    "run_key",
]

_perf_counter = time.perf_counter
_now = datetime.now


def opt_str(value: Any) -> str | None:
    """``str(value)``, keeping None."""
    return None if value is None else str(value)


_NO_NS = ("", None, None)
_NS_PARTS: dict[str, tuple[str, str | None, str | None]] = {"": _NO_NS}
_NS_PARTS_MAX = 4096


def ns_parts(metadata: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(graph ns, task id, node name of the ns's last segment) of a run's metadata."""
    ns = metadata.get("langgraph_checkpoint_ns")
    if not ns:
        return _NO_NS
    # every run of a task has the task's namespace: split each one once
    parts = _NS_PARTS.get(ns) if type(ns) is str else None
    if parts is not None:
        return parts
    ns = str(ns)
    last = ns.rsplit("|", 1)[-1]
    node, _, task_id = last.partition(":")
    graph_ns = ns.rsplit("|", 1)[0] if "|" in ns else ""
    parts = graph_ns, task_id or None, node or None
    if len(_NS_PARTS) >= _NS_PARTS_MAX:
        _NS_PARTS.clear()
        _NS_PARTS[""] = _NO_NS
    _NS_PARTS[ns] = parts
    return parts


def response_message(response: LLMResult) -> BaseMessage | None:
    """The first generation of a model response, as a message."""
    try:
        gen = response.generations[0][0]
    except (IndexError, TypeError):
        return None
    message = getattr(gen, "message", None)
    if isinstance(message, BaseMessage):
        return message
    return AIMessage(content=getattr(gen, "text", ""))


def llm_call_meta(
    serialized: dict[str, Any] | None,
    metadata: dict[str, Any],
    params: dict[str, Any],
    name: str | None,
) -> tuple[str, dict[str, Any]]:
    """(model name, ``meta`` column) of a model call, from its start callback."""
    model = (
        params.get("model_name")
        or params.get("model")
        or metadata.get("ls_model_name")
        or name
        or (serialized or {}).get("name")
    )
    tools = [
        t.get("function", {}).get("name") for t in params.get("tools") or [] if isinstance(t, dict)
    ]
    return str(model) if model else "llm", {
        "invocation_params": {k: v for k, v in params.items() if k != "tools"},
        "tools": tools,
        "provider": metadata.get("ls_provider") or params.get("_type"),
    }


def run_key(run_id: Any) -> Any:
    """The key of a LangChain run among the recorder's open runs: a UUID's number.

    ``UUID.__hash__`` is a Python call (``hash(self.int)``); the number hashes in C.
    A run id of another type is its own key.
    """
    return run_id.int if type(run_id) is UUID else run_id


class Callback(NamedTuple):
    """What every ``on_*_start`` callback is told besides its payload, bundled once.

    The handlers build it from the callback's keywords (:meth:`of`); the
    recorder's ``*_start`` methods take it with the payload (inputs, prompts,
    tool input, query).

    Attributes:
        serialized: The runnable's serialized form, if LangChain sent one.
        run_id: The run's LangChain id.
        parent_run_id: The parent run's id (None for a root run).
        metadata: The run's metadata (LangGraph puts thread, node, step, ns there).
        extra: The callback's other keywords (``name``, ``invocation_params``,
            ``tool_call_id``...).
    """

    serialized: dict[str, Any] | None
    run_id: UUID
    parent_run_id: UUID | None
    metadata: dict[str, Any] | None
    extra: dict[str, Any]

    @classmethod
    def of(cls, serialized: dict[str, Any] | None, kwargs: dict[str, Any]) -> Callback:
        """The bundle of a start callback's ``serialized`` and keywords.

        ``kwargs`` must hold ``run_id``; ``run_id``, ``parent_run_id`` and
        ``metadata`` are taken out of it, the rest is :attr:`extra`.
        """
        # tuple.__new__ directly: the generated __new__ is a Python call, and
        # this runs on every start callback, on the graph's path
        run_id = kwargs.pop("run_id")
        parent_run_id = kwargs.pop("parent_run_id", None)
        metadata = kwargs.pop("metadata", None)
        return tuple.__new__(cls, (serialized, run_id, parent_run_id, metadata, kwargs))

    def name(self, default: str | None = None) -> Any:
        """The run's name: the callback's ``name``, else the serialized one, else ``default``."""
        return self.extra.get("name") or (self.serialized or {}).get("name") or default


class OpenRun:
    """A chain, LLM, tool or retriever run between its start and end callbacks.

    Made from its start callback's :class:`Callback` (parent run and metadata).

    Attributes:
        kind: ``chain``, ``llm``, ``tool`` or ``retriever``.
        parent: The LangChain run id of the parent run (as LangChain gave it).
        key: The run's key among the recorder's open runs (:func:`run_key`).
        parent_key: The parent run's key (None for a root run).
        rid: The run's LangChain id as text.
        metadata: The run's metadata (LangGraph puts thread, node, step, ns there).
        name: The name the row gets (node, model, tool, retriever).
        input: What the start callback passed (prompts, tool input, query).
        meta: Extra fields for the row's ``meta`` column.
        action_id: The action this run's row belongs to, once known.
        first_token: When the first streamed token arrived (``perf_counter``).
        t0: When the run started (``perf_counter``).
        thread_id: The run's thread (None outside a checkpointed graph: no row).
        graph_ns: The namespace of the (sub)graph the run is in.
        task_id: The LangGraph task the run is in, if any.
        ns_node: The node named by the last segment of the run's namespace.
        span: The observer's handle for the run (None: not followed).
    """

    # A plain class with slots, not a dataclass: one is made per callback run,
    # on the graph's path, and this __init__ is the cheapest Python offers.
    __slots__ = (
        "action_id",
        "first_token",
        "graph_ns",
        "input",
        "key",
        "kind",
        "meta",
        "metadata",
        "name",
        "ns_node",
        "parent",
        "parent_key",
        "rid",
        "span",
        "t0",
        "task_id",
        "thread_id",
    )

    def __init__(
        self,
        kind: str,
        call: Callback,
        name: str | None = None,
        input: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        _, run_id, parent, metadata, _ = call
        self.kind = kind
        if type(run_id) is UUID:
            number = run_id.int
            self.key: Any = number
            # str(run_id), without UUID.__str__'s two %-formattings (a fifth of this
            # __init__): the 16 bytes in hex by 4 digits, the dashes of the
            # canonical 8-4-4-4-12 kept
            hex4 = number.to_bytes(16).hex("-", 2)
            self.rid = hex4[:4] + hex4[5:29] + hex4[30:34] + hex4[35:]
        else:
            self.key, self.rid = run_id, str(run_id)
        self.parent = parent
        self.parent_key = run_key(parent)
        self.metadata = metadata = metadata or {}
        self.name = name
        self.input = input
        self.meta = meta
        self.t0 = _perf_counter()
        self.first_token: float | None = None
        self.action_id: str | None = None
        self.span: Any = None  # the observer's handle (a tracing span), if it follows the run
        tid = metadata.get("thread_id")
        self.thread_id = None if tid is None else str(tid)
        self.graph_ns, self.task_id, self.ns_node = ns_parts(metadata)

    def elapsed_ms(self) -> float:
        """Milliseconds since the run started."""
        return (_perf_counter() - self.t0) * 1000.0

    def record(
        self,
        run_id: str,
        kind: str,
        action_id: str,
        parent_action_id: str | None,
        *,
        own: bool = False,
        input: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> ActionRecord:
        """A row for this run with the fields every kind shares (status ``running``).

        ``own``: a row only the callbacks see (:meth:`own_record`): not replayable,
        started and completed now, timed since the run started.
        """
        graph_ns, metadata = self.graph_ns, self.metadata
        step = metadata.get("langgraph_step")
        run = metadata.get("run_id")
        at = _now(UTC) if own else None
        # keywords for the fields a run knows; every other field keeps its default
        return ActionRecord(
            thread_id=self.thread_id or "",
            action_id=action_id,
            action_type=kind,
            name=self.name,
            run_id=None if run is None else str(run),
            checkpoint_ns=graph_ns,
            task_id=self.task_id,
            node=metadata.get("langgraph_node"),
            agent_id=agent_id_for(graph_ns, metadata),
            step=step if isinstance(step, int) else None,
            replayable=not own,
            input=input,
            latency_ms=(_perf_counter() - self.t0) * 1000.0 if own else None,
            parent_action_id=parent_action_id,
            lc_run_id=run_id,
            meta=meta,
            started_at=at,
            completed_at=at,
        )

    def own_record(
        self,
        run_id: str,
        kind: str,
        parent_action_id: str | None,
        input: Any,
        meta: dict[str, Any] | None,
    ) -> ActionRecord:
        """The row of a run only the callbacks see, at its end: not replayable, timed here.

        Its action id is keyed by the LangChain run id (``{task}:{kind}:run:{run id}``);
        it starts and completes now, and its status is ``running`` until the caller
        settles it.
        """
        action_id = f"{self.task_id or 'run'}:{kind}:run:{run_id}"
        return self.record(
            run_id, kind, action_id, parent_action_id, own=True, input=input, meta=meta
        )
