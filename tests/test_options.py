"""The saver options: declared once (SaverOptions and its groups), taken alike by every saver."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from langgraph_actionckpt import (
    ActionSaver,
    AsyncActionSaver,
    AsyncRemoteActionSaver,
    LeaseOptions,
    Limits,
    RemoteActionSaver,
    SaverOptions,
    WriterOptions,
)
from langgraph_actionckpt._config import (
    DEFAULTS,
    FIELDS,
    FLAT,
    GROUPS,
    REMOTE_DURABLE_TIMEOUT,
    REMOTE_LEASE_MODE,
    REMOTE_LEASE_TTL,
)
from langgraph_actionckpt.checkpoints.blobs import DeltaPolicy
from langgraph_actionckpt.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[1]
# constructor parameters that are not options: the connection, the options
# object itself, the private reconnect hook from_conn_string passes, and the
# grouped options' flat keywords (``**flat``)
NOT_OPTIONS = {"self", "conn", "options", "_reconnect", "flat"}
SAVERS = [ActionSaver, AsyncActionSaver]
# a value other than the default for every grouped option, under its flat name
CHANGED: dict[str, object] = {
    "lease": "error",
    "lease_timeout": 7.0,
    "lease_ttl": 60.0,
    "defer_writes": False,
    "durable_writes": True,
    "durable_timeout": 9.0,
    "writer_batch_size": 1000,
    "writer_interval": 0.2,
    "group_commit": False,
    "io_timeout": 12.0,
    "max_load_bytes": 1 << 20,
    "compress_min": 0,
    "delta_cache_bytes": 1 << 10,
}


def grouped(values: dict[str, object]) -> dict[str, object]:
    """The same options, spelled with the groups (``lease_ttl`` -> ``lease=LeaseOptions(ttl=)``)."""
    out: dict[str, object] = {}
    for group, (kind, fields) in GROUPS.items():
        given = {field: values[flat] for field, flat in fields.items() if flat in values}
        if given:
            out[group] = kind(**given)
    return out


@pytest.mark.parametrize("cls", SAVERS)
def test_saver_keywords_are_the_ungrouped_fields_and_the_groups(cls: type) -> None:
    params = inspect.signature(cls.__init__).parameters
    names = {n for n in params if n not in NOT_OPTIONS}
    assert names == (set(FIELDS) - set(FLAT)) | set(GROUPS)
    for name in names:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert params[name].default == getattr(DEFAULTS, name, None), name
    assert params["flat"].kind is inspect.Parameter.VAR_KEYWORD


def test_the_groups_defaults_are_the_savers() -> None:
    for group, (kind, fields) in GROUPS.items():
        made = kind()
        for field, flat in fields.items():
            value = getattr(made, field)
            # None: the saver's default (a direct and a remote saver differ there)
            assert value is None or value == getattr(DEFAULTS, flat), (group, field)
    assert (LeaseOptions().ttl, WriterOptions().durable_timeout) == (None, None)


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


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: LeaseOptions(mode="sometimes"), r"LeaseOptions\.mode must be"),
        (lambda: LeaseOptions(ttl=0), r"LeaseOptions\.ttl must be > 0"),
        (lambda: LeaseOptions(timeout=-1), r"LeaseOptions\.timeout must be >= 0"),
        (lambda: WriterOptions(batch_size=0), r"WriterOptions\.batch_size must be >= 1"),
        (lambda: WriterOptions(interval=-1), r"WriterOptions\.interval must be >= 0"),
        (lambda: Limits(max_load_bytes=0), r"Limits\.max_load_bytes must be >= 1"),
        (lambda: Limits(delta_cache_bytes=-1), r"Limits\.delta_cache_bytes must be >= 0"),
    ],
)
def test_groups_are_checked_when_made(make: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        make()  # type: ignore[operator]


def test_groups_are_frozen_and_keyword_only() -> None:
    for kind in (LeaseOptions, WriterOptions, Limits):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(kind(), dataclasses.fields(kind)[0].name, None)
        with pytest.raises(TypeError):
            kind(1)


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
    keywords = {
        "self": object(),
        **{n: v for n, v in keywords.items() if n not in FLAT},
        "lease": DEFAULTS.lease,
        "writer": None,
        "limits": None,
    }
    assert SaverOptions.of(given, keywords, {}) is given
    assert SaverOptions.of(None, {**keywords, "replay": False}, {}).replay is False
    for changed, flat in [
        ({"replay": False}, {}),
        ({}, {"lease_ttl": 5.0}),
        ({"writer": WriterOptions()}, {}),
    ]:
        with pytest.raises(ConfigurationError, match="not both"):
            SaverOptions.of(given, {**keywords, **changed}, flat)


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
    writer = WriterOptions(group_commit=False, batch_size=3)
    async with AsyncActionSaver.from_conn_string(
        dsn, schema=schema, writer=writer, pool_size=2
    ) as saver:
        assert saver.options == opts and saver.writer.batch_size == 3
        assert not hasattr(saver.driver, "run_grouped")
    async with AsyncActionSaver.from_conn_string(dsn, schema=schema, pool_size=2) as saver:
        assert hasattr(saver.driver, "run_grouped")  # on by default with a pool


@asynccontextmanager
async def saver_of(cls: type, dsn: str, **kwargs: Any) -> AsyncIterator[Any]:
    """A direct saver of ``cls`` on one connection, closed at the end."""
    if cls is ActionSaver:
        with psycopg.Connection.connect(dsn, autocommit=True) as conn:
            saver = ActionSaver(conn, **kwargs)
            yield saver
            saver.close()
    else:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
            asaver = AsyncActionSaver(aconn, **kwargs)
            yield asaver
            await asaver.aclose()


@pytest.mark.parametrize("cls", SAVERS)
async def test_grouped_and_flat_spellings_are_the_same_options(
    cls: type, dsn: str, schema: str
) -> None:
    async with (
        saver_of(cls, dsn, schema=schema, **CHANGED) as flat,
        saver_of(cls, dsn, schema=schema, **grouped(CHANGED)) as by_groups,
    ):
        assert flat.options == by_groups.options == SaverOptions(schema=schema, **CHANGED)  # type: ignore[arg-type]
        assert by_groups.lease_ttl == 60.0 and by_groups.writer.batch_size == 1000
    # a mode alone, the spelling before groups, and a group without ttl: the direct default
    async with saver_of(cls, dsn, schema=schema, lease="off") as by_mode:
        assert (by_mode.lease_mode, by_mode.lease_ttl) == ("off", DEFAULTS.lease_ttl)
    async with saver_of(cls, dsn, schema=schema, lease=LeaseOptions(mode="error")) as by_group:
        assert (by_group.lease_mode, by_group.lease_ttl) == ("error", DEFAULTS.lease_ttl)


@pytest.mark.parametrize("cls", SAVERS)
@pytest.mark.parametrize("name", [n for n in FLAT if n != "lease"])
def test_a_group_and_its_flat_keyword_together_are_refused(cls: type, name: str) -> None:
    group = next(g for g, (_, fields) in GROUPS.items() if name in fields.values())
    kind, fields = GROUPS[group]
    field = next(f for f, n in fields.items() if n == name)
    both = {group: kind(), name: CHANGED[name]}
    # refused before the connection is used
    with pytest.raises(ConfigurationError) as info:
        cls(None, **both)
    message = str(info.value)
    assert f"{name}=" in message and f"{group}={kind.__name__}({field}=...)" in message


@pytest.mark.parametrize("cls", SAVERS)
@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("lease_tll", "lease=LeaseOptions(ttl=...) (or lease_ttl=)"),
        ("ttl", "lease=LeaseOptions(ttl=...)"),
        ("batch_size", "writer=WriterOptions(batch_size=...)"),
        ("writer_batchsize", "writer=WriterOptions(batch_size=...) (or writer_batch_size=)"),
        ("io_timout", "limits=Limits(io_timeout=...) (or io_timeout=)"),
        ("shema", "schema="),
        ("lease_mode", "lease=LeaseOptions(mode=...) (or lease=)"),
    ],
)
def test_an_unknown_keyword_names_the_closest_option(cls: type, name: str, closest: str) -> None:
    with pytest.raises(TypeError, match=re.escape(f"{name!r}; did you mean {closest}")):
        cls(None, **{name: 1})
    with pytest.raises(ConfigurationError, match="writer= takes a WriterOptions"):
        cls(None, writer={"batch_size": 3})


# the options direct and remote savers share, with their names on RemoteCore
SHARED = {
    "lease_timeout": "lease_timeout",
    "defer_writes": "defer_writes",
    "writer_interval": "writer_interval",
    "writer_batch_size": "writer_batch_size",
    "replay": "replay",
    "durable_timeout": "durable_timeout",
    "lease": "lease_mode",
}
# where their defaults differ on purpose (see their docstrings in ``_config``)
REMOTE_OWN = {"lease": REMOTE_LEASE_MODE, "durable_timeout": REMOTE_DURABLE_TIMEOUT}


@asynccontextmanager
async def remote_of(cls: type, **kwargs: Any) -> AsyncIterator[Any]:
    """A remote saver of ``cls`` (nothing listens at its target: it is never called)."""
    saver = cls("127.0.0.1:9", **kwargs)
    yield saver
    if cls is RemoteActionSaver:
        saver.close()
    else:
        await saver.aclose()


REMOTES = [RemoteActionSaver, AsyncRemoteActionSaver]


@pytest.mark.parametrize("cls", REMOTES)
async def test_remote_and_direct_defaults_are_the_same_where_the_meaning_is(cls: type) -> None:
    async with remote_of(cls) as saver:
        remote = saver.remote
        for name, attribute in SHARED.items():
            expected = REMOTE_OWN.get(name, getattr(DEFAULTS, name))
            assert getattr(remote, attribute) == expected, name
        assert remote.lease_keeper is None  # "off"
        assert saver.writer.batch_size == DEFAULTS.writer_batch_size
    async with remote_of(cls, lease="wait") as by_mode:
        assert by_mode.remote.lease_keeper.ttl == REMOTE_LEASE_TTL
    async with remote_of(cls, lease=LeaseOptions()) as by_group:
        assert by_group.remote.lease_keeper.ttl == REMOTE_LEASE_TTL
        assert by_group.remote.lease_timeout == DEFAULTS.lease_timeout


@pytest.mark.parametrize("cls", REMOTES)
async def test_remote_grouped_and_flat_spellings_are_the_same(cls: type) -> None:
    values = {n: CHANGED[n] for n in SHARED if n in CHANGED}
    values.update(lease="wait", lease_ttl=60.0)
    async with (
        remote_of(cls, **values) as flat,
        remote_of(cls, **grouped(values)) as by_groups,
    ):
        for saver in (flat, by_groups):
            remote = saver.remote
            got = {n: getattr(remote, a) for n, a in SHARED.items() if n != "replay"}
            assert got == {n: values[n] for n in got}
            assert remote.lease_keeper.ttl == 60.0 and saver.writer.batch_size == 1000


@pytest.mark.parametrize("cls", REMOTES)
async def test_remote_refuses_what_only_a_direct_saver_decides(cls: type) -> None:
    for kwargs in (
        {"writer": WriterOptions(durable_writes=True)},
        {"group_commit": False},
    ):
        with pytest.raises(ConfigurationError, match="service's own saver"):
            cls("127.0.0.1:9", **kwargs)
    with pytest.raises(ConfigurationError, match=r"lease_ttl= and lease=LeaseOptions"):
        cls("127.0.0.1:9", lease=LeaseOptions(), lease_ttl=5)
    with pytest.raises(TypeError, match="did you mean timeout="):
        cls("127.0.0.1:9", timout=5)
    for direct_only in ("io_timeout", "schema", "limits"):
        with pytest.raises(TypeError, match="an option of the direct savers"):
            cls("127.0.0.1:9", **{direct_only: 5})


def test_generated_sync_code_is_current() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "gen_sync.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
