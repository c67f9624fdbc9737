"""Operations: run queries for the CLI, retention and archive, metrics, similarity search.

Every function here takes a sync psycopg ``Connection`` (autocommit), a
``ConnectionPool`` or an :class:`~langgraph_actionckpt.ActionSaver`, so the
``actionckpt`` CLI stays a thin layer and applications or tests can call the
same functions directly. The SQL is written as I/O-free plans (see
``langgraph_actionckpt._driver``); async twins are not provided yet, run the
sync functions in a worker thread (``asyncio.to_thread``) from async code.

Optional dependencies are imported lazily: ``prometheus_client`` by
:mod:`.metrics`, ``pgvector`` by :mod:`.vector`, ``fsspec`` only when an
archive URL (``s3://...``) is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from .metrics import Metrics, start_http_exporter
    from .queries import (
        InflightAction,
        RunSummary,
        TableStats,
        Timeline,
        failed_runs,
        inflight_actions,
        list_runs,
        migration_sql,
        stats,
        thread_timeline,
    )
    from .retention import ArchiveResult, PruneResult, archive, import_archive, prune
    from .vector import BackgroundEmbedder, VectorIndex

_LAZY = {
    "InflightAction": ".queries",
    "RunSummary": ".queries",
    "TableStats": ".queries",
    "Timeline": ".queries",
    "failed_runs": ".queries",
    "inflight_actions": ".queries",
    "list_runs": ".queries",
    "migration_sql": ".queries",
    "stats": ".queries",
    "thread_timeline": ".queries",
    "ArchiveResult": ".retention",
    "PruneResult": ".retention",
    "archive": ".retention",
    "import_archive": ".retention",
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
