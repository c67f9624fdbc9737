"""What the recorder tells an observer (tracing) about each action it sees.

The :class:`~langgraph_actionckpt.actions.recorder.ActionRecorder` sees every
run begin and end. An :class:`ActionObserver` gets the same two moments with
what the row will hold, and returns an opaque handle (a span) at the start that
the recorder keeps on the run and passes back at the end. The OpenTelemetry
observer (:mod:`.otel`) is the one implementation; :data:`NULL_OBSERVER` is the
default and costs the recorder one attribute check per event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "NULL_OBSERVER",
    "ActionEnd",
    "ActionObserver",
    "ActionStart",
    "NullObserver",
]


@dataclass(slots=True)
class ActionStart:
    """A run the recorder started to follow.

    Attributes:
        kind: ``agent`` (the graph's root run), ``node``, ``chat``,
            ``text_completion``, ``tool`` or ``retriever``.
        name: Graph, node, model, tool or retriever name.
        thread_id: The checkpointed thread the run belongs to.
        node: The LangGraph node the run is in.
        step: The LangGraph step.
        task_id: The LangGraph task.
        checkpoint_ns: The (sub)graph namespace.
        params: Model invocation parameters (``chat``/``text_completion``).
        provider: The model provider LangChain names (``ls_provider``).
        tool_call_id: The id of the model's tool call (``tool``).
    """

    kind: str
    name: str
    thread_id: str
    node: str | None = None
    step: int | None = None
    task_id: str | None = None
    checkpoint_ns: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    provider: str | None = None
    tool_call_id: str | None = None


@dataclass(slots=True)
class ActionEnd:
    """How a followed run ended.

    Attributes:
        status: ``completed``, ``failed``, ``interrupted``, ``replayed`` or
            ``reused`` (the last two: nothing ran, the log answered).
        action_id: The key of the action's row (None for the root run).
        action_type: The row's ``action_type``.
        attempt: The row's attempt number.
        error: The exception, if the run raised.
        usage: Token usage, model and provider of a model response
            (:func:`~langgraph_actionckpt.actions.fields.usage_fields` keys).
        finish_reasons: The finish reasons of a model response, where known.
        response_id: The provider's response id, where known.
        origin: For an action served from the log: ``(trace_id, span_id)``
            stored on its row, the span of the run that executed it.
    """

    status: str
    action_id: str | None = None
    action_type: str | None = None
    attempt: int = 1
    error: BaseException | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    finish_reasons: list[str] = field(default_factory=list)
    response_id: str | None = None
    origin: tuple[str, str] | None = None


class ActionObserver(Protocol):
    """Hears each action start and end (the recorder calls it in the callback's context)."""

    def wants(self) -> bool:
        """Whether it follows actions now (asked before each start; keep it cheap)."""
        ...

    def start(self, action: ActionStart, parent: Any | None) -> Any | None:
        """Begin following an action.

        Args:
            action: What is known at its start.
            parent: The handle of the nearest enclosing followed run (None:
                the caller's context decides, e.g. its current span).

        Returns:
            A handle passed back to :meth:`end` and :meth:`ids`, or None to
            not follow this action.
        """
        ...

    def end(self, handle: Any, outcome: ActionEnd) -> None:
        """Finish following an action."""
        ...

    def ids(self, handle: Any) -> tuple[str, str] | None:
        """``(trace_id, span_id)`` as hex text, stored on the action's row."""
        ...


class NullObserver:
    """Follows nothing (the default)."""

    def wants(self) -> bool:
        """Never."""
        return False

    def start(self, action: ActionStart, parent: Any | None) -> Any | None:
        """Follow nothing."""
        return None

    def end(self, handle: Any, outcome: ActionEnd) -> None:
        """Nothing to finish."""

    def ids(self, handle: Any) -> tuple[str, str] | None:
        """No ids."""
        return None


NULL_OBSERVER = NullObserver()
"""The shared :class:`NullObserver`."""
