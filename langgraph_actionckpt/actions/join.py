"""How the callback handler joins its runs to the rows the replay hooks write.

The replay hooks decide about an LLM or tool call before LangChain starts the
callback run, and the handler sees the run without knowing that decision. Both
meet here, in the lower layer, so neither imports the other.
"""

from __future__ import annotations

import contextvars

__all__ = ["pending_llm_run", "register_run", "run_registry"]

# Set by the callback handler on a chat model start, read by the cache lookup,
# so the handler can join the row the replay layer writes (same context).
pending_llm_run: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "actionckpt_pending_llm_run", default=None
)
# lc run id -> (thread_id, action_id, replayed) for the handler's join
run_registry: dict[str, tuple[str, str, bool]] = {}
_REGISTRY_MAX = 50_000


def register_run(run_id: str | None, thread_id: str, action_id: str, replayed: bool) -> None:
    if not run_id:
        return
    if len(run_registry) > _REGISTRY_MAX:
        run_registry.clear()
    run_registry[run_id] = (thread_id, action_id, replayed)
