"""``benchmarks/bench_scale.py --quick`` runs end to end (shape of its output, never its times).

The flat-growth numbers themselves are the benchmark's (benchmarks/README.md, issue #14 e).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_scale

pytest.importorskip("matplotlib", reason="the PNGs need matplotlib (the [bench] extra)")


def test_quick_run_writes_both_plots_and_every_curve(pg18_dsn: str, tmp_path: Path) -> None:
    bench_scale.main(["--quick", "--repeat", "2", "--dsn", pg18_dsn, "--out", str(tmp_path)])
    result = json.loads((tmp_path / "scale.json").read_text())
    names = [c["name"] for c in result["curves"]]
    assert sum(n.endswith("thread length") for n in names) == 2
    assert sum(n.endswith("table size") for n in names) == 4
    quick = bench_scale.Sizes.quick(2)
    for curve in result["curves"]:
        assert all(len(s) == 2 for s in curve["samples"]), curve["name"]
        if curve["name"].endswith("thread length"):
            assert curve["x"] == list(quick.lengths)
    # the table grows by whole copies of the template thread (100 checkpoints, 1,000 actions)
    points = result["table_size"]["points"]
    assert [p["threads"] for p in points] == list(quick.threads)
    template = result["table_size"]["template"]
    assert template == {"checkpoints": 100, "actions": 1000}
    for point in points:  # + the fresh threads of the measurement rounds
        assert point["checkpoints"] == 100 * point["threads"]
        assert point["actions"] == 1000 * point["threads"]
    for png in ("thread_length.png", "table_size.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
