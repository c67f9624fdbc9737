"""Encryption and the maintenance paths (issue #29, findings 1-3): re-sealing never turns a
plain value into a genuine one, every read without a key refuses a sealed value, and a fork
or copy is sealed for its new thread or not written at all."""

from __future__ import annotations

import base64
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.actions.record import ActionRecord
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.errors import DecryptionError
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.encryption import reencrypt

from .conftest import drop_schema, fetch, new_schema_name
from .test_crypto import _cfg, _graph, _input
from .test_fork import Model, three_calls_graph

K1, K2 = os.urandom(32), os.urandom(32)
runner = CliRunner()


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CLI's --key options for k1 and k2 (read from the environment)."""
    monkeypatch.setenv("T_MK1", K1.hex())
    monkeypatch.setenv("T_MK2", base64.b64encode(K2).decode())
    return ["--key", "k1=env:T_MK1", "--key", "k2=env:T_MK2"]


def _saver(dsn: str, schema: str, ring: KeyRing | None) -> Any:
    return ActionSaver.from_conn_string(dsn, schema=schema, encryption=ring)


def _records(thread: str) -> list[ActionRecord]:
    return [
        ActionRecord(
            thread,
            f"call-{i}",
            "tool_call",
            name="search",
            status="completed",
            input={"q": f"question {i}"},
            output=f"genuine answer {i}",
        )
        for i in (1, 2)
    ]


def _encrypted_db(dsn: str, schema: str, threads: tuple[str, ...] = ("victim", "other")) -> None:
    """Threads with checkpoints and actions, all sealed with k1."""
    with _saver(dsn, schema, KeyRing({"k1": K1})) as s:
        s.setup()
        graph = _graph(2).compile(checkpointer=s)
        for t in threads:
            graph.invoke(_input(), _cfg(t))
            s.record_actions(_records(t))


def _inject(dsn: str, schema: str, thread: str = "victim") -> None:
    """A database writer without the key: a plain output and a plain channel value."""
    s = psycopg.sql.Identifier(schema)
    type_, data = default_serde().dumps_typed(["forged"])
    with psycopg.connect(dsn, autocommit=True) as conn:
        n = conn.execute(
            psycopg.sql.SQL(
                "UPDATE {}.actions SET output = '\"forged\"'::jsonb "
                "WHERE thread_id = %s AND action_id = 'call-1'"
            ).format(s),
            (thread,),
        ).rowcount
        n += conn.execute(
            psycopg.sql.SQL(
                "UPDATE {s}.blobs SET type = %s, blob = %s WHERE thread_id = %s "
                "AND channel = 'messages' AND version = (SELECT max(version) FROM {s}.blobs "
                "WHERE thread_id = %s AND channel = 'messages')"
            ).format(s=s),
            (type_, data, thread, thread),
        ).rowcount
    assert n == 2


def _strict_reads_refuse(saver: ActionSaver, thread: str = "victim") -> None:
    with pytest.raises(DecryptionError, match="plain text"):
        saver.get_action(thread, "call-1")
    with pytest.raises(DecryptionError, match="plain text"):
        saver.get_tuple(_cfg(thread))


# ------------------------------------------------------------ 1. no laundering


