"""What a reusable request is matched by: its key (must be equal) and its text (embedded).

Two requests can share an answer only when their *key* is equal: the action kind
and name, and for an LLM completion LangChain's whole ``llm_string`` (model,
parameters, bound tools and their schemas), for a tool its argument schema. With
``context="exact"`` (the default) every message before the last one is part of
the key too, so only the last message may be reworded. The *text* is the whole
request (every message), last message first so that a model with a short window
(a sentence encoder reads a bounded number of word pieces) sees the question before the history.
"""

from __future__ import annotations

from typing import Any

import orjson

from langgraph_actionckpt.db import encoding as _encoding
from langgraph_actionckpt.replay.context import stable_hash

__all__ = ["CONTEXT_MODES", "function_key", "llm_key", "render_messages", "tool_key"]

CONTEXT_MODES = ("exact", "similar")
MAX_TEXT_CHARS = 4000


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(_encoding.to_jsonable(value), option=orjson.OPT_SORT_KEYS).decode()


def _message_text(message: Any) -> str:
    if not isinstance(message, dict):
        return _content(message)
    text = f"{message.get('type') or 'message'}: {_content(message.get('content'))}"
    calls = message.get("tool_calls") or []
    if calls:
        text += " " + _content(calls)
    return text


def render_messages(messages: list[Any]) -> str:
    """The text of a conversation: the last message, then the earlier ones in order."""
    if not messages:
        return ""
    parts = [_message_text(messages[-1])] + [_message_text(m) for m in messages[:-1]]
    return "\n".join(parts)[:MAX_TEXT_CHARS]


def llm_key(messages: list[Any], llm_string: str, context: str) -> tuple[str, str]:
    """``(key hash, text)`` of an LLM completion request (canonical messages)."""
    prefix = messages[:-1] if context == "exact" else None
    return stable_hash(["llm_completion", llm_string, prefix]), render_messages(messages)


def _flat(value: Any) -> str:
    value = _encoding.to_jsonable(value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_flat(v)}" for k, v in sorted(value.items()))
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value)
    return _content(value)


def tool_key(name: str, request: Any, schema: Any) -> tuple[str, str]:
    """``(key hash, text)`` of a tool call: same tool and argument schema; its arguments."""
    return stable_hash(["tool_call", name, schema]), f"{name}\n{_flat(request)}"[:MAX_TEXT_CHARS]


def function_key(name: str, request: Any) -> tuple[str, str]:
    """``(key hash, text)`` of an ``@action`` call: same function; its arguments."""
    return stable_hash(["function", name]), f"{name}\n{_flat(request)}"[:MAX_TEXT_CHARS]
