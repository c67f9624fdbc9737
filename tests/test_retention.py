"""Retention: prune, archive and import against both real servers."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import fsspec
import psycopg
import pytest

from langgraph_actionckpt import ActionSaver
from langgraph_actionckpt._config import LIMITS
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops.archiving import archive, import_archive, thread_file_name
from langgraph_actionckpt.ops.retention import prune

from .conftest import drop_schema, fetch, new_schema_name
from .test_cli import OLD, age_thread, populate, run_graph

TABLES = ("checkpoints", "blobs", "writes", "actions")


def counts(dsn: str, schema: str, thread_id: str) -> dict[str, int]:
    return {
        t: fetch(dsn, f'SELECT count(*) FROM "{schema}".{t} WHERE thread_id = %s', (thread_id,))[0][
            0
        ]
        for t in TABLES
    }


def all_actions(dsn: str, schema: str) -> list[tuple[object, ...]]:
    return fetch(dsn, f'SELECT * FROM "{schema}".actions ORDER BY thread_id, step_index')


@pytest.mark.parametrize("batch_size", [5000, 3])
def test_prune_keeps_failed_inflight_and_fresh(
    saver: ActionSaver, dsn: str, schema: str, batch_size: int
) -> None:
    ids = populate(saver, dsn, schema)
    assert all(counts(dsn, schema, ids["ok"])[t] > 0 for t in TABLES)
    keep = {t: counts(dsn, schema, ids[t]) for t in ("failed", "running", "fresh")}
    seen: list[tuple[int, int]] = []

    result = prune(
        saver,
        None,
        dt.timedelta(days=30),
        batch_size=batch_size,
        progress=lambda done, total: seen.append((done, total)),
    )

    assert result.threads == 1
    assert result.kept_failed == 1 and result.kept_inflight == 1
    assert counts(dsn, schema, ids["ok"]) == dict.fromkeys(TABLES, 0)
    assert result.actions == 5 and result.checkpoints > 0 and result.blobs > 0
    assert result.writes > 0 and result.vacuumed
    for role, before in keep.items():
        assert counts(dsn, schema, ids[role]) == before, role
    assert seen[-1] == (1, 1)
    if batch_size == 3:  # the big thread went in several short transactions
        assert result.batches > 3

    # without keep_failed the failed thread goes too; the in-flight one never does
    result = prune(saver, schema, dt.timedelta(days=30), keep_failed=False, vacuum=False)
    assert result.threads == 1 and result.kept_inflight == 1 and not result.vacuumed
    assert counts(dsn, schema, ids["failed"])["actions"] == 0
    assert counts(dsn, schema, ids["running"])["actions"] == 1
    assert counts(dsn, schema, ids["fresh"]) == keep["fresh"]
    # and the saver still works on what is left
    assert [a.action_id for a in saver.list_actions(ids["running"])] == ["tool-1"]


def test_prune_uses_newest_activity(saver: ActionSaver, dsn: str, schema: str) -> None:
    """Old actions but a fresh checkpoint (a resumed thread) keep the thread."""
    run_graph(saver, "resumed")
    age_thread(dsn, schema, "resumed", OLD)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            psycopg.sql.SQL(
                "UPDATE {} SET created_at = now() WHERE thread_id = 'resumed' AND checkpoint_id = "
                "(SELECT max(checkpoint_id) FROM {} WHERE thread_id = 'resumed')"
            ).format(
                psycopg.sql.Identifier(schema, "checkpoints"),
                psycopg.sql.Identifier(schema, "checkpoints"),
            )
        )
    assert prune(saver, None, dt.timedelta(days=30)).threads == 0
    assert counts(dsn, schema, "resumed")["actions"] > 0


def test_prune_with_plain_connection(saver: ActionSaver, dsn: str, schema: str) -> None:
    populate(saver, dsn, schema)
    with psycopg.connect(dsn) as conn:  # not autocommit: switched while idle
        result = prune(conn, schema, dt.timedelta(days=30))
        assert result.threads == 1
        conn.execute("SELECT 1")
        with pytest.raises(ConfigurationError, match="transaction"):
            conn.autocommit = False
            conn.execute("SELECT 1")
            prune(conn, schema, dt.timedelta(days=30))


def test_prune_does_not_block_writers(saver: ActionSaver, dsn: str, schema: str) -> None:
    """A writer keeps inserting while prune deletes many small batches."""
    old = dt.datetime.now(dt.UTC) - OLD
    saver.record_actions(
        [
            ActionRecord(f"old-{i}", f"a{j}", "tool_call", status="completed", started_at=old)
            for i in range(200)
            for j in range(5)
        ]
    )
    stop = threading.Event()
    written: list[float] = []

    def writer() -> None:
        n = 0
        while not stop.is_set():
            t0 = dt.datetime.now()
            saver.record_actions([ActionRecord(f"new-{n}", "a", "tool_call", status="completed")])
            written.append((dt.datetime.now() - t0).total_seconds())
            n += 1

    th = threading.Thread(target=writer)
    th.start()
    try:
        result = prune(saver, None, dt.timedelta(days=30), batch_size=50)
    finally:
        stop.set()
        th.join()
    assert result.threads == 200 and result.actions == 1000 and result.batches >= 20
    assert written and max(written) < 5.0
    n_new = fetch(dsn, f"SELECT count(*) FROM \"{schema}\".actions WHERE thread_id LIKE 'new-%%'")
    assert n_new[0][0] == len(written)


def test_archive_then_import_restores_identical_rows(
    saver: ActionSaver, dsn: str, schema: str, tmp_path: Path
) -> None:
    ids = populate(saver, dsn, schema)
    weird = "we/ird ..\\thread?%\u00e9"
    old = dt.datetime.now(dt.UTC) - OLD
    saver.record_actions(
        [
            ActionRecord(
                weird,
                "x1",
                "function",
                name="f",
                status="completed",
                input={"nul": "a\x00b", "surrogate": "\ud800", "list": [1, 2.5, None]},
                output={"__ack__": "user dict with our tag"},
                meta={"k": "v"},
                started_at=old,
                completed_at=old,
                lc_run_id="6f1b0c4e-0000-4000-8000-000000000001",
            )
        ]
    )
    before = all_actions(dsn, schema)
    n_old = sum(1 for r in before if r[0] in (ids["ok"], weird))

    result = archive(saver, None, dt.timedelta(days=30), tmp_path / "arch")
    assert result.threads == 2 and result.files == 2 and result.archived_actions == n_old
    assert result.actions == n_old and result.checkpoints > 0
    files = sorted(p.name for p in (tmp_path / "arch").iterdir())
    assert files == sorted([thread_file_name(ids["ok"]), thread_file_name(weird)])
    assert all("/" not in f and not f.startswith(".") for f in files)
    assert counts(dsn, schema, ids["ok"]) == dict.fromkeys(TABLES, 0)

    assert import_archive(saver, None, tmp_path / "arch").imported == n_old
    assert all_actions(dsn, schema) == before
    # importing twice changes nothing
    assert import_archive(saver, None, tmp_path / "arch").imported == 0
    assert all_actions(dsn, schema) == before
    # the records read back equal the originals, step_index included
    got = saver.list_actions(weird)
    assert got[0].input == {"nul": "a\x00b", "surrogate": "\ud800", "list": [1, 2.5, None]}


def test_archive_to_fsspec_url_and_import_elsewhere(
    saver: ActionSaver, dsn: str, schema: str
) -> None:
    ids = populate(saver, dsn, schema)
    url = f"memory://actionckpt-test/{schema}"
    before = [r for r in all_actions(dsn, schema) if r[0] == ids["ok"]]

    result = archive(saver, None, dt.timedelta(days=30), url, delete=False)
    # the thread is archived (counted) though not deleted
    assert result.files == 1 and result.threads == 1 and result.deleted_threads == 0
    assert counts(dsn, schema, ids["ok"])["actions"] == len(before)  # export only
    fs = fsspec.filesystem("memory")
    assert fs.exists(f"/actionckpt-test/{schema}/{thread_file_name(ids['ok'])}")

    other = new_schema_name()
    try:
        with ActionSaver.from_conn_string(dsn, schema=other) as s2:
            s2.setup()
            assert import_archive(s2, None, url).imported == len(before)
            assert all_actions(dsn, other) == before
            # the identity sequence moved past the imported step_index values
            s2.record_actions([ActionRecord(ids["ok"], "later", "tool_call", status="completed")])
            later = s2.get_action(ids["ok"], "later")
            assert later is not None and later.step_index > max(r[1] for r in before)
    finally:
        drop_schema(dsn, other)
        fs.rm(f"/actionckpt-test/{schema}", recursive=True)


def test_import_rejects_garbage(saver: ActionSaver, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"thread_id": "t"}\n')
    (skip,) = import_archive(saver, None, bad).skipped
    assert skip["file"] == str(bad) and "action_id" in skip["reason"]
    bad.write_text("not json\n")
    (skip,) = import_archive(saver, None, bad).skipped
    assert "not JSON" in skip["reason"]
    assert saver.list_actions() == []


def test_thread_file_name() -> None:
    name = thread_file_name("a/b c")
    assert name.startswith("a_b_c-") and name.endswith(".jsonl")
    assert thread_file_name("..").startswith("thread-")  # never a path component
    assert thread_file_name("") != thread_file_name("_")  # the hash keeps them apart
    assert thread_file_name("a/b") != thread_file_name("a_b")
    huge = "x" * 10_000
    assert len(thread_file_name(huge).encode()) <= 87
    assert thread_file_name(huge) != thread_file_name(huge + "y")
    for tid in ("../../etc/passwd", "é/ü/日本語", "\\server\\share", "a" * 300 + "/.."):
        n = thread_file_name(tid)
        assert "/" not in n and "\\" not in n and not n.startswith(".") and n.isascii()


def test_archive_and_import_hostile_thread_ids(saver: ActionSaver, tmp_path: Path) -> None:
    """The longest id accepted (1 KB), ids with '/', '..' and unicode: archived, imported back."""
    old = dt.datetime.now(dt.UTC) - OLD
    ids = ["k" * LIMITS["thread id"], "a/b/../c", "..", "ключ/日本語 ✓"]
    saver.record_actions(
        [
            ActionRecord(
                t, "act", "tool_call", status="completed", started_at=old, completed_at=old
            )
            for t in ids
        ]
    )
    result = archive(saver, None, dt.timedelta(days=30), tmp_path / "arch")
    assert result.threads == 4 and result.files == 4 and result.deleted_threads == 4
    files = sorted(p.name for p in (tmp_path / "arch").iterdir())
    assert files == sorted(thread_file_name(t) for t in ids)
    assert import_archive(saver, None, tmp_path / "arch").imported == 4
    assert all([a.action_id for a in saver.list_actions(t)] == ["act"] for t in ids)


# Issue 28.4 / 29.8: whatever the saver stores, the operations handle as data.
HOSTILE_THREADS = {
    "sur-\ud800": {"input": {"s": "\udfff"}},
    "nul-\x00-id": {"output": "a\x00b"},
    "name": {"name": "f\ud800\x00", "node": "n\udc80"},
    "meta": {"meta": {"k\ud800": "v\x00"}, "error": {"message": "e\ud800\x00"}},
    "big": {"output": "x" * (1 << 20)},
    "k" * (LIMITS["thread id"] - 5) + "\x00": {},  # at the limit once escaped (mark, \\0)
}


def _hostile(saver: ActionSaver) -> None:
    old = dt.datetime.now(dt.UTC) - OLD
    saver.record_actions(
        [
            ActionRecord(
                t,
                "a\ud800",
                "tool_call",
                status="completed",
                started_at=old,
                completed_at=old,
                **kw,
            )
            for t, kw in HOSTILE_THREADS.items()
        ]
    )


def _snapshot(saver: ActionSaver) -> dict[str, list[ActionRecord]]:
    return {t: saver.list_actions(t) for t in HOSTILE_THREADS}


def test_archive_and_import_whatever_the_saver_stores(saver: ActionSaver, tmp_path: Path) -> None:
    _hostile(saver)
    before = _snapshot(saver)
    assert all(len(v) == 1 for v in before.values())
    result = archive(saver, None, dt.timedelta(days=30), tmp_path / "arch")
    assert result.skipped == []
    assert result.files == result.deleted_threads == len(HOSTILE_THREADS)
    assert all(v == [] for v in _snapshot(saver).values())  # NUL id deleted too
    got = import_archive(saver, None, tmp_path / "arch")
    assert (got.imported, got.files, got.skipped) == (len(HOSTILE_THREADS),) * 2 + ([],)
    assert _snapshot(saver) == before


def test_import_is_all_or_nothing_per_thread(saver: ActionSaver, tmp_path: Path) -> None:
    old = dt.datetime.now(dt.UTC) - OLD
    ids = [f"t{i}" for i in range(5)]
    saver.record_actions(
        [
            ActionRecord(t, f"a{j}", "tool_call", status="completed", started_at=old)
            for t in ids
            for j in range(3)
        ]
    )
    arch = tmp_path / "arch"
    archive(saver, None, dt.timedelta(days=30), arch)
    # a file from an older export (raw NUL in its id) and a half-broken one
    (arch / "old.jsonl").write_text(
        '{"thread_id": "x\\u0000y", "action_id": "a", '
        '"action_type": "tool_call", "status": "completed"}\n'
    )
    broken = arch / thread_file_name("t3")
    broken.write_text(broken.read_text() + "not json\n")
    got = import_archive(saver, None, arch)
    assert got.files == 5 and got.imported == 4 * 3 + 1
    (skip,) = got.skipped
    assert skip["file"] == str(broken) and "not JSON" in skip["reason"]
    assert saver.list_actions("t3") == []  # nothing of the broken file
    assert [a.action_id for a in saver.list_actions("x\x00y")] == ["a"]
