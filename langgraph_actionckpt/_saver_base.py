"""What both savers share beyond their generated code.

The hooks they install, their connection settings, and the bridges each public
saver uses for the other world's methods. ``_async_saver.py`` (the one source),
the generated ``_sync_saver.py`` and the public classes (``aio.py``,
``saver.py``) call these.
"""

from __future__ import annotations

import asyncio
import builtins
import collections
import functools
import inspect
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from itertools import islice
from typing import Any, ParamSpec, TypeVar, cast

import psycopg

from langgraph_actionckpt._config import SaverOptions
from langgraph_actionckpt._contracts import MetricsSink
from langgraph_actionckpt.embedded_postgres import embedded_dsn
from langgraph_actionckpt.errors import ConfigurationError

__all__ = [
    "POOL_MAX_IDLE",
    "POOL_MAX_LIFETIME",
    "aembedded_dsn",
    "connect_kwargs",
    "conninfo_of",
    "driver_options",
    "embedded_dsn",
    "in_thread",
    "in_thread_iter",
    "install_hooks",
    "on_loop",
    "on_loop_iter",
    "pool_options",
    "recent_first",
    "run_on_loop",
    "writer_options",
]


POOL_MAX_IDLE = 300.0  # seconds a pooled connection may stay idle (``from_conn_string``)
POOL_MAX_LIFETIME = 3600.0  # seconds before a pooled connection is replaced


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


def driver_options(options: SaverOptions, reconnect: Any) -> dict[str, Any]:
    """A direct saver's driver settings, from its options."""
    return {
        "pipeline": options.pipeline,
        "reconnect": reconnect,
        "io_timeout": options.io_timeout,
    }


def writer_options(options: SaverOptions, metrics: MetricsSink) -> dict[str, Any]:
    """A direct saver's action writer settings, from its options."""
    return {
        "batch_size": options.writer_batch_size,
        "interval": options.writer_interval,
        "on_depth": metrics.set_queue_depth,
    }


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


class _RecentFirst(collections.deque[Any]):
    """A pool's idle connections, the one returned last handed out first.

    psycopg_pool hands its idle connections out in turn (oldest first). A saver
    of one graph then alternates between connections (and their server
    processes) whenever the pool has grown past one: each statement meets a
    backend that sat idle meanwhile, at a cost in CPU and wall time (the figures:
    ``benchmarks/RESULTS.md``). The pool's other use of its idle
    queue (closing one past ``max_idle``) takes from the same end; every idle
    connection is valid either way.
    """

    __slots__ = ()

    def popleft(self) -> Any:
        return self.pop()


def recent_first(pool: Any) -> None:
    """Make ``pool`` (one ``from_conn_string`` creates, not yet open) hand out its
    most recently returned connection first; a pool of another shape is left as it is."""
    # psycopg_pool has no public option for this order: its private idle deque is swapped
    # (checked against the psycopg-pool range pinned in pyproject.toml, tests/test_pool_order.py)
    idle = getattr(pool, "_pool", None)
    if type(idle) is collections.deque and not idle:
        pool._pool = _RecentFirst()


def conninfo_of(conn: Any) -> str | None:
    """The connection string of a pool or connection, for the lease's own connections."""
    conninfo = getattr(conn, "conninfo", None)  # pools
    if isinstance(conninfo, str):
        return conninfo
    info = getattr(conn, "info", None)  # connections (the password is not kept by libpq here)
    dsn = getattr(info, "dsn", None)
    return dsn if isinstance(dsn, str) else None


async def aembedded_dsn() -> str:
    """:func:`~langgraph_actionckpt.embedded_postgres.embedded_dsn` off the event loop.

    It may start the embedded server, which takes seconds.
    """
    return await asyncio.to_thread(embedded_dsn)


# ----------------------------------------------------- bridges to the other world
#
# Each saver is written for one world; LangGraph may call it from the other (a
# sync graph API on the async saver, an async graph on the sync one). The twins
# below keep the method's own signature and docs (``inspect.signature`` follows
# ``__wrapped__``), so each bridge is one line in the public class.

P = ParamSpec("P")
R = TypeVar("R")

CHUNK = 200
"""Items an iterator twin moves per hop between worlds (a page of ``list``)."""


def run_on_loop(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, R]) -> R:
    """Run ``coro`` on ``loop`` and wait for it, from a thread other than the loop's."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise asyncio.InvalidStateError(
            "synchronous calls to AsyncActionSaver are only allowed from a thread "
            "other than the event loop's; use the a-prefixed methods in async code, "
            "or ActionSaver"
        )
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


def _named(twin: Callable[..., Any], of: Callable[..., Any], name: str, doc: str) -> Any:
    """``twin`` with ``of``'s signature (its result type made the twin's) and a name and doc."""
    functools.update_wrapper(twin, of)
    del twin.__wrapped__  # type: ignore[attr-defined]  # signature set below
    sig = inspect.signature(of)
    returns = sig.return_annotation
    if isinstance(returns, str):  # the iterators' types differ between worlds
        returns = returns.replace("AsyncIterator", "Iterator")
        if inspect.isgeneratorfunction(of):
            returns = returns.replace("Iterator", "AsyncIterator")
    twin.__signature__ = sig.replace(return_annotation=returns)  # type: ignore[attr-defined]
    twin.__name__ = name
    twin.__qualname__ = name
    twin.__doc__ = doc
    return twin


def on_loop(
    method: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, R]:
    """The sync twin of an async saver method (``aput`` -> ``put``), run on the saver's loop."""
    name = method.__name__  # looked up on the instance, so overrides are honoured

    def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        saver: Any = args[0]
        coro: Coroutine[Any, Any, R] = getattr(saver, name)(*args[1:], **kwargs)
        return run_on_loop(saver.loop, coro)

    doc = f"Sync :meth:`{method.__name__}`, for use from threads other than the loop's."
    return cast(Callable[P, R], _named(twin, method, method.__name__[1:], doc))


