"""Run the service: a grpc.aio server on its own event loop thread.

:func:`serve` opens the database pool, migrates every tenant's schema (the
service owns migrations), starts the server with health checking and
reflection, and on exit stops it gracefully: calls in flight finish, new ones
are refused, then held writes are flushed and the pool is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from psycopg_pool import AsyncConnectionPool

from langgraph_actionckpt._saver_base import (
    POOL_MAX_IDLE,
    POOL_MAX_LIFETIME,
    aembedded_dsn,
    connect_kwargs,
    pool_options,
)
from langgraph_actionckpt.aio import AsyncActionSaver
from langgraph_actionckpt.checkpoints.core import env_dsn
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.db.driver import configure_connection
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service.cold import ColdTier
from langgraph_actionckpt.service.guard import generic_handler
from langgraph_actionckpt.service.servicer import CheckpointServicer
from langgraph_actionckpt.service.tenants import Tenant, Tenants, load_tokens
from langgraph_actionckpt.service.wire import PassThroughSerde

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "ServiceOptions", "Server", "serve"]

SERVICE = pb.DESCRIPTOR.services_by_name["CheckpointService"]
SERVICE_NAME = SERVICE.full_name
DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
log = logging.getLogger("langgraph_actionckpt.service")


class _CallLog(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Each call's method at debug level (``actionckpt serve --log-level debug``)."""

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        log.debug("call %s", details.method)
        return await continuation(details)


@dataclass(frozen=True, slots=True)
class ServiceOptions:
    """How the service runs (the keywords of :func:`serve`)."""

    dsn: str | None = None
    listen: str = "127.0.0.1:50051"
    token_file: str | Path | None = None
    schema: str = "actionckpt"
    tls_cert: str | Path | None = None
    tls_key: str | Path | None = None
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    pool_size: int = 10
    grace: float = 10.0
    cold_url: str | None = None
    cold_options: dict[str, Any] | None = None


class Server:
    """A running service. ``target`` is its ``host:port``."""

    def __init__(self, options: ServiceOptions) -> None:
        self.options = options
        self.target = ""
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="actionckpt-service", daemon=True)
        self._ready = threading.Event()
        self._stopped = threading.Event()
        self._error: BaseException | None = None
        self._stop: asyncio.Event | None = None

    # ------------------------------------------------------------------ api

    def start(self) -> Server:
        """Start serving; returns once the server listens (or raises why it cannot)."""
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error
        return self

    def stop(self, grace: float | None = None) -> None:
        """Stop gracefully: in-flight calls finish (up to ``grace`` seconds), new ones fail."""
        if self._stop is not None and not self._stopped.is_set():
            grace = self.options.grace if grace is None else grace
            self.loop.call_soon_threadsafe(self._request_stop, grace)
        self._thread.join()

    def wait(self) -> None:
        """Block until the server stops (the CLI's foreground)."""
        while not self._stopped.wait(0.5):
            pass

    # ------------------------------------------------------------- internal

    _grace: float = 0.0

    def _request_stop(self, grace: float) -> None:
        self._grace = grace
        if self._stop is not None:
            self._stop.set()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported to start() or logged
            if not self._ready.is_set():
                self._error = exc
        finally:
            self._ready.set()
            self._stopped.set()
            self.loop.close()

    async def _main(self) -> None:
        o = self.options
        tenants = _tenants(o)
        dsn = o.dsn or env_dsn() or await aembedded_dsn()
        ckw = connect_kwargs(5)

        async def configure(conn: Any) -> None:
            configure_connection(conn)

        pool_kw = pool_options(max(o.pool_size, 1), ckw, POOL_MAX_IDLE, POOL_MAX_LIFETIME)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(dsn, configure=configure, **pool_kw)
        async with contextlib.AsyncExitStack() as stack:
            await pool.open(wait=True, timeout=30)
            stack.push_async_callback(pool.close)
            savers = _Savers(pool, dsn, stack)
            for schema in tenants.schemas[:_EAGER]:
                await savers.get(schema)  # fail fast on a database we cannot migrate
            # only when asked for: the interceptor costs every call an await
            calls = [_CallLog()] if log.isEnabledFor(logging.DEBUG) else []
            server = grpc.aio.server(
                interceptors=calls,
                options=[
                    ("grpc.max_receive_message_length", o.max_request_bytes),
                    ("grpc.max_send_message_length", -1),
                ],
            )
            cold = ColdTier(o.cold_url, o.cold_options) if o.cold_url else None
            servicer = CheckpointServicer(savers.get, tenants, cold)
            server.add_generic_rpc_handlers(
                (generic_handler(servicer, SERVICE, servicer.authenticate),)
            )
            health = HealthServicer()
            health_pb2_grpc.add_HealthServicer_to_server(health, server)
            reflection.enable_server_reflection(
                (
                    SERVICE_NAME,
                    health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                    reflection.SERVICE_NAME,
                ),
                server,
            )
            port = self._bind(server, o)
            host = o.listen.rsplit(":", 1)[0]
            await server.start()
            await health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
            await health.set("", health_pb2.HealthCheckResponse.SERVING)
            self.target = f"{host}:{port}"
            self._stop = asyncio.Event()
            self._ready.set()
            log.info(
                "listening on %s (schemas %s, %s)",
                self.target,
                ", ".join(tenants.schemas) or o.schema,
                "TLS" if o.tls_cert else "no TLS",
            )
            await self._stop.wait()
            log.info("shutting down: calls in flight get %.1f s", self._grace)
            await health.enter_graceful_shutdown()
            await server.stop(self._grace)
            log.info("stopped")

    @staticmethod
    def _bind(server: grpc.aio.Server, o: ServiceOptions) -> int:
        if (o.tls_cert is None) != (o.tls_key is None):
            raise ConfigurationError("TLS needs both a certificate and a key")
        if o.tls_cert is not None and o.tls_key is not None:
            creds = grpc.ssl_server_credentials(
                [(Path(o.tls_key).read_bytes(), Path(o.tls_cert).read_bytes())]
            )
            port = server.add_secure_port(o.listen, creds)
        else:
            port = server.add_insecure_port(o.listen)
        if not port:
            raise OSError(f"cannot listen on {o.listen}")
        return int(port)


