"""Several service replicas on one database (issue 31): shared leases, and a client that fails over.

Two ``actionckpt serve`` processes serve one fresh set of schemas on the system
PostgreSQL 15. The leases are rows of the database, so a lease taken through
one replica is refused to another holder through the other, survives the
restart of a replica, and a stale token is refused by the database whichever
replica carries it. A graph run through a remote saver that knows both
replicas survives the SIGKILL of the one it is using: the run goes on through
the other with no completed action repeated and the final state of a run that
was never interrupted.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from psycopg import sql

from examples.fake_openai.models import ScriptedChatModel
from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncRemoteActionSaver,
    ConfigurationError,
    RemoteActionSaver,
    ThreadBusyError,
)
from langgraph_actionckpt.db import lease
from langgraph_actionckpt.errors import LeaseLostError
from langgraph_actionckpt.replay import _async_log, _sync_log

from .crash_worker import INPUT, Effects, build, make_tools, normalize_state
from .service_fixtures import Replicas, free_port, replicas
from .test_crash_matrix import ACTIONS, Workdir

CONF = {"configurable": {"thread_id": "T", "checkpoint_ns": ""}}


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    from .conftest import require_server

    yield from replicas(require_server("pg15"), tmp_path_factory.mktemp("replicas"))


@pytest.fixture(autouse=True)
def _all_running(group: Replicas) -> Iterator[None]:
    """A test that killed a replica leaves it running again for the next one."""
    yield
    for replica in group.all:
        if not replica.alive():
            replica.start()


def _lease_row(dsn: str, schema: str, thread: str) -> tuple[str, int] | None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            sql.SQL("SELECT holder, token FROM {}.leases WHERE thread_id = %s").format(
                sql.Identifier(schema)
            ),
            (thread,),
        ).fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


# ------------------------------------------------------------ leases shared


def test_a_lease_taken_through_one_replica_is_refused_through_the_other(group: Replicas) -> None:
    token, _, _ = group.tenant()
    one, two = group.all
    with (
        RemoteActionSaver.from_target(one.target, token, setup=True) as a,
        RemoteActionSaver.from_target(two.target, token, setup=True) as b,
    ):
        first = a.acquire_lease("t", "worker-1", ttl=30)
        assert first is not None
        assert b.acquire_lease("t", "worker-2", ttl=30) is None  # held: seen through B
        assert b.acquire_lease("t", "worker-1", ttl=30) == first  # its holder's, same token
        assert not b.release_lease("t", "worker-2", first)  # not worker-2's to give back
        assert a.release_lease("t", "worker-1", first)
        assert b.acquire_lease("t", "worker-2", ttl=30) == first + 1  # free now: taken over


def test_a_lease_is_seen_across_replicas_async(group: Replicas) -> None:
    token, _, _ = group.tenant()
    one, two = group.all

    async def main() -> None:
        async with (
            AsyncRemoteActionSaver.from_target(one.target, token, setup=True) as a,
            AsyncRemoteActionSaver.from_target(two.target, token, setup=True) as b,
        ):
            first = await a.aacquire_lease("t", "worker-1", ttl=30)
            assert first is not None
            assert await b.aacquire_lease("t", "worker-2", ttl=30) is None
            assert await b.arelease_lease("t", "worker-1", first)  # given back through B
            assert await a.aacquire_lease("t", "worker-2", ttl=30) == first + 1

    asyncio.run(main())


def test_the_service_and_a_direct_saver_share_the_leases(group: Replicas) -> None:
    """The service's leases are the database's: a direct saver on the schema sees them."""
    token, _, schema = group.tenant()
    dsn = group.all[0].dsn
    with (
        RemoteActionSaver.from_target(group.all[1].target, token, setup=True) as remote,
        ActionSaver.from_conn_string(dsn, schema=schema, lease="error") as direct,
    ):
        held = remote.acquire_lease("shared", "remote-worker", ttl=30)
        assert held is not None
        with pytest.raises(ThreadBusyError):
            lease.acquire(direct, "shared")
        assert remote.release_lease("shared", "remote-worker", held)
        assert lease.acquire(direct, "shared")  # free: taken over by the direct saver
        assert remote.acquire_lease("shared", "remote-worker", ttl=30) is None


def test_a_stale_token_is_refused_through_the_other_replica(group: Replicas) -> None:
    token, _, _ = group.tenant()
    one, two = group.all
    with (
        RemoteActionSaver.from_target(
            one.target, token, lease="wait", lease_ttl=0.3, defer_writes=False
        ) as a,
        RemoteActionSaver.from_target(
            two.target, token, lease="wait", lease_ttl=5, lease_timeout=10, defer_writes=False
        ) as b,
    ):
        assert a.lease_keeper is not None and b.lease_keeper is not None
        assert a.lease_keeper.acquire("T")
        a.lease_keeper._stop.set()  # a stalls: no heartbeat
        a.lease_keeper.renew_now = lambda: None  # type: ignore[method-assign]
        assert b.lease_keeper.acquire("T")  # through B, once a's lease expired
        assert (b.lease_keeper.token("T") or 0) > (a.lease_keeper.token("T") or 0)
        cp = empty_checkpoint()
        with pytest.raises(LeaseLostError) as err:
            a.put(CONF, cp, {}, {})  # type: ignore[arg-type]  # through A, the stale token
        assert err.value.thread_id == "T"
        assert b.get_tuple({"configurable": {"thread_id": "T"}}) is None  # nothing stored
        cfg = b.put(CONF, cp, {}, {})  # type: ignore[arg-type]
        assert a.get_tuple({"configurable": {"thread_id": "T"}}) is not None  # seen through A
        with pytest.raises(LeaseLostError):
            a.put_writes(cfg, [("x", "stale")], "task-a")  # a PutWrites through A: refused too
        b.put_writes(cfg, [("x", "current")], "task-b")
        tup = a.get_tuple(cfg)
        assert tup is not None
        assert [(t, c, v) for t, c, v in tup.pending_writes or []] == [("task-b", "x", "current")]


def test_restarting_a_replica_keeps_the_leases(group: Replicas) -> None:
    token, _, schema = group.tenant()
    one = group.all[0]
    with RemoteActionSaver.from_target(one.target, token, setup=True) as s:
        held = s.acquire_lease("r", "worker-1", ttl=60)
        assert held is not None
    one.kill()
    one.start()
    with RemoteActionSaver.from_target(one.target, token, setup=True) as s:
        assert s.acquire_lease("r", "worker-2", ttl=60) is None  # still worker-1's
        assert s.acquire_lease("r", "worker-1", ttl=60) == held  # the same token back
        assert _lease_row(one.dsn, schema, "r") == ("worker-1", held)
        assert s.release_lease("r", "worker-1", held)


def test_two_workers_racing_through_two_replicas_one_wins_sync(group: Replicas) -> None:
    token, _, schema = group.tenant()
    one, two = group.all
    threads = [f"race-{i}" for i in range(20)]
    with (
        RemoteActionSaver.from_target(one.target, token, lease="error", setup=True) as a,
        RemoteActionSaver.from_target(two.target, token, lease="error", setup=True) as b,
    ):
        keepers = [a.lease_keeper, b.lease_keeper]
        wins: dict[str, list[int]] = {t: [] for t in threads}
        busy: dict[str, list[int]] = {t: [] for t in threads}
        barrier = threading.Barrier(2)

        def worker(i: int) -> None:
            keeper = keepers[i]
            assert keeper is not None
            for thread in threads:
                barrier.wait(10)
                try:
                    if keeper.acquire(thread):
                        wins[thread].append(i)
                except ThreadBusyError:
                    busy[thread].append(i)

        runners = [threading.Thread(target=worker, args=(i,)) for i in (0, 1)]
        for r in runners:
            r.start()
        for r in runners:
            r.join(60)
        assert all(len(wins[t]) == 1 and len(busy[t]) == 1 for t in threads), (wins, busy)
        for thread in threads:
            (winner,) = wins[thread]
            keeper = keepers[winner]
            assert keeper is not None
            assert _lease_row(one.dsn, schema, thread) == (keeper.holder, 1)


def test_two_workers_racing_through_two_replicas_one_wins_async(group: Replicas) -> None:
    token, _, schema = group.tenant()
    one, two = group.all
    threads = [f"arace-{i}" for i in range(20)]

    async def main() -> list[list[bool | None]]:
        async with (
            AsyncRemoteActionSaver.from_target(one.target, token, lease="error", setup=True) as a,
            AsyncRemoteActionSaver.from_target(two.target, token, lease="error", setup=True) as b,
        ):

            async def take(saver: Any, thread: str) -> bool | None:
                try:
                    return bool(await saver.lease_keeper.aacquire(thread))
                except ThreadBusyError:
                    return None

            out = []
            for thread in threads:
                out.append(list(await asyncio.gather(take(a, thread), take(b, thread))))
            holders = [a.lease_keeper.holder, b.lease_keeper.holder]
            for thread, got in zip(threads, out, strict=True):
                winner = got.index(True)
                assert _lease_row(one.dsn, schema, thread) == (holders[winner], 1)
            return out

    results = asyncio.run(main())
    assert all(sorted(got, key=str) == [None, True] for got in results), results


# ------------------------------------------------ a replica killed mid-run


def _kill_after(k: int, group: Replicas, saver: Any, killed: list[str]) -> Any:
    """Patch the action log: SIGKILL the replica ``saver`` calls right after the k-th action."""
    count = [0]

    def bump() -> None:
        count[0] += 1
        if count[0] == k:
            target = saver.remote.target
            (replica,) = [r for r in group.all if r.target == target]
            replica.kill()
            killed.append(target)

    orig, aorig = _sync_log.complete, _async_log.complete

    def complete(live: Any, output: Any, **fields: Any) -> None:
        orig(live, output, **fields)
        bump()

    async def acomplete(live: Any, output: Any, **fields: Any) -> None:
        await aorig(live, output, **fields)
        bump()

    return complete, acomplete


def _run(
    group: Replicas, token: str, work: Workdir, thread: str, mode: str, kill_after: int
) -> tuple[dict[str, Any], list[str], str]:
    """One run of the reference graph through both replicas; (state, killed, lease holder)."""
    killed: list[str] = []
    model = ScriptedChatModel(calls_file=work.calls, tool_calls_per_turn=1)
    tools = make_tools(Effects(work.effects, None))
    inputs = {"messages": [HumanMessage(INPUT)]}
    opts: dict[str, Any] = {"lease": "wait", "retries": 8, "backoff": 0.05, "timeout": 10}
    mp = pytest.MonkeyPatch()
    try:
        if mode == "sync":
            with RemoteActionSaver.from_target(group.targets, token, setup=True, **opts) as s:
                if kill_after:
                    complete, acomplete = _kill_after(kill_after, group, s, killed)
                    mp.setattr(_sync_log, "complete", complete)
                    mp.setattr(_async_log, "complete", acomplete)
                graph = build("reference", model, tools, False).compile(checkpointer=s)
                cfg: Any = {
                    "configurable": {"thread_id": thread},
                    "callbacks": [ActionCallbackHandler(s)],
                }
                values = graph.invoke(inputs, cfg)
                holder = s.lease_keeper.holder  # type: ignore[union-attr]
        else:

            async def main() -> tuple[dict[str, Any], str]:
                async with AsyncRemoteActionSaver.from_target(
                    group.targets, token, setup=True, **opts
                ) as s:
                    if kill_after:
                        complete, acomplete = _kill_after(kill_after, group, s, killed)
                        mp.setattr(_sync_log, "complete", complete)
                        mp.setattr(_async_log, "complete", acomplete)
                    graph = build("reference", model, tools, True).compile(checkpointer=s)
                    cfg: Any = {
                        "configurable": {"thread_id": thread},
                        "callbacks": [AsyncActionCallbackHandler(s)],
                    }
                    out = await graph.ainvoke(inputs, cfg)
                    return out, s.lease_keeper.holder  # type: ignore[union-attr]

            values, holder = asyncio.run(main())
    finally:
        mp.undo()
    return normalize_state(values), killed, holder


@pytest.mark.parametrize(
    ("mode", "kill_after"), [("sync", 1), ("sync", 4), ("async", 2), ("async", 6)]
)
def test_a_run_survives_the_sigkill_of_its_replica(
    group: Replicas, mode: str, kill_after: int
) -> None:
    token, _, schema = group.tenant()
    n_llm, n_tools = ACTIONS["reference"]
    with tempfile.TemporaryDirectory(prefix="replicas-") as tmp:
        root = Path(tmp)
        base = Workdir(root, "base")
        expected, killed, _ = _run(group, token, base, f"base-{mode}-{kill_after}", mode, 0)
        assert killed == []
        assert sum(base.seeds().values()) == n_llm and sum(base.effect_keys().values()) == n_tools
        thread = f"killed-{mode}-{kill_after}"
        work = Workdir(root, thread)
        state, killed, holder = _run(group, token, work, thread, mode, kill_after)
        # the replica in use died mid-run, and the run went on through the other one
        assert len(killed) == 1 and killed[0] in group.targets
        assert [r.alive() for r in group.all].count(False) == 1
        seeds, effects = work.seeds(), work.effect_keys()
        assert sum(seeds.values()) == n_llm and all(n == 1 for n in seeds.values()), seeds
        assert sum(effects.values()) == n_tools and all(n == 1 for n in effects.values()), effects
        assert state == expected  # no acknowledged write lost
        # one worker held the thread throughout: never taken over (the first token)
        assert _lease_row(group.all[0].dsn, schema, thread) == (holder, 1)


# ---------------------------------------------------------------- targets


def test_a_dead_first_target_is_passed_over(group: Replicas) -> None:
    token, _, _ = group.tenant()
    dead = f"127.0.0.1:{free_port()}"
    live = group.all[1].target
    with RemoteActionSaver.from_target([dead, live], token, setup=True) as s:
        assert s.remote.target == live  # the handshake found the first one refusing
        assert s.acquire_lease("d", "w", ttl=5) is not None

    async def main() -> str:
        async with AsyncRemoteActionSaver.from_target(f"{dead}, {live}", token, setup=True) as a:
            assert await a.aget_tuple({"configurable": {"thread_id": "d"}}) is None
            return str(a.remote.target)

    assert asyncio.run(main()) == live
    with pytest.raises(ConfigurationError, match="no service target"):
        RemoteActionSaver(" , ", token=token)
