"""Faults for real: server restarts, terminated backends, bad writes, hostile bytes, bad DSNs.

Each test runs against a PostgreSQL of its own (see ``servers.py``). A finding not met
yet is marked ``xfail(strict=True)`` with the finding: the mark comes off with
the fix, and a strict xfail fails the suite the moment a finding is fixed
without removing it (none is left).
"""

from __future__ import annotations

import asyncio
import operator
import os
import subprocess
import sys
import textwrap
import time
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph

from langgraph_actionckpt import (
    ActionCkptError,
    ActionSaver,
    AsyncActionSaver,
    ConnectionFailedError,
    SaverOptions,
    SerializationError,
)
from tests.faults.servers import Blackhole, PgBouncer, PrivatePostgres, free_port, private_stack


class ChainState(TypedDict):
    log: Annotated[list[int], operator.add]


def chain(n: int, ran: list[int], on_step: Any = None, delay: float = 0.0) -> StateGraph[Any]:
    """A chain of ``n`` nodes; each appends its index to the state and to ``ran``."""
    builder: StateGraph[Any] = StateGraph(ChainState)

    def make(i: int) -> Any:
        def node(state: ChainState) -> dict[str, list[int]]:
            ran.append(i)
            if on_step is not None:
                on_step(i)
            if delay:
                time.sleep(delay)
            return {"log": [i]}

        return node

    for i in range(n):
        builder.add_node(f"n{i}", make(i))
        builder.add_edge(START if i == 0 else f"n{i - 1}", f"n{i}")
    builder.add_edge(f"n{n - 1}", END)
    return builder


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _cfg(thread: str, handler: Any) -> Any:
    return {"configurable": {"thread_id": thread}, "callbacks": [handler]}


# ------------------------------------------------------------- what holds today


@pytest.mark.parametrize("fault", ["restart", "terminate"])
def test_run_survives_server_fault_mid_run(restartable_pg: PrivatePostgres, fault: str) -> None:
    """A restart or killed backends mid-run: the run goes on, no step runs twice."""
    ran: list[int] = []

    def on_step(i: int) -> None:
        if i == 10:
            if fault == "restart":
                restartable_pg.restart("fast")
            else:
                assert restartable_pg.terminate_backends() >= 1

    with ActionSaver.from_conn_string(restartable_pg.dsn, schema="faults", pool_size=2) as saver:
        saver.setup()
        graph = chain(25, ran, on_step).compile(checkpointer=saver)
        out = graph.invoke({"log": []}, _config("t1"), durability="sync")
        assert out["log"] == list(range(25))
        assert ran == list(range(25))
        assert graph.get_state(_config("t1")).values["log"] == list(range(25))


async def test_async_run_survives_terminated_backends(restartable_pg: PrivatePostgres) -> None:
    """The async saver (group commit on) under waves of pg_terminate_backend."""
    ran: list[int] = []
    async with AsyncActionSaver.from_conn_string(
        restartable_pg.dsn, schema="faults", pool_size=4
    ) as saver:
        await saver.setup()
        graph = chain(8, ran).compile(checkpointer=saver)
        for wave in range(3):
            outs = await asyncio.gather(
                *(graph.ainvoke({"log": []}, _config(f"w{wave}-{i}")) for i in range(8))
            )
            assert all(o["log"] == list(range(8)) for o in outs)
            restartable_pg.terminate_backends()
        for i in range(8):
            state = await graph.aget_state(_config(f"w2-{i}"))
            assert state.values["log"] == list(range(8))


# ------------------------------------------------------ issue #12 findings


@pytest.mark.parametrize("what", ["refused", "no database"])
def test_wrong_dsn_fails_fast_with_the_servers_reason(
    private_pg: PrivatePostgres, what: str
) -> None:
    dsn = (
        f"postgresql://postgres@127.0.0.1:{free_port()}/test"
        if what == "refused"
        else f"postgresql://postgres@127.0.0.1:{private_pg.port}/no_such_db"
    )
    expected = "refused" if what == "refused" else "does not exist"
    started = time.monotonic()
    with pytest.raises(ActionCkptError, match=expected), ActionSaver.from_conn_string(dsn) as s:
        s.setup()
    assert time.monotonic() - started < 5


