"""What OpenTelemetry spans add to recording an action (the recorder alone, no database).

Run::

    python -m benchmarks.bench_tracing [--actions 20000] [--repeat 5]

Times ``ActionRecorder.tool_start`` + ``tool_end`` for one tool call of a
checkpointed thread (what the callback handler runs on the caller's path before
queueing the row) with:

* no observer (``tracing=False``): the floor;
* the OpenTelemetry observer while no TracerProvider is configured (the default
  ``tracing=None`` in an application without an SDK);
* the observer with an SDK ``TracerProvider`` and no span processor (span creation only);
* the same with a ``SimpleSpanProcessor`` into the SDK's in-memory exporter.

The cases take turns within each of ``--repeat`` rounds (a busy machine slows
them alike). Reported: median (and min) microseconds per tool call, and the
ratio of the medians to the floor.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import uuid
from typing import Any

from langgraph_actionckpt.actions.observer import ActionObserver
from langgraph_actionckpt.actions.recorder import ActionRecorder, Callback
from langgraph_actionckpt.actions.tracing import make_observer

_META = {
    "thread_id": "t",
    "langgraph_checkpoint_ns": "agent:task-1",
    "langgraph_node": "agent",
    "langgraph_step": 1,
}


def per_call_us(observer: ActionObserver | None, n: int) -> float:
    """Microseconds per tool call (start + end), over ``n`` calls."""
    recorder = ActionRecorder(observer=observer)
    ids = [uuid.uuid4() for _ in range(n)]
    gc.collect()
    gc.disable()
    try:
        t = time.perf_counter()
        for rid in ids:
            recorder.tool_start(Callback(None, rid, None, _META, {"name": "lookup"}), "x", {"q": 1})
            recorder.tool_end("result", rid)
        return (time.perf_counter() - t) / n * 1e6
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    bare = TracerProvider()
    exported = TracerProvider()
    exporter = InMemorySpanExporter()
    exported.add_span_processor(SimpleSpanProcessor(exporter))
    cases: list[tuple[str, Any]] = [
        ("no observer (tracing=False)", make_observer(False)),
        ("OTel observer, no provider configured", make_observer(None)),
        ("OTel, SDK provider, no processor", make_observer(None, bare)),
        ("OTel, SDK provider, in-memory exporter", make_observer(None, exported)),
    ]
    # the cases take turns in every round, so a busy machine slows them alike
    samples: dict[str, list[float]] = {name: [] for name, _ in cases}
    for round_ in range(args.repeat + 1):  # round 0 warms up
        for name, observer in cases:
            us = per_call_us(observer, args.actions)
            exporter.clear()
            if round_:
                samples[name].append(us)
    floor = statistics.median(samples[cases[0][0]])
    print(f"{args.actions} tool calls per sample, {args.repeat} rounds; median (min) per call")
    for name, _ in cases:
        med, low = statistics.median(samples[name]), min(samples[name])
        print(f"{name:42s} {med:7.1f} us ({low:5.1f})   {med / floor:5.2f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
