"""Prometheus metrics for savers and the recorder (``prometheus_client``, imported lazily).

Metric names (Grafana-ready; all counters end in ``_total`` in the exposition):

=============================================  =========  =====================================
name                                           type       meaning
=============================================  =========  =====================================
``actionckpt_actions_written_total``           counter    action rows written, by
                                                          ``action_type`` and ``status``
``actionckpt_actions_read_total``              counter    action rows read back (replay
                                                          lookups, list/get), by ``action_type``
``actionckpt_checkpoint_puts_total``           counter    checkpoints stored (``put``)
``actionckpt_checkpoint_reads_total``          counter    checkpoint reads (``get_tuple``)
``actionckpt_write_latency_seconds``           histogram  time to durably write a checkpoint
                                                          or a batch of actions
``actionckpt_writer_queue_depth``              gauge      action rows waiting in the
                                                          recorder's background writer
``actionckpt_replays_total``                   counter    actions served from the log instead
                                                          of executed, by ``action_type``
``actionckpt_inflight_actions``                gauge      actions ``pending``/``running`` in the
                                                          database now, by ``action_type``
                                                          (read at scrape time; needs a
                                                          connection source)
``actionckpt_oldest_inflight_age_seconds``     gauge      age of the oldest in-flight action
                                                          (0 when none; same source)
=============================================  =========  =====================================

Useful panels: ``rate(actionckpt_replays_total[5m])`` (crash recoveries at work),
``sum by (action_type) (rate(actionckpt_actions_written_total{status="failed"}[5m]))``
(failure rate), ``histogram_quantile(0.99, rate(actionckpt_write_latency_seconds_bucket[5m]))``
(p99 write latency), ``actionckpt_oldest_inflight_age_seconds > 600`` (stuck actions, alert).

Usage::

    from langgraph_actionckpt.ops.metrics import Metrics, default_metrics
    m = default_metrics()                       # on the module-level shared registry
    m.start_http_exporter(9464)                 # GET http://127.0.0.1:9464/metrics
    m.observe_actions_written(records)          # what the saver/recorder hooks call

The module-level functions :func:`observe_actions_written`, :func:`observe_actions_read`,
:func:`observe_put`, :func:`observe_get`, :func:`set_queue_depth` and
:func:`observe_replay` update :func:`default_metrics` and never raise (a metrics
failure is logged, never propagated into the graph).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import psycopg
from psycopg import sql

from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.actions.settle import UNSETTLED_SQL
from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.db.driver import Op, Plan
from langgraph_actionckpt.db.sqlid import q
from langgraph_actionckpt.errors import ConfigurationError

logger = logging.getLogger("langgraph_actionckpt.metrics")

LATENCY_BUCKETS = (
    0.0002,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
)

_shared_lock = threading.Lock()
_shared_registry: Any = None
_default: Metrics | None = None


def shared_registry() -> Any:
    """The module-level ``CollectorRegistry`` used when none is given."""
    global _shared_registry
    with _shared_lock:
        if _shared_registry is None:
            from prometheus_client import CollectorRegistry

            _shared_registry = CollectorRegistry()
        return _shared_registry


def default_metrics() -> Metrics:
    """The process-wide :class:`Metrics` on :func:`shared_registry` (created on first use)."""
    global _default
    if _default is None:
        registry = shared_registry()
        with _shared_lock:
            if _default is None:
                _default = Metrics(registry)
    return _default


ConnSource = Any
"""A callable returning a new psycopg ``Connection`` (closed after use), a
``ConnectionPool``, or a saver."""


_INFLIGHT = (
    "SELECT action_type, count(*), "
    "COALESCE(EXTRACT(EPOCH FROM (now() - min(started_at))), 0)::float8 "
    "FROM {s}.actions WHERE {unsettled} GROUP BY action_type"
)


def plan_inflight_by_type(schema: str) -> Plan[list[tuple[str, int, float]]]:
    """In-flight actions per type, with the age in seconds of the oldest of each type."""
    rows = yield Op(q(schema, _INFLIGHT, unsettled=sql.SQL(UNSETTLED_SQL)), None, "all")
    return [(r[0], int(r[1]), float(r[2])) for r in rows]


class _InflightCollector:
    """Reads in-flight action counts from the database at scrape time."""

    def __init__(self, source: ConnSource, schema: str) -> None:
        self.source = source
        self.schema = schema

    def _read(self) -> list[tuple[str, int, float]]:
        from psycopg_pool import ConnectionPool

        from langgraph_actionckpt.ops.target import driver_for

        src = self.source
        if getattr(src, "driver", None) is not None or isinstance(
            src, (ConnectionPool, psycopg.Connection)
        ):
            return driver_for(src).run(lambda: plan_inflight_by_type(self.schema))
        conn = src()  # a factory: a new connection, closed after use
        try:
            return driver_for(conn).run(lambda: plan_inflight_by_type(self.schema))
        finally:
            conn.close()

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        inflight = GaugeMetricFamily(
            "actionckpt_inflight_actions",
            "Actions pending or running in the database, by action type.",
            labels=["action_type"],
        )
        oldest = GaugeMetricFamily(
            "actionckpt_oldest_inflight_age_seconds",
            "Age of the oldest pending or running action (0 when none).",
        )
        try:
            rows = self._read()
        except Exception as exc:  # noqa: BLE001 - a scrape must not fail the exporter
            logger.warning("could not read in-flight actions for metrics: %s", exc)
            return
        age = 0.0
        for action_type, count, oldest_age in rows:
            inflight.add_metric([action_type], float(count))
            age = max(age, float(oldest_age))
        oldest.add_metric([], age)
        yield inflight
        yield oldest

    def describe(self) -> Iterator[Any]:
        return iter(())


class Metrics:
    """The package's Prometheus metrics on one ``CollectorRegistry``.

    Args:
        registry: Where to register; ``None`` uses :func:`shared_registry` (only
            one ``Metrics`` may live on a registry; use :func:`default_metrics`
            for the shared one).
        conn_factory: Source for the ``actionckpt_inflight_actions`` gauge, read
            at scrape time: a callable returning a new connection (closed after
            use), a ``ConnectionPool`` or a saver. ``None``: no DB gauge.
        schema: The schema whose ``actions`` table the gauge reads.

    Raises:
        ConfigurationError: The registry already has these metrics.
    """

    def __init__(
        self,
        registry: Any = None,
        *,
        conn_factory: ConnSource | None = None,
        schema: str = DEFAULT_SCHEMA,
    ) -> None:
        from prometheus_client import Counter, Gauge, Histogram

        self.registry = registry if registry is not None else shared_registry()
        try:
            self.actions_written = Counter(
                "actionckpt_actions_written",
                "Action rows written, by action type and status.",
                ["action_type", "status"],
                registry=self.registry,
            )
        except ValueError as exc:
            raise ConfigurationError(
                "this registry already has actionckpt metrics; use default_metrics() for the "
                "shared registry or pass registry=CollectorRegistry()"
            ) from exc
        # every metric below goes on the same registry; most count by action type
        counter = functools.partial(Counter, registry=self.registry)
        by_type = ["action_type"]
        self.actions_read = counter(
            "actionckpt_actions_read",
            "Action rows read back (replay lookups, list/get), by action type.",
            by_type,
        )
        self.checkpoint_puts = counter("actionckpt_checkpoint_puts", "Checkpoints stored.")
        self.checkpoint_reads = counter("actionckpt_checkpoint_reads", "Checkpoint reads.")
        self.write_latency = Histogram(
            "actionckpt_write_latency_seconds",
            "Time to durably write a checkpoint or a batch of actions.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "actionckpt_writer_queue_depth",
            "Action rows waiting in the recorder's background writer.",
            registry=self.registry,
        )
        self.replays = counter(
            "actionckpt_replays",
            "Actions served from the log instead of executed, by action type.",
            by_type,
        )
        self.reuse_lookups = counter(
            "actionckpt_reuse_lookups",
            "Reuse-by-meaning lookups, by action type and outcome (hit, miss).",
            [*by_type, "outcome"],
        )
        self.reuse_tokens_saved = counter(
            "actionckpt_reuse_tokens_saved",
            "Tokens not spent because a result was reused from another thread.",
            by_type,
        )
        self._collector: _InflightCollector | None = None
        if conn_factory is not None:
            self._collector = _InflightCollector(conn_factory, validate_schema(schema))
            self.registry.register(self._collector)

    # ------------------------------------------------------------------ hooks

    def observe_actions_written(
        self, records: Iterable[ActionRecord], seconds: float | None = None
    ) -> None:
        """Count written action rows; ``seconds`` (the write's duration) feeds the histogram."""
        # one labelled increment per (type, status), not per row: a flush writes
        # hundreds of rows of a few kinds, and each labels() call takes a lock
        counts: dict[tuple[str, str], int] = {}
        for r in records:
            key = (r.action_type, r.status)
            counts[key] = counts.get(key, 0) + 1
        for (action_type, status), n in counts.items():
            self.actions_written.labels(action_type, status).inc(n)
        if seconds is not None:
            self.write_latency.observe(seconds)

    def observe_actions_read(self, records: Iterable[ActionRecord]) -> None:
        """Count action rows read back."""
        for r in records:
            self.actions_read.labels(r.action_type).inc()

    def observe_put(self, seconds: float) -> None:
        """Count a stored checkpoint and its write latency."""
        self.checkpoint_puts.inc()
        self.write_latency.observe(seconds)

    def observe_get(self) -> None:
        """Count a checkpoint read."""
        self.checkpoint_reads.inc()

    def set_queue_depth(self, n: int) -> None:
        """Set the recorder's pending-write queue depth."""
        self.queue_depth.set(n)

    def observe_replay(self, action_type: str) -> None:
        """Count an action served from the log."""
        self.replays.labels(action_type).inc()

    def observe_reuse(self, action_type: str, outcome: str, tokens_saved: int = 0) -> None:
        """Count a reuse lookup (``hit`` or ``miss``) and the tokens a hit saved."""
        self.reuse_lookups.labels(action_type, outcome).inc()
        if tokens_saved:
            self.reuse_tokens_saved.labels(action_type).inc(tokens_saved)

    # ---------------------------------------------------------------- export

    def exposition(self) -> bytes:
        """The registry in the Prometheus text format (what a scrape returns)."""
        from prometheus_client import generate_latest

        data: bytes = generate_latest(self.registry)
        return data

    def start_http_exporter(self, port: int = 9464, addr: str = "127.0.0.1") -> Exporter:
        """Serve this registry at ``http://addr:port/metrics`` (see :func:`start_http_exporter`)."""
        return start_http_exporter(port, addr, registry=self.registry)


class Exporter:
    """A running HTTP exporter.

    Attributes:
        port: The bound port (useful when 0 was asked for).
        addr: The bound address.
    """

    def __init__(self, server: Any, thread: threading.Thread) -> None:
        self.server = server
        self.thread = thread
        self.addr: str = server.server_address[0]
        self.port: int = int(server.server_port)

    @property
    def url(self) -> str:
        """The metrics URL."""
        host = f"[{self.addr}]" if ":" in self.addr else self.addr
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_http_exporter(port: int, addr: str = "127.0.0.1", *, registry: Any = None) -> Exporter:
    """Serve metrics over HTTP in a daemon thread.

    Args:
        port: TCP port; ``0`` picks a free one (read it from ``Exporter.port``).
        addr: Address to bind; loopback by default (expose deliberately).
        registry: The registry to serve; default :func:`shared_registry`.

    Returns:
        The running exporter (``stop()`` it when done).
    """
    from prometheus_client import start_http_server

    server, thread = start_http_server(
        port, addr, registry=registry if registry is not None else shared_registry()
    )
    return Exporter(server, thread)


# ------------------------------------------------------ module-level hooks


def _safe(fn: Callable[[Metrics], None]) -> None:
    try:
        fn(default_metrics())
    except Exception as exc:  # noqa: BLE001 - metrics never break the saver
        logger.debug("metrics hook failed: %s", exc)


def observe_actions_written(records: Iterable[ActionRecord], seconds: float | None = None) -> None:
    """Hook: action rows were written (on :func:`default_metrics`)."""
    _safe(lambda m: m.observe_actions_written(records, seconds))


def observe_actions_read(records: Iterable[ActionRecord]) -> None:
    """Hook: action rows were read back."""
    _safe(lambda m: m.observe_actions_read(records))


def observe_put(seconds: float) -> None:
    """Hook: a checkpoint was stored in ``seconds``."""
    _safe(lambda m: m.observe_put(seconds))


def observe_get() -> None:
    """Hook: a checkpoint was read."""
    _safe(lambda m: m.observe_get())


def set_queue_depth(n: int) -> None:
    """Hook: the recorder's writer queue holds ``n`` rows."""
    _safe(lambda m: m.set_queue_depth(n))


def observe_replay(action_type: str) -> None:
    """Hook: an action was served from the log."""
    _safe(lambda m: m.observe_replay(action_type))
