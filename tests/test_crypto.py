"""Encryption at rest (issue #18): sealed values bound to their row, refused when moved,
tampered with, read with a wrong key or stored in plain text; online rotation."""

from __future__ import annotations

import base64
import operator
import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typer.testing import CliRunner

from langgraph_actionckpt import (
    ActionCallbackHandler,
    ActionSaver,
    AsyncActionCallbackHandler,
    AsyncActionSaver,
)
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.crypto import KeyRing, action_aad, key_from_env, key_from_file
from langgraph_actionckpt.errors import ConfigurationError, DecryptionError
from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.encryption import pending_reencryption, reencrypt

from .conftest import drop_schema, fetch, new_schema_name

MARK = "PLAINTEXT-MARKER-7f3a"
K1, K2 = os.urandom(32), os.urandom(32)


class State(TypedDict):
    items: Annotated[list[str], operator.add]
    messages: Annotated[list[Any], add_messages]
    n: int


def _graph(steps: int = 6) -> StateGraph[Any]:
    def step(state: State) -> dict[str, Any]:
        n = state.get("n", 0)
        # long enough to be compressed; a list channel: stored as deltas
        return {
            "items": [f"{MARK} item {n} " * 30],
            "messages": [AIMessage(f"{MARK} reply {n}")],
            "n": n + 1,
        }

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step")
    return builder


def _input() -> dict[str, Any]:
    return {"items": [], "messages": [HumanMessage(f"{MARK} question")], "n": 0}


