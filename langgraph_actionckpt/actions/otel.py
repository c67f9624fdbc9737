"""OpenTelemetry spans for recorded actions (the ``[otel]`` extra).

Imported only when tracing is on (see :func:`~.tracing.make_observer`), so the package
needs ``opentelemetry-api`` only then. One span per action, named and
attributed after the GenAI semantic conventions:

* the graph's root run: ``invoke_agent {graph}`` (``gen_ai.operation.name``
  ``invoke_agent``, ``gen_ai.agent.name``, ``gen_ai.conversation.id`` = thread);
* a node: ``node {name}``, under the graph's span;
* a model call: ``chat {model}`` (``text_completion {model}`` for text models),
  kind CLIENT, with ``gen_ai.request.model``, ``gen_ai.provider.name`` (and the
  older ``gen_ai.system``), request parameters, ``gen_ai.usage.input_tokens``/
  ``output_tokens``, ``gen_ai.response.model``, ``gen_ai.response.finish_reasons``;
* a tool call: ``execute_tool {name}`` with ``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, ``gen_ai.tool.type``;
* a retriever call: ``retrieval {name}``.

Every span carries ``actionckpt.thread_id``, ``actionckpt.action_id`` (the
row's key), ``actionckpt.status`` and ``actionckpt.replayed``: actions served
from the log on a resume get spans too, marked ``replayed`` (or ``reused``),
never hidden, with a link to the span that executed the action (the ids its
row stores) and ``actionckpt.origin.trace_id``. A failed action's span has
status ERROR, ``error.type`` and the exception as an event.
"""

from __future__ import annotations

import os
from typing import Any

from opentelemetry import trace
from opentelemetry.environment_variables import OTEL_PYTHON_TRACER_PROVIDER
from opentelemetry.trace import Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from langgraph_actionckpt.actions.observer import ActionEnd, ActionStart

__all__ = ["OTelObserver", "tracing_configured"]

_TRACER_NAME = "langgraph_actionckpt"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("langgraph-actionckpt")
    except metadata.PackageNotFoundError:  # a source checkout that is not installed
        return "0"


# LangChain's ls_provider -> the semantic conventions' gen_ai.provider.name
_PROVIDERS = {
    "openai": "openai",
    "azure": "azure.ai.openai",
    "anthropic": "anthropic",
    "google_vertexai": "gcp.vertex_ai",
    "google_genai": "gcp.gen_ai",
    "google_gemini": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "amazon_bedrock": "aws.bedrock",
    "groq": "groq",
    "mistralai": "mistral_ai",
    "cohere": "cohere",
    "deepseek": "deepseek",
    "xai": "x_ai",
    "perplexity": "perplexity",
    "ibm": "ibm.watsonx.ai",
}
# invocation parameter -> gen_ai.request.* attribute
_REQUEST_PARAMS = {
    "temperature": "gen_ai.request.temperature",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
    "n": "gen_ai.request.choice.count",
}
_OPERATIONS = {
    "agent": "invoke_agent",
    "chat": "chat",
    "text_completion": "text_completion",
    "tool": "execute_tool",
    "retriever": "retrieval",
}


def tracing_configured() -> bool:
    """Whether the application set a global TracerProvider (not the API's default proxy)."""
    provider = trace.get_tracer_provider()
    return not isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


def _link_origin(span: Span, origin: tuple[str, str]) -> None:
    """Link a replayed action's span to the span that executed the action."""
    trace_id, span_id = origin
    span.set_attribute("actionckpt.origin.trace_id", trace_id)
    try:
        context = SpanContext(
            int(trace_id, 16), int(span_id, 16), is_remote=True, trace_flags=TraceFlags(1)
        )
    except ValueError:  # not hex: the row holds ids that are not OpenTelemetry's
        return
    add_link = getattr(span, "add_link", None)  # opentelemetry-api >= 1.24
    if add_link is not None:
        add_link(context, {"actionckpt.link": "executed_by"})


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bool | int | float)


