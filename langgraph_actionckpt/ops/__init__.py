"""Operations: run queries for the CLI, retention and archive, metrics, similarity search.

Every function here takes a sync psycopg ``Connection`` (autocommit), a
``ConnectionPool`` or an :class:`~langgraph_actionckpt.ActionSaver`, so the
``actionckpt`` CLI stays a thin layer and applications or tests can call the
same functions directly. The SQL is written as I/O-free plans (see
``langgraph_actionckpt.db.driver``); async twins are not provided yet, run the
sync functions in a worker thread (``asyncio.to_thread``) from async code.

Optional dependencies are imported lazily: ``prometheus_client`` by
:mod:`.metrics`, ``pgvector`` by :mod:`.vector`, ``fsspec`` only when an
archive URL (``s3://...``) is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_actionckpt._lazy import lazy_attributes

if TYPE_CHECKING:
    from langgraph_actionckpt.ops.archiving import ArchiveResult, archive, import_archive
    from langgraph_actionckpt.ops.metrics import Metrics, start_http_exporter
    from langgraph_actionckpt.ops.reports import (
        InflightAction,
        RunSummary,
        Timeline,
        failed_runs,
        inflight_actions,
        list_runs,
        migration_sql,
        thread_timeline,
    )
    from langgraph_actionckpt.ops.retention import PruneResult, prune
    from langgraph_actionckpt.ops.table_stats import TableStats, stats
    from langgraph_actionckpt.ops.vector import BackgroundEmbedder, VectorIndex

_LAZY = {
    "InflightAction": ".reports",
    "RunSummary": ".reports",
    "TableStats": ".table_stats",
    "Timeline": ".reports",
    "failed_runs": ".reports",
    "inflight_actions": ".reports",
    "list_runs": ".reports",
    "migration_sql": ".reports",
    "stats": ".table_stats",
    "thread_timeline": ".reports",
    "ArchiveResult": ".archiving",
    "PruneResult": ".retention",
    "archive": ".archiving",
    "import_archive": ".archiving",
    "prune": ".retention",
    "Metrics": ".metrics",
    "start_http_exporter": ".metrics",
    "BackgroundEmbedder": ".vector",
    "VectorIndex": ".vector",
}

__all__ = [
    "ArchiveResult",
    "BackgroundEmbedder",
    "InflightAction",
    "Metrics",
    "PruneResult",
    "RunSummary",
    "TableStats",
    "Timeline",
    "VectorIndex",
    "archive",
    "failed_runs",
    "import_archive",
    "inflight_actions",
    "list_runs",
    "migration_sql",
    "prune",
    "start_http_exporter",
    "stats",
    "thread_timeline",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
