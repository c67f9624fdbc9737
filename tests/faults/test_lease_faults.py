"""The fenced lease under faults: killed lease connections, transaction pooling, racing workers.

Findings 1, 2 and 8 of issue #12, each against a private PostgreSQL (and a
transaction-mode pgbouncer in front of it), and the race of two workers on one
thread with connections killed at random moments.
"""

from __future__ import annotations

import operator
import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    InFlightActionError,
    LeaseLostError,
    ThreadBusyError,
    action,
    current_action,
)
from langgraph_actionckpt.db import lease as _lease
from tests.faults.servers import PgBouncer, PrivatePostgres


class LogState(TypedDict):
    log: Annotated[list[str], operator.add]


class Ledger:
    """The external system the actions change: who did which step, by idempotency key.

    Like an API that takes an idempotency key (what ``docs/guarantees.md`` tells users to
    pass: ``current_action()``), a second call with a key it has seen is not performed: it
    answers with the first call's output and is counted in ``refused``. A lease gives that
    case no other defence: a worker whose lease was taken over between its intent row and
    its call (a killed lease connection, a stall) still makes the call.
    """

    def __init__(self) -> None:
        self.ran: list[tuple[str, int]] = []
        self.outputs: dict[str, str] = {}
        self.refused: list[str] = []
        self.lock = threading.Lock()

    def call(self, worker: str, i: int, key: str, value: str) -> str:
        """Perform step ``i`` once per key; a repeated key gets the first output back."""
        with self.lock:
            if key in self.outputs:
                self.refused.append(key)
                return self.outputs[key]
            self.ran.append((worker, i))
            self.outputs[key] = value
            return value

    def steps(self, worker: str) -> list[int]:
        return [i for w, i in self.ran if w == worker]


def effect_chain(n: int, worker: str, ledger: Ledger, on_step: Any = None) -> Any:
    """``n`` nodes; node i runs one non-idempotent ``@action`` whose output goes to the state.

    Its output is a fresh nonce, so a second execution could never pass for the first.
    """

    @action(name="effect", idempotent=False)
    def effect(i: int) -> str:
        return ledger.call(worker, i, str(current_action()), f"{i}:{uuid.uuid4().hex}")

    def make(i: int) -> Any:
        def node(state: LogState) -> dict[str, list[str]]:
            value = effect(i)
            if on_step is not None:
                on_step(i)
            return {"log": [value]}

        return node

    builder: StateGraph[Any] = StateGraph(LogState)
    for i in range(n):
        builder.add_node(f"n{i}", make(i))
        builder.add_edge(START if i == 0 else f"n{i - 1}", f"n{i}")
    builder.add_edge(f"n{n - 1}", END)
    return builder


def cfg(thread: str, handler: Any) -> RunnableConfig:
    return {"configurable": {"thread_id": thread}, "callbacks": [handler]}


