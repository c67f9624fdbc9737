"""What both savers share beyond their generated code: hooks and connection settings.

``_async_saver.py`` (the one source) and the generated ``_sync_saver.py`` call
these; the public classes are in ``aio.py`` and ``saver.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph_actionckpt.embedded import embedded_dsn

__all__ = [
    "aembedded_dsn",
    "connect_kwargs",
    "conninfo_of",
    "embedded_dsn",
    "install_hooks",
    "pool_options",
]


def install_hooks(replay: bool) -> None:
    """Install the process-wide hooks our savers need (idempotent).

    Only the saver constructors call this, so importing the package, running a
    migration or reading reports patches nothing.
    """
    from langgraph_actionckpt.checkpoints import allowlist

    allowlist.install()
    if replay:
        from langgraph_actionckpt import replay as replay_hooks

        replay_hooks.install()


def connect_kwargs(prepare_threshold: int | None) -> dict[str, Any]:
    """Connection settings every saver connection uses."""
    return {"autocommit": True, "prepare_threshold": prepare_threshold}


def pool_options(
    pool_size: int, ckw: dict[str, Any], max_idle: float, max_lifetime: float
) -> dict[str, Any]:
    """Settings of the pool ``from_conn_string`` opens (sync and async alike)."""
    return {
        "min_size": 1,
        "max_size": pool_size,
        "kwargs": ckw,
        "max_idle": max_idle,
        "max_lifetime": max_lifetime,
        "open": False,
    }


def conninfo_of(conn: Any) -> str | None:
    """The connection string of a pool or connection, for the lease's own connections."""
    conninfo = getattr(conn, "conninfo", None)  # pools
    if isinstance(conninfo, str):
        return conninfo
    info = getattr(conn, "info", None)  # connections (the password is not kept by libpq here)
    dsn = getattr(info, "dsn", None)
    return dsn if isinstance(dsn, str) else None


async def aembedded_dsn() -> str:
    """:func:`~langgraph_actionckpt.embedded.embedded_dsn` off the event loop.

    It may start the embedded server, which takes seconds.
    """
    return await asyncio.to_thread(embedded_dsn)
