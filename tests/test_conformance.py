"""langgraph-checkpoint-conformance against both savers on both servers.

The conformance runner drives the async API. ``AsyncActionSaver`` is used as
is; ``ActionSaver`` goes through :class:`SyncOnlyAdapter`, which answers every
async call by calling the *sync* method directly, so the sync code path is the
one under test (not ActionSaver's own thread-offloading async twins).
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import CapabilityReport

from langgraph_actionckpt import ActionSaver, AsyncActionSaver
from langgraph_actionckpt.crypto import KeyRing

from .conftest import drop_schema, new_schema_name


class SyncOnlyAdapter(BaseCheckpointSaver[str]):
    """Exposes a sync saver through the async interface the conformance suite calls."""

    def __init__(self, inner: ActionSaver) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner

    def get_next_version(self, current: Any, channel: None = None) -> str:
        return self.inner.get_next_version(current, channel)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.inner.get_tuple(config)

    async def alist(  # type: ignore[override]
        self, config: RunnableConfig | None, **kwargs: Any
    ) -> AsyncIterator[CheckpointTuple]:
        for item in self.inner.list(config, **kwargs):
            yield item

    async def aput(
        self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> RunnableConfig:
        return self.inner.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.inner.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.inner.delete_thread(thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.inner.delete_for_runs(run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.inner.copy_thread(source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.inner.prune(thread_ids, strategy=strategy)


def _summary(report: CapabilityReport) -> tuple[int, int, list[str]]:
    passed = sum(r.tests_passed for r in report.results.values())
    failed = sum(r.tests_failed for r in report.results.values())
    failures = [f"{cap}: {f}" for cap, r in report.results.items() for f in r.failures]
    return passed, failed, failures


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
@pytest.mark.parametrize("flavour", ["async", "sync"])
async def test_conformance_all_capabilities(dsn: str, flavour: str, encrypted: bool) -> None:
    schemas: list[str] = []
    # encryption on: every value sealed (AES-256-GCM, bound to its row), plain text refused
    options: dict[str, Any] = (
        {"encryption": KeyRing({"k1": os.urandom(32), "k2": os.urandom(32)}, active="k2")}
        if encrypted
        else {}
    )

    async def factory() -> AsyncGenerator[BaseCheckpointSaver[Any], None]:
        schema = new_schema_name()
        schemas.append(schema)
        if flavour == "async":
            async with AsyncActionSaver.from_conn_string(dsn, schema=schema, **options) as asaver:
                await asaver.setup()
                yield asaver
        else:
            with ActionSaver.from_conn_string(dsn, schema=schema, **options) as saver:
                saver.setup()
                yield SyncOnlyAdapter(saver)

    name = f"ActionSaver-{flavour}" + ("-encrypted" if encrypted else "")
    registered = checkpointer_test(name=name)(factory)
    try:
        report = await validate(registered)
    finally:
        for schema in schemas:
            drop_schema(dsn, schema)
    passed, failed, failures = _summary(report)
    detected = [cap for cap, r in report.results.items() if r.detected]
    print(f"\n{name}: {passed}/{passed + failed} passed, capabilities {detected}")
    assert failures == []
    assert len(detected) == 8, detected
    assert all(r.passed is True for r in report.results.values())
    assert (passed, failed) == (81, 0)