def _cfg(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


@pytest.fixture
def ring() -> KeyRing:
    return KeyRing({"k1": K1})


@pytest.fixture
def esaver(dsn: str, schema: str, ring: KeyRing) -> Iterator[ActionSaver]:
    with ActionSaver.from_conn_string(dsn, schema=schema, encryption=ring) as s:
        s.setup()
        yield s


def _saver(dsn: str, schema: str, ring: KeyRing | None) -> Any:
    return ActionSaver.from_conn_string(dsn, schema=schema, encryption=ring)


def _raw_rows(dsn: str, schema: str) -> dict[str, list[bytes]]:
    """Every value column as the bytes PostgreSQL holds (JSONB as its text)."""
    s = psycopg.sql.Identifier(schema)
    out: dict[str, list[bytes]] = {}
    for name, query in {
        "checkpoints": "SELECT checkpoint FROM {}.checkpoints",
        "blobs": "SELECT blob FROM {}.blobs WHERE blob IS NOT NULL",
        "writes": "SELECT b FROM {}.writes, unnest(blobs) AS b",
        "actions": "SELECT concat(input::text, output::text, error::text) FROM {}.actions",
    }.items():
        with psycopg.connect(dsn) as conn:
            rows = conn.execute(psycopg.sql.SQL(query).format(s)).fetchall()
        out[name] = [r[0] if isinstance(r[0], bytes) else str(r[0]).encode() for r in rows]
    return out


# ------------------------------------------------------------------ key ring


def test_keyring_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("T_CKPT_KEY", K1.hex())
    path = tmp_path / "k3"
    path.write_text(base64.b64encode(K2).decode() + "\n")
    calls: list[int] = []

    def kms() -> bytes:
        calls.append(1)
        return K2

    ring = KeyRing(
        {"k1": key_from_env("T_CKPT_KEY"), "k2": K2, "k3": key_from_file(path), "k4": kms},
        active="k4",
    )
    aad = b"here"
    token = ring.seal(b"secret", aad)
    assert token[0] == 1 and token[2 : 2 + token[1]] == b"k4" and b"secret" not in token
    assert ring.open(token, aad) == b"secret"
    ring.open(ring.seal(b"x", aad), aad)
    assert calls == [1]  # a KMS hook is called once, on first use
    for kid in ("k1", "k2", "k3"):
        other = ring.with_options(active=kid)
        assert ring.open(other.seal(b"y", aad), aad) == b"y"
    assert "K2" not in repr(ring) and K2.hex() not in repr(ring)
    with pytest.raises(ConfigurationError, match="256-bit"):
        KeyRing({"k": b"short"})
    with pytest.raises(ConfigurationError, match="active"):
        KeyRing({"a": K1, "b": K2})
    with pytest.raises(ConfigurationError, match="not set"):
        KeyRing({"k": key_from_env("T_CKPT_MISSING")}).load_keys()


def test_action_associated_data_is_the_place_one() -> None:
    place = Place("s", "actions", "t", action_id="a", column="output")
    assert action_aad("s", "t", "a", "output") == place.associated_data()


# ------------------------------------------------------------------ storage


def test_no_plaintext_in_raw_rows_and_values_read_back(
    dsn: str, schema: str, esaver: ActionSaver
) -> None:
    graph = _graph().compile(checkpointer=esaver)
    out = graph.invoke(_input(), _cfg("t1"))
    assert out["n"] == 6 and len(out["items"]) == 6
    history = list(graph.get_state_history(_cfg("t1")))
    assert [len(h.values.get("items", [])) for h in history] == [6, 5, 4, 3, 2, 1, 0, 0]
    delta = esaver.get_delta_channel_history(config=history[0].config, channels=["items"])
    assert delta["items"]["writes"] or "seed" in delta["items"]
    raw = _raw_rows(dsn, schema)
    assert all(raw[t] for t in ("checkpoints", "blobs", "writes")), raw.keys()
    for table, values in raw.items():
        assert not [v for v in values if MARK.encode() in v], table
    types = fetch(dsn, f'SELECT DISTINCT type FROM "{schema}".blobs')
    assert {t for (t,) in types} >= {"e:zv:delta"}  # deltas: compressed, then sealed
    # the same rows without encryption do hold the marker (the check above means something)
    with _saver(dsn, schema + "p", None) as plain:
        plain.setup()
        _graph().compile(checkpointer=plain).invoke(_input(), _cfg("t1"))
        assert any(MARK.encode() in v for v in _raw_rows(dsn, schema + "p")["writes"])
    drop_schema(dsn, schema + "p")


def test_action_columns_sealed_and_replayed(dsn: str, schema: str, esaver: ActionSaver) -> None:
    ran: list[str] = []

    @tool
    def secret_tool(q: str) -> str:
        """A tool whose input and output are secret."""
        ran.append(q)
        return f"{MARK} answer to {q}"

    class Out(TypedDict):
        out: Annotated[list[str], operator.add]

    crash = {"armed": True}

    def node(state: Out) -> dict[str, Any]:
        result = secret_tool.invoke({"q": f"{MARK} query"})
        if crash["armed"]:
            crash["armed"] = False
            raise RuntimeError("crash after the tool ran")
        return {"out": [result]}

    builder = StateGraph(Out)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    graph = builder.compile(checkpointer=esaver)
    cfg = {**_cfg("acts"), "callbacks": [ActionCallbackHandler(esaver)]}
    with pytest.raises(RuntimeError):
        graph.invoke({"out": []}, cfg)
    assert graph.invoke(None, cfg)["out"] == [f"{MARK} answer to {MARK} query"]
    assert len(ran) == 1  # served from the (encrypted) log the second time
    esaver.writer.flush()
    rows = esaver.list_actions("acts", action_type="tool_call")
    assert rows and rows[0].output is not None and MARK in str(rows[0].output)
    raw = fetch(dsn, f'SELECT input::text, output::text FROM "{schema}".actions')
    assert raw and not [r for r in raw if MARK in f"{r[0]}{r[1]}"]
    assert any(r[1] and '"enc"' in r[1] for r in raw)


async def test_async_saver_seals_and_reads(dsn: str, schema: str, ring: KeyRing) -> None:
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, encryption=ring) as s:
        await s.setup()
        graph = _graph().compile(checkpointer=s)
        cfg = {**_cfg("a1"), "callbacks": [AsyncActionCallbackHandler(s)]}
        out = await graph.ainvoke(_input(), cfg)
        assert out["n"] == 6
        state = await graph.aget_state(_cfg("a1"))
        assert len(state.values["items"]) == 6
    for table, values in _raw_rows(dsn, schema).items():
        assert not [v for v in values if MARK.encode() in v], table


