"""The action record: one row of ``{schema}.actions`` as Python sees it.

An *action* is one step an agent took: a node transition, an LLM completion, a
tool call, a branch decision, a user ``@action`` function. Each is a row of
``{schema}.actions`` with a deterministic ``action_id`` (the idempotency key).
The SQL that reads and writes these rows is in :mod:`.records`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from langgraph_actionckpt.crypto import Sealed
from langgraph_actionckpt.db import encoding as _encoding

__all__ = [
    "ACTION_TYPES",
    "COLUMNS",
    "JSON_FIELDS",
    "STATUSES",
    "TERMINAL",
    "WRITE_COLUMNS",
    "ActionRecord",
]

ACTION_TYPES = (
    "node",
    "branch",
    "llm_completion",
    "tool_call",
    "retriever",
    "function",
    "state_write",
)
TERMINAL = ("completed", "failed", "unknown", "interrupted", "skipped", "superseded")
STATUSES = ("pending", "running", *TERMINAL)

JSON_FIELDS = ("input", "output", "error", "meta")


@dataclass(slots=True)
class ActionRecord:
    """One action as stored (and as written by the recorder).

    JSON fields (``input``, ``output``, ``error``, ``meta``) hold decoded Python
    values: LangChain messages come back as message objects, bytes as bytes.
    """

    thread_id: str
    action_id: str
    action_type: str
    name: str | None = None
    status: str = "running"
    step_index: int | None = None
    run_id: str | None = None
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None
    task_id: str | None = None
    node: str | None = None
    agent_id: str | None = None
    step: int | None = None
    attempt: int = 1
    idempotent: bool = True
    replayable: bool = True
    replayed: int = 0
    request_hash: str | None = None
    input: Any = None
    output: Any = None
    error: Any = None
    model: str | None = None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None
    parent_action_id: str | None = None
    lc_run_id: str | None = None
    meta: Any = None
    started_at: dt.datetime | None = None
    completed_at: dt.datetime | None = None
    # OpenTelemetry ids (hex) of the span that recorded the action (see actions/otel.py)
    trace_id: str | None = None
    span_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: every field in its stored form (ids escaped as in their column)."""
        out: dict[str, Any] = {}
        for name in COLUMNS:
            value = getattr(self, name)
            if name in JSON_FIELDS:
                value = value.envelope if type(value) is Sealed else _encoding.to_jsonable(value)
            elif isinstance(value, dt.datetime):
                value = value.isoformat()
            elif isinstance(value, str):  # NUL, lone surrogates: not JSON, not text
                value = _encoding.escape_text(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionRecord:
        """Reverse :meth:`to_dict` (used by archive import)."""
        kwargs: dict[str, Any] = {}
        for name in COLUMNS:
            if name not in data:
                continue
            value = data[name]
            if name in JSON_FIELDS:
                value = _encoding.from_jsonable(value)
            elif name in ("started_at", "completed_at") and isinstance(value, str):
                value = dt.datetime.fromisoformat(value)
            elif isinstance(value, str):
                value = _encoding.unescape_text(value)
            kwargs[name] = value
        return cls(**kwargs)


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ActionRecord) if f.name != "extra")
"""Column names of the actions table, in ActionRecord order."""

WRITE_COLUMNS = tuple(c for c in COLUMNS if c != "step_index")
"""The columns a write sets (``step_index`` is numbered by the database)."""
