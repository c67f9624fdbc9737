"""The checkpointer entry point for LangGraph's Agent Server (``langgraph dev``, deployments).

Point ``langgraph.json`` at :func:`checkpointer`::

    {
      "graphs": {"agent": "./agent.py:make_graph"},
      "checkpointer": {"path": "langgraph_actionckpt.agent_server.checkpointer"}
    }

(dots, not ``server:checkpointer``: langgraph-api splits a module path at its
last dot.) At startup the server enters this async context manager once per
thread that uses a checkpointer; it yields an
:class:`~langgraph_actionckpt.AsyncActionSaver` configured from the environment
and migrated (``setup()``):

* ``ACTIONCKPT_DSN``: the PostgreSQL DSN (unset: the embedded PostgreSQL, see
  :mod:`langgraph_actionckpt.embedded_postgres`);
* ``ACTIONCKPT_SCHEMA``: the schema holding the tables (default ``actionckpt``);
* ``ACTIONCKPT_POOL_SIZE``: the connection pool's size (default ``10``).

The saver implements every capability the server looks for (``aput``,
``aput_writes``, ``aget_tuple``, ``alist``, ``adelete_thread``,
``adelete_for_runs``, ``acopy_thread``, ``aprune``), so the server uses none of
its fallbacks. Replay needs nothing more: the saver installs its replay hooks
when it is created, so completed LLM and tool calls are served from the log
after a crash. The node and action *rows* of the callback handler need one line
in a graph factory (:func:`with_action_log`)::

    def make_graph():
        return with_action_log(graph)
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

from langchain_core.runnables import Runnable

from langgraph_actionckpt.actions.callbacks import AsyncActionCallbackHandler
from langgraph_actionckpt.aio import AsyncActionSaver
from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, env_dsn
from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["action_callbacks", "checkpointer", "current_saver", "with_action_log"]

DEFAULT_POOL_SIZE = 10

R = TypeVar("R", bound=Runnable)  # type: ignore[type-arg]

# The savers this process opened for the server, by event loop: an
# AsyncActionSaver belongs to the loop it was created on, and the server opens
# one checkpointer per thread (so per loop) that uses one.
_savers: dict[asyncio.AbstractEventLoop, AsyncActionSaver] = {}


def _pool_size() -> int:
    raw = os.environ.get("ACTIONCKPT_POOL_SIZE", "").strip()
    if not raw:
        return DEFAULT_POOL_SIZE
    try:
        size = int(raw)
    except ValueError:
        raise ConfigurationError(f"ACTIONCKPT_POOL_SIZE must be an integer, got {raw!r}") from None
    if size < 0:
        raise ConfigurationError(f"ACTIONCKPT_POOL_SIZE must be >= 0, got {size}")
    return size


@asynccontextmanager
async def checkpointer() -> AsyncIterator[AsyncActionSaver]:
    """Open the server's saver from the environment, set it up, close it on exit.

    Yields:
        An :class:`~langgraph_actionckpt.AsyncActionSaver` on ``ACTIONCKPT_DSN``
        (the embedded PostgreSQL when unset), schema ``ACTIONCKPT_SCHEMA``
        (default ``actionckpt``), with a pool of ``ACTIONCKPT_POOL_SIZE``
        connections (default 10; 0 means one connection, no pool).

    Raises:
        ConfigurationError: ``ACTIONCKPT_POOL_SIZE`` is not a non-negative integer.
    """
    schema = os.environ.get("ACTIONCKPT_SCHEMA", "").strip() or DEFAULT_SCHEMA
    async with AsyncActionSaver.from_conn_string(
        env_dsn(), schema=schema, pool_size=_pool_size(), setup=True
    ) as saver:
        loop = asyncio.get_running_loop()
        _savers[loop] = saver
        try:
            yield saver
        finally:
            if _savers.get(loop) is saver:
                del _savers[loop]


def current_saver() -> AsyncActionSaver:
    """The saver :func:`checkpointer` opened for the calling event loop.

    Call it from a graph factory (the server calls factories on the loop that
    runs the graph).

    Raises:
        RuntimeError: The server has not entered :func:`checkpointer` on this
            loop (``langgraph.json`` names another checkpointer, or this is not
            the server process).
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    saver = _savers.get(loop) if loop is not None else None
    if saver is None and len(_savers) == 1:
        # called off the loop (a thread of the server): the one saver there is
        saver = next(iter(_savers.values()))
    if saver is None:
        raise RuntimeError(
            "no langgraph_actionckpt server saver is open here: set "
            '"checkpointer": {"path": "langgraph_actionckpt.agent_server.checkpointer"} '
            "in langgraph.json"
        )
    return saver


def action_callbacks(*, record_chains: bool = True) -> list[AsyncActionCallbackHandler]:
    """A fresh callback handler on the server's saver, as a ``callbacks`` list.

    Args:
        record_chains: Write a ``running`` node row when a node starts.
    """
    return [AsyncActionCallbackHandler(current_saver(), record_chains=record_chains)]


def with_action_log(graph: R, *, record_chains: bool = True) -> R:
    """``graph`` with the action-log callback handler bound; for graph factories.

    A compiled graph's ``with_config`` returns a compiled graph, so the server
    accepts the result as it accepts ``graph``.

    Args:
        graph: A compiled graph (or any runnable).
        record_chains: Write a ``running`` node row when a node starts.

    Returns:
        The same kind of runnable, recording node, LLM and tool rows.
    """
    return graph.with_config(callbacks=action_callbacks(record_chains=record_chains))  # type: ignore[return-value]
