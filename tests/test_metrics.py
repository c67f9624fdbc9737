"""Prometheus metrics: hooks move the counters; scrape by generate_latest and by real HTTP."""

from __future__ import annotations

import time
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops import metrics as metrics_mod
from langgraph_actionckpt.ops.metrics import Metrics


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_hooks_and_scrapes(saver: ActionSaver, schema: str) -> None:
    registry = CollectorRegistry()
    m = Metrics(registry, conn_factory=saver, schema=schema)
    records = [
        ActionRecord("t1", "a1", "llm_completion", status="completed"),
        ActionRecord("t1", "a2", "tool_call", status="completed"),
        ActionRecord("t1", "a3", "tool_call", status="failed", error={"message": "x"}),
        ActionRecord("t2", "a1", "tool_call", status="running"),
        ActionRecord("t2", "a2", "tool_call", status="pending"),
    ]
    # what the saver does: write, then report the write and its duration
    started = time.perf_counter()
    saver.record_actions(records)
    m.observe_actions_written(records, time.perf_counter() - started)
    for _ in range(3):
        m.observe_put(0.002)
    m.observe_get()
    m.observe_get()
    read = saver.list_actions("t1")
    m.observe_actions_read(read)
    m.observe_replay("llm_completion")
    m.observe_replay("llm_completion")
    m.observe_replay("tool_call")
    m.set_queue_depth(7)

    expected = {
        (
            "actionckpt_actions_written_total",
            (("action_type", "llm_completion"), ("status", "completed")),
        ): 1,
        (
            "actionckpt_actions_written_total",
            (("action_type", "tool_call"), ("status", "completed")),
        ): 1,
        (
            "actionckpt_actions_written_total",
            (("action_type", "tool_call"), ("status", "failed")),
        ): 1,
        (
            "actionckpt_actions_written_total",
            (("action_type", "tool_call"), ("status", "running")),
        ): 1,
        ("actionckpt_actions_read_total", (("action_type", "tool_call"),)): 2,
        ("actionckpt_actions_read_total", (("action_type", "llm_completion"),)): 1,
        ("actionckpt_checkpoint_puts_total", ()): 3,
        ("actionckpt_checkpoint_reads_total", ()): 2,
        ("actionckpt_write_latency_seconds_count", ()): 4,
        ("actionckpt_replays_total", (("action_type", "llm_completion"),)): 2,
        ("actionckpt_replays_total", (("action_type", "tool_call"),)): 1,
        ("actionckpt_writer_queue_depth", ()): 7,
        ("actionckpt_inflight_actions", (("action_type", "tool_call"),)): 2,  # from the DB
    }
    by_generate = samples(generate_latest(registry).decode())
    for key, value in expected.items():
        assert by_generate.get(key) == value, key
    assert by_generate[("actionckpt_oldest_inflight_age_seconds", ())] >= 0
    assert by_generate[("actionckpt_write_latency_seconds_sum", ())] >= 0.006

    exporter = m.start_http_exporter(0)
    try:
        assert exporter.addr == "127.0.0.1" and exporter.port > 0
        with urllib.request.urlopen(exporter.url, timeout=10) as resp:
            assert resp.status == 200
            by_http = samples(resp.read().decode())
    finally:
        exporter.stop()
    for key, value in expected.items():
        assert by_http.get(key) == value, key

    # the in-flight gauge follows the database
    saver.record_actions(
        [
            ActionRecord("t2", "a1", "tool_call", status="completed"),
            ActionRecord("t2", "a2", "tool_call", status="completed"),
        ]
    )
    after = samples(m.exposition().decode())
    assert ("actionckpt_inflight_actions", (("action_type", "tool_call"),)) not in after
    assert after[("actionckpt_oldest_inflight_age_seconds", ())] == 0


def test_one_metrics_per_registry() -> None:
    registry = CollectorRegistry()
    Metrics(registry)
    with pytest.raises(ConfigurationError, match="already"):
        Metrics(registry)


def test_module_hooks_use_the_shared_registry() -> None:
    m = metrics_mod.default_metrics()
    assert metrics_mod.default_metrics() is m
    reg = metrics_mod.shared_registry()

    def value(name: str, labels: dict[str, str] | None = None) -> float:
        return reg.get_sample_value(name, labels or {}) or 0.0

    puts = value("actionckpt_checkpoint_puts_total")
    replays = value("actionckpt_replays_total", {"action_type": "tool_call"})
    metrics_mod.observe_put(0.01)
    metrics_mod.observe_get()
    metrics_mod.observe_replay("tool_call")
    metrics_mod.set_queue_depth(3)
    metrics_mod.observe_actions_written([ActionRecord("t", "a", "node", status="completed")])
    metrics_mod.observe_actions_read([ActionRecord("t", "a", "node", status="completed")])
    assert value("actionckpt_checkpoint_puts_total") == puts + 1
    assert value("actionckpt_replays_total", {"action_type": "tool_call"}) == replays + 1
    assert value("actionckpt_writer_queue_depth") == 3
    # hooks never raise into the saver, whatever they are given
    metrics_mod.observe_actions_written([object()])  # type: ignore[list-item]


def test_unreachable_database_does_not_break_scrape() -> None:
    registry = CollectorRegistry()

    def broken() -> object:
        raise OSError("database down")

    m = Metrics(registry, conn_factory=broken)
    m.observe_get()
    text = m.exposition().decode()
    assert "actionckpt_checkpoint_reads_total 1.0" in text
    assert not any(line.startswith("actionckpt_inflight_actions") for line in text.splitlines())
