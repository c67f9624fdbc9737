"""What both remote savers share and do without I/O: settings, held writes, errors and retries.

``_async_remote.py`` is the source of the remote savers' I/O and
``_sync_remote.py`` is generated from it (``python .ci/gen_sync.py``); each
saver has a :class:`RemoteCore`. The channel primitives that differ between the
worlds are in ``remote_channels``.
"""

from __future__ import annotations

import asyncio
import builtins
import inspect
import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.base import SerializerProtocol

from langgraph_actionckpt._config import (
    DEFAULTS,
    REMOTE_LEASE_MODE,
    LeaseOptions,
    WriterOptions,
    remote_options,
)
from langgraph_actionckpt._contracts import MetricsSink, NullMetrics
from langgraph_actionckpt._version import __version__
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.errors import ConfigurationError, LeaseLostError, ServiceError
from langgraph_actionckpt.service._pb import checkpoint_pb2 as pb
from langgraph_actionckpt.service.remote_channels import FAILOVER, Targets
from langgraph_actionckpt.service.remote_lease import RemoteLeaseKeeper
from langgraph_actionckpt.service.wire import PROTOCOL_HEADER, PROTOCOL_VERSION

__all__ = ["RemoteCore", "asleep", "run_config", "sleep"]

SAFE_CALLS = frozenset(
    {
        "Handshake",
        "GetTuple",
        "List",
        "Put",  # an upsert of the same checkpoint id
        "PutWrites",  # keyed by (task, index): storing twice stores once
        "DeleteThread",
        "DeleteForRuns",
        "Prune",
        "WaitDurable",
        "RecordActions",  # upserts by idempotency key
        "ListActions",
        "GetAction",
        "LastAction",
        "AcquireLease",  # the same holder gets its own token back
        "RenewLease",
        "ReleaseLease",
    }
)
"""Calls repeated after a lost connection (on the same replica or the next one): a read, or a
write keyed so that storing it twice stores it once."""

sleep = time.sleep
asleep = asyncio.sleep