def test_rotate_key_leaves_injected_plaintext_alone(dsn: str, schema: str, keys: list[str]) -> None:
    _encrypted_db(dsn, schema)
    _inject(dsn, schema)
    with _saver(dsn, schema, KeyRing({"k1": K1})) as strict:
        _strict_reads_refuse(strict)
    base = ["--dsn", dsn, "--schema", schema]
    res = runner.invoke(app, [*base, "rotate-key", *keys, "--active", "k2"])
    assert res.exit_code == 3, res.output
    assert "LEFT AS THEY ARE" in res.output and "'victim'" in res.output
    assert "'other'" not in res.output
    with _saver(dsn, schema, KeyRing({"k2": K2})) as only_new:
        _strict_reads_refuse(only_new)  # still refused: not laundered into a genuine value
        # the genuine values of the same thread and row were rotated all the same
        assert only_new.get_action("victim", "call-2").output == "genuine answer 2"  # type: ignore[union-attr]
        assert only_new.get_action("other", "call-1").output == "genuine answer 1"  # type: ignore[union-attr]
        assert only_new.get_tuple(_cfg("other")) is not None
        with pytest.raises(DecryptionError, match="plain text"):
            only_new.list_actions("victim")
    res = runner.invoke(app, ["--json", *base, "rotate-key", *keys, "--active", "k2"])
    assert res.exit_code == 3, res.output
    assert json.loads(res.stdout)["plaintext"] == {"blobs": ["victim"], "actions": ["victim"]}
    # the operator vouches for the thread by name: now it is sealed
    res = runner.invoke(
        app, [*base, "rotate-key", *keys, "--active", "k2", "--accept-plaintext", "victim"]
    )
    assert res.exit_code == 0, res.output
    assert "done: every value is sealed with key 'k2'" in res.output
    with _saver(dsn, schema, KeyRing({"k2": K2})) as only_new:
        assert only_new.get_action("victim", "call-1").output == "forged"  # type: ignore[union-attr]
        got = only_new.get_tuple(_cfg("victim"))
        assert got is not None and got.checkpoint["channel_values"]["messages"] == ["forged"]


def test_encrypt_existing_needs_a_flag_once_anything_is_sealed(
    dsn: str, schema: str, keys: list[str]
) -> None:
    _encrypted_db(dsn, schema)
    _inject(dsn, schema)
    ring = KeyRing({"k1": K1})
    with psycopg.connect(dsn, autocommit=True) as conn:
        result = reencrypt(conn, ring, schema)  # default: automatic, and something is sealed
    assert result.plaintext == {"blobs": ["victim"], "actions": ["victim"]}
    assert not result.done and result.remaining["actions"] == 1
    with _saver(dsn, schema, ring) as strict:
        _strict_reads_refuse(strict)
    base = ["--dsn", dsn, "--schema", schema, "encrypt-existing"]
    res = runner.invoke(app, [*base, keys[0], keys[1]])
    assert res.exit_code == 3 and "--accept-plaintext" in res.output, res.output
    res = runner.invoke(app, [*base, *keys, "--active", "k1", "--all-plaintext"])
    assert res.exit_code == 0, res.output
    with _saver(dsn, schema, ring) as strict:
        assert strict.get_action("victim", "call-1").output == "forged"  # type: ignore[union-attr]
    res = runner.invoke(
        app, ["--dsn", dsn, "--schema", schema, "rotate-key", *keys, "--all-plaintext"]
    )
    assert res.exit_code == 2  # rotation takes named threads only


def test_copy_never_seals_a_plain_value(dsn: str, schema: str) -> None:
    _encrypted_db(dsn, schema, ("victim",))
    _inject(dsn, schema)
    with _saver(dsn, schema, KeyRing({"k1": K1})) as strict:
        with pytest.raises(DecryptionError, match="plain text"):
            strict.copy_thread("victim", "copy")
        assert not fetch(dsn, f'SELECT 1 FROM "{schema}".actions WHERE thread_id = %s', ("copy",))
    # while plain text is allowed (a migration) it is copied as it is: still plain
    with _saver(dsn, schema, KeyRing({"k1": K1}, allow_plaintext=True)) as lenient:
        lenient.copy_thread("victim", "copy")
    with _saver(dsn, schema, KeyRing({"k1": K1})) as strict:
        _strict_reads_refuse(strict, "copy")
        assert strict.get_action("copy", "call-2").output == "genuine answer 2"  # type: ignore[union-attr]


# ------------------------------------------------------------ 2. no key, no value


def _no_key_error(fn: Any, *args: Any) -> None:
    with pytest.raises(DecryptionError, match="encrypted; pass encryption=") as info:
        fn(*args)
    assert "thread id 'victim'" in str(info.value)


