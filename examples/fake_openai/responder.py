"""What the fake OpenAI server answers: the responder types and the default "tiny agent".

A *responder* maps a chat completion request body to a :data:`Reply`; the default one
(:func:`default_responder`) is a deterministic function of the conversation, so a resumed
run gets exactly the answers an uninterrupted one got.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

__all__ = [
    "Reply",
    "Responder",
    "content_text",
    "default_responder",
    "last_user_text",
    "message_tokens",
    "messages_of",
    "stable_hash",
    "value_for_schema",
    "word_count",
]

Reply = dict[str, Any]
"""A responder reply.

Keys (all optional):

* ``content`` (``str | None``): assistant text.
* ``tool_calls`` (``list[dict]``): each ``{"name": str, "arguments": dict | str,
  "id": str (optional)}``. ``arguments`` given as a ``str`` is sent verbatim
  (handy to test invalid JSON handling).
* ``finish_reason`` (``str``): overrides the computed finish reason.
* ``usage`` (``dict``): flat overrides among ``prompt_tokens``,
  ``completion_tokens``, ``cached_tokens`` and ``reasoning_tokens``.
* ``delay`` (``float``): extra seconds to sleep before answering.
* ``error_status`` (``int``) / ``error_message`` (``str``): answer with an
  OpenAI-style HTTP error instead.
"""

Responder = Callable[[dict[str, Any]], "Reply | None"]
"""``responder(request_json) -> reply``; returning ``None`` falls back to default."""

_STRING_MAX_CHARS = 200


# --------------------------------------------------------------------------- #
# Helpers on request payloads
# --------------------------------------------------------------------------- #
def content_text(content: Any) -> str:
    """Flattens an OpenAI message ``content`` (str, None or parts) to text.

    Args:
        content: The ``content`` field of a chat message.

    Returns:
        The concatenated text (text parts joined by a space).
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping):
                text = part.get("text")
                if isinstance(text, str):
                    texts.append(text)
        return " ".join(texts)
    return str(content)