async def test_poison_write_fails_only_its_own_thread(
    private_pg: PrivatePostgres, fault_schema: str
) -> None:
    """A thread id too long for the index fails that thread; thread B is still persisted."""
    poison = os.urandom(6000).hex()  # incompressible, beyond a B-tree entry
    ran: list[int] = []
    async with AsyncActionSaver.from_conn_string(
        private_pg.dsn, schema=fault_schema, pool_size=4
    ) as saver:
        await saver.setup()
        graph = chain(3, ran).compile(checkpointer=saver)
        results = await asyncio.gather(
            graph.ainvoke({"log": []}, _config(poison)),
            graph.ainvoke({"log": []}, _config("good")),
            return_exceptions=True,
        )
        assert isinstance(results[0], ActionCkptError), results[0]
        assert "thread" in str(results[0])
        assert results[1] == {"log": [0, 1, 2]}
        assert (await graph.aget_state(_config("good"))).values["log"] == [0, 1, 2]
    # close() above was clean: reaching this line means no exception from __aexit__


BOMB_SCRIPT = textwrap.dedent(
    """
    import resource, sys, zstandard
    import psycopg
    from langgraph_actionckpt import ActionSaver, SerializationError
    dsn, schema, thread = sys.argv[1:4]
    with ActionSaver.from_conn_string(dsn, schema=schema, pool_size=0) as saver:
        with psycopg.connect(dsn, autocommit=True) as conn:
            # 1 GiB of zeros, compressed in 1 MiB chunks: making it costs no memory
            chunker = zstandard.ZstdCompressor().chunker(size=1 << 30, chunk_size=1 << 20)
            zeros = b"\\0" * (1 << 20)
            parts = [part for _ in range(1024) for part in chunker.compress(zeros)]
            bomb = b"".join([*parts, *chunker.finish()])
            conn.execute(
                f'UPDATE "{schema}".blobs SET blob = %s, type = %s WHERE thread_id = %s',
                (bomb, "z:msgpack", thread),
            )
        try:
            saver.get_tuple({"configurable": {"thread_id": thread}})
            print("LOADED")
        except SerializationError as error:
            print("REFUSED", error)
    print("MAXRSS_MB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """
)


