"""langgraph-checkpoint-conformance through the checkpoint service, both remote savers.

The sync ``RemoteActionSaver`` goes through ``SyncOnlyAdapter`` (its sync
methods under test, as in ``test_conformance.py``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate

from langgraph_actionckpt import AsyncRemoteActionSaver, RemoteActionSaver

from .service_fixtures import Service, running
from .test_conformance import SyncOnlyAdapter, _summary


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import SERVERS, server_dsn

    yield from running(server_dsn(SERVERS[0]), tmp_path_factory.mktemp("svc"), n=400)


@pytest.mark.parametrize("flavour", ["async", "sync"])
async def test_conformance_through_the_service(service: Service, flavour: str) -> None:
    async def factory() -> AsyncGenerator[BaseCheckpointSaver[Any], None]:
        token, _, _ = service.tenant()  # a fresh tenant: a fresh schema
        if flavour == "async":
            async with AsyncRemoteActionSaver.from_target(service.target, token) as asaver:
                await asaver.setup()
                yield asaver
        else:
            with RemoteActionSaver.from_target(service.target, token) as saver:
                saver.setup()
                yield SyncOnlyAdapter(saver)  # type: ignore[arg-type]

    registered = checkpointer_test(name=f"RemoteActionSaver-{flavour}")(factory)
    report = await validate(registered)
    passed, failed, failures = _summary(report)
    detected = [cap for cap, r in report.results.items() if r.detected]
    print(f"\nremote {flavour} saver: {passed}/{passed + failed} passed, capabilities {detected}")
    assert failures == []
    assert len(detected) == 8, detected
    assert (passed, failed) == (81, 0)
