"""``benchmarks.put_bounds`` replays ours' rows: the same rows stored, fewer instructions."""

from __future__ import annotations

import shutil
from typing import Any

import psycopg
import pytest
from psycopg import sql

from benchmarks import put_bounds
from benchmarks.bench_saver import CHAIN_NODES, build_chain, thread_config
from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt.checkpoints import core, held, plans_write

TABLES = ("checkpoints", "blobs", "writes", "actions")


@pytest.fixture
def restore_plans() -> Any:
    saved = core.plan_put, held.prepare_writes
    yield
    core.plan_put, held.prepare_writes = saved
    assert core.plan_put is plans_write.plan_put


@pytest.mark.parametrize("work", put_bounds.BOUNDS)
def test_replayed_threads_store_as_many_rows_as_the_first(
    dsn: str, schema: str, restore_plans: Any, work: str
) -> None:
    replay = put_bounds.Replay(work)
    replay.install()
    with ActionSaver.from_conn_string(dsn, schema=schema) as saver:
        saver.setup()
        graph: Any = build_chain(CHAIN_NODES, is_async=False).compile(checkpointer=saver)
        for thread in ("first", "second", "third"):
            graph.invoke({"x": 0}, thread_config(thread), durability="sync")
    assert replay.first == "first"
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in TABLES:
            query = sql.SQL("SELECT thread_id, count(*) FROM {}.{} GROUP BY 1").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            counts = dict(conn.execute(query).fetchall())
            assert counts.get("first", 0) == counts.get("second") == counts.get("third"), table
            if table != "blobs":
                assert counts["first"] >= CHAIN_NODES, table


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_every_side_is_counted_in_order(pg15_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--dsn", pg15_dsn, "--invokes", "1", "--combos", "async-sync"]
    assert put_bounds.main(argv) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("async-sync"))
    counts = [int(cell.replace(",", "")) for cell in line.split()[1::2]]
    assert len(counts) == len(put_bounds.SIDES)
    floor, layers, serialize, compress, ours = counts
    # replaying rows skips work, serializing and compressing add it back, ours does most
    assert floor < layers < serialize < compress < ours
