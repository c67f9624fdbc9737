"""A tiny, dependency-free, OpenAI-compatible HTTP server for tests and examples.

The server speaks just enough of the OpenAI REST API for the *real*
``openai`` / ``langchain_openai`` clients to work against it offline:

* ``POST /v1/chat/completions`` -- plain text and ``tool_calls`` replies, both
  non-streaming and streaming (server-sent events, with optional usage chunk);
  ``response_format`` JSON schemas are honoured by the default responder.
* ``POST /v1/embeddings`` -- deterministic, hash-based, L2-normalised vectors.
* ``GET /v1/models`` -- a static model list.

Every reply is decided by a *responder*. The default one behaves like a tiny
deterministic agent (see :func:`default_responder`); a user-supplied callable
and/or a ``script`` of canned replies can override it.  Requests are recorded
(thread-safely) for assertions, can optionally be appended to a JSON-lines
``count_file`` (so a parent process can count requests made by a child process
that was SIGKILLed), and failures/latency can be injected.

Example:
    >>> from langchain_openai import ChatOpenAI
    >>> with FakeOpenAIServer() as srv:  # doctest: +SKIP
    ...     llm = ChatOpenAI(model="gpt-4o-mini", base_url=srv.base_url,
    ...                      api_key="test", max_retries=0)
    ...     llm.invoke("hello there").content
    'Answer: hello there'

Run standalone (prints the base URL, serves until killed)::

    python -m langgraph_actionckpt.testing.openai_server --port 0
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import math
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Self, cast

__all__ = [
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "Responder",
    "default_responder",
    "deterministic_embedding",
    "last_user_text",
    "main",
    "read_count_file",
    "value_for_schema",
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

_CREATED = 1_700_000_000
_DEFAULT_MODELS: tuple[str, ...] = (
    "gpt-4o-mini",
    "gpt-4o",
    "text-embedding-3-small",
)
_STRING_MAX_CHARS = 200


# --------------------------------------------------------------------------- #
# Helpers on request payloads
# --------------------------------------------------------------------------- #
def _content_text(content: Any) -> str:
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


def _messages(request: Mapping[str, Any]) -> list[dict[str, Any]]:
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
    for message in reversed(_messages(request)):
        if message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _word_count(text: str) -> int:
    """Counts whitespace-separated words (the fake "token" unit).

    Args:
        text: Any text.

    Returns:
        The number of words.
    """
    return len(text.split())


def _message_tokens(message: Mapping[str, Any]) -> int:
    """Counts fake tokens of one chat message.

    Args:
        message: One chat message.

    Returns:
        Words in its content plus words in its tool-call names and arguments.
    """
    tokens = _word_count(_content_text(message.get("content")))
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list):
        for call in tool_calls:
            if not isinstance(call, Mapping):
                continue
            function = call.get("function")
            if isinstance(function, Mapping):
                tokens += _word_count(str(function.get("name") or ""))
                tokens += _word_count(str(function.get("arguments") or ""))
    return tokens


def _stable_hash(obj: Any) -> str:
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
        results.append(f"{name} -> {_content_text(message.get('content'))}")
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
    messages = _messages(request)
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


# --------------------------------------------------------------------------- #
# Embeddings
# --------------------------------------------------------------------------- #
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


# --------------------------------------------------------------------------- #
# Records and count file
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class RecordedRequest:
    """One received POST request.

    Attributes:
        index: 0-based arrival index (across all POST endpoints).
        path: The request path (e.g. ``/v1/chat/completions``).
        body: The parsed JSON body (``{}`` if it was not a JSON object).
        headers: The request headers (lower-cased names).
        status: The HTTP status the server decided to answer with.
        timestamp: ``time.time()`` at arrival.
    """

    index: int
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 200
    timestamp: float = 0.0


def read_count_file(path: str | Path) -> list[dict[str, Any]]:
    """Reads a ``count_file`` written by :class:`FakeOpenAIServer`.

    Args:
        path: The count file path.

    Returns:
        One dict per recorded request (empty list if the file does not exist).
    """
    p = Path(path)
    if not p.exists():
        return []
    lines = p.read_text(encoding="utf-8").splitlines()
    return [cast("dict[str, Any]", json.loads(line)) for line in lines if line.strip()]


# --------------------------------------------------------------------------- #
# The server
# --------------------------------------------------------------------------- #
class _HTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer carrying a back-reference to the fake."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: FakeOpenAIServer) -> None:
        """Binds the server.

        Args:
            address: ``(host, port)`` to bind.
            fake: The owning :class:`FakeOpenAIServer`.
        """
        self.fake = fake
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignores client disconnects; reports anything else (stderr).

        Args:
            request: The client socket.
            client_address: The client address.
        """
        if isinstance(sys.exc_info()[1], (ConnectionError, _ClientGone)):
            return
        super().handle_error(request, client_address)