def test_decompression_budget_is_per_load(private_pg: PrivatePostgres, fault_schema: str) -> None:
    """Thirteen values each declaring 1 GiB: refused with the thread named, memory bounded."""

    channels = {f"c{i}": Annotated[list[str], operator.add] for i in range(13)}
    state = TypedDict("Wide13", channels)  # type: ignore[operator]
    builder: StateGraph[Any] = StateGraph(state)
    builder.add_node("fill", lambda s: {f"c{i}": ["x" * 300] for i in range(13)})
    builder.add_edge(START, "fill")
    builder.add_edge("fill", END)
    with ActionSaver.from_conn_string(private_pg.dsn, schema=fault_schema) as saver:
        saver.setup()
        builder.compile(checkpointer=saver).invoke({}, _config("bomb"), durability="sync")
    out = subprocess.run(
        [sys.executable, "-c", BOMB_SCRIPT, private_pg.dsn, fault_schema, "bomb"],
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "REFUSED" in out and "bomb" in out, out
    peak = int(out.split("MAXRSS_MB")[1].split()[0])
    budget_mb = SaverOptions().max_load_bytes >> 20
    assert peak < budget_mb + 100 + 200, out  # default budget + 100 MB + the interpreter


def test_hostile_bytes_give_an_error_naming_the_place(
    private_pg: PrivatePostgres, fault_schema: str
) -> None:
    ran: list[int] = []
    with ActionSaver.from_conn_string(private_pg.dsn, schema=fault_schema) as saver:
        saver.setup()
        chain(2, ran).compile(checkpointer=saver).invoke({"log": []}, _config("h"))
        with psycopg.connect(private_pg.dsn, autocommit=True) as conn:
            conn.execute(
                f'UPDATE "{fault_schema}".checkpoints SET checkpoint = %s WHERE thread_id = %s',
                (b"\xc1\xff\x00garbage", "h"),
            )
        with pytest.raises(SerializationError) as caught:
            saver.get_tuple(_config("h"))
    text = str(caught.value)
    for part in (fault_schema, "'h'", "checkpoint", "untrusted"):
        assert part in text, text


CRASH_SCRIPT = """
import asyncio, operator, sys
from typing import Annotated, TypedDict
from langgraph.graph import END, START, StateGraph
from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

dsn, schema, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

class S(TypedDict):
    log: Annotated[list[int], operator.add]

def make(i):
    async def node(state):
        if i == 2:
            print("AT_STEP_2", flush=True)
            await asyncio.sleep(60)  # killed here
        return {"log": [i]}
    return node

async def main():
    builder = StateGraph(S)
    for i in range(5):
        builder.add_node(f"n{i}", make(i))
        builder.add_edge(START if i == 0 else f"n{i - 1}", f"n{i}")
    builder.add_edge("n4", END)
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, pool_size=4, prepare_threshold=None, lease_ttl=1.5
    ) as saver:
        graph = builder.compile(checkpointer=saver)
        handler = AsyncActionCallbackHandler(saver)
        await asyncio.gather(*(
            graph.ainvoke({"log": []}, {"configurable": {"thread_id": f"crash-{i}"},
                                        "callbacks": [handler]}, durability="sync")
            for i in range(n)
        ))

asyncio.run(main())
"""


async def test_pgbouncer_transaction_mode_many_threads(
    bouncer: PgBouncer, fault_schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Transaction pooling: 32 async threads x 5 runs, then a worker killed mid-run; 0 errors."""
    import signal

    from langgraph_actionckpt import AsyncActionCallbackHandler, AsyncActionSaver

    caplog.set_level("WARNING", logger="langgraph_actionckpt")
    opts: dict[str, Any] = {"schema": fault_schema, "prepare_threshold": None}
    ran: list[int] = []
    async with AsyncActionSaver.from_conn_string(bouncer.dsn, pool_size=8, **opts) as saver:
        await saver.setup()
        graph = chain(4, ran).compile(checkpointer=saver)
        handler = AsyncActionCallbackHandler(saver)
        for run in range(5):
            outs = await asyncio.gather(
                *(
                    graph.ainvoke({"log": []}, _cfg(f"load-{i}", handler), durability="sync")
                    for i in range(32)
                )
            )
            assert all(o["log"] == [0, 1, 2, 3] * (run + 1) for o in outs)
        assert len(ran) == 32 * 5 * 4
        for i in range(32):  # every run's node rows, fenced by its own lease
            rows = await saver.alist_actions(f"load-{i}", action_type="node")
            assert len(rows) == 4 * 5
    # a worker dies holding the leases of 8 threads, each at step 2
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASH_SCRIPT, bouncer.dsn, fault_schema, "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    seen = 0
    while seen < 8:
        line = proc.stdout.readline()
        assert line, f"the worker ended before reaching step 2: {proc.stderr.read()}"
        seen += line.startswith("AT_STEP_2")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    # a new worker resumes all 8: their leases expire on the server's clock (pgbouncer
    # hides the dead worker's backends), then each continues from its last checkpoint
    resumed: list[int] = []
    async with AsyncActionSaver.from_conn_string(bouncer.dsn, pool_size=8, **opts) as saver:
        graph = chain(5, resumed).compile(checkpointer=saver)
        handler = AsyncActionCallbackHandler(saver)
        outs = await asyncio.gather(
            *(graph.ainvoke(None, _cfg(f"crash-{i}", handler)) for i in range(8))
        )
        assert all(o["log"] == [0, 1, 2, 3, 4] for o in outs)
        assert sorted(resumed) == sorted([2, 3, 4] * 8), resumed  # steps 0, 1 not run again
    # Retried errors count too: a flush that failed once is an error of the setup.
    assert [r.getMessage() for r in caplog.records] == []


# --------------------------------------------------------- network blackhole


def test_a_blackhole_gives_an_error_not_a_hang(private_pg: PrivatePostgres) -> None:
    """Packets dropped without a reset: the call fails after ``io_timeout``, then recovers."""
    hole = Blackhole(private_pg.port)
    try:
        with ActionSaver.from_conn_string(
            hole.dsn(), schema="blackhole_sync", lease="off", io_timeout=2.0
        ) as saver:
            saver.setup()
            graph = chain(3, []).compile(checkpointer=saver)
            assert graph.invoke({"log": []}, _config("b1"))["log"] == [0, 1, 2]
            hole.cut()
            with pytest.raises(ConnectionFailedError, match=r"no answer within 2\.0 s"):
                graph.get_state(_config("b1"))
            hole.heal()
            # the cut connection was discarded: the same saver goes on on a fresh one
            assert graph.get_state(_config("b1")).values["log"] == [0, 1, 2]
    finally:
        hole.close()


async def test_a_blackhole_gives_an_error_not_a_hang_async(private_pg: PrivatePostgres) -> None:
    hole = Blackhole(private_pg.port)
    try:
        async with AsyncActionSaver.from_conn_string(
            hole.dsn(), schema="blackhole_async", lease="off", io_timeout=2.0, pool_size=2
        ) as saver:
            await saver.setup()
            graph = chain(3, []).compile(checkpointer=saver)
            assert (await graph.ainvoke({"log": []}, _config("b2")))["log"] == [0, 1, 2]
            hole.cut()
            with pytest.raises(ConnectionFailedError, match=r"no answer within 2\.0 s"):
                await graph.aget_state(_config("b2"))
            hole.heal()
            state = await graph.aget_state(_config("b2"))
            assert state.values["log"] == [0, 1, 2]
    finally:
        hole.close()


def test_prepared_statements_behind_pgbouncer_give_a_clear_error(
    bouncer: PgBouncer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Transaction pooling with psycopg's prepared statements on: a ConfigurationError saying so.

    ``bouncer`` only checks that pgbouncer is there; the test runs its own with one server
    connection, so the two clients' prepared statements always meet on one session. Direct
    statements are off here: psycopg's own names (``_pg3_0``...) are what collide.
    """
    from langgraph_actionckpt import ConfigurationError
    from langgraph_actionckpt.db import direct

    monkeypatch.setattr(direct, "ENABLED", False)

    with private_stack(pool_size=1) as (_pg, bouncer):
        with ActionSaver.from_conn_string(bouncer.dsn, schema="misconfigured") as setup_saver:
            setup_saver.setup()
        with pytest.raises(ConfigurationError, match="prepare_threshold=None"):
            savers = [
                ActionSaver.from_conn_string(bouncer.dsn, schema="misconfigured") for _ in range(2)
            ]
            try:
                graphs = [chain(2, []).compile(checkpointer=s.__enter__()) for s in savers]
                for i in range(10):  # each connection prepares the same names on one session
                    for g in graphs:
                        g.invoke({"log": []}, _config(f"p{i}"))
                        g.get_state(_config(f"p{i}"))
            finally:
                for s in savers:
                    s.__exit__(None, None, None)


def test_direct_statements_behind_pgbouncer_never_meet_another_clients(
    bouncer: PgBouncer,
) -> None:
    """Direct statements (``db.direct``) name what they prepare uniquely, across processes.

    Two clients through one server session (pgbouncer, transaction mode, one server
    connection) each prepare their statements on that session: psycopg's names collide
    there (the test above); ours never do, so both graphs run and read back their own state.
    A worker process prepares the same shapes on the same session first.
    """
    with private_stack(pool_size=1) as (_pg, bouncer):
        with ActionSaver.from_conn_string(bouncer.dsn, schema="direct_names") as setup_saver:
            setup_saver.setup()
        worker = textwrap.dedent(
            f"""
            import operator
            from typing import Annotated, TypedDict
            from langgraph.graph import END, START, StateGraph
            from langgraph_actionckpt import ActionSaver

            class S(TypedDict):
                log: Annotated[list[int], operator.add]

            b = StateGraph(S)
            b.add_node("a", lambda s: {{"log": [7]}})
            b.add_edge(START, "a")
            b.add_edge("a", END)
            with ActionSaver.from_conn_string({bouncer.dsn!r}, schema="direct_names") as s:
                g = b.compile(checkpointer=s)
                for i in range(3):
                    g.invoke({{"log": []}}, {{"configurable": {{"thread_id": f"w{{i}}"}}}})
            """
        )
        subprocess.run([sys.executable, "-c", worker], check=True, timeout=120)
        savers = [
            ActionSaver.from_conn_string(bouncer.dsn, schema="direct_names") for _ in range(2)
        ]
        try:
            graphs = [chain(2, []).compile(checkpointer=s.__enter__()) for s in savers]
            for i in range(10):
                for j, g in enumerate(graphs):
                    g.invoke({"log": []}, _config(f"d{i}-{j}"))
            for i in range(10):
                for j, g in enumerate(graphs):
                    assert g.get_state(_config(f"d{i}-{j}")).values["log"] == [0, 1]
        finally:
            for s in savers:
                s.__exit__(None, None, None)
