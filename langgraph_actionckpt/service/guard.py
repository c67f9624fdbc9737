"""What stands between a client and the servicer: decoding, status codes, a quiet log.

* Requests are decoded by :func:`safe_deserializer`: bytes that are not the
  method's message become :class:`Malformed`, answered ``INVALID_ARGUMENT``
  (grpc's own decoding answers ``UNKNOWN`` and logs a traceback per call).
* :func:`status` maps an exception to a code and a short message of ours: a
  value the database refused is named by its error class, never by the
  server's text (which quotes the row).
* :class:`LogLimiter` logs an internal error once per kind (its class and where
  it was raised) a minute, so no client can flood the server's log.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import psycopg
from google.protobuf.message import DecodeError  # type: ignore[import-untyped]
from psycopg.errors import ProgramLimitExceeded

from langgraph_actionckpt.errors import ActionCkptError, LeaseLostError, OutcomeKnownError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb

__all__ = [
    "LogLimiter",
    "Malformed",
    "NotFound",
    "Refused",
    "generic_handler",
    "ours",
    "safe_deserializer",
    "status",
]

logger = logging.getLogger("langgraph_actionckpt.service")

MAX_MESSAGE = 300
"""The longest status message sent (a message quoting a 1 MB id is cut)."""


class NotFound(LookupError):
    """What a call names does not exist (``NOT_FOUND``)."""


class Refused(Exception):
    """A call refused with a given status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class Malformed:
    """A request whose bytes are not its method's message."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def safe_deserializer(cls: Any) -> Callable[[bytes], Any]:
    """``cls.FromString`` (a message class) that gives :class:`Malformed` instead of raising."""
    name = cls.DESCRIPTOR.name

    def load(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except (DecodeError, RecursionError, ValueError):
            return Malformed(name)

    return load


Behaviour = Callable[[Any, Any], Any]


def generic_handler(
    servicer: Any, service: Any, check: Callable[[Any], Any]
) -> grpc.GenericRpcHandler:
    """The handler of every method of ``service``, decoding with :func:`safe_deserializer`.

    Args:
        servicer: Has a coroutine (or async generator) method per RPC.
        service: The service's descriptor (``pb.DESCRIPTOR.services_by_name[...]``).
        check: Awaited with the context before a malformed request is refused
            (authentication first: an unknown caller learns nothing of the request).
    """
    handlers = {}
    for method in service.methods:
        request_cls = getattr(pb, method.input_type.name)
        response_cls = getattr(pb, method.output_type.name)
        behaviour = getattr(servicer, method.name)
        make = _stream if method.server_streaming else _unary
        factory = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = factory(
            make(behaviour, check),
            request_deserializer=safe_deserializer(request_cls),
            response_serializer=response_cls.SerializeToString,
        )
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


async def _refuse_malformed(request: Malformed, context: Any, check: Callable[[Any], Any]) -> None:
    await check(context)
    await context.abort(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"malformed request: the bytes are not a valid {request.type_name} message",
    )


def _unary(behaviour: Behaviour, check: Callable[[Any], Any]) -> Behaviour:
    async def call(request: Any, context: Any) -> Any:
        if isinstance(request, Malformed):
            await _refuse_malformed(request, context, check)
        return await behaviour(request, context)

    return call


def _stream(behaviour: Behaviour, check: Callable[[Any], Any]) -> Behaviour:
    async def call(request: Any, context: Any) -> AsyncIterator[Any]:
        if isinstance(request, Malformed):
            await _refuse_malformed(request, context, check)
        async for item in behaviour(request, context):
            yield item

    return call


def short(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters (a status message's size is ours to bound)."""
    return text if len(text) <= limit else f"{text[: limit - 20]}... ({len(text)} chars)"


def ours(exc: BaseException) -> bool:
    """Whether ``exc`` is a refusal this package made on purpose (else: log it, rate-limited).

    Any other exception, even one mapped to ``INVALID_ARGUMENT`` (a value the
    database refused), is a check the service lacks, or a bug.
    """
    return isinstance(exc, (ActionCkptError, Refused, NotFound))


def status(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and a short message of ours for a call that raised ``exc``."""
    if isinstance(exc, Refused):
        return exc.code, short(str(exc))
    if isinstance(exc, (LeaseLostError, OutcomeKnownError)):
        return grpc.StatusCode.FAILED_PRECONDITION, short(str(exc))
    if isinstance(exc, NotFound):
        return grpc.StatusCode.NOT_FOUND, short(str(exc.args[0] if exc.args else exc))
    if isinstance(exc, ActionCkptError) and isinstance(exc, ValueError):
        return grpc.StatusCode.INVALID_ARGUMENT, short(str(exc) or type(exc).__name__)
    if isinstance(exc, (psycopg.DataError, psycopg.IntegrityError, ProgramLimitExceeded)):
        return (
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the database refused a value of the request ({type(exc).__name__})",
        )
    if isinstance(exc, RecursionError):
        return grpc.StatusCode.INVALID_ARGUMENT, "a value of the request is nested too deeply"
    if isinstance(exc, (ValueError, TypeError)):  # raised below us on a value we did not check
        name = type(exc).__name__
        return grpc.StatusCode.INVALID_ARGUMENT, f"a value of the request is invalid ({name})"
    if isinstance(exc, (psycopg.OperationalError, ConnectionError, asyncio.TimeoutError)):
        return grpc.StatusCode.UNAVAILABLE, "the database is unavailable"
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__})"


class LogLimiter:
    """Log an exception once per kind per ``period`` seconds, then how many were held back.

    A kind is the exception's class and the place it was raised. The log record
    carries it as ``record.kind``.
    """

    MAX_KINDS = 1000

    def __init__(self, period: float = 60.0, log: logging.Logger = logger) -> None:
        self.period = period
        self.log = log
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def exception(self, exc: BaseException, what: str) -> None:
        """Log ``exc`` with its traceback unless its kind was logged in the last period."""
        kind = _kind(exc)
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self.period:
            self._held[kind] = self._held.get(kind, 0) + 1
            return
        if len(self._last) >= self.MAX_KINDS:
            self._last.clear()
            self._held.clear()
        held = self._held.pop(kind, 0)
        self._last[kind] = now
        self.log.error(
            "%s: %s (%d more of this kind in the last %.0f s not logged)",
            what,
            kind,
            held,
            self.period,
            exc_info=(type(exc), exc, exc.__traceback__),
            extra={"kind": kind},
        )


def _kind(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__module__}.{type(exc).__qualname__}{where}"