def in_thread(fn: Any) -> Any:
    """Run ``fn`` in a new thread (a separate worker: no callback context inherited)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(("ok", fn()))
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            out.append(("error", error))

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert not t.is_alive() and out
    kind, value = out[0]
    if kind == "error":
        raise value
    return value


def keeper_pid(saver: Any) -> int:
    keeper = _lease.keeper(saver)
    assert keeper is not None and keeper._conn is not None
    return int(keeper._conn.info.backend_pid)


def check_exactly_once(saver: ActionSaver, thread: str, n: int) -> None:
    """The state has each step once, and each value is the one completed action of its step."""
    state = saver.get_tuple({"configurable": {"thread_id": thread}})
    assert state is not None
    log = state.checkpoint["channel_values"]["log"]
    assert [int(v.split(":")[0]) for v in log] == list(range(n)), log
    rows = [r for r in saver.list_actions(thread) if r.action_type == "function"]
    completed = [r for r in rows if r.status == "completed"]
    assert sorted(r.output for r in completed) == sorted(log), (rows, log)
    assert len({r.action_id for r in completed}) == n


@pytest.fixture
def schema(private_pg: PrivatePostgres) -> Iterator[str]:
    name = f"lf_{uuid.uuid4().hex[:10]}"
    with ActionSaver.from_conn_string(private_pg.dsn, schema=name, pool_size=0) as saver:
        saver.setup()
    yield name
    with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


# ------------------------------------------------------------------ finding 1


def test_a_killed_lease_connection_stops_the_old_holder(
    private_pg: PrivatePostgres, schema: str
) -> None:
    """Finding 1: A's lease connection dies; B takes over and A's next write is refused."""
    n, thread = 8, "t-killed"
    ledger = Ledger()
    with (
        ActionSaver.from_conn_string(private_pg.dsn, schema=schema, pool_size=2) as a,
        ActionSaver.from_conn_string(private_pg.dsn, schema=schema, pool_size=2) as b,
    ):
        graph_b = effect_chain(n, "B", ledger).compile(checkpointer=b)
        outcome: dict[str, Any] = {}

        def run_b() -> None:  # a thread of its own: B's run is no child of A's node
            outcome["b"] = graph_b.invoke(None, cfg(thread, ActionCallbackHandler(b)))

        def on_step(i: int) -> None:
            if i == 3:  # A's lease connection dies; B resumes the thread meanwhile
                assert private_pg.terminate_backends(f"pid = {keeper_pid(a)}") == 1
                in_thread(run_b)

        graph_a = effect_chain(n, "A", ledger, on_step).compile(checkpointer=a)
        with pytest.raises(LeaseLostError):
            graph_a.invoke({"log": []}, cfg(thread, ActionCallbackHandler(a)))
        # A's step 3 was logged before the kill: B served it from the log and went
        # on; A's next action was refused before it ran
        assert ledger.steps("A") == [0, 1, 2, 3]
        assert ledger.steps("B") == list(range(4, n))
        assert not ledger.refused  # no step was called twice
        assert len(outcome["b"]["log"]) == n
        check_exactly_once(b, thread, n)


def test_a_lease_lost_inside_a_non_idempotent_action_is_never_run_twice(
    private_pg: PrivatePostgres, schema: str
) -> None:
    """Issue #28: A's lease is lost while its non-idempotent action runs, after the side effect.

    B takes the thread over meanwhile: the action's outcome is unknown to B, so B's resume
    stops with ``InFlightActionError`` instead of charging again, and A's result is refused.
    """
    thread, charged = "t-inside", []
    with (
        ActionSaver.from_conn_string(private_pg.dsn, schema=schema, pool_size=2) as a,
        ActionSaver.from_conn_string(private_pg.dsn, schema=schema, pool_size=2) as b,
    ):

        def pay_graph(saver: ActionSaver, worker: str, during: Any) -> Any:
            @action(name="charge", idempotent=False)
            def charge(amount: int) -> str:
                charged.append(worker)  # the side effect
                if during is not None:
                    during()
                return f"charged {amount} by {worker}"

            builder: StateGraph[Any] = StateGraph(LogState)
            builder.add_node("start", lambda state: {"log": ["start"]})
            builder.add_node("pay", lambda state: {"log": [charge(5)]})
            builder.add_edge(START, "start")
            builder.add_edge("start", "pay")
            builder.add_edge("pay", END)
            return builder.compile(checkpointer=saver)

        graph_b = pay_graph(b, "B", None)
        seen: dict[str, Any] = {}

        def resume_b() -> Any:
            try:
                return graph_b.invoke(None, cfg(thread, ActionCallbackHandler(b)))
            except InFlightActionError as error:
                return error

        def lose_the_lease() -> None:
            assert private_pg.terminate_backends(f"pid = {keeper_pid(a)}") == 1
            seen["b"] = in_thread(resume_b)

        graph_a = pay_graph(a, "A", lose_the_lease)
        with pytest.raises(LeaseLostError):
            graph_a.invoke({"log": []}, cfg(thread, ActionCallbackHandler(a)), durability="sync")
        assert isinstance(seen["b"], InFlightActionError), seen["b"]
        assert charged == ["A"]  # once, by A; B surfaced the unknown outcome
        [row] = [r for r in b.list_actions(thread) if r.name == "charge"]
        assert row.status in {"running", "interrupted"}, row.status


# ------------------------------------------------------------------ finding 2


def test_through_pgbouncer_the_lease_holds_and_expires(
    bouncer: PgBouncer, schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Finding 2: through transaction pooling a live holder keeps its thread, a hung one not."""
    caplog.set_level("WARNING", logger="langgraph_actionckpt")
    n, thread = 6, "t-pooled"
    ledger = Ledger()
    opts: dict[str, Any] = {"schema": schema, "pool_size": 2, "prepare_threshold": None}
    with (
        ActionSaver.from_conn_string(bouncer.dsn, lease_ttl=1.0, **opts) as a,
        ActionSaver.from_conn_string(bouncer.dsn, lease="error", **opts) as b,
    ):
        graph_b = effect_chain(n, "B", ledger).compile(checkpointer=b)
        busy: list[bool] = []

        def run_b() -> Any:
            return graph_b.invoke(None, cfg(thread, ActionCallbackHandler(b)))

        def on_step(i: int) -> None:
            if i == 1:  # A is alive: B is refused, again and again
                for _ in range(3):
                    with pytest.raises(ThreadBusyError):
                        in_thread(run_b)
                    busy.append(True)
                    time.sleep(0.5)
            if i == 3:  # A hangs: no heartbeat for longer than its ttl
                keeper = _lease.keeper(a)
                assert keeper is not None
                keeper._stop.set()
                time.sleep(1.6)
                b.lease_mode = "wait"
                in_thread(run_b)

        graph_a = effect_chain(n, "A", ledger, on_step).compile(checkpointer=a)
        with pytest.raises(LeaseLostError):
            graph_a.invoke({"log": []}, cfg(thread, ActionCallbackHandler(a)))
        assert busy == [True, True, True]
        assert ledger.steps("A") == [0, 1, 2, 3]
        assert ledger.steps("B") == list(range(4, n))
        assert not ledger.refused  # no step was called twice
        # B released at its end: nothing is left behind on pgbouncer's server sessions
        b.lease_mode = "error"
        assert _lease.acquire(b, thread) and _lease.release(b, thread)
        check_exactly_once(b, thread, n)
    # no DuplicatePreparedStatement, no retried error: only the lease's own reports
    others = [m for r in caplog.records if "lease" not in (m := r.getMessage())]
    others = [m for m in others if "ThreadBusyError" not in m]  # B's refusals above
    assert others == []