class RemoteCore:
    """A remote saver's settings, its held writes, and the errors and retries of its calls.

    Args:
        target: The service's ``host:port``; or its replicas' (a sequence, or
            separated by commas): calls go to one until it is unreachable, then
            to the next (see :class:`~.remote_channels.Targets`).
        token: The bearer token (a tenant's), or None for an open service.
        tls: ``False`` (plain), ``True`` (system roots), or the root certificate
            (a path, or PEM bytes) the server's certificate is checked against.
        timeout: The deadline of every call, in seconds.
        retries: Attempts a safe call gets when the service is unreachable (one
            more per further replica).
        backoff: The first retry's delay; each next one doubles (with jitter).
        tenant: Sent as ``actionckpt-tenant``: the server refuses a token of
            another tenant (``PERMISSION_DENIED``).
        serde: The serializer (default: the savers' strict msgpack one).
        lease: One worker per thread through the service's lease: a
            :class:`~langgraph_actionckpt.LeaseOptions`, or its mode alone
            (``"wait"``, ``"error"``, ``"off"``). Held leases fence this saver's
            writes of their threads. The default is ``"off"``, where a direct
            saver waits: only its expiry frees a lease taken through the service,
            so a worker that died would hold its threads for the ttl (which is
            10 seconds here, not 30: see ``LeaseOptions.ttl``).
        writer: A :class:`~langgraph_actionckpt.WriterOptions`: ``defer_writes``
            holds a task's regular writes and sends them with the thread's next
            checkpoint (one call per superstep); errors and interrupts are sent
            at once, held writes on their own after half ``interval``, before
            any read, and on close. ``durable_timeout`` defaults to 30 seconds
            here (see ``WriterOptions``); ``durable_writes`` and ``group_commit``
            are the service's own saver's (any other value than their default
            raises ``ConfigurationError``).
        replay: Serve logged LLM/tool calls after a crash (the replay hooks).
        reuse: Not supported: any policy raises ``ConfigurationError`` (the reuse
            entries live in a direct saver's database; the service offers none).
        metrics: A metrics sink (``None`` records nothing).
        **flat: The lease and writer options' flat keywords, as before groups
            (``lease_timeout``, ``lease_ttl``, ``defer_writes``, ``durable_timeout``,
            ``writer_interval``, ``writer_batch_size``): each the same as its
            field in the group, which is not given with it.
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        token: str | None = None,
        tls: bool | str | Path | bytes = False,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.1,
        tenant: str | None = None,
        serde: SerializerProtocol | None = DEFAULTS.serde,
        lease: str | LeaseOptions = REMOTE_LEASE_MODE,
        writer: WriterOptions | None = None,
        replay: bool = DEFAULTS.replay,
        reuse: Any = DEFAULTS.reuse,
        metrics: MetricsSink | None = DEFAULTS.metrics,
        **flat: Any,
    ) -> None:
        if reuse:
            raise ConfigurationError(
                "reuse needs a saver with its own database (ActionSaver, AsyncActionSaver): "
                "the checkpoint service does not offer reuse"
            )
        options = remote_options("the remote saver", lease, writer, flat, _KEYWORDS)
        self.serde = serde or default_serde()  # the saver's first serializer
        self.targets = Targets(target)
        self.tls = tls
        self.timeout = timeout
        self.retries = max(retries, 1)
        self.backoff = backoff
        self.replay = replay
        self.schema = tenant or "default"  # the lease key's namespace in this process
        lease_mode = self.lease_mode = options["lease"]  # the service's lease, never the DB's
        self.lease_timeout = options["lease_timeout"]
        self.durable_timeout = options["durable_timeout"]
        self.metrics: MetricsSink = metrics if metrics is not None else NullMetrics()
        meta = [(PROTOCOL_HEADER, str(PROTOCOL_VERSION)), ("x-client", f"actionckpt/{__version__}")]
        if token:
            meta.append(("authorization", f"Bearer {token}"))
        if tenant:
            meta.append(("actionckpt-tenant", tenant))
        self.call_metadata = tuple(meta)
        self.lease_keeper: RemoteLeaseKeeper | None = None
        if lease_mode != "off":
            self.lease_keeper = RemoteLeaseKeeper(
                self.targets,
                tls,
                self.call_metadata,
                mode=lease_mode,
                timeout=self.lease_timeout,
                ttl=options["lease_ttl"],
            )
        self.defer_writes = options["defer_writes"]
        self.writer_interval = options["writer_interval"]
        self.writer_batch_size = options["writer_batch_size"]
        self._held: dict[tuple[str, str], list[tuple[float, Any]]] = {}
        self._held_lock = threading.Lock()

    @property
    def target(self) -> str:
        """The replica called now (``host:port``)."""
        return self.targets.all[self.targets.current]

    def fence(self, config: RunnableConfig) -> Any:
        """The fence of a write: the held lease's token of its thread (None: no lease)."""
        if self.lease_keeper is None:
            return None
        thread = str(((config.get("configurable") or {}).get("thread_id")) or "")
        token = self.lease_keeper.token(thread)
        return None if token is None else pb.Fence(token=token)

    # ------------------------------------------------------- held writes

    @staticmethod
    def key(config: RunnableConfig) -> tuple[str, str]:
        conf = config.get("configurable") or {}
        return str(conf.get("thread_id") or ""), str(conf.get("checkpoint_ns") or "")

    def hold(self, key: tuple[str, str], request: Any) -> None:
        with self._held_lock:
            self._held.setdefault(key, []).append((time.monotonic(), request))

    def take_held(
        self, key: tuple[str, str] | None = None, older_than: float = 0.0
    ) -> builtins.list[Any]:
        """Held write requests (of one thread and namespace, or all), oldest first."""
        now = time.monotonic()
        out: builtins.list[Any] = []
        with self._held_lock:
            keys = [key] if key is not None else builtins.list(self._held)
            for k in keys:
                items = self._held.get(k)
                if not items:
                    continue
                if older_than and now - items[0][0] < older_than:
                    continue
                out.extend(req for _, req in items)
                del self._held[k]
        return out

    def unhold(self, key: tuple[str, str], requests: Sequence[Any]) -> None:
        """Put requests back (their checkpoint's put failed): they go with the next one."""
        if requests:
            with self._held_lock:
                now = time.monotonic()
                self._held[key] = [(now, r) for r in requests] + self._held.get(key, [])

    # ------------------------------------------------------------- errors

    def retry_delay(self, attempt: int, moved: bool = False) -> float:
        """Seconds before the next attempt: none on a replica not yet tried in this round."""
        if moved and attempt % len(self.targets.all):
            return 0.0
        return float(self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random()))

    def retryable(self, name: str, error: grpc.RpcError, attempt: int) -> bool:
        tries = self.retries + len(self.targets.all) - 1
        return name in SAFE_CALLS and attempt < tries and error.code() in FAILOVER

    def error(
        self, name: str, error: grpc.RpcError, config: Any = None, at: int | None = None
    ) -> Exception:
        """The exception of a failed call (``at``: the replica that failed it; else the current)."""
        code = error.code()
        details = error.details() or ""
        if code == grpc.StatusCode.FAILED_PRECONDITION and "lease on thread" in details:
            conf = (config or {}).get("configurable") or {}
            thread = str(conf.get("thread_id", "?"))
            token = self.lease_keeper.token(thread) if self.lease_keeper is not None else None
            return LeaseLostError(thread, token)
        name_of = code.name if code is not None else "UNKNOWN"
        target = self.target if at is None else self.targets.all[at]
        return ServiceError(name_of, f"{name}: {details}", target)


_KEYWORDS = tuple(
    p for p in inspect.signature(RemoteCore).parameters if p not in ("target", "flat")
)
"""The remote savers' keywords (for the closest-name hint of an unknown one)."""


def run_config(config: RunnableConfig) -> dict[str, Any]:
    """The config's primitive metadata and configurable values (see ``PutRequest.run_config``)."""
    out: dict[str, Any] = {}
    for key in ("metadata", "configurable"):
        part: Any = config.get(key) or {}
        out[key] = {
            str(k): v
            for k, v in part.items()
            if isinstance(v, (str, int, float, bool)) and not str(k).startswith("__")
        }
    return out
