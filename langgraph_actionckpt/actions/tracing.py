"""The observer a callback handler uses: OpenTelemetry spans when tracing is on, else none.

:mod:`.otel` implements :class:`~.observer.ActionObserver` and is imported only here, on
first use, so the package needs ``opentelemetry-api`` only when tracing is on.
"""

from __future__ import annotations

import importlib
from typing import Any

from langgraph_actionckpt.actions.observer import NULL_OBSERVER, ActionObserver
from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["make_observer"]


def make_observer(tracing: bool | None, tracer_provider: Any = None) -> ActionObserver:
    """The observer a callback handler uses (see its ``tracing`` argument).

    Args:
        tracing: True: spans (needs the ``[otel]`` extra); False: none; None:
            spans when ``opentelemetry`` is installed and a TracerProvider is
            given or configured globally.
        tracer_provider: An OpenTelemetry ``TracerProvider``; None: the global one.

    Raises:
        ConfigurationError: ``tracing=True`` without ``opentelemetry-api`` installed.
    """
    if tracing is False:
        return NULL_OBSERVER
    try:
        module = importlib.import_module("langgraph_actionckpt.actions.otel")
    except ImportError as exc:
        if tracing:
            raise ConfigurationError(
                "tracing=True needs OpenTelemetry: pip install 'langgraph-actionckpt[otel]'"
            ) from exc
        return NULL_OBSERVER
    observer: ActionObserver = module.OTelObserver(tracer_provider, when_configured=tracing is None)
    return observer
