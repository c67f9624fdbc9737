"""``python -m benchmarks.targets --quick`` runs the three benchmarks and checks every target.

Only the shape is checked (each benchmark ran and wrote its JSON, every check of targets a-d
has its row); the numbers themselves are the benchmarks' (issue #14, benchmarks/README.md).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import targets


def test_quick_run_checks_every_target(pg18_dsn: str, tmp_path: Path) -> None:
    code = targets.main(["--quick", "--repeat", "1", "--dsn", pg18_dsn, "--out", str(tmp_path)])
    assert code in (0, 1)  # 1: some target not met, which a quick run on a test machine says
    for name in ("saver.json", "pairs.json", "recorder.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    found = targets.checks(tmp_path)
    by_target = {t: [c for c in found if c.target == t] for t in "abcd"}
    assert [len(by_target[t]) for t in "abcd"] == [8, 4, 4, 4]
    # measured in a quick run: a (both benchmarks), c (8 threads), d; b needs 300/1000 steps
    for t in "acd":
        assert all(c.value is not None and c.value > 0 for c in by_target[t]), by_target[t]
    assert all(c.value is None and not c.met for c in by_target["b"])
    assert code == (0 if all(c.met for c in found) else 1)
    # the machine's side of c and d: the peer's share of InMemorySaver, the COPY floor,
    # LangChain's own tool call
    lines = targets.context(tmp_path)
    assert [line.split(":")[0] for line in lines] == [
        "c, durability=sync",
        "c, durability=async",
        "d",
        "d",
    ]
    assert "tool call made by LangChain" in lines[-1]
    tool_call = targets._recorder(tmp_path)["tool_call"]
    # every recorded call is a stored row (checked by the benchmark), each variant timed
    assert tool_call["rows"] == 200 * 2
    assert all(tool_call[f"{v}_us"] > 0 for v in ("alone", "no-op handler"))