# ------------------------------------------------------------------ refusals


def test_swapped_row_refused(dsn: str, schema: str, esaver: ActionSaver) -> None:
    graph = _graph(3).compile(checkpointer=esaver)
    graph.invoke(_input(), _cfg("a"))
    graph.invoke(_input(), _cfg("b"))
    s = f'"{schema}"'
    # thread b's latest checkpoint gets thread a's ciphertext of the same checkpoint id slot
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f"UPDATE {s}.checkpoints b SET checkpoint = a.checkpoint, type = a.type "
            f"FROM {s}.checkpoints a WHERE b.thread_id = 'b' AND a.thread_id = 'a' "
            f"AND b.checkpoint_id = (SELECT max(checkpoint_id) FROM {s}.checkpoints "
            "WHERE thread_id = 'b') AND a.checkpoint_id = (SELECT max(checkpoint_id) "
            f"FROM {s}.checkpoints WHERE thread_id = 'a')"
        )
    with pytest.raises(DecryptionError) as info:
        esaver.get_tuple(_cfg("b"))
    assert "thread id 'b'" in str(info.value) and "column checkpoint" in str(info.value)
    assert "moved here from another row" in str(info.value)
    # a blob moved to another version of the same channel of the same thread
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f"UPDATE {s}.blobs x SET blob = y.blob, type = y.type FROM {s}.blobs y "
            "WHERE x.thread_id = 'a' AND y.thread_id = 'a' AND x.channel = 'messages' "
            "AND y.channel = 'messages' AND x.version = (SELECT max(version) FROM "
            f"{s}.blobs WHERE thread_id = 'a' AND channel = 'messages') AND y.version = "
            f"(SELECT min(version) FROM {s}.blobs WHERE thread_id = 'a' "
            "AND channel = 'messages')"
        )
    with pytest.raises(DecryptionError, match="channel 'messages'"):
        esaver.get_tuple(_cfg("a"))


@pytest.mark.parametrize("table", ["checkpoints", "blobs", "writes"])
def test_tampered_byte_refused(dsn: str, schema: str, esaver: ActionSaver, table: str) -> None:
    graph = _graph(3).compile(checkpointer=esaver)
    graph.invoke(_input(), _cfg("t"))
    s = f'"{schema}"'
    flip = "set_byte({c}, length({c}) - 1, get_byte({c}, length({c}) - 1) # 1)"
    stmt = {
        "checkpoints": f"UPDATE {s}.checkpoints SET checkpoint = "
        + flip.format(c="checkpoint")
        + f" WHERE checkpoint_id = (SELECT max(checkpoint_id) FROM {s}.checkpoints)",
        "blobs": f"UPDATE {s}.blobs SET blob = "
        + flip.format(c="blob")
        + " WHERE channel = 'messages' AND version = "
        f"(SELECT max(version) FROM {s}.blobs WHERE channel = 'messages')",
    }.get(table)
    with psycopg.connect(dsn, autocommit=True) as conn:
        if stmt is not None:
            assert conn.execute(stmt).rowcount == 1
        else:  # a write stored in full (not a reference to a delta)
            assert _change_write(conn, schema, "e:", lambda b: b[:-1] + bytes([b[-1] ^ 1]))
    with pytest.raises(DecryptionError, match=f"table {schema}.{table}"):
        if table == "writes":  # the latest writes belong to the checkpoint before the last
            list(esaver.list(_cfg("t")))
        else:
            esaver.get_tuple(_cfg("t"))


