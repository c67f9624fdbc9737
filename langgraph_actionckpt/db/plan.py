"""The vocabulary of plans: what a plan yields (:class:`Op`) and what it is.

Every database interaction of this package is written once, as a *plan*: a
generator that yields :class:`Op` objects and receives each op's result. Plans
do no I/O; the drivers (:mod:`langgraph_actionckpt.db.driver`) run them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from psycopg import sql

__all__ = ["BEGIN", "COMMIT", "ROLLBACK", "SYNC", "Fetch", "Op", "Plan", "PlanFactory", "T"]

T = TypeVar("T")

Fetch = Literal[
    "none", "one", "all", "many", "begin", "commit", "rollback", "copy", "sleep", "sync"
]


@dataclass(slots=True)
class Op:
    """One step of a plan.

    Attributes:
        query: The statement (``psycopg.sql`` composable or a constant string).
        params: Bound parameters; never interpolated.
        fetch: ``none`` (execute), ``one``/``all`` (return rows), ``many``
            (executemany over ``params``), ``copy`` (COPY FROM STDIN with
            ``params`` as the rows), ``begin``/``commit``/``rollback``, ``sleep``
            (wait ``params[0]`` seconds on the client, holding no snapshot),
            ``sync`` (in pipeline mode, wait for the results of the statements
            sent so far: their error is raised while the plan is still at this
            op; outside a pipeline, nothing).
        prepare: Prepare the statement on first use (hot statements; skipped when
            the connection disables prepared statements, e.g. for pgbouncer).
        lock_key: The thread whose rows the statement writes; a group commit
            runs its statements in this order (see ``GroupCommitDriver``).
    """

    query: sql.Composable | str = ""
    params: Sequence[Any] | Mapping[str, Any] | None = None
    fetch: Fetch = "none"
    prepare: bool = False
    lock_key: str = ""


Plan = Generator[Op, Any, T]
PlanFactory = Callable[[], Plan[T]]

BEGIN = Op(fetch="begin")
COMMIT = Op(fetch="commit")
ROLLBACK = Op(fetch="rollback")
SYNC = Op(fetch="sync")