def messages_of(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Returns the request's messages as a list of dicts (empty if absent).

    Args:
        request: A chat completion request body.

    Returns:
        The list of message dicts.
    """
    raw = request.get("messages")
    if not isinstance(raw, list):
        return []
    return [m for m in raw if isinstance(m, dict)]


def last_user_text(request: Mapping[str, Any]) -> str:
    """Returns the text of the last ``user`` message of a chat request.

    Args:
        request: A chat completion request body.

    Returns:
        The text, or ``""`` when there is no user message.
    """
    for message in reversed(messages_of(request)):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def word_count(text: str) -> int:
    """Counts whitespace-separated words (the fake "token" unit).

    Args:
        text: Any text.

    Returns:
        The number of words.
    """
    return len(text.split())


def message_tokens(message: Mapping[str, Any]) -> int:
    """Counts fake tokens of one chat message.

    Args:
        message: One chat message.

    Returns:
        Words in its content plus words in its tool-call names and arguments.
    """
    tokens = word_count(content_text(message.get("content")))
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list):
        for call in tool_calls:
            if not isinstance(call, Mapping):
                continue
            function = call.get("function")
            if isinstance(function, Mapping):
                tokens += word_count(str(function.get("name") or ""))
                tokens += word_count(str(function.get("arguments") or ""))
    return tokens


def stable_hash(obj: Any) -> str:
    """Returns a stable sha256 hex digest of a JSON-serialisable object.

    Args:
        obj: Any JSON-serialisable object.

    Returns:
        The hex digest.
    """
    data = json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- #
# Default responder
# --------------------------------------------------------------------------- #
def _resolve_ref(ref: str, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """Resolves a local JSON-schema ``$ref`` such as ``#/$defs/Name``.

    Args:
        ref: The reference string.
        root: The root schema holding the definitions.

    Returns:
        The referenced sub-schema, or ``{}`` when it cannot be resolved.
    """
    if not ref.startswith("#/"):
        return {}
    node: Any = root
    for part in ref[2:].split("/"):
        if not isinstance(node, Mapping) or part not in node:
            return {}
        node = node[part]
    return cast("Mapping[str, Any]", node) if isinstance(node, Mapping) else {}


def value_for_schema(
    schema: Mapping[str, Any],
    text: str,
    *,
    root: Mapping[str, Any] | None = None,
    _depth: int = 0,
) -> Any:
    """Builds a deterministic value satisfying a (simple) JSON schema.

    Strings are derived from ``text``, integers are ``1``, numbers ``1.0``,
    booleans ``True``, arrays hold one item, objects hold their required
    properties (all properties when ``required`` is absent); ``enum``/``const``
    pick their first value, ``anyOf``/``oneOf`` their first non-null branch.

    Args:
        schema: The JSON schema.
        text: Source text for string values.
        root: The root schema used to resolve ``$ref`` (defaults to ``schema``).
        _depth: Recursion guard (internal).

    Returns:
        A JSON-serialisable value.
    """
    root = schema if root is None else root
    if _depth > 8:
        return None
    if isinstance(schema.get("$ref"), str):
        return value_for_schema(
            _resolve_ref(schema["$ref"], root), text, root=root, _depth=_depth + 1
        )
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            non_null = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
            chosen = non_null[0] if non_null else options[0]
            if isinstance(chosen, Mapping):
                return value_for_schema(chosen, text, root=root, _depth=_depth + 1)
    schema_type: Any = schema.get("type")
    if isinstance(schema_type, list):
        non_null_types = [t for t in schema_type if t != "null"]
        schema_type = non_null_types[0] if non_null_types else "null"
    if schema_type is None and isinstance(schema.get("properties"), Mapping):
        schema_type = "object"
    if schema_type == "string":
        return text.strip()[:_STRING_MAX_CHARS] or "text"
    if schema_type == "integer":
        return 1
    if schema_type == "number":
        return 1.0
    if schema_type == "boolean":
        return True
    if schema_type == "null":
        return None
    if schema_type == "array":
        items = schema.get("items")
        if isinstance(items, Mapping):
            return [value_for_schema(items, text, root=root, _depth=_depth + 1)]
        return []
    if schema_type == "object":
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return {}
        required = schema.get("required")
        names: Iterable[str] = (
            [n for n in properties if n in required]
            if isinstance(required, list)
            else list(properties)
        )
        return {
            name: value_for_schema(properties[name], text, root=root, _depth=_depth + 1)
            for name in names
            if isinstance(properties[name], Mapping)
        }
    return text.strip()[:_STRING_MAX_CHARS] or "text"


def _tool_name(tool: Mapping[str, Any]) -> str:
    """Returns the function name of an OpenAI ``tools`` entry.

    Args:
        tool: One entry of the request's ``tools``.

    Returns:
        The function name (``""`` if missing).
    """
    function = tool.get("function")
    if isinstance(function, Mapping):
        return str(function.get("name") or "")
    return str(tool.get("name") or "")


def _tool_parameters(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    """Returns the JSON schema of a tool's parameters.

    Args:
        tool: One entry of the request's ``tools``.

    Returns:
        The parameters schema (``{}`` if missing).
    """
    function = tool.get("function")
    params = function.get("parameters") if isinstance(function, Mapping) else None
    return cast("Mapping[str, Any]", params) if isinstance(params, Mapping) else {}


def _trailing_tool_results(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Describes the trailing ``tool`` messages of a conversation.

    Args:
        messages: The chat messages.

    Returns:
        ``"name -> content"`` strings, in conversation order.
    """
    names: dict[str, str] = {}
    for message in messages:
        calls = message.get("tool_calls")
        if message.get("role") == "assistant" and isinstance(calls, list):
            for call in calls:
                if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
                    names[str(call.get("id"))] = str(call["function"].get("name"))
    results: list[str] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        name = names.get(str(message.get("tool_call_id")), "tool")
        results.append(f"{name} -> {content_text(message.get('content'))}")
    results.reverse()
    return results


def default_responder(request: Mapping[str, Any]) -> Reply:
    """The default deterministic "tiny agent" responder.

    Rules, in order:

    1. ``tool_choice`` forces a specific function (or ``"required"``): call it.
    2. The last message is a tool result: answer with text summarising the
       trailing tool results (``"Tool results: name -> content; ..."``).
    3. The request has ``tools``, ``tool_choice`` is not ``"none"`` and the last
       message is a user message: call the first tool, with arguments built from
       its JSON schema (strings take the last user message's text).
    4. ``response_format`` is a JSON schema: answer with a matching JSON object.
    5. Otherwise answer ``"Answer: <first 8 words of the last user message>"``.

    Args:
        request: The chat completion request body.

    Returns:
        A :data:`Reply`.
    """
    messages = messages_of(request)
    last = messages[-1] if messages else {}
    user_text = last_user_text(request)
    raw_tools = request.get("tools")
    tools = [t for t in raw_tools if isinstance(t, Mapping)] if isinstance(raw_tools, list) else []
    tool_choice = request.get("tool_choice")

    forced: Mapping[str, Any] | None = None
    if tools and isinstance(tool_choice, Mapping):
        wanted = _tool_name(tool_choice)
        forced = next((t for t in tools if _tool_name(t) == wanted), None)
    elif tools and tool_choice in ("required", "any"):
        forced = tools[0]
    if forced is not None:
        args = value_for_schema(_tool_parameters(forced), user_text)
        return {"tool_calls": [{"name": _tool_name(forced), "arguments": args}]}

    if last.get("role") == "tool":
        return {"content": "Tool results: " + "; ".join(_trailing_tool_results(messages))}

    if tools and tool_choice != "none" and last.get("role") == "user":
        tool = tools[0]
        args = value_for_schema(_tool_parameters(tool), user_text)
        return {"tool_calls": [{"name": _tool_name(tool), "arguments": args}]}

    response_format = request.get("response_format")
    if isinstance(response_format, Mapping):
        if response_format.get("type") == "json_schema":
            spec = response_format.get("json_schema")
            schema = spec.get("schema") if isinstance(spec, Mapping) else None
            if isinstance(schema, Mapping):
                return {"content": json.dumps(value_for_schema(schema, user_text))}
        if response_format.get("type") == "json_object":
            return {"content": json.dumps({"answer": user_text})}

    words = user_text.split()[:8]
    return {"content": ("Answer: " + " ".join(words)).strip()}
