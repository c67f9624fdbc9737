"""I/O-free plans and the two thin drivers that run them.

Every database interaction of this package is written once, as a *plan*: a
generator that yields :class:`Op` objects and receives each op's result
(:mod:`~langgraph_actionckpt.db.plan`). The async driver runs plans on a psycopg
``AsyncConnection``/``AsyncConnectionPool`` (``_async_driver.py``, the one
source); the sync driver, generated from it, on a ``Connection``/``ConnectionPool``
(``_sync_driver.py``). The sync and async savers therefore share every SQL
statement and every decision. Group commit, async only, is in
:mod:`~langgraph_actionckpt.db.group_commit`.

Both drivers retry a plan once on a fresh connection when the connection broke
under it (``pg_terminate_backend``, a server restart, a cloud proxy reaping an
idle connection), and once when a serialization failure or a deadlock rolled
its transaction back. Plans are written to be re-runnable: writes are upserts.
An error about the data itself (:func:`is_data_error`) is never retried.
"""

from __future__ import annotations

from langgraph_actionckpt.db._async_driver import AsyncDriver
from langgraph_actionckpt.db._driver_base import (
    configure_connection,
    is_data_error,
    is_unique_violation,
)
from langgraph_actionckpt.db._sync_driver import SyncDriver
from langgraph_actionckpt.db.plan import BEGIN, COMMIT, Fetch, Op, Plan, PlanFactory, T

__all__ = [
    "BEGIN",
    "COMMIT",
    "AsyncDriver",
    "Fetch",
    "Op",
    "Plan",
    "PlanFactory",
    "SyncDriver",
    "T",
    "configure_connection",
    "is_data_error",
    "is_unique_violation",
]
