"""The OpenAI wire format the fake server speaks: payloads as plain functions.

Nothing here touches HTTP or server state: a completion is built from a request, a
:data:`~.responder.Reply` and the few numbers the server tracks (a counter, cached
tokens); the streaming form is derived from the complete one, so both always agree.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .responder import Reply, message_tokens, messages_of, stable_hash, word_count

__all__ = [
    "CREATED",
    "build_completion",
    "completion_usage",
    "deterministic_embedding",
    "embedding_inputs",
    "embeddings_payload",
    "error_body",
    "models_payload",
    "stream_chunks",
]

CREATED = 1_700_000_000
"""The fixed ``created`` timestamp of every payload (deterministic output)."""


def deterministic_embedding(text: str, dim: int = 16) -> list[float]:
    """Returns a deterministic, L2-normalised, hash-based embedding.

    Args:
        text: The text to embed.
        dim: The vector dimension.

    Returns:
        A list of ``dim`` floats with unit L2 norm.
    """
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for i in range(0, len(digest), 4):
            if len(values) >= dim:
                break
            (number,) = struct.unpack("<I", digest[i : i + 4])
            values.append(number / 0xFFFFFFFF * 2.0 - 1.0)
        counter += 1
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def error_body(status: int, message: str) -> dict[str, Any]:
    """Builds an OpenAI-style error body.

    Args:
        status: HTTP status code.
        message: Human readable message.

    Returns:
        ``{"error": {"message", "type", "param", "code"}}``.
    """
    kinds: dict[int, tuple[str, str | None]] = {
        400: ("invalid_request_error", None),
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "not_found"),
        429: ("requests", "rate_limit_exceeded"),
    }
    kind, code = kinds.get(status, ("server_error", None) if status >= 500 else ("api_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def embedding_inputs(raw: Any) -> list[str] | None:
    """Normalises an embeddings ``input`` field to a list of strings.

    Token-id inputs (lists of ints) are converted to their textual form.

    Args:
        raw: The ``input`` field.

    Returns:
        The list of texts, or ``None`` if the input is invalid.
    """
    if isinstance(raw, str):
        return [raw]
    if not isinstance(raw, list) or not raw:
        return None
    if all(isinstance(x, int) for x in raw):
        return [" ".join(str(x) for x in raw)]
    texts: list[str] = []
    for item in raw:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, list):
            texts.append(" ".join(str(x) for x in item))
        else:
            return None
    return texts


def _split_text(text: str, parts: int = 3) -> list[str]:
    """Splits text into up to ``parts`` non-empty pieces at word boundaries.

    Args:
        text: The text to split (joining the pieces gives it back).
        parts: Maximum number of pieces.

    Returns:
        The pieces.
    """
    tokens = re.findall(r"\s*\S+\s*", text) or ([text] if text else [])
    if len(tokens) <= 1:
        return tokens
    size = max(1, math.ceil(len(tokens) / parts))
    return ["".join(tokens[i : i + size]) for i in range(0, len(tokens), size)]


def stream_chunks(
    completion: Mapping[str, Any], *, include_usage: bool
) -> Iterator[dict[str, Any]]:
    """Converts a chat completion into ``chat.completion.chunk`` payloads.

    Args:
        completion: A non-streaming chat completion.
        include_usage: Whether to append a final usage chunk.

    Yields:
        The chunk payloads, in order (without the ``[DONE]`` sentinel).
    """
    choice = completion["choices"][0]
    message = choice["message"]
    base = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
        "system_fingerprint": completion.get("system_fingerprint"),
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            **base,
            "choices": [
                {
                    "index": 0,
                    "delta": delta,
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
        }
        if include_usage:
            payload["usage"] = None
        return payload

    content = message.get("content")
    tool_calls = message.get("tool_calls") or []
    yield chunk(
        {
            "role": "assistant",
            "content": "" if content is not None or not tool_calls else None,
        }
    )
    for piece in _split_text(content or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(tool_calls):
        function = call["function"]
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": function["name"], "arguments": ""},
                    }
                ]
            }
        )
        arguments: str = function["arguments"]
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            if piece:
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield {**base, "choices": [], "usage": completion["usage"]}


def build_completion(
    body: Mapping[str, Any],
    reply: Reply,
    *,
    counter: int,
    cached_tokens: int | None,
    reasoning_tokens: int,
) -> dict[str, Any]:
    """Turns a reply into a ``chat.completion`` payload (with usage).

    Args:
        body: The chat completion request body.
        reply: What the responder decided.
        counter: The server's completion counter (makes the id unique).
        cached_tokens: Simulated cached prompt tokens for this request (``None``: 0);
            a ``usage`` override in ``reply`` wins.
        reasoning_tokens: Reasoning tokens added to the completion tokens.

    Returns:
        The payload, as the OpenAI API returns it.
    """
    messages = messages_of(body)
    conversation_hash = stable_hash(messages)
    content_raw = reply.get("content")
    content: str | None = None if content_raw is None else str(content_raw)
    tool_calls: list[dict[str, Any]] = []
    for i, call in enumerate(reply.get("tool_calls") or []):
        name = str(call["name"])
        arguments = call.get("arguments", {})
        args_text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call_id = str(call.get("id") or f"call_{stable_hash([conversation_hash, i, name])[:24]}")
        tool_calls.append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args_text}}
        )
    if content is None and not tool_calls:
        content = ""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    finish_reason = str(reply.get("finish_reason") or ("tool_calls" if tool_calls else "stop"))
    return {
        "id": f"chatcmpl-fake-{counter:06d}-{conversation_hash[:8]}",
        "object": "chat.completion",
        "created": CREATED,
        "model": str(body.get("model") or "gpt-4o-mini"),
        "system_fingerprint": "fp_fake",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": completion_usage(
            messages,
            message,
            reply.get("usage") or {},
            cached_tokens=cached_tokens or 0,
            reasoning_tokens=reasoning_tokens,
        ),
    }


def completion_usage(
    messages: Sequence[Mapping[str, Any]],
    answer: Mapping[str, Any],
    overrides: Mapping[str, Any],
    *,
    cached_tokens: int,
    reasoning_tokens: int,
) -> dict[str, Any]:
    """The ``usage`` object of a completion: fake tokens are words.

    Args:
        messages: The request's messages (prompt tokens).
        answer: The assistant message (completion tokens).
        overrides: Flat overrides among ``prompt_tokens``, ``completion_tokens``,
            ``cached_tokens`` and ``reasoning_tokens``.
        cached_tokens: Cached prompt tokens (capped at the prompt tokens).
        reasoning_tokens: Reasoning tokens added to the completion tokens.

    Returns:
        The OpenAI ``usage`` object, with its token details.
    """
    prompt = int(overrides.get("prompt_tokens", max(1, sum(message_tokens(m) for m in messages))))
    reasoning = int(overrides.get("reasoning_tokens", reasoning_tokens))
    completion = int(overrides.get("completion_tokens", max(1, message_tokens(answer) + reasoning)))
    cached = int(overrides.get("cached_tokens", min(cached_tokens, prompt)))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def embeddings_payload(body: Mapping[str, Any], texts: Sequence[str], dim: int) -> dict[str, Any]:
    """The answer to ``POST /v1/embeddings`` (float lists, or base64 when asked).

    Args:
        body: The request body (``model``, ``encoding_format``).
        texts: The inputs, already normalised by :func:`embedding_inputs`.
        dim: The vector dimension.

    Returns:
        The payload, as the OpenAI API returns it.
    """
    as_base64 = body.get("encoding_format") == "base64"
    data: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        vector = deterministic_embedding(text, dim)
        embedding: Any = (
            base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
            if as_base64
            else vector
        )
        data.append({"object": "embedding", "index": i, "embedding": embedding})
    tokens = sum(max(1, word_count(t)) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": str(body.get("model") or "text-embedding-3-small"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def models_payload(models: Sequence[str]) -> dict[str, Any]:
    """The answer to ``GET /v1/models``.

    Args:
        models: The model ids to list.

    Returns:
        The payload, as the OpenAI API returns it.
    """
    return {
        "object": "list",
        "data": [
            {"id": m, "object": "model", "created": CREATED, "owned_by": "fake-openai"}
            for m in models
        ],
    }
