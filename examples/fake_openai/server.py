"""A local OpenAI-compatible server for tests, examples and notebooks.

The HTTP side is ``pytest-httpserver`` (a maintained werkzeug-based test server, usable
without pytest): this module only registers four handlers on it and keeps what tests
assert on (recorded requests, an optional JSON-lines ``count_file`` that survives a
SIGKILL of the client, scripted replies and injected failures and latency). What the
answers contain is decided in :mod:`.responder` and encoded in :mod:`.wire`.

Example:
    >>> from langchain_openai import ChatOpenAI
    >>> with FakeOpenAIServer() as srv:  # doctest: +SKIP
    ...     llm = ChatOpenAI(model="gpt-4o-mini", base_url=srv.base_url,
    ...                      api_key="test", max_retries=0)
    ...     llm.invoke("hello there").content
    'Answer: hello there'
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self, cast

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from .responder import (
    Reply,
    Responder,
    default_responder,
    last_user_text,
    message_tokens,
    messages_of,
    stable_hash,
)
from .wire import (
    build_completion,
    embedding_inputs,
    embeddings_payload,
    error_body,
    models_payload,
    stream_chunks,
)

__all__ = ["FakeOpenAIServer", "RecordedRequest", "read_count_file"]

DEFAULT_MODELS: tuple[str, ...] = ("gpt-4o-mini", "gpt-4o", "text-embedding-3-small")


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


class _HTTPServer(HTTPServer):
    """pytest-httpserver's server, tuned for a long-lived fake."""

    def thread_target(self) -> None:
        """Serves with a short poll interval, so :meth:`stop` returns in ~50 ms, not 0.5 s."""
        assert self.server is not None
        self.server.serve_forever(poll_interval=0.05)

    def application(self, request: Request) -> Response:
        """Dispatches without appending to ``self.log``: we keep our own records, and a
        standalone server would otherwise hold every request and response forever."""
        request.get_data()
        return self.dispatch(request)


def _json(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(payload), status, headers, mimetype="application/json")