def _change_write(conn: psycopg.Connection[Any], schema: str, kind: str, change: Any) -> bool:
    """Change the first write of type ``kind...`` (``e:``: in full, ``ref``: a reference)."""
    s = f'"{schema}"'
    rows = conn.execute(
        f"SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, types, blobs "
        f"FROM {s}.writes ORDER BY checkpoint_id DESC"
    ).fetchall()
    for *key, types, blobs in rows:
        for i, t in enumerate(types):
            if t.startswith(kind):
                blobs[i] = change(bytes(blobs[i]))
                conn.execute(
                    f"UPDATE {s}.writes SET blobs = %s WHERE thread_id = %s AND "
                    "checkpoint_ns = %s AND checkpoint_id = %s AND task_id = %s AND idx = %s",
                    (blobs, *key),
                )
                return True
    return False


def test_redirected_delta_reference_refused(dsn: str, schema: str, esaver: ActionSaver) -> None:
    """A write equal to a list delta is a reference to it; pointing it elsewhere fails."""
    _graph(3).compile(checkpointer=esaver).invoke(_input(), _cfg("t"))
    versions = [
        v
        for (v,) in fetch(
            dsn,
            f'SELECT version FROM "{schema}".blobs WHERE channel = %s ORDER BY version',
            ("items",),
        )
    ]
    assert len(versions) >= 3
    with psycopg.connect(dsn, autocommit=True) as conn:
        # a reference to the first delta now names another one of the same channel
        assert _change_write(
            conn,
            schema,
            "ref",
            lambda b: (
                versions[1].encode() + b[25:]
                if b[:25] != versions[1].encode()
                else versions[2].encode() + b[25:]
            ),
        )
    with pytest.raises(DecryptionError, match=r"table .*writes.*does not authenticate"):
        list(esaver.list(_cfg("t")))


def test_plaintext_refused_unless_allowed(dsn: str, schema: str) -> None:
    with _saver(dsn, schema, None) as plain:
        plain.setup()
        _graph(3).compile(checkpointer=plain).invoke(_input(), _cfg("p"))
    with _saver(dsn, schema, KeyRing({"k1": K1})) as strict:
        with pytest.raises(DecryptionError, match="plain text") as info:
            strict.get_tuple(_cfg("p"))
        assert "encrypt-existing" in str(info.value)
        with pytest.raises(DecryptionError, match="plain text"):
            list(strict.list(_cfg("p")))
    with _saver(dsn, schema, KeyRing({"k1": K1}, allow_plaintext=True)) as lenient:
        got = lenient.get_tuple(_cfg("p"))
        assert got is not None and got.checkpoint["channel_values"]["n"] == 3
        assert len(list(lenient.list(_cfg("p")))) == 5
        # new rows of a thread being migrated are sealed; the old ones still read
        _graph(5).compile(checkpointer=lenient).invoke(None, _cfg("p"))
        assert lenient.get_tuple(_cfg("p")).checkpoint["channel_values"]["n"] == 3  # type: ignore[union-attr]


def test_wrong_or_missing_key_is_a_clear_error(dsn: str, schema: str, esaver: ActionSaver) -> None:
    _graph(2).compile(checkpointer=esaver).invoke(_input(), _cfg("w"))
    with _saver(dsn, schema, KeyRing({"k1": os.urandom(32)})) as wrong:
        with pytest.raises(DecryptionError, match="does not authenticate with key 'k1'") as info:
            wrong.get_tuple(_cfg("w"))
        assert "a wrong key" in str(info.value) and "thread id 'w'" in str(info.value)
    missing_key = "key 'k1', which the key ring does not have"
    with (
        _saver(dsn, schema, KeyRing({"k9": K1})) as missing,
        pytest.raises(DecryptionError, match=missing_key),
    ):
        missing.get_tuple(_cfg("w"))
    with (
        _saver(dsn, schema, None) as none,
        pytest.raises(DecryptionError, match="encrypted; pass encryption="),
    ):
        none.get_tuple(_cfg("w"))


# ------------------------------------------------------------------ migration, rotation