class OTelObserver:
    """Makes a span per action (an :class:`~.observer.ActionObserver`).

    Args:
        tracer_provider: Where spans go (None: the global provider).
        when_configured: With the global provider, make spans only while the
            application has configured one (:func:`tracing_configured`), so
            an application without an OpenTelemetry SDK pays nothing.
    """

    def __init__(
        self, tracer_provider: trace.TracerProvider | None = None, *, when_configured: bool = False
    ) -> None:
        self._until_configured = when_configured and tracer_provider is None
        # a provider named by the environment (read here: the API's getter reads
        # os.environ on every call, which would be once per recorded action)
        self._env_provider = OTEL_PYTHON_TRACER_PROVIDER in os.environ
        self._tracer = trace.get_tracer(_TRACER_NAME, _version(), tracer_provider=tracer_provider)

    def wants(self) -> bool:
        """True, except while following a global provider that is not configured yet."""
        if self._until_configured:
            if not self._env_provider and getattr(trace, "_TRACER_PROVIDER", 0) is None:
                return False  # no provider set yet (what the API's getter checks first)
            if tracing_configured():
                self._until_configured = False  # a configured global provider stays configured
        return not self._until_configured

    def start(self, action: ActionStart, parent: Any | None) -> Span | None:
        """Start the action's span under ``parent`` (else the current context)."""
        context = trace.set_span_in_context(parent) if isinstance(parent, Span) else None
        operation = _OPERATIONS.get(action.kind)
        attrs: dict[str, Any] = {"actionckpt.thread_id": action.thread_id}
        if operation is not None:
            attrs["gen_ai.operation.name"] = operation
        for key, value in (
            ("actionckpt.node", action.node),
            ("actionckpt.step", action.step),
            ("actionckpt.task_id", action.task_id),
            ("actionckpt.checkpoint_ns", action.checkpoint_ns or None),
        ):
            if value is not None:
                attrs[key] = value
        kind = SpanKind.INTERNAL
        if action.kind == "agent":
            name = f"invoke_agent {action.name}"
            attrs["gen_ai.agent.name"] = action.name
            attrs["gen_ai.conversation.id"] = action.thread_id
        elif action.kind == "node":
            name = f"node {action.name}"
        elif action.kind in ("chat", "text_completion"):
            name = f"{action.kind} {action.name}"
            kind = SpanKind.CLIENT
            attrs["gen_ai.request.model"] = action.name
            if action.provider:
                provider = _PROVIDERS.get(action.provider, action.provider)
                attrs["gen_ai.provider.name"] = provider
                attrs["gen_ai.system"] = provider  # the name before semconv 1.37
            for param, key in _REQUEST_PARAMS.items():
                value = action.params.get(param)
                if _scalar(value):
                    attrs[key] = value
            stop = action.params.get("stop")
            if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
                attrs["gen_ai.request.stop_sequences"] = stop
        elif action.kind == "tool":
            name = f"execute_tool {action.name}"
            attrs["gen_ai.tool.name"] = action.name
            attrs["gen_ai.tool.type"] = "function"
            if action.tool_call_id:
                attrs["gen_ai.tool.call.id"] = action.tool_call_id
        else:
            name = f"{operation or action.kind} {action.name}"
        return self._tracer.start_span(name, context=context, kind=kind, attributes=attrs)

    def end(self, handle: Any, outcome: ActionEnd) -> None:
        """Set what the end told (row key, status, usage, error) and end the span."""
        if not isinstance(handle, Span):
            return
        span = handle
        served = outcome.status in ("replayed", "reused")
        attrs: dict[str, Any] = {
            "actionckpt.status": outcome.status,
            "actionckpt.replayed": served,
        }
        if outcome.action_id is not None:
            attrs["actionckpt.action_id"] = outcome.action_id
        if outcome.action_type is not None:
            attrs["actionckpt.action_type"] = outcome.action_type
        if outcome.attempt > 1:
            attrs["actionckpt.attempt"] = outcome.attempt
        usage = outcome.usage
        # A call served from the log spent no tokens now: its counts are what it saved.
        prefix = "actionckpt.saved." if served else "gen_ai.usage."
        for key, attr in (
            ("input_tokens", prefix + "input_tokens"),
            ("output_tokens", prefix + "output_tokens"),
            ("cached_tokens", prefix + "cache_read.input_tokens"),
            ("reasoning_tokens", prefix + "reasoning.output_tokens"),
            ("model", "gen_ai.response.model"),
        ):
            if isinstance(usage.get(key), str | int):
                attrs[attr] = usage[key]
        if outcome.finish_reasons:
            attrs["gen_ai.response.finish_reasons"] = outcome.finish_reasons
        if outcome.response_id:
            attrs["gen_ai.response.id"] = outcome.response_id
        span.set_attributes(attrs)
        if outcome.origin is not None:
            _link_origin(span, outcome.origin)
        if outcome.error is not None and outcome.status == "failed":
            span.set_attribute("error.type", type(outcome.error).__qualname__)
            span.record_exception(outcome.error)
            span.set_status(Status(StatusCode.ERROR, str(outcome.error)[:500]))
        elif outcome.status == "failed":
            span.set_attribute("error.type", "_OTHER")
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def ids(self, handle: Any) -> tuple[str, str] | None:
        """The span's trace and span ids as hex text (None for a non-recording span)."""
        if not isinstance(handle, Span):
            return None
        ctx = handle.get_span_context()
        if not ctx.is_valid:
            return None
        return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")