def on_loop_iter(
    method: Callable[P, AsyncIterator[R]],
) -> Callable[P, Iterator[R]]:
    """The sync twin of an async generator method (``alist`` -> ``list``)."""
    name = method.__name__

    def twin(*args: P.args, **kwargs: P.kwargs) -> Iterator[R]:
        saver: Any = args[0]
        items = getattr(saver, name)(*args[1:], **kwargs)
        while chunk := run_on_loop(saver.loop, _take(items, CHUNK)):
            yield from chunk

    doc = f"Sync :meth:`{method.__name__}`, for use from threads other than the loop's."
    named = _named(twin, method, method.__name__[1:], doc)
    return cast(Callable[P, Iterator[R]], named)


async def _take(items: AsyncIterator[R], n: int) -> builtins.list[R]:
    out: builtins.list[R] = []
    if n > 0:
        async for item in items:
            out.append(item)
            if len(out) >= n:
                break  # stop before the next page is fetched
    return out


def in_thread(
    method: Callable[P, R],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """The async twin of a sync saver method (``put`` -> ``aput``), run in a worker thread."""
    name = method.__name__  # looked up on the instance, so overrides are honoured

    async def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(getattr(args[0], name), *args[1:], **kwargs)

    doc = f"Async :meth:`{method.__name__}` (runs in a worker thread)."
    named = _named(twin, method, "a" + method.__name__, doc)
    return cast(Callable[P, Coroutine[Any, Any, R]], named)


def in_thread_iter(
    method: Callable[P, Iterator[R]],
) -> Callable[P, AsyncIterator[R]]:
    """The async twin of a sync generator method (``list`` -> ``alist``)."""
    name = method.__name__

    async def twin(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[R]:
        items = getattr(args[0], name)(*args[1:], **kwargs)
        while chunk := await asyncio.to_thread(lambda: builtins.list(islice(items, CHUNK))):
            for item in chunk:
                yield item

    doc = f"Async :meth:`{method.__name__}` (pages fetched in a worker thread)."
    named = _named(twin, method, "a" + method.__name__, doc)
    return cast(Callable[P, AsyncIterator[R]], named)


class InflightWrites:
    """Writes that finish even when their caller is cancelled, and reads that wait for them.

    Closing an ``astream`` mid-superstep cancels the task that awaits
    ``aput_writes``. With an in-memory saver the writes of a task that already
    finished are stored by then; here they are on their way to the database. So
    the write runs shielded to the end, and a later read of the same thread
    waits for it first: ``get_state`` then shows what the official savers show.
    """

    def __init__(self) -> None:
        self._inflight: dict[str, set[asyncio.Future[Any]]] = {}

    async def shielded(self, config: Any, write: Coroutine[Any, Any, None]) -> None:
        """Run ``write`` (of ``config``'s thread) to its end, even if the caller is cancelled."""
        thread = str(((config or {}).get("configurable") or {}).get("thread_id"))
        future = asyncio.ensure_future(write)
        pending = self._inflight.setdefault(thread, set())
        pending.add(future)

        def done(f: asyncio.Future[Any]) -> None:
            pending.discard(f)
            if not f.cancelled():
                f.exception()  # retrieved: a failure reaches the caller, or is dropped

        future.add_done_callback(done)
        await asyncio.shield(future)

    async def settle(self, config: Any) -> None:
        """Wait for the writes of ``config``'s thread still in flight."""
        thread = str(((config or {}).get("configurable") or {}).get("thread_id"))
        pending = self._inflight.get(thread)
        if pending:
            await asyncio.gather(*list(pending), return_exceptions=True)


def check_dsn(conninfo: str) -> str:
    """``conninfo`` when libpq can parse it.

    Raises:
        ConfigurationError: A malformed connection string (its text is not
            repeated: it may hold a password).
    """
    from psycopg.conninfo import conninfo_to_dict

    try:
        conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        raise ConfigurationError(
            "the DSN is not a PostgreSQL connection string (key=value pairs or a postgresql:// URL)"
        ) from None
    return conninfo


def describe_target(conninfo: str) -> str:
    """Host, port and database of a connection string, never its password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:  # an unparsable DSN still gets a clear error
        return "the given DSN"
    host = parts.get("host") or "localhost"
    return f"{host}:{parts.get('port') or 5432}/{parts.get('dbname') or '?'}"