# ------------------------------------------------------------------ finding 8


@pytest.mark.parametrize("via", ["direct", "pgbouncer"])
def test_after_thread_busy_no_dead_connection_is_reused(
    private_pg: PrivatePostgres, bouncer: PgBouncer, schema: str, via: str
) -> None:
    """Finding 8: ThreadBusyError, then every backend is terminated; the next acquire works."""
    dsn = private_pg.dsn if via == "direct" else bouncer.dsn
    opts: dict[str, Any] = {"schema": schema, "pool_size": 0, "prepare_threshold": None}
    with (
        ActionSaver.from_conn_string(dsn, **opts) as a,
        ActionSaver.from_conn_string(dsn, lease="error", **opts) as b,
    ):
        assert _lease.acquire(a, "t8")
        with pytest.raises(ThreadBusyError):
            _lease.acquire(b, "t8")
        private_pg.terminate_backends()
        time.sleep(0.2)
        assert _lease.release(a, "t8")
        assert _lease.acquire(b, "t8")  # no AdminShutdown from a parked connection
        assert _lease.release(b, "t8")


# ------------------------------------------------------------------ the race


def _race_once(
    dsn: str, schema: str, private_pg: PrivatePostgres, pooled: bool, seed: int
) -> dict[str, int]:
    """Two workers resume one thread until it is done while connections die at random.

    An action caught in flight (its intent logged, its outcome not) is resolved
    the way an operator would: from the ledger (the external system).

    Returns:
        Counts: takeovers seen as LeaseLostError, in-flight resolutions, kills.
    """
    rng = random.Random(seed)
    n, thread = 5, f"race-{seed}"
    ledger = Ledger()
    counts = {"lost": 0, "resolved": 0, "kills": 0}
    retried: set[str] = set()  # in-flight actions the operator sent to run again
    stop = threading.Event()
    savers: dict[str, ActionSaver] = {}
    ready = threading.Barrier(3)

    def stall(worker: str) -> Any:
        def on_step(i: int) -> None:
            time.sleep(0.02)
            if pooled and rng.random() < 0.15:  # a hung worker: its heartbeat stops
                keeper = _lease.keeper(savers[worker])
                if keeper is not None:
                    keeper._stop.set()
                    time.sleep(0.9)

        return on_step

    def worker(name: str) -> None:
        opts: dict[str, Any] = {"pool_size": 2, "prepare_threshold": None if pooled else 5}
        with ActionSaver.from_conn_string(
            f"{dsn}?application_name=race{name}",
            schema=schema,
            lease_ttl=0.6,
            lease_timeout=60,
            **opts,
        ) as saver:
            savers[name] = saver
            graph = effect_chain(n, name, ledger, stall(name)).compile(checkpointer=saver)
            ready.wait()
            last: BaseException | None = None
            for _ in range(60):
                try:
                    tup = saver.get_tuple({"configurable": {"thread_id": thread}})
                    assert tup is not None
                    if len(tup.checkpoint["channel_values"].get("log", [])) >= n:
                        return
                    graph.invoke(None, cfg(thread, ActionCallbackHandler(saver)))
                except LeaseLostError:
                    counts["lost"] += 1
                except InFlightActionError as error:
                    with ledger.lock:
                        output = ledger.outputs.get(error.action_id)
                    if output is None:
                        retried.add(error.action_id)
                        saver.resolve_action(thread, error.action_id, retry=True)
                    else:
                        saver.resolve_action(thread, error.action_id, output=output)
                    counts["resolved"] += 1
                except psycopg.OperationalError as error:
                    # a killed connection the driver could not retry: resume
                    counts["retried"] = counts.get("retried", 0) + 1
                    last = error
            raise AssertionError(f"worker {name} never saw the thread done: {last!r}")

    def killer() -> None:
        ready.wait()
        while not stop.wait(rng.uniform(0.02, 0.2)):
            victim = rng.choice(["raceA", "raceB", "%"])
            counts["kills"] += private_pg.terminate_backends(f"application_name LIKE '{victim}'")

    # the thread exists, paused before its first node: both workers resume it
    one: dict[str, Any] = {"schema": schema, "pool_size": 0, "prepare_threshold": None}
    with ActionSaver.from_conn_string(dsn, **one) as seed_saver:
        seeded = effect_chain(n, "seed", ledger).compile(
            checkpointer=seed_saver, interrupt_before=["n0"]
        )
        seeded.invoke({"log": []}, {"configurable": {"thread_id": thread}})
    threads = [threading.Thread(target=worker, args=(w,)) for w in ("A", "B")]
    kill = threading.Thread(target=killer)
    for t in [*threads, kill]:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive()
    stop.set()
    kill.join()
    # every action exactly once: in the external system, in the log, in the state. A
    # second call reaches the ledger only for an action the operator resolved with
    # retry=True while the worker that logged its intent still lived (then its key stops it)
    assert sorted(i for _, i in ledger.ran) == list(range(n)), ledger.ran
    assert set(ledger.refused) <= retried, (ledger.refused, retried)
    counts["refused"] = len(ledger.refused)
    with ActionSaver.from_conn_string(dsn, **one) as check:
        check_exactly_once(check, thread, n)
    return counts


@pytest.mark.parametrize("via", ["direct", "pgbouncer"])
def test_two_workers_race_one_thread_under_kills(
    private_pg: PrivatePostgres, bouncer: PgBouncer, schema: str, via: str
) -> None:
    """Every action exactly once in 20 repetitions, lease connections killed at random."""
    dsn = private_pg.dsn if via == "direct" else bouncer.dsn
    totals: dict[str, int] = {}
    for seed in range(20):
        for key, value in _race_once(dsn, schema, private_pg, via == "pgbouncer", seed).items():
            totals[key] = totals.get(key, 0) + value
    print(f"\nrace {via}: 20 repetitions exactly once; {totals}")
    assert totals["kills"] > 0
