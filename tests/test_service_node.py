"""Any language: a Node.js client (``@grpc/grpc-js`` from npm) writes and reads a checkpoint.

The client (``tests/node_client/client.js``) loads the repository's ``.proto``
at run time (``@grpc/proto-loader``), sends values as JSON, and decodes what
the service stores with ``@msgpack/msgpack``. The Python remote saver then
reads the Node client's checkpoint, and the Node client a Python one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from langgraph_actionckpt import RemoteActionSaver

from .conftest import TEST_HOME
from .service_fixtures import Service, running

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "tests" / "node_client"
PROTO = ROOT / "langgraph_actionckpt/service/proto/actionckpt/v1/checkpoint.proto"


@pytest.fixture(scope="module")
def node_client() -> Path:
    """The client with its npm packages installed (once, in the test home)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed (Debian: nodejs, npm)")
    work = TEST_HOME / "node_client"
    work.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "client.js"):
        shutil.copy(CLIENT / name, work / name)
    if not (work / "node_modules" / "@grpc" / "grpc-js").exists():
        out = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund"], cwd=work, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        if out.returncode != 0:
            pytest.skip(f"npm could not install @grpc/grpc-js (no registry?): {out.stderr[-500:]}")
    return work


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    from .conftest import server_dsn

    yield from running(server_dsn("pg18"), tmp_path_factory.mktemp("svc"), n=2)


def test_node_client_writes_and_reads_a_checkpoint(node_client: Path, service: Service) -> None:
    token, _, _ = service.tenant()
    with RemoteActionSaver.from_target(service.target, token, setup=True) as saver:
        cp = {
            "v": 4, "id": "1ef00000-0000-6000-8000-0000000000aa", "ts": "2026-12-01T00:00:00+00:00",
            "channel_values": {"answer": {"from": "python", "n": [1, 2, 3]}},
            "channel_versions": {"answer": "00000000000000000000000000000001.0"},
            "versions_seen": {}, "updated_channels": ["answer"],
        }  # fmt: skip
        saver.put(
            {"configurable": {"thread_id": "n1-py", "checkpoint_ns": ""}},
            cp,  # type: ignore[arg-type]
            {"source": "input", "step": -1},  # type: ignore[typeddict-item]
            cp["channel_versions"],  # type: ignore[arg-type]
        )
        out = subprocess.run(
            ["node", "client.js", str(PROTO), service.target, token, "n1"],
            cwd=node_client, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        assert got["checkpoint_id"] == got["put_checkpoint_id"]
        assert got["greeting"] == {"text": "hello from node", "n": 42}
        assert got["fields"]["id"] == got["checkpoint_id"]
        assert got["metadata"]["writer"] == "node"
        assert got["pending"] == [["node-task", "greeting", "pending from node"]]
        assert got["python_values"] == {"answer": {"from": "python", "n": [1, 2, 3]}}
        assert got["bad_request"][0] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        # the Python client reads what Node wrote
        tup = saver.get_tuple({"configurable": {"thread_id": "n1"}})
        assert tup is not None
        assert tup.checkpoint["channel_values"] == {
            "greeting": {"text": "hello from node", "n": 42}
        }
        assert tup.pending_writes == [("node-task", "greeting", "pending from node")]
