"""A monitoring loop runs 20 times; a flaky metrics API is retried, and SQL pinpoints the 503s.

The story
---------
A monitoring agent watches a SaaS dashboard in a loop (a LangGraph cycle):

    scrape -> detect -> summarise -> alert -> scrape -> ...   (20 iterations)

* ``scrape`` reads three metrics (cpu, p95 latency, error rate) from a metrics
  API; each read is an ``@action``, so it is one row in the action log.
* ``detect`` flags outliers (a plain function of the history).
* ``summarise`` asks the LLM for a one-line summary (an ``llm_completion`` row).
* ``alert`` posts an alert when there is an outlier (an ``@action``).

The metrics API is flaky: on two iterations it answers ``503 Service
Unavailable``. The ``scrape`` node has a LangGraph ``RetryPolicy``; when the
node is retried, the reads that had already succeeded in the failed attempt
should be served from the action log and only the failed read is sent again.

Afterwards a plain SQL query on the actions table pinpoints the failing call:
which iteration, which metric, which attempt, and the error - the debugging
the "loop failed" log line never allowed.

    python examples/monitoring_loop.py [--dsn DSN] [--schema S] [--thread T] [--loops N]
"""

from __future__ import annotations

import math
import operator
import os
import sys
import time
from collections import Counter
from typing import Annotated, Any, TypedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import example_args, get_model, new_thread_id, print_actions, resolve_dsn

# (iteration, metric) -> how many requests answer 503 before one succeeds
FLAKY = {(6, "latency"): 2, (13, "error_rate"): 1}


class MetricsAPIError(Exception):
    """An HTTP 5xx from the metrics API (transient: worth a retry)."""


class MetricsAPI:
    """A fake metrics API with a failure schedule; it counts every request it serves."""

    def __init__(self) -> None:
        self.requests: Counter[tuple[int, str]] = Counter()
        self.ok: Counter[tuple[int, str]] = Counter()

    def get(self, iteration: int, metric: str) -> float:
        key = (iteration, metric)
        self.requests[key] += 1
        time.sleep(0.005)
        if self.requests[key] <= FLAKY.get(key, 0):
            raise MetricsAPIError(f"GET /metrics/{metric}?t={iteration}: 503 Service Unavailable")
        self.ok[key] += 1
        base = {"cpu": 42.0, "latency": 180.0, "error_rate": 0.4}[metric]
        spike = 2.2 if (iteration, metric) in {(11, "cpu"), (17, "latency")} else 1.0
        return round(base * spike * (1 + 0.05 * math.sin(iteration + len(metric))), 2)


class State(TypedDict, total=False):
    iteration: int
    loops: int
    metrics: dict[str, float]
    history: Annotated[list[dict[str, float]], operator.add]
    outliers: list[str]
    summaries: Annotated[list[str], operator.add]
    alerts: Annotated[list[str], operator.add]


def summary_script(messages: list[Any], kwargs: dict[str, Any]) -> Any:
    """The offline model: a one-line summary from the prompt (deterministic)."""
    from langchain_core.messages import AIMessage

    text = str(messages[-1].content)
    outliers = text.split("Outliers: ", 1)[-1].strip()
    if outliers == "none":
        verdict = "all metrics normal"
    else:  # an anomaly gets an explanation and a next step: a longer answer
        verdict = (
            f"ANOMALY in {outliers}, well above the recent readings; likely a load spike "
            "or a slow dependency. Page the on-call engineer and check recent deploys."
        )
    return AIMessage(content=f"{text.split(':', 1)[0]}: {verdict}")


