"""The durability barrier: which checkpoints this process knows are committed.

Under ``durability="async"`` LangGraph starts a task before the checkpoint it
was prepared from is saved; a crash then loses that checkpoint, and the re-run
task gets a new id, so its actions could not be found again. The replay engine
waits here before a task's first live action. A checkpoint is marked when its
put commits or when a read returns it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

logger = logging.getLogger("langgraph_actionckpt")

_MAX_MARKS = 100_000  # oldest marks go first; a task only waits for recent ones


class DurabilityBarrier:
    """Marks of committed checkpoint ids, and waits for them (sync or async).

    Waits take a timeout: a checkpoint this process never saves (of a subgraph
    compiled with ``checkpointer=False``) is given up on after it.
    """

    def __init__(self) -> None:
        self._marks: OrderedDict[str, None] = OrderedDict()
        self._cv = threading.Condition()

    def mark(self, checkpoint_id: str) -> None:
        """Record that a checkpoint is committed and wake the waiters."""
        with self._cv:
            self._marks[checkpoint_id] = None
            if len(self._marks) > _MAX_MARKS:
                self._marks.popitem(last=False)
            self._cv.notify_all()

    def missing(self, ids: Sequence[str]) -> list[str]:
        """The ids not known to be committed."""
        return [i for i in ids if i not in self._marks]

    def wait(self, ids: Sequence[str], timeout: float) -> bool:
        """Block until every id is marked; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while missing := self.missing(ids):
                left = deadline - time.monotonic()
                if left <= 0:
                    logger.debug("checkpoints %s not durable after %.1fs", missing, timeout)
                    return False
                self._cv.wait(min(left, 0.05))
        return True

    async def await_(self, ids: Sequence[str], timeout: float) -> bool:
        """Async :meth:`wait`: polls, so it never blocks the event loop."""
        deadline = time.monotonic() + timeout
        while missing := self.missing(ids):
            if time.monotonic() >= deadline:
                logger.debug("checkpoints %s not durable after %.1fs", missing, timeout)
                return False
            await asyncio.sleep(0.0005)
        return True