def test_reads_without_a_key_refuse_sealed_values(dsn: str, schema: str) -> None:
    from langgraph_actionckpt.ops import reports

    _encrypted_db(dsn, schema, ("victim",))
    with _saver(dsn, schema, None) as none:
        _no_key_error(none.list_actions, "victim")
        _no_key_error(none.get_action, "victim", "call-1")
        _no_key_error(none.export_actions_jsonl, "victim")
        _no_key_error(none.get_tuple, _cfg("victim"))
        _no_key_error(reports.thread_timeline, none, "victim")
    with _saver(dsn, schema, KeyRing({"k1": K1})) as keyed:
        assert keyed.get_action("victim", "call-1").output == "genuine answer 1"  # type: ignore[union-attr]
        assert "genuine answer 1" in keyed.export_actions_jsonl("victim")


async def test_async_reads_without_a_key_refuse_sealed_values(dsn: str, schema: str) -> None:
    _encrypted_db(dsn, schema, ("victim",))
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as none:
        for call in (
            none.alist_actions("victim"),
            none.aget_action("victim", "call-1"),
            none.aexport_actions_jsonl("victim"),
        ):
            with pytest.raises(DecryptionError, match="encrypted; pass encryption="):
                await call


def test_cli_reads_take_a_key(dsn: str, schema: str, keys: list[str], tmp_path: Path) -> None:
    _encrypted_db(dsn, schema, ("victim",))
    base = ["--dsn", dsn, "--schema", schema]
    res = runner.invoke(app, [*base, "--json", "show", "victim"])
    assert res.exit_code == 1 and json.loads(res.stdout)["type"] == "DecryptionError"
    res = runner.invoke(app, [*base, "--json", "show", "victim", keys[0], keys[1]])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["actions"]) >= 2
    page = tmp_path / "t.html"
    res = runner.invoke(app, [*base, "timeline", "victim", "--html", str(page)])
    assert res.exit_code == 1 and "--key" in res.stderr
    res = runner.invoke(app, [*base, "timeline", "victim", "--html", str(page), *keys])
    assert res.exit_code == 0, res.output
    assert "genuine answer 1" in page.read_text(encoding="utf-8")
    # runs and failed print the last action's error: sealed too
    failure = ActionRecord("victim", "call-9", "tool_call", status="failed", error={"m": "boom"})
    with _saver(dsn, schema, KeyRing({"k1": K1})) as s:
        s.record_actions([failure])
    for cmd in ("runs", "failed"):
        res = runner.invoke(app, [*base, "--json", cmd])
        assert res.exit_code == 1 and json.loads(res.stdout)["type"] == "DecryptionError"
        res = runner.invoke(app, [*base, "--json", cmd, *keys])
        assert res.exit_code == 0, res.output
        assert next(iter(json.loads(res.stdout).values()))[0]["last_error"] == {"m": "boom"}


def test_vector_index_without_a_key_refuses(pg18_dsn: str) -> None:
    from langgraph_actionckpt.ops.vector import VectorIndex

    from .test_vector import HashEmbeddings

    schema = new_schema_name()
    try:
        _encrypted_db(pg18_dsn, schema, ("victim",))
        with psycopg.connect(pg18_dsn, autocommit=True) as conn:
            index = VectorIndex(conn, schema, HashEmbeddings())
            index.ensure()
            with pytest.raises(DecryptionError, match="encrypted; pass encryption="):
                index.embed_pending()
            keyed = VectorIndex(conn, schema, HashEmbeddings(), encryption=KeyRing({"k1": K1}))
            assert keyed.embed_pending() >= 2
            with pytest.raises(DecryptionError, match="encrypted; pass encryption="):
                index.similar_actions("question 1")
            hits = keyed.similar_actions("question 1", k=1)
            assert hits and hits[0][0].output in ("genuine answer 1", "genuine answer 2")
    finally:
        drop_schema(pg18_dsn, schema)