def _read_all(saver: ActionSaver, threads: list[str]) -> dict[str, int]:
    out = {}
    for t in threads:
        tuples = list(saver.list(_cfg(t)))
        assert tuples, t
        latest = saver.get_tuple(_cfg(t))
        assert latest is not None
        values = latest.checkpoint["channel_values"]
        assert len(values["items"]) == values["n"]
        out[t] = values["n"]
        saver.list_actions(t)  # action rows open too
    return out


def test_encrypt_existing_then_strict(dsn: str, schema: str) -> None:
    threads = [f"m{i}" for i in range(4)]
    with _saver(dsn, schema, None) as plain:
        plain.setup()
        graph = _graph(4).compile(checkpointer=plain)
        for t in threads:
            graph.invoke(_input(), _cfg(t))
        plain.writer.flush()
    ring = KeyRing({"k1": K1})
    with psycopg.connect(dsn, autocommit=True) as conn:
        before = pending_reencryption(conn, ring, schema)
        assert all(before.values()), before
        result = reencrypt(conn, ring, schema, batch_size=7)
    assert result.done and result.batches > 4, result
    assert not [v for vs in _raw_rows(dsn, schema).values() for v in vs if MARK.encode() in v]
    with _saver(dsn, schema, ring) as strict:
        assert _read_all(strict, threads) == dict.fromkeys(threads, 4)


def test_rotation_while_a_writer_runs(dsn: str, schema: str) -> None:
    old = KeyRing({"k1": K1})
    both = KeyRing({"k1": K1, "k2": K2}, active="k2")
    threads = [f"r{i}" for i in range(6)]
    with _saver(dsn, schema, old) as s1:
        s1.setup()
        graph = _graph(3).compile(checkpointer=s1)
        for t in threads:
            graph.invoke(_input(), _cfg(t))
    stop, started = threading.Event(), threading.Event()
    written: list[str] = []
    errors: list[BaseException] = []

    def writer() -> None:
        # the new deployment: sealing with k2, reading k1 rows meanwhile
        try:
            with _saver(dsn, schema, both) as s2:
                graph = _graph(40).compile(checkpointer=s2)
                i = 0
                while not stop.is_set() or i < 3:
                    t = threads[i % len(threads)]
                    graph.invoke(None, _cfg(t))  # continues a k1 thread under k2
                    fresh = f"w{i}"
                    _graph(3).compile(checkpointer=s2).invoke(_input(), _cfg(fresh))
                    written.append(fresh)
                    started.set()
                    i += 1
        except Exception as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
        finally:
            started.set()

    runner = threading.Thread(target=writer)
    runner.start()
    try:
        started.wait(120)  # the writer is running when rotation starts
        with psycopg.connect(dsn, autocommit=True) as conn:
            result = reencrypt(conn, both, schema, batch_size=5)
    finally:
        stop.set()
        runner.join(120)
    assert not errors, errors
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert pending_reencryption(conn, both, schema) == dict.fromkeys(result.remaining, 0)
    # k1 is gone: every row (rotated, written meanwhile, or both) reads with k2 alone
    with _saver(dsn, schema, KeyRing({"k2": K2})) as only_new:
        counts = _read_all(only_new, threads + written)
    assert all(counts[t] >= 3 for t in threads)
    assert all(counts[w] == 3 for w in written)


