"""``benchmarks.citus_vs_plain --quick``: both servers' columns, the threads on both workers."""

from __future__ import annotations

import re

import pytest

from benchmarks import citus_vs_plain
from benchmarks.bench_retention import SCHEMA
from tests.citus_cluster import CitusCluster, missing_citus, rows_per_worker
from tests.faults.servers import PrivatePostgres

CROSS_THREAD = (
    "runs",
    "failed",
    "inflight",
    "stats",
    "prune --dry-run",
    "list(None, limit=50)",
    "archive one thread",
)


def test_quick_run_prints_both_servers(capsys: pytest.CaptureFixture[str]) -> None:
    reason = missing_citus()
    if reason is not None:
        pytest.skip(f"needs a Citus cluster: {reason}")
    cluster = CitusCluster()
    try:
        plain = PrivatePostgres(citus_vs_plain.SETTINGS)
        try:
            args = citus_vs_plain.parse_args(["--quick", "--threads", "2"])
            status = citus_vs_plain.run(cluster, plain, args)
            spread = rows_per_worker(cluster.dsn, SCHEMA, "actions")
            checkpoints = rows_per_worker(cluster.dsn, SCHEMA, "checkpoints")
        finally:
            plain.close()
    finally:
        cluster.close()
    out = capsys.readouterr().out
    assert re.search(r"^\s+plain\s+citus\s+citus/plain$", out, re.M), out
    assert re.search(r"load average \d+\.\d\d/", out), out
    rows = {line.split("  ")[0]: line for line in out.splitlines() if "  " in line}
    number = r"[\d,.]+( ms)?"
    for name in (
        "sync saver, 2 threads (supersteps/s)",
        "async saver, 2 threads (supersteps/s)",
        "recording, sync handler (actions/s)",
        "recording, async handler (actions/s)",
    ):
        # measured on both servers, with a ratio
        assert re.fullmatch(rf"{re.escape(name)}\s+{number}\s+{number}\s+\d+\.\d\d", rows[name])
    for op in CROSS_THREAD:
        (name,) = [n for n in rows if n.startswith(op)]
        # plain measured; Citus measured or its error shown, never left out
        assert re.match(rf"{re.escape(name)}\s+{number}\s+(ERROR |{number})", rows[name]), rows
    assert status == int("ERROR" in out)
    # 20 threads of the populated schema hashed over 4 shards: both workers hold some
    assert len(spread) == 2 and all(n > 0 for n in spread.values()), spread
    assert len(checkpoints) == 2 and all(n > 0 for n in checkpoints.values()), checkpoints
