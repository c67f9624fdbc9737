"""A real Citus cluster for tests: a coordinator and two workers, private to the test session.

Each node is a :class:`~tests.faults.servers.PrivatePostgres` (its own data
directory and port on 127.0.0.1, never the shared server at 5432) started with
``shared_preload_libraries = 'citus'``. The extension is created in the ``test``
database of every node, and the workers are added to the coordinator; savers
talk to the coordinator only.

Citus is built into the system PostgreSQL by ``../shared/citus/build.sh`` (CI
runs it first). :func:`missing_citus` says why a cluster cannot start here.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import psycopg

from tests.faults.servers import PrivatePostgres, _bindir, missing_binaries

__all__ = ["CitusCluster", "missing_citus", "rows_per_worker"]

SHARD_COUNT = 4
"""Shards per distributed table: enough to spread threads over both workers, few to create."""


def missing_citus() -> str | None:
    """Why a Citus cluster cannot start on this machine, or None when it can."""
    reason = missing_binaries()
    if reason is not None:
        return reason
    bindir = _bindir()
    assert bindir is not None
    out = subprocess.run(
        [str(bindir / "pg_config"), "--pkglibdir"], capture_output=True, text=True, check=False
    )
    libdir = out.stdout.strip() if out.returncode == 0 else str(bindir.parent / "lib")
    if not (Path(libdir) / "citus.so").exists():
        return f"Citus is not installed in {libdir} (run ../shared/citus/build.sh as root)"
    return None


def _node_settings() -> dict[str, str]:
    return {
        "shared_preload_libraries": "'citus'",
        # Citus commits a transaction over several shards with two-phase commit
        "max_prepared_transactions": "200",
        "citus.shard_count": str(SHARD_COUNT),
        "citus.log_remote_commands": "off",
    }


class CitusCluster:
    """A coordinator and ``workers`` worker nodes, each a private PostgreSQL with Citus."""

    def __init__(self, workers: int = 2) -> None:
        self.nodes: list[PrivatePostgres] = []
        try:
            for _ in range(workers + 1):
                self.nodes.append(PrivatePostgres(_node_settings()))
            for node in self.nodes:
                with psycopg.connect(node.dsn, autocommit=True) as conn:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS citus")
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(
                    "SELECT citus_set_coordinator_host('127.0.0.1', %s)", (self.coordinator.port,)
                )
                for worker in self.workers:
                    conn.execute("SELECT citus_add_node('127.0.0.1', %s)", (worker.port,))
        except BaseException:
            self.close()
            raise

    @property
    def coordinator(self) -> PrivatePostgres:
        """The node the savers connect to."""
        return self.nodes[0]

    @property
    def workers(self) -> list[PrivatePostgres]:
        """The nodes holding the shards."""
        return self.nodes[1:]

    @property
    def dsn(self) -> str:
        """The coordinator's ``test`` database."""
        return self.coordinator.dsn

    def close(self) -> None:
        """Stop every node and remove its files."""
        for node in reversed(self.nodes):
            with contextlib.suppress(Exception):
                node.close()


def rows_per_worker(dsn: str, schema: str, table: str) -> dict[int, int]:
    """How many of ``schema.table``'s rows each worker's shards hold, by worker port."""
    counts: dict[int, int] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT d.nodeport, r.result::bigint "
            "FROM run_command_on_shards(%s, 'SELECT count(*) FROM %%s') r "
            "JOIN pg_dist_placement p ON p.shardid = r.shardid "
            "JOIN pg_dist_node d ON d.groupid = p.groupid",
            (f'"{schema}"."{table}"',),
        ).fetchall()
    for port, count in rows:
        counts[int(port)] = counts.get(int(port), 0) + int(count)
    return counts