def test_cli_rotate_key(dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with _saver(dsn, schema, KeyRing({"k1": K1})) as s1:
        s1.setup()
        _graph(3).compile(checkpointer=s1).invoke(_input(), _cfg("c"))
    monkeypatch.setenv("T_K1", K1.hex())
    monkeypatch.setenv("T_K2", base64.b64encode(K2).decode())
    args = ["--dsn", dsn, "--schema", schema, "rotate-key", "--key", "k1=env:T_K1"]
    res = CliRunner().invoke(app, [*args, "--key", "k2=env:T_K2", "--active", "k2"])
    assert res.exit_code == 0, res.output
    assert "done: every value is sealed with key 'k2'" in res.output
    with _saver(dsn, schema, KeyRing({"k2": K2})) as s2:
        assert _read_all(s2, ["c"]) == {"c": 3}
    res = CliRunner().invoke(app, [*args[:4], "encrypt-existing", "--key", "bad"])
    assert res.exit_code == 1 and "ID=env:NAME" in res.output


def test_copy_thread_reseals(esaver: ActionSaver) -> None:
    _graph(3).compile(checkpointer=esaver).invoke(_input(), _cfg("src"))
    target = f"dst-{uuid.uuid4().hex[:6]}"
    esaver.copy_thread("src", target)
    got = esaver.get_tuple(_cfg(target))
    assert got is not None and got.checkpoint["channel_values"]["n"] == 3
    assert len(list(esaver.list(_cfg(target)))) == len(list(esaver.list(_cfg("src"))))


def test_similarity_search_on_encrypted_actions(pg18_dsn: str) -> None:
    from langgraph_actionckpt.ops.vector import VectorIndex

    from .test_vector import ERRORS, HashEmbeddings, record_tool_calls

    schema = new_schema_name()
    try:
        with _saver(pg18_dsn, schema, KeyRing({"k1": K1})) as saver:
            saver.setup()
            record_tool_calls(saver)
            raw = fetch(pg18_dsn, f'SELECT error::text FROM "{schema}".actions')
            assert not [r for (r,) in raw if r and any(m in r for m in ERRORS.values())]
            index = VectorIndex(saver, None, HashEmbeddings())  # the saver's key ring
            index.ensure()
            assert index.embed_pending() == 8
            hits = index.similar_actions("rate limit 429", k=2, status="failed")
            assert {r.thread_id for r, _ in hits} == {"t-429a", "t-429b"}
            assert {r.error["message"] for r, _ in hits} == {
                ERRORS["t-429a"],
                ERRORS["t-429b"],
            }
    finally:
        drop_schema(pg18_dsn, schema)


def test_reseal_never_overwrites_a_row_changed_after_it_was_read(dsn: str, schema: str) -> None:
    """The plan is run by hand: a writer changes a row between the batch's read and its update."""
    from langgraph_actionckpt.checkpoints.codec import Codec
    from langgraph_actionckpt.checkpoints.reseal import plan_reseal_batch
    from langgraph_actionckpt.checkpoints.setup import default_serde

    with _saver(dsn, schema, KeyRing({"k1": K1})) as s1:
        s1.setup()
        _graph(2).compile(checkpointer=s1).invoke(_input(), _cfg("x"))
    both = KeyRing({"k1": K1, "k2": K2}, active="k2")
    codec = Codec(default_serde(), schema=schema, keyring=both)
    plan = plan_reseal_batch(codec, "checkpoints", None, 100)
    newest = f'SELECT max(checkpoint_id) FROM "{schema}".checkpoints'
    with psycopg.connect(dsn, autocommit=True) as conn, psycopg.connect(dsn) as other:
        op, reply, changed_by_writer = next(plan), None, None
        try:
            while True:
                if op.fetch in ("begin", "commit"):
                    conn.execute(op.fetch.upper())
                    reply = None
                else:
                    cur = conn.execute(op.query, op.params)
                    reply = cur.fetchone() if op.fetch == "one" else cur.fetchall()
                    if changed_by_writer is None:  # the batch has read its rows: a writer acts
                        changed_by_writer = other.execute(
                            f'UPDATE "{schema}".checkpoints SET checkpoint = checkpoint || '
                            f"'\\x00'::bytea WHERE checkpoint_id = ({newest}) RETURNING checkpoint"
                        ).fetchone()[0]
                        other.commit()
                op = plan.send(reply)
        except StopIteration as done:
            batch = done.value
    assert batch.seen >= 3 and batch.skipped == 1 and batch.changed == batch.seen - 1
    kept = fetch(
        dsn, f'SELECT checkpoint FROM "{schema}".checkpoints WHERE checkpoint_id = ({newest})'
    )
    assert kept[0][0] == changed_by_writer  # the writer's bytes, not the batch's