class _ClientGone(Exception):
    """Raised when the client disconnected or the server is closing."""


class _Handler(BaseHTTPRequestHandler):
    """Request handler dispatching to the owning :class:`FakeOpenAIServer`."""

    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    timeout = 60

    @property
    def fake(self) -> FakeOpenAIServer:
        """The owning fake server."""
        return cast("_HTTPServer", self.server).fake

    def setup(self) -> None:
        """Registers the connection so :meth:`FakeOpenAIServer.close` can drop it."""
        super().setup()
        self.fake._register_connection(self.connection)

    def finish(self) -> None:
        """Unregisters the connection."""
        try:
            super().finish()
        finally:
            self.fake._unregister_connection(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Silences the default stderr access log.

        Args:
            format: The format string.
            *args: Format arguments.
        """

    # -- low level writers ------------------------------------------------- #
    def _send_json(
        self, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        """Writes a complete JSON response.

        Args:
            status: HTTP status code.
            payload: JSON-serialisable body.
            headers: Extra response headers.
        """
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_json(
        self,
        status: int,
        message: str,
        *,
        retry_after_ms: float | None = None,
        should_retry: bool | None = None,
    ) -> None:
        """Writes an OpenAI-style error response.

        Args:
            status: HTTP status code.
            message: Human readable error message.
            retry_after_ms: Value of the ``retry-after-ms`` header, if any.
            should_retry: Value of the ``x-should-retry`` header, if any.
        """
        headers: dict[str, str] = {}
        if retry_after_ms is not None and retry_after_ms > 0:
            headers["retry-after-ms"] = str(retry_after_ms)
        if should_retry is not None:
            headers["x-should-retry"] = "true" if should_retry else "false"
        self._send_json(status, _error_body(status, message), headers)

    def _write_chunk(self, data: bytes) -> None:
        """Writes one HTTP/1.1 chunk.

        Args:
            data: The chunk payload (an empty payload terminates the body).
        """
        self.wfile.write(f"{len(data):X}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.flush()

    # -- HTTP verbs -------------------------------------------------------- #
    def do_GET(self) -> None:
        """Serves ``GET /v1/models`` (and ``/health``)."""
        path = _normalise_path(self.path)
        if path == "/models":
            self._send_json(200, self.fake._models_payload())
        elif path == "/health":
            self._send_json(200, {"status": "ok"})
        else:
            self._send_error_json(404, f"Unknown path {self.path}")

    def do_POST(self) -> None:
        """Serves ``POST /v1/chat/completions`` and ``POST /v1/embeddings``."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        path = _normalise_path(self.path)
        if path not in ("/chat/completions", "/embeddings"):
            self._send_error_json(404, f"Unknown path {self.path}")
            return
        try:
            parsed: Any = json.loads(raw.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError):
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.fake
        try:
            if not isinstance(parsed, dict):
                fake._record(self.path, body, headers, 400)
                self._send_error_json(400, "Request body must be a JSON object")
                return
            if path == "/chat/completions":
                self._handle_chat(body, headers)
            else:
                self._handle_embeddings(body, headers)
        except (_ClientGone, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    # -- endpoints --------------------------------------------------------- #
    def _handle_chat(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Handles one chat completion request.

        Args:
            body: The parsed request body.
            headers: The request headers.
        """
        fake = self.fake
        failure = fake._pop_failure()
        if failure is None and not isinstance(body.get("messages"), list):
            fake._record(self.path, body, headers, 400)
            self._send_error_json(400, "'messages' is a required property")
            return
        if failure is not None:
            status, message = failure
            fake._record(self.path, body, headers, status)
            fake._sleep(fake.delay)
            self._send_error_json(status, message, retry_after_ms=fake.retry_after_ms)
            return
        try:
            reply = fake._next_reply(body)
        except Exception as exc:  # noqa: BLE001 - surfaced to the client
            fake._record(self.path, body, headers, 500)
            fake._errors_append(exc)
            self._send_error_json(500, f"fake responder error: {exc!r}", should_retry=False)
            return
        error_status = reply.get("error_status")
        status = int(error_status) if error_status is not None else 200
        fake._record(self.path, body, headers, status)
        fake._sleep(fake.delay + float(reply.get("delay") or 0.0))
        if status != 200:
            message = str(reply.get("error_message") or f"Injected error {status}")
            self._send_error_json(status, message, retry_after_ms=fake.retry_after_ms)
            return
        completion = fake._build_completion(body, reply)
        if body.get("stream"):
            self._stream_completion(body, completion)
        else:
            self._send_json(200, completion)

    def _stream_completion(self, body: Mapping[str, Any], completion: dict[str, Any]) -> None:
        """Streams a completion as server-sent events.

        Args:
            body: The request body (for ``stream_options``).
            completion: The non-streaming completion to convert.
        """
        fake = self.fake
        options = body.get("stream_options")
        include_usage = isinstance(options, Mapping) and bool(options.get("include_usage"))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, chunk in enumerate(_stream_chunks(completion, include_usage=include_usage)):
            if index and fake.chunk_delay:
                fake._sleep(fake.chunk_delay)
            self._write_chunk(b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n")
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _handle_embeddings(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Handles one embeddings request.

        Args:
            body: The parsed request body.
            headers: The request headers.
        """
        fake = self.fake
        failure = fake._pop_failure()
        if failure is not None:
            status, message = failure
            fake._record(self.path, body, headers, status)
            fake._sleep(fake.delay)
            self._send_error_json(status, message, retry_after_ms=fake.retry_after_ms)
            return
        inputs = _embedding_inputs(body.get("input"))
        if inputs is None:
            fake._record(self.path, body, headers, 400)
            self._send_error_json(400, "'input' must be a string or a list")
            return
        fake._record(self.path, body, headers, 200)
        fake._sleep(fake.delay)
        dims = body.get("dimensions")
        dim = int(dims) if isinstance(dims, int) and dims > 0 else fake.embedding_dim
        as_base64 = body.get("encoding_format") == "base64"
        data: list[dict[str, Any]] = []
        tokens = 0
        for i, text in enumerate(inputs):
            vector = deterministic_embedding(text, dim)
            tokens += max(1, _word_count(text))
            embedding: Any = (
                base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
                if as_base64
                else vector
            )
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": str(body.get("model") or "text-embedding-3-small"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def _normalise_path(path: str) -> str:
    """Strips the query string, trailing slash and ``/v1`` prefix of a path.

    Args:
        path: The raw request path.

    Returns:
        The normalised path, e.g. ``/chat/completions``.
    """
    path = path.split("?", 1)[0].rstrip("/") or "/"
    if path.startswith("/v1/"):
        path = path[3:]
    return path


def _error_body(status: int, message: str) -> dict[str, Any]:
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


def _embedding_inputs(raw: Any) -> list[str] | None:
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


def _stream_chunks(
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


class FakeOpenAIServer:
    """A local OpenAI-compatible server running in a background thread.

    The server starts listening as soon as it is constructed; use it as a
    context manager (or call :meth:`close`) to stop it.

    Example:
        >>> with FakeOpenAIServer(script=[{"content": "hi"}]) as srv:  # doctest: +SKIP
        ...     llm = ChatOpenAI(model="gpt-4o-mini", base_url=srv.base_url,
        ...                      api_key="test")
        ...     assert llm.invoke("x").content == "hi"
        ...     assert srv.request_count == 1

    Attributes:
        delay: Seconds slept before answering each request (mutable).
        chunk_delay: Seconds slept between streamed chunks (mutable).
        embedding_dim: Default embedding dimension.
        retry_after_ms: ``retry-after-ms`` header sent with errors, which makes
            the openai client retry quickly (``None``/``0`` to omit it).
        count_file: Optional JSON-lines file receiving one line per request.
    """

    def __init__(
        self,
        script: Iterable[Reply] | None = None,
        responder: Responder | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        count_file: str | Path | None = None,
        embedding_dim: int = 16,
        cached_tokens: int | None = None,
        reasoning_tokens: int = 0,
        retry_after_ms: float | None = 5,
        models: Sequence[str] = _DEFAULT_MODELS,
    ) -> None:
        """Creates and starts the server.

        Args:
            script: Replies consumed in order, one per successful chat request,
                before falling back to ``responder`` / :func:`default_responder`.
            responder: ``responder(request_json) -> Reply | None``; ``None``
                falls back to :func:`default_responder`.
            host: Interface to bind.
            port: Port to bind (``0`` picks an ephemeral port).
            delay: Seconds to sleep before answering every request.
            chunk_delay: Seconds to sleep between streamed SSE chunks.
            count_file: If set, every POST request appends one JSON line here.
            embedding_dim: Default embedding dimension (overridden by a
                request's ``dimensions``).
            cached_tokens: ``None`` (default) simulates prompt caching: the
                reported ``cached_tokens`` are the fake tokens of the longest
                message prefix already seen in an earlier successful request.
                An ``int`` reports that fixed value (capped at prompt tokens).
            reasoning_tokens: Reasoning tokens added to every completion (and
                reported in ``completion_tokens_details``).
            retry_after_ms: ``retry-after-ms`` header for error responses.
            models: Model ids listed by ``GET /v1/models``.
        """
        self.delay = delay
        self.chunk_delay = chunk_delay
        self.embedding_dim = embedding_dim
        self.retry_after_ms = retry_after_ms
        self.count_file: Path | None = Path(count_file) if count_file is not None else None
        self._responder = responder
        self._script: list[Reply] = list(script or [])
        self._cached_tokens = cached_tokens
        self._reasoning_tokens = reasoning_tokens
        self._models = tuple(models)
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._records: list[RecordedRequest] = []
        self._failures: list[tuple[int, str]] = []
        self._errors: list[BaseException] = []
        self._seen_prefixes: set[str] = set()
        self._completion_counter = 0
        self._connections: set[socket.socket] = set()
        self._closed = threading.Event()
        self._httpd = _HTTPServer((host, port), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeOpenAIServer:{self.port}",
            daemon=True,
        )
        self._thread.start()

    # -- lifecycle ------------------------------------------------------- #
    @property
    def host(self) -> str:
        """The bound host."""
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The server root URL, e.g. ``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed.is_set()

    def close(self) -> None:
        """Stops serving, closes the socket and drops open connections.

        Idempotent.
        """
        if self._closed.is_set():
            return
        self._closed.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
            self._cond.notify_all()
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        """Blocks until :meth:`close` is called (or the process is killed)."""
        while not self._closed.wait(0.5):
            pass

    def __enter__(self) -> Self:
        """Returns the (already running) server."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Closes the server.

        Args:
            exc_type: Exception type, if any.
            exc: Exception, if any.
            tb: Traceback, if any.
        """
        self.close()

    def __repr__(self) -> str:
        """Returns a short description."""
        return f"FakeOpenAIServer(base_url={self.base_url!r}, requests={self.request_count})"

    # -- configuration --------------------------------------------------- #
    def fail_next(self, n: int = 1, status: int = 500, *, message: str | None = None) -> None:
        """Makes the next ``n`` POST requests fail with an HTTP error.

        Failures are queued after any already-pending ones. The error body is
        OpenAI-style JSON; a ``retry-after-ms`` header is included (see
        :attr:`retry_after_ms`) so client retries are fast.

        Args:
            n: Number of requests to fail.
            status: HTTP status (e.g. ``500`` or ``429``).
            message: Error message (a default mentions the status).
        """
        text = message or (
            "Rate limit reached (injected)" if status == 429 else f"Injected server error {status}"
        )
        with self._lock:
            self._failures.extend([(status, text)] * n)

    def add_script(self, *replies: Reply) -> None:
        """Appends replies to the script.

        Args:
            *replies: Replies consumed in order by subsequent chat requests.
        """
        with self._lock:
            self._script.extend(replies)

    def set_responder(self, responder: Responder | None) -> None:
        """Replaces the responder (``None`` restores the default one).

        Args:
            responder: The new responder.
        """
        with self._lock:
            self._responder = responder

    def reset(self) -> None:
        """Clears recorded requests, pending failures, script, errors and cache."""
        with self._lock:
            self._records.clear()
            self._failures.clear()
            self._script.clear()
            self._errors.clear()
            self._seen_prefixes.clear()

    # -- inspection ------------------------------------------------------ #
    @property
    def records(self) -> list[RecordedRequest]:
        """A snapshot of all recorded POST requests."""
        with self._lock:
            return list(self._records)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of the JSON bodies of all received POST requests."""
        with self._lock:
            return [r.body for r in self._records]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """A snapshot of the bodies of chat completion requests only."""
        with self._lock:
            return [
                r.body for r in self._records if r.path.rstrip("/").endswith("/chat/completions")
            ]

    @property
    def embedding_requests(self) -> list[dict[str, Any]]:
        """A snapshot of the bodies of embeddings requests only."""
        with self._lock:
            return [r.body for r in self._records if r.path.rstrip("/").endswith("/embeddings")]

    @property
    def request_count(self) -> int:
        """The number of POST requests received (including failed ones)."""
        with self._lock:
            return len(self._records)

    @property
    def pending_script(self) -> int:
        """The number of scripted replies not consumed yet."""
        with self._lock:
            return len(self._script)

    @property
    def errors(self) -> list[BaseException]:
        """Exceptions raised by a custom responder (answered with HTTP 500)."""
        with self._lock:
            return list(self._errors)

    def counts_by(self, key: Callable[[dict[str, Any]], Hashable]) -> Counter[Hashable]:
        """Counts chat requests grouped by ``key(request_json)``.

        Args:
            key: Function mapping a chat request body to a grouping key, e.g.
                :func:`last_user_text`.

        Returns:
            A :class:`collections.Counter` of keys.
        """
        return Counter(key(body) for body in self.chat_requests)

    def count_for(self, text: str) -> int:
        """Counts chat requests whose last user message contains ``text``.

        Args:
            text: Substring to look for.

        Returns:
            The number of matching requests.
        """
        return sum(1 for body in self.chat_requests if text in last_user_text(body))

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Blocks until at least ``n`` POST requests were received.

        Args:
            n: The number of requests to wait for.
            timeout: Maximum seconds to wait.

        Returns:
            Whether ``n`` requests arrived in time.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._records) < n:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed.is_set():
                    return len(self._records) >= n
                self._cond.wait(remaining)
            return True

    # -- internals used by the handler ----------------------------------- #
    def _register_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _unregister_connection(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def _errors_append(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    def _sleep(self, seconds: float) -> None:
        """Sleeps, waking early (and aborting the request) if the server closes."""
        if seconds > 0 and self._closed.wait(seconds):
            raise _ClientGone

    def _pop_failure(self) -> tuple[int, str] | None:
        with self._lock:
            return self._failures.pop(0) if self._failures else None

    def _record(
        self, path: str, body: dict[str, Any], headers: dict[str, str], status: int
    ) -> None:
        """Records a request and appends it to the count file."""
        now = time.time()
        with self._cond:
            record = RecordedRequest(
                index=len(self._records),
                path=path,
                body=body,
                headers=headers,
                status=status,
                timestamp=now,
            )
            self._records.append(record)
            if self.count_file is not None:
                line = {
                    "index": record.index,
                    "path": path,
                    "status": status,
                    "model": body.get("model"),
                    "stream": bool(body.get("stream")),
                    "last_user": last_user_text(body),
                    "pid": os.getpid(),
                    "time": now,
                }
                with self.count_file.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")
                    fh.flush()
            self._cond.notify_all()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            scripted = self._script.pop(0) if self._script else None
            responder = self._responder
        if scripted is not None:
            return dict(scripted)
        if responder is not None:
            reply = responder(body)
            if reply is not None:
                return dict(reply)
        return default_responder(body)

    def _models_payload(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {
                    "id": m,
                    "object": "model",
                    "created": _CREATED,
                    "owned_by": "fake-openai",
                }
                for m in self._models
            ],
        }

    def _cached_tokens_for(self, messages: list[dict[str, Any]], prompt_tokens: int) -> int:
        """Computes and registers the (simulated) cached prompt tokens."""
        if self._cached_tokens is not None:
            return max(0, min(self._cached_tokens, prompt_tokens))
        hashes = [_stable_hash(messages[: k + 1]) for k in range(len(messages))]
        cached = 0
        with self._lock:
            for k in range(len(messages) - 1, -1, -1):
                if hashes[k] in self._seen_prefixes:
                    cached = sum(_message_tokens(m) for m in messages[: k + 1])
                    break
            self._seen_prefixes.update(hashes)
        return min(cached, prompt_tokens)

    def _build_completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """Turns a reply into a ``chat.completion`` payload (with usage)."""
        messages = _messages(body)
        with self._lock:
            self._completion_counter += 1
            counter = self._completion_counter
        conversation_hash = _stable_hash(messages)
        content_raw = reply.get("content")
        content: str | None = None if content_raw is None else str(content_raw)
        tool_calls: list[dict[str, Any]] = []
        for i, call in enumerate(reply.get("tool_calls") or []):
            name = str(call["name"])
            arguments = call.get("arguments", {})
            args_text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            call_id = str(
                call.get("id") or f"call_{_stable_hash([conversation_hash, i, name])[:24]}"
            )
            tool_calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": args_text},
                }
            )
        if content is None and not tool_calls:
            content = ""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": None,
        }
        if tool_calls:
            message["tool_calls"] = tool_calls
        finish_reason = str(reply.get("finish_reason") or ("tool_calls" if tool_calls else "stop"))

        overrides = reply.get("usage") or {}
        prompt_tokens = int(
            overrides.get("prompt_tokens", max(1, sum(_message_tokens(m) for m in messages)))
        )
        reasoning = int(overrides.get("reasoning_tokens", self._reasoning_tokens))
        visible = _message_tokens(message)
        completion_tokens = int(overrides.get("completion_tokens", max(1, visible + reasoning)))
        if "cached_tokens" in overrides:
            cached = int(overrides["cached_tokens"])
            self._cached_tokens_for(messages, prompt_tokens)
        else:
            cached = self._cached_tokens_for(messages, prompt_tokens)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": reasoning,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        return {
            "id": f"chatcmpl-fake-{counter:06d}-{conversation_hash[:8]}",
            "object": "chat.completion",
            "created": _CREATED,
            "model": str(body.get("model") or "gpt-4o-mini"),
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": usage,
        }


# --------------------------------------------------------------------------- #
# CLI
# --------------------------------------------------------------------------- #
def main(argv: Sequence[str] | None = None) -> int:
    """Runs the server until SIGINT/SIGTERM.

    Prints the base URL (one line, flushed) once listening.

    Args:
        argv: Command line arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The process exit code.
    """
    parser = argparse.ArgumentParser(
        prog="python -m langgraph_actionckpt.testing.openai_server",
        description="Serve a fake, deterministic OpenAI-compatible API.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind")
    parser.add_argument("--port", type=int, default=0, help="port (0 = ephemeral)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per request")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds per SSE chunk")
    parser.add_argument("--count-file", default=None, help="JSON-lines request log")
    parser.add_argument("--embedding-dim", type=int, default=16, help="embedding size")
    args = parser.parse_args(argv)

    server = FakeOpenAIServer(
        host=args.host,
        port=args.port,
        delay=args.delay,
        chunk_delay=args.chunk_delay,
        count_file=args.count_file,
        embedding_dim=args.embedding_dim,
    )

    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(server.base_url, flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