def test_archive_keeps_sealed_values_and_import_restores_them(
    dsn: str, schema: str, tmp_path: Path
) -> None:
    import datetime as dt

    from langgraph_actionckpt.ops.archiving import archive, import_archive

    _encrypted_db(dsn, schema, ("victim",))
    raw = fetch(dsn, f'SELECT output::text FROM "{schema}".actions ORDER BY action_id')
    with psycopg.connect(dsn, autocommit=True) as conn:  # no key: the archive stays sealed
        done = archive(conn, schema, dt.timedelta(0), tmp_path, keep_failed=False)
        assert done.deleted_threads == 1
        assert "genuine answer" not in "".join(p.read_text() for p in tmp_path.iterdir())
        assert import_archive(conn, schema, tmp_path).imported >= 2
    assert fetch(dsn, f'SELECT output::text FROM "{schema}".actions ORDER BY action_id') == raw
    with _saver(dsn, schema, KeyRing({"k1": K1})) as keyed:
        assert keyed.get_action("victim", "call-1").output == "genuine answer 1"  # type: ignore[union-attr]
    # an imported plain value stays plain: refused, and left alone by re-sealing
    forged = ActionRecord("victim", "call-7", "tool_call", status="completed", output="forged")
    (tmp_path / "forged.jsonl").write_text(json.dumps(forged.to_dict(), default=str) + "\n")
    with psycopg.connect(dsn, autocommit=True) as conn:
        import_archive(conn, schema, tmp_path / "forged.jsonl")
        assert reencrypt(conn, KeyRing({"k1": K1}), schema).plaintext == {"actions": ["victim"]}
    assert fetch(dsn, f"SELECT output::text FROM \"{schema}\".actions WHERE action_id = 'call-7'")
    with (
        _saver(dsn, schema, KeyRing({"k1": K1})) as keyed,
        pytest.raises(DecryptionError, match="plain text"),
    ):
        keyed.get_action("victim", "call-7")


# ------------------------------------------------------------ 3. forks and copies


@pytest.fixture
def encrypted_trip(dsn: str, schema: str) -> Iterator[tuple[str, list[ActionRecord]]]:
    with _saver(dsn, schema, KeyRing({"k1": K1})) as s:
        s.setup()
        graph = three_calls_graph(Model()).compile(checkpointer=s)
        thread = f"trip-{uuid.uuid4().hex[:8]}"
        graph.invoke({"out": []}, {"configurable": {"thread_id": thread}})
        yield thread, s.list_actions(thread, action_type="llm_completion")


def _rows_of(dsn: str, schema: str, thread: str) -> int:
    return sum(
        len(fetch(dsn, f'SELECT 1 FROM "{schema}".{t} WHERE thread_id = %s', (thread,)))
        for t in ("checkpoints", "blobs", "writes", "actions")
    )


def test_cli_fork_of_an_encrypted_thread(
    dsn: str, schema: str, keys: list[str], encrypted_trip: tuple[str, list[ActionRecord]]
) -> None:
    thread, acts = encrypted_trip
    base = ["--dsn", dsn, "--schema", schema, "fork", thread, acts[1].action_id]
    res = runner.invoke(app, [*base, "--output", "Lyon", "--new-thread", "f1"])
    assert res.exit_code == 1 and "DecryptionError" not in res.stdout
    assert "encrypted" in res.stderr and "--key" in res.stderr
    assert _rows_of(dsn, schema, "f1") == 0  # nothing unreadable was written
    res = runner.invoke(app, [*base, "--output", "Lyon", "--new-thread", "f1", *keys])
    assert res.exit_code == 0, res.output
    with _saver(dsn, schema, KeyRing({"k1": K1})) as s:
        assert s.get_action("f1", acts[1].action_id).output.content == "Lyon"  # type: ignore[union-attr]
        assert s.get_tuple(_cfg("f1")) is not None
        model = Model()
        result = three_calls_graph(model).compile(checkpointer=s).invoke(None, _cfg("f1"))
        assert result["out"][1:] == ["Lyon", "answer 1 to [Lyon]"]