class FakeOpenAIServer:
    """An OpenAI-compatible server running in a background thread.

    It listens as soon as it is constructed; use it as a context manager (or call
    :meth:`close`) to stop it. Endpoints: ``POST /v1/chat/completions`` (text and
    tool calls, plain or streamed as server-sent events with an optional usage chunk),
    ``POST /v1/embeddings`` (deterministic hash vectors), ``GET /v1/models`` and
    ``GET /health``. POST requests are recorded; GETs are not.

    Attributes:
        delay: Seconds slept before answering each request (mutable).
        chunk_delay: Seconds slept between streamed chunks (mutable).
        embedding_dim: Default embedding dimension.
        retry_after_ms: ``retry-after-ms`` header sent with errors, which makes the
            openai client retry quickly (``None``/``0`` to omit it).
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
        models: Sequence[str] = DEFAULT_MODELS,
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
        self._closed = threading.Event()
        # werkzeug prints an access log line per request unless someone configured it.
        access_log = logging.getLogger("werkzeug")
        if access_log.level == logging.NOTSET:
            access_log.setLevel(logging.WARNING)
        self._http = _HTTPServer(host=host, port=port, threaded=True)
        api = re.compile(r"^(/v1)?/(chat/completions|embeddings)/?$")
        self._http.expect_request(api, method="POST").respond_with_handler(self._post)
        self._http.expect_request(
            re.compile(r"^(/v1)?/models/?$"), method="GET"
        ).respond_with_handler(lambda _: _json(200, models_payload(self._models)))
        self._http.expect_request("/health", method="GET").respond_with_response(
            _json(200, {"status": "ok"})
        )
        self._http.expect_request(re.compile(".*")).respond_with_handler(
            lambda r: _json(404, error_body(404, f"Unknown path {r.path}"))
        )
        self._http.start()

    # -- lifecycle ------------------------------------------------------- #
    @property
    def host(self) -> str:
        """The bound host."""
        return str(self._http.host)

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self._http.port)

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
        """Stops serving and closes the socket; requests still sleeping are dropped.

        Idempotent.
        """
        if self._closed.is_set():
            return
        self._closed.set()
        with self._cond:
            self._cond.notify_all()
        self._http.stop()

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
        return [r.body for r in self.records]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """A snapshot of the bodies of chat completion requests only."""
        return [r.body for r in self.records if r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[dict[str, Any]]:
        """A snapshot of the bodies of embeddings requests only."""
        return [r.body for r in self.records if r.path.rstrip("/").endswith("/embeddings")]

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

    # -- the endpoints --------------------------------------------------- #
    def _post(self, request: Request) -> Response:
        """Records a chat or embeddings request and answers it (or an injected failure)."""
        try:
            parsed: Any = json.loads(request.get_data(as_text=True) or "null")
        except json.JSONDecodeError:
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        headers = {k.lower(): v for k, v in request.headers.items()}
        chat = request.path.rstrip("/").endswith("/chat/completions")

        def answer(status: int, response: Response) -> Response:
            self._record(request.path, body, headers, status)
            self._sleep(self.delay)
            return response

        if not isinstance(parsed, dict):
            return answer(400, self._error(400, "Request body must be a JSON object"))
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure is not None:
            return answer(failure[0], self._error(*failure, retry=True))
        if not chat:
            return answer(*self._embeddings(body))
        if not isinstance(body.get("messages"), list):
            return answer(400, self._error(400, "'messages' is a required property"))
        try:
            reply = self._next_reply(body)
        except Exception as exc:  # noqa: BLE001 - surfaced to the client as a 500
            with self._lock:
                self._errors.append(exc)
            return answer(500, self._error(500, f"fake responder error: {exc!r}", retry=False))
        status = int(reply.get("error_status") or 200)
        self._record(request.path, body, headers, status)
        self._sleep(self.delay + float(reply.get("delay") or 0.0))
        if status != 200:
            message = str(reply.get("error_message") or f"Injected error {status}")
            return self._error(status, message, retry=True)
        completion = self._completion(body, reply)
        if not body.get("stream"):
            return _json(200, completion)
        options = body.get("stream_options")
        usage = isinstance(options, dict) and bool(options.get("include_usage"))
        events = self._events(stream_chunks(completion, include_usage=usage))
        return Response(events, 200, {"Cache-Control": "no-cache"}, mimetype="text/event-stream")

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, Response]:
        texts = embedding_inputs(body.get("input"))
        if texts is None:
            return 400, self._error(400, "'input' must be a string or a list")
        dims = body.get("dimensions")
        dim = dims if isinstance(dims, int) and dims > 0 else self.embedding_dim
        return 200, _json(200, embeddings_payload(body, texts, dim))

    def _events(self, chunks: Iterator[dict[str, Any]]) -> Iterator[bytes]:
        """Server-sent events, ``chunk_delay`` apart, ending with ``[DONE]``."""
        for index, chunk in enumerate(chunks):
            if index:
                self._sleep(self.chunk_delay)
            yield b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n"
        yield b"data: [DONE]\n\n"

    def _error(self, status: int, message: str, *, retry: bool | None = None) -> Response:
        """An OpenAI-style error; ``retry`` sets the openai client's retry headers."""
        headers: dict[str, str] = {}
        if retry and self.retry_after_ms:
            headers["retry-after-ms"] = str(self.retry_after_ms)
        if retry is False:
            headers["x-should-retry"] = "false"
        return _json(status, error_body(status, message), headers)

    def _sleep(self, seconds: float) -> None:
        """Sleeps, dropping the connection instead if the server closes meanwhile.

        werkzeug treats a ``ConnectionError`` as a dropped client: no traceback, no reply.
        """
        if seconds > 0 and self._closed.wait(seconds):
            raise ConnectionAbortedError("fake OpenAI server closed")

    def _record(
        self, path: str, body: dict[str, Any], headers: dict[str, str], status: int
    ) -> None:
        """Records a request and appends it to the count file."""
        now = time.time()
        with self._cond:
            record = RecordedRequest(len(self._records), path, body, headers, status, now)
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

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """Builds the completion, simulating prompt caching across requests."""
        messages = messages_of(body)
        hashes = [stable_hash(messages[: k + 1]) for k in range(len(messages))]
        with self._lock:
            self._completion_counter += 1
            counter = self._completion_counter
            cached = next(
                (
                    sum(message_tokens(m) for m in messages[: k + 1])
                    for k in range(len(messages) - 1, -1, -1)
                    if hashes[k] in self._seen_prefixes
                ),
                0,
            )
            self._seen_prefixes.update(hashes)
        if self._cached_tokens is not None:
            cached = max(0, self._cached_tokens)
        return build_completion(
            body,
            reply,
            counter=counter,
            cached_tokens=cached,
            reasoning_tokens=self._reasoning_tokens,
        )
