"""How the callback handler joins its runs to the rows the replay hooks write.

The replay hooks decide about an LLM or tool call before LangChain starts the
callback run, and the handler sees the run without knowing that decision. Both
meet here, in the lower layer, so neither imports the other.
"""

from __future__ import annotations

import contextvars

__all__ = ["pending_llm_run", "register_run", "run_origins", "run_registry"]

# Set by the callback handler on a chat model start, read by the cache lookup,
# so the handler can join the row the replay layer writes (same context).
pending_llm_run: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "actionckpt_pending_llm_run", default=None
)
# lc run id -> (thread_id, action_id, replayed) for the handler's join
run_registry: dict[str, tuple[str, str, bool]] = {}
# lc run id -> (trace_id, span_id) stored on the row a replayed run was served from:
# the span of the run that executed it, which the replayed span links to
run_origins: dict[str, tuple[str, str]] = {}
_REGISTRY_MAX = 50_000


def register_run(
    run_id: str | None,
    thread_id: str,
    action_id: str,
    replayed: bool,
    origin: tuple[str | None, str | None] = (None, None),
) -> None:
    """Note which row a LangChain run belongs to (``origin``: the served row's trace ids)."""
    if not run_id:
        return
    if len(run_registry) > _REGISTRY_MAX:
        run_registry.clear()
        run_origins.clear()
    run_registry[run_id] = (thread_id, action_id, replayed)
    trace_id, span_id = origin
    if trace_id is not None and span_id is not None:
        run_origins[run_id] = (trace_id, span_id)