def test_fork_and_copy_without_a_key_write_nothing(
    dsn: str, schema: str, encrypted_trip: tuple[str, list[ActionRecord]]
) -> None:
    thread, acts = encrypted_trip
    with _saver(dsn, schema, None) as none:
        with pytest.raises(DecryptionError, match="encrypted"):
            none.fork_at_action(thread, acts[1].action_id, output="x", new_thread_id="f2")
        with pytest.raises(DecryptionError, match="copy needs the key"):
            none.copy_thread(thread, "c2")
    assert _rows_of(dsn, schema, "f2") == _rows_of(dsn, schema, "c2") == 0


async def test_async_fork_and_copy_without_a_key_write_nothing(
    dsn: str, schema: str, encrypted_trip: tuple[str, list[ActionRecord]]
) -> None:
    thread, acts = encrypted_trip
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as none:
        with pytest.raises(DecryptionError, match="encrypted"):
            await none.afork_at_action(thread, acts[1].action_id, output="x", new_thread_id="f3")
        with pytest.raises(DecryptionError, match="copy needs the key"):
            await none.acopy_thread(thread, "c3")
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, encryption=KeyRing({"k1": K1})
    ) as keyed:
        await keyed.acopy_thread(thread, "c3")
        got = await keyed.aget_tuple(_cfg("c3"))
        assert got is not None and len(await keyed.alist_actions("c3")) >= 3
    assert _rows_of(dsn, schema, "f3") == 0


@pytest.mark.parametrize("world", ["sync", "async"])
async def test_reuse_on_an_encrypted_saver_serves_the_value(
    world: str, dsn: str, tmp_path: Path
) -> None:
    """A reused result is read with the saver's key ring: the value, never its envelope."""
    from examples.fake_openai.models import ScriptedChatModel, read_calls
    from langgraph_actionckpt.reuse import ExactReuse

    from .test_reuse import llm_graph

    calls = tmp_path / "calls.jsonl"
    builder = llm_graph(ScriptedChatModel(calls_file=str(calls)), world)
    schema = new_schema_name()
    options: dict[str, Any] = {"schema": schema, "reuse": ExactReuse()}
    options["encryption"] = KeyRing({"k1": K1})
    outs = []
    try:
        if world == "async":
            async with AsyncActionSaver.from_conn_string(dsn, **options) as a:
                await a.setup()
                graph = builder.compile(checkpointer=a)
                for t in ("r1", "r2"):
                    result = await graph.ainvoke({"q": "Hamlet?", "out": []}, _cfg(t))
                    outs.append(result["out"][-1])
        else:
            with ActionSaver.from_conn_string(dsn, **options) as s:
                s.setup()
                graph = builder.compile(checkpointer=s)
                for t in ("r1", "r2"):
                    outs.append(graph.invoke({"q": "Hamlet?", "out": []}, _cfg(t))["out"][-1])
    finally:
        drop_schema(dsn, schema)
    assert len(read_calls(str(calls))) == 1  # the second thread was served
    assert outs[0] == outs[1] and "__ack__" not in outs[1]


def test_remote_saver_never_gets_an_envelope(dsn: str, tmp_path: Path) -> None:
    """The service holds no key: a remote read of a sealed row is refused on the server."""
    from langgraph_actionckpt import RemoteActionSaver, ServiceError

    from .service_fixtures import running

    for service in running(dsn, tmp_path, n=1):
        token, _, schema = service.tenant()
        _encrypted_db(dsn, schema, ("victim",))
        with RemoteActionSaver.from_target(service.target, token) as remote:
            for call in (
                lambda: remote.list_actions("victim"),
                lambda: remote.get_action("victim", "call-1"),
            ):
                with pytest.raises(ServiceError, match="encrypted; pass encryption="):
                    call()
