"""``benchmarks.instructions`` counts both sides under callgrind (counts, never times)."""

from __future__ import annotations

import shutil

import pytest

from benchmarks import instructions


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_both_sides_are_counted_and_ours_does_more(
    pg15_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert instructions.main(["--dsn", pg15_dsn, "--invokes", "1", "--combos", "async-sync"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("async-sync"))
    _, ours, floor, ratio = line.split()
    ours_n, floor_n = int(ours.replace(",", "")), int(floor.replace(",", ""))
    # the floor runs the same graph with an in-memory saver and one prepared insert per put
    assert floor_n > 100_000
    assert ours_n > floor_n
    assert float(ratio) == pytest.approx(ours_n / floor_n, abs=0.001)
