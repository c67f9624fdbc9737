"""The write-behind buffer: ``put_writes`` calls held for the thread's next checkpoint.

Regular writes of a finished task are only needed to resume the step they
belong to, so they are held in memory and stored by the same statement as the
thread's next checkpoint (or by the writer's flush within one and a half
``writer_interval``, or before any read that can see them). Plans never touch
the buffer: the saver takes calls out before a plan runs, hands them to it, and
puts them back (:meth:`PendingWrites.restore`) when it fails.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple


class WriteRow(NamedTuple):
    """One pending write, escaped and serialized, ready to bind."""

    thread_id: str
    ns: str
    checkpoint_id: str | None
    task_id: str
    task_path: str
    idx: int
    channel: str
    type: str
    blob: bytes


class ActionRow(NamedTuple):
    """One node action row (see ``actions.node_rows``), escaped, ready to bind."""

    thread_id: str
    action_id: str
    run_id: str | None
    ns: str
    checkpoint_id: str | None
    task_id: str
    node: str | None
    agent_id: str | None
    step: int | None
    action_type: str
    name: str | None
    status: str
    output: str | None
    error: str | None


@dataclass(slots=True)
class WriteCall:
    """One ``put_writes`` call, ready to bind: write rows, action rows, failure."""

    rows: list[WriteRow]
    special: bool
    actions: list[ActionRow]
    failed_task: str | None
    thread_id: str
    checkpoint_id: str | None = None
    held_at: float = 0.0  # time.monotonic() when it was held

    @property
    def key(self) -> tuple[str, str]:
        """(thread_id, checkpoint_ns): where the call is held."""
        return self.thread_id, self.rows[0].ns if self.rows else self.actions[0].ns


class PendingWrites:
    """Held calls per (thread_id, checkpoint_ns), thread-safe.

    Truthy when anything is held; the check takes no lock, so the hot paths
    (every read flushes first) cost one dict test when nothing is held.
    """

    def __init__(self) -> None:
        self._held: dict[tuple[str, str], list[WriteCall]] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._held)

    def __len__(self) -> int:
        return sum(len(calls) for calls in self._held.values())

    def hold(self, call: WriteCall) -> None:
        """Hold one call after the thread's others."""
        with self._lock:
            self._held.setdefault(call.key, []).append(call)

    def take(
        self,
        key: tuple[str, str],
        keep_from: str | None = None,
        held_before: float | None = None,
    ) -> list[WriteCall]:
        """Remove and return one thread's held calls.

        Args:
            key: (thread_id, checkpoint_ns).
            keep_from: Keep the calls of this checkpoint and later ones (with
                ``durability="async"`` they can arrive before their checkpoint);
                checkpoint ids are uuid6, so string order is creation order.
            held_before: But not those held before this ``time.monotonic()``
                value (the writer's next tick would store them on their own).
        """
        if not self._held:
            return []
        with self._lock:
            calls = self._held.pop(key, [])
            if keep_from is None:
                return calls
            taken: list[WriteCall] = []
            kept: list[WriteCall] = []
            for call in calls:
                later = call.checkpoint_id is not None and call.checkpoint_id >= keep_from
                if later and held_before is not None and call.held_at < held_before:
                    later = False
                (kept if later else taken).append(call)
            if kept:
                self._held[key] = kept
            return taken

    def take_all(
        self, thread_id: str | None = None, held_before: float | None = None
    ) -> list[WriteCall]:
        """Remove and return the held calls of every thread (or of one).

        Args:
            thread_id: Only this (escaped) thread's calls.
            held_before: Only calls held before this ``time.monotonic()`` value.

        Returns:
            The calls, threads in ascending order, each thread's in its own order
            (a group commit locks threads in this order, see ``AsyncDriver.run_grouped``).
        """
        if not self._held:
            return []
        calls: list[WriteCall] = []
        with self._lock:
            for key in list(self._held):
                if thread_id is not None and key[0] != thread_id:
                    continue
                group = self._held.pop(key)
                if held_before is not None:
                    young = [c for c in group if c.held_at >= held_before]
                    if young:
                        self._held[key] = young
                    group = [c for c in group if c.held_at < held_before]
                calls.extend(group)
        calls.sort(key=lambda call: call.thread_id)
        return calls

    def threads(self) -> list[str]:
        """The (escaped) threads with held calls, in ascending order."""
        with self._lock:
            return sorted({key[0] for key in self._held})

    def restore(self, calls: Sequence[WriteCall]) -> None:
        """Put taken calls back in front, in their order (their plan failed)."""
        if not calls:
            return
        with self._lock:
            for call in reversed(calls):
                self._held.setdefault(call.key, []).insert(0, call)
