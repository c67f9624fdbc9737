"""The saver options: declared once (SaverOptions), taken alike by both savers."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from langgraph_actionckpt import ActionSaver, AsyncActionSaver, SaverOptions
from langgraph_actionckpt._config import DEFAULTS, FIELDS
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[1]
# constructor parameters that are not options: the connection, the options
# object itself, and the private reconnect hook from_conn_string passes
NOT_OPTIONS = {"self", "conn", "options", "_reconnect"}


@pytest.mark.parametrize("cls", [ActionSaver, AsyncActionSaver])
def test_saver_keywords_are_the_option_fields_with_their_defaults(cls: type) -> None:
    params = inspect.signature(cls.__init__).parameters
    names = [n for n in params if n not in NOT_OPTIONS]
    assert names == list(FIELDS)
    for name in FIELDS:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert params[name].default == getattr(DEFAULTS, name), name


def test_both_savers_take_the_same_arguments() -> None:
    for method in ("__init__", "from_conn_string"):
        sync = inspect.signature(getattr(ActionSaver, method)).parameters
        async_ = inspect.signature(getattr(AsyncActionSaver, method)).parameters
        assert list(sync) == list(async_), method
        assert [p.default for p in sync.values()] == [p.default for p in async_.values()]


def test_every_option_is_documented() -> None:
    doc = inspect.getdoc(SaverOptions) or ""
    for name in FIELDS:
        assert f"\n    {name}: " in doc, name
    sync_doc = " ".join((inspect.getdoc(ActionSaver) or "").split())
    for name in (*FIELDS, "conn", "options"):
        assert name in sync_doc, name
    async_doc = inspect.getdoc(AsyncActionSaver) or ""
    assert "conn:" in async_doc and "options:" in async_doc
    assert "every other field of\n        :class:`~langgraph_actionckpt.SaverOptions`" in async_doc


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lease": "sometimes"}, "lease must be"),
        ({"schema": 'x"; DROP TABLE y; --'}, "schema must match"),
        ({"schema": "a" * 64}, "schema must match"),
        ({"compress_min": -1}, "compress_min"),
        ({"writer_batch_size": 0}, "writer_batch_size"),
        ({"durable_timeout": -0.5}, "durable_timeout"),
    ],
)
def test_options_are_checked_when_made(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        SaverOptions(**kwargs)  # type: ignore[arg-type]


def test_options_are_frozen_and_keyword_only() -> None:
    opts = SaverOptions(schema="s1", lease="off")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.schema = "s2"  # type: ignore[misc]
    with pytest.raises(TypeError):
        SaverOptions("s1")  # type: ignore[misc]
    assert dataclasses.replace(opts, replay=False).schema == "s1"


def test_options_object_or_keywords_not_both() -> None:
    given = SaverOptions(schema="s1")
    keywords = {name: getattr(DEFAULTS, name) for name in FIELDS}
    assert SaverOptions.of(given, keywords) is given
    assert SaverOptions.of(None, {**keywords, "replay": False}).replay is False
    with pytest.raises(ConfigurationError, match="not both"):
        SaverOptions.of(given, {**keywords, "replay": False})


def test_savers_use_the_options_they_are_given(dsn: str, schema: str) -> None:
    policy = DeltaPolicy(min_chain=7)
    opts = SaverOptions(
        schema=schema, lease="off", record_nodes=False, delta_policy=policy, compress_min=0
    )
    with psycopg.Connection.connect(dsn, autocommit=True) as conn:
        by_object = ActionSaver(conn, options=opts)
        by_keywords = ActionSaver(
            conn,
            schema=schema,
            lease="off",
            record_nodes=False,
            delta_policy=policy,
            compress_min=0,
        )
        for saver in (by_object, by_keywords):
            assert saver.options == opts
            assert (saver.schema, saver.lease_mode, saver.record_nodes) == (schema, "off", False)
            assert saver.delta_policy is policy and saver.compress_min == 0
            saver.close()
        with pytest.raises(ConfigurationError, match="not both"):
            ActionSaver(conn, options=opts, replay=False)


async def test_from_conn_string_passes_options_through(dsn: str, schema: str) -> None:
    opts = SaverOptions(schema=schema, group_commit=False, writer_batch_size=3)
    async with AsyncActionSaver.from_conn_string(dsn, options=opts, pool_size=2) as saver:
        assert saver.options is opts and saver.writer.batch_size == 3
        assert not hasattr(saver.driver, "run_grouped")  # group commit off: a plain driver
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=2) as saver:
        assert hasattr(saver.driver, "run_grouped")  # on by default with a pool


def test_generated_sync_code_is_current() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "gen_sync.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