def build(saver: Any, api: MetricsAPI) -> Any:
    from langchain_core.messages import HumanMessage
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import RetryPolicy

    from langgraph_actionckpt import action, current_action

    model = get_model(script=summary_script)

    @action(name="fetch_metric")
    def fetch_metric(iteration: int, metric: str) -> float:
        return api.get(iteration, metric)

    @action(name="post_alert")
    def post_alert(text: str) -> str:
        # the idempotency key lets the pager deduplicate a re-sent alert
        return f"alert {current_action()[-8:]} posted: {text}"  # type: ignore[index]

    def scrape(state: State) -> State:
        i = state["iteration"]
        metrics = {m: fetch_metric(i, m) for m in ("cpu", "latency", "error_rate")}
        return {"metrics": metrics, "history": [metrics]}

    def detect(state: State) -> State:
        history = state["history"]
        outliers = []
        for name, value in state["metrics"].items():
            past = [h[name] for h in history[:-1]] or [value]
            mean = sum(past) / len(past)
            if value > 1.5 * mean:
                outliers.append(f"{name}={value}")
        return {"outliers": outliers}

    def summarise(state: State) -> State:
        m = state["metrics"]
        # the model sees up to five recent readings (so the prompt grows over the first
        # iterations) and, when something is off, is asked for a cause and a next step
        recent = "; ".join(
            f"cpu {h['cpu']}, latency {h['latency']}, errors {h['error_rate']}"
            for h in state["history"][-6:-1]
        )
        ask = (
            "For each outlier, compare it with the recent readings, name a likely cause "
            "and the next step."
            if state["outliers"]
            else "Summarise in one line."
        )
        prompt = (
            f"Iteration {state['iteration']}: cpu {m['cpu']}%, p95 latency "
            f"{m['latency']} ms, error rate {m['error_rate']}%. "
            f"Recent readings: {recent or 'none yet'}. {ask} "
            f"Outliers: {', '.join(state['outliers']) or 'none'}"
        )
        return {"summaries": [str(model.invoke([HumanMessage(prompt)]).content)]}

    def alert(state: State) -> State:
        out: State = {"iteration": state["iteration"] + 1}
        if state["outliers"]:
            out["alerts"] = [post_alert(state["summaries"][-1])]
        return out

    retry = RetryPolicy(
        max_attempts=4,
        initial_interval=0.05,
        backoff_factor=2.0,
        jitter=False,
        retry_on=MetricsAPIError,
    )
    g = StateGraph(State)
    g.add_node("scrape", scrape, retry_policy=retry)
    g.add_node("detect", detect)
    g.add_node("summarise", summarise)
    g.add_node("alert", alert)
    g.add_edge(START, "scrape")
    g.add_edge("scrape", "detect")
    g.add_edge("detect", "summarise")
    g.add_edge("summarise", "alert")
    g.add_conditional_edges("alert", lambda s: END if s["iteration"] >= s["loops"] else "scrape")
    return g.compile(checkpointer=saver)


# A retried action keeps one row: `attempt` counts its executions and `error`
# holds the last failure, so "which call failed, and why" is the rows with an error.
FAILED_CALLS_SQL = """\
SELECT step_index, node, name,
       input->'args'->>0       AS iteration,
       input->'args'->>1       AS metric,
       status, attempt, error->>'message' AS error, started_at
FROM {schema}.actions
WHERE thread_id = %s AND error IS NOT NULL
ORDER BY step_index"""


def main(argv: list[str] | None = None) -> int:
    args = example_args(
        __doc__, argv, extra=lambda p: p.add_argument("--loops", type=int, default=20)
    )
    dsn = resolve_dsn(args.dsn)
    thread = args.thread or new_thread_id("monitor")

    import psycopg
    from psycopg import sql

    from langgraph_actionckpt import ActionCallbackHandler, ActionSaver

    api = MetricsAPI()
    t0 = time.monotonic()
    with ActionSaver.from_conn_string(dsn, schema=args.schema) as saver:
        saver.setup()
        graph = build(saver, api)
        config = {
            "configurable": {"thread_id": thread},
            "recursion_limit": 10 * args.loops + 10,
            "callbacks": [ActionCallbackHandler(saver)],
        }
        final = graph.invoke({"iteration": 0, "loops": args.loops}, config)
        elapsed = time.monotonic() - t0
        actions = saver.list_actions(thread)

    print(
        f"thread {thread!r}: {final['iteration']} iterations in {elapsed:.1f}s, "
        f"{len(actions)} actions logged, {len(final['alerts'])} alerts"
    )
    for a in final["alerts"]:
        print(f"  {a}")
    by_type = Counter((a.action_type, a.status) for a in actions)
    print(
        "actions by type and status: "
        + ", ".join(f"{t}/{s}={n}" for (t, s), n in sorted(by_type.items()))
    )

    # The retries: the failed read was sent again; the reads that had succeeded were not.
    fails = sum(FLAKY.values())
    redone = sum(n - 1 for n in api.ok.values() if n > 1)
    print(
        f"metrics API: {sum(api.requests.values())} requests for "
        f"{len(api.requests)} reads; {fails} answered 503 and were retried"
    )
    print(f"completed fetches executed again by a retry: {redone}")
    retried = [
        a
        for a in actions
        if a.node == "scrape"
        and a.action_type == "function"
        and any(a.input["args"][0] == it for it, _ in FLAKY)
    ]
    print_actions(retried, "the retried scrapes (iterations with a 503)", thread_actions=actions)

    # The SQL an operator would run: which call failed, and why?
    query = sql.SQL(FAILED_CALLS_SQL).format(schema=sql.Identifier(args.schema))
    print("\n-- which call failed? (SQL on the actions table)")
    print(FAILED_CALLS_SQL.replace("{schema}", args.schema).replace("%s", repr(thread)) + ";")
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(query, (thread,)).fetchall()
    for r in rows:
        print(
            f"  step {r[0]:>4} | {r[1]} | {r[2]}(iteration={r[3]}, metric={r[4]}) | {r[5]} "
            f"after {r[6]} attempts | last error: {r[7]}"
        )
    ok = (
        final["iteration"] == args.loops
        and sum(r[6] - 1 for r in rows) == fails
        and redone == 0
        and {(int(r[3]), r[4]) for r in rows} == set(FLAKY)
    )
    verdict = "yes" if ok else "NO"
    print(f"\nall {args.loops} iterations completed; failing calls pinpointed: {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
