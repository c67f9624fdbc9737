"""Bad input to a saver: a typed error before anything is acknowledged, or stored faithfully.

Found by the service fuzz test; the gRPC service refuses these inputs itself, so
these tests call the savers directly (sync and async, on a real server).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from langgraph_actionckpt import (
    ActionRecord,
    ActionSaver,
    AsyncActionSaver,
    ConfigurationError,
    SerializationError,
)

BAD_IDS = ["c\x00nul", "c\udcfflone"]


@pytest.fixture(params=["sync", "async"])
async def any_saver(
    request: pytest.FixtureRequest, dsn: str, schema: str
) -> AsyncIterator[ActionSaver | AsyncActionSaver]:
    """The sync or the async saver on a fresh schema."""
    if request.param == "sync":
        with ActionSaver.from_conn_string(dsn, schema=schema) as s:
            s.setup()
            yield s
    else:
        async with AsyncActionSaver.from_conn_string(dsn, schema=schema) as a:
            await a.setup()
            yield a


def _name(saver: Any, name: str) -> str:
    return "a" + name if type(saver).__name__.startswith("Async") else name


async def run(saver: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    result = getattr(saver, _name(saver, name))(*args, **kwargs)
    return await result if inspect.isawaitable(result) else result


def _config(thread: str, checkpoint_id: str | None = None) -> Any:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_put_writes_with_unstorable_checkpoint_id_is_refused_at_once(
    any_saver: Any, bad: str
) -> None:
    with pytest.raises(ConfigurationError, match="checkpoint id"):
        await run(any_saver, "put_writes", _config("t", bad), [("ch", 1)], "task")
    await run(any_saver, "flush_writes")  # nothing was held, so nothing is dropped later
    await run(any_saver, "put_writes", _config("t", "c1"), [("ch", 1)], "task")
    await run(any_saver, "flush_writes")


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_put_and_reads_with_unstorable_checkpoint_id_are_refused(
    any_saver: Any, bad: str
) -> None:
    checkpoint = empty_checkpoint()
    checkpoint["id"] = bad
    with pytest.raises(ConfigurationError, match="checkpoint id"):
        await run(any_saver, "put", _config("t"), checkpoint, {}, {})
    with pytest.raises(ConfigurationError, match="checkpoint id"):
        await run(any_saver, "get_tuple", _config("t", bad))


async def test_put_without_channel_versions_is_a_serialization_error(any_saver: Any) -> None:
    checkpoint: Any = dict(empty_checkpoint())
    del checkpoint["channel_versions"]
    with pytest.raises(SerializationError, match="channel_versions"):
        await run(any_saver, "put", _config("t"), checkpoint, {}, {})
    assert await run(any_saver, "get_tuple", _config("t")) is None


async def test_list_filters_holding_nul_find_the_row_stored_with_it(any_saver: Any) -> None:
    record = ActionRecord(
        thread_id="t",
        action_id="a",
        action_type="tool\x00call",
        status="completed",
        node="n\x00ode",
        run_id="r\x00un",
        task_id="t\udcffask",
    )
    await run(any_saver, "record_actions", [record])
    for key in ("action_type", "node", "run_id", "task_id"):
        found = await run(any_saver, "list_actions", "t", **{key: getattr(record, key)})
        assert [r.action_id for r in found] == ["a"], key
    # a status holding NUL matches no row (statuses are a fixed set), without a raw error
    assert await run(any_saver, "list_actions", "t", status="done\x00") == []
    assert await run(any_saver, "last_action", "t", status=["done\x00"]) is None
    last = await run(any_saver, "last_action", "t")
    assert last is not None and last.action_type == "tool\x00call"


async def test_record_with_unknown_status_is_refused_and_blocks_no_other(any_saver: Any) -> None:
    good = ActionRecord(thread_id="t", action_id="good", action_type="tool", status="completed")
    bad = ActionRecord(thread_id="t", action_id="bad", action_type="tool", status="done\x00")
    with pytest.raises(ConfigurationError, match="unknown status"):
        await run(any_saver, "record_actions", [good, bad])
    await run(any_saver, "record_actions", [good])
    assert [r.action_id for r in await run(any_saver, "list_actions", "t")] == ["good"]


@pytest.mark.parametrize("method", ["copy_thread", "fork_at_action"])
async def test_copy_and_fork_to_a_3000_byte_id_is_refused(any_saver: Any, method: str) -> None:
    target = "x" * 3000
    with pytest.raises(ConfigurationError, match="3000 bytes"):
        if method == "copy_thread":
            await run(any_saver, method, "t", target)
        else:
            await run(any_saver, method, "t", "a", output="x", new_thread_id=target)


async def test_record_with_a_non_string_text_field_is_a_typed_error(any_saver: Any) -> None:
    record = ActionRecord(thread_id="t", action_id="a", action_type=123)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="must be a string, not int"):
        await run(any_saver, "record_actions", [record])
