"""Run a plan on a saver's driver from either world (hand-written, not generated).

The reuse policy is handed to a sync or an async saver and called from sync or
async graph code, so a plan may have to cross worlds: an async caller of a sync
saver runs the plan in a worker thread; a sync caller of an async saver (a sync
graph step, on another thread) runs it on the saver's event loop.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from langgraph_actionckpt.db.driver import PlanFactory, T

__all__ = ["arun_plan", "run_plan"]


async def arun_plan(saver: Any, factory: PlanFactory[T], **kw: Any) -> T:
    """Run ``factory``'s plan on ``saver``'s driver from async code."""
    run = saver.driver.run
    if inspect.iscoroutinefunction(run):
        result: T = await run(factory, **kw)
        return result
    return await asyncio.to_thread(run, factory, **kw)  # type: ignore[no-any-return]


def run_plan(saver: Any, factory: PlanFactory[T], **kw: Any) -> T:
    """Run ``factory``'s plan on ``saver``'s driver from sync code."""
    run = saver.driver.run
    if inspect.iscoroutinefunction(run):
        future = asyncio.run_coroutine_threadsafe(run(factory, **kw), saver.loop)
        return future.result()  # type: ignore[no-any-return]
    return run(factory, **kw)  # type: ignore[no-any-return]