_EAGER = 8  # schemas migrated before the server listens; the others on first use


class _Savers:
    """One saver per tenant schema, on the shared pool, migrated on first use."""

    def __init__(
        self, pool: AsyncConnectionPool[Any], dsn: str, stack: contextlib.AsyncExitStack
    ) -> None:
        self.pool = pool
        self.dsn = dsn
        self.stack = stack
        self.savers: dict[str, AsyncActionSaver] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    async def get(self, schema: str) -> AsyncActionSaver:
        saver = self.savers.get(schema)
        if saver is not None:
            return saver
        async with self.locks.setdefault(schema, asyncio.Lock()):
            saver = self.savers.get(schema)
            if saver is None:
                saver = AsyncActionSaver(
                    self.pool,
                    schema=schema,
                    serde=PassThroughSerde(default_serde()),  # type: ignore[arg-type]
                    replay=False,
                    lease="off",
                    # writes a put carries are stored with its checkpoint; a PutWrites
                    # call flushes them before it is acknowledged (see the servicer)
                    group_commit=True,  # concurrent puts share a transaction
                )
                saver.conninfo = self.dsn
                self.stack.push_async_callback(saver.aclose)
                await saver.setup()  # the service owns migrations
                self.savers[schema] = saver
        return saver


def _tenants(o: ServiceOptions) -> Tenants:
    tokens = load_tokens(o.token_file) if o.token_file is not None else None
    return Tenants(tokens, Tenant("default", o.schema))


@contextlib.contextmanager
def serve(dsn: str | None = None, **options: Any) -> Iterator[Server]:
    """Run the checkpoint service for the duration of a ``with`` block.

    Args:
        dsn: The PostgreSQL to serve; ``None`` uses ``ACTIONCKPT_DSN``, else the
            embedded PostgreSQL.
        **options: The fields of :class:`ServiceOptions`: ``listen``
            (``"127.0.0.1:0"`` picks a free port), ``token_file`` (lines
            ``token tenant schema [ro]``), ``schema`` (of the open tenant when
            no token file is given), ``tls_cert``/``tls_key``,
            ``max_request_bytes``, ``pool_size``, ``grace``, ``cold_url`` (an
            fsspec URL: the cold tier of archived threads, restored on read)
            and ``cold_options`` (fsspec storage options).

    Yields:
        The running :class:`Server`; ``server.target`` is its ``host:port``.
    """
    server = Server(ServiceOptions(dsn=dsn, **options)).start()
    try:
        yield server
    finally:
        server.stop()
