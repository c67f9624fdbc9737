"""Per-entry thresholds learned online from what the model answered (after vCache).

One global threshold is too strict for some cached requests and too loose for
others. With ``SemanticReuse(max_wrong_rate=...)`` every candidate that a lookup
did not serve although it passed the contrast check (it was below the threshold)
becomes a labelled observation of its entry once the model has answered the new
request: ``(similarity, the new answer equals the cached one)``. An entry's own
threshold is then the lowest similarity at which its observations were wrong at
most ``max_wrong_rate`` of the time (:func:`~.calibrate.calibrate` on them), never
below ``floor``: an entry whose neighbours all got its answer serves them sooner;
one whose close neighbours needed another answer serves only closer ones.

The labels are exact equality of outputs, so this learns for deterministic tools
and functions; a sampled LLM answer rarely repeats word for word, and such entries
keep the global threshold (or move above it). Observations are kept in memory, per
policy object and process, at most ``per_entry`` for each of ``max_entries`` entries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from langgraph_actionckpt.reuse.calibrate import calibrate

__all__ = ["EntryThresholds"]


class EntryThresholds:
    """Observations and learned thresholds of cached entries (thread-safe).

    Args:
        max_wrong_rate: The largest share of wrong answers an entry may serve.
        floor: No entry's threshold goes below this similarity.
        per_entry: Observations kept per entry (the latest).
        max_entries: Entries remembered (the least recently observed are forgotten).
    """

    def __init__(
        self, max_wrong_rate: float, floor: float, per_entry: int = 32, max_entries: int = 10_000
    ) -> None:
        self.max_wrong_rate = max_wrong_rate
        self.floor = floor
        self.per_entry = per_entry
        self.max_entries = max_entries
        self._obs: OrderedDict[tuple[str, str], list[tuple[float, bool]]] = OrderedDict()
        self._lock = threading.Lock()

    def observe(self, entry: tuple[str, str], similarity: float, correct: bool) -> None:
        """Record that a request this similar to ``entry`` needed (not) its answer."""
        with self._lock:
            obs = self._obs.pop(entry, [])
            obs = [*obs, (similarity, correct)][-self.per_entry :]
            self._obs[entry] = obs
            while len(self._obs) > self.max_entries:
                self._obs.popitem(last=False)

    def threshold(self, entry: tuple[str, str], default: float) -> float:
        """``entry``'s learned threshold, or ``default`` while it has no observation."""
        with self._lock:
            obs = list(self._obs.get(entry, ()))
        if not obs:
            return default
        if all(ok for _, ok in obs):  # only right answers seen: serve as close as they were
            return max(self.floor, min(default, min(s for s, _ in obs)))
        return max(self.floor, calibrate(obs, self.max_wrong_rate))

    @staticmethod
    def same_answer(a: Any, b: Any) -> bool:
        """Whether two outputs are the same answer (exact equality)."""
        return bool(a == b)
