"""``benchmarks.spikes.storage_model``: scenario b's rows re-stored in other layouts (issue #14 b).

A short run checks the model's own mechanics: the rows copied as they are take what the saver
stored (less the migrations table, left empty), dropping the two unused tables takes exactly
their empty size, and each layout that removes rows takes fewer bytes.
"""

from __future__ import annotations

from benchmarks.savers import BenchEnv
from benchmarks.spikes import storage_model


def test_layouts_of_a_short_run(pg18_dsn: str) -> None:
    (result,) = storage_model.run(BenchEnv(dsn=pg18_dsn), [30])
    total = {name: sum(sizes.values()) for name, sizes in result.layouts.items()}
    assert list(total) == [layout.name for layout in storage_model.LAYOUTS]
    main = result.layouts["main"]
    # the copy's migrations table is empty: its heap page and its key's leaf page (8 kB each)
    assert sum(main.values()) == result.stored - 16384
    lazy = result.layouts["lazy tables"]
    assert set(main) - set(lazy) == {"leases", "reuse_entries"}
    assert total["main"] - total["lazy tables"] == main["leases"] + main["reuse_entries"]
    assert result.layouts["writes in node rows"]["writes"] < main["writes"]
    assert total["no node rows"] < total["main"]
    assert total["uuid ids"] < total["main"]
