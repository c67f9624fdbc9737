"""Thresholds from labelled pairs: the lowest one whose wrong-reuse rate stays under a target."""

from __future__ import annotations

import math
from collections.abc import Iterable

from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["DEFAULT_THRESHOLD", "calibrate"]

DEFAULT_THRESHOLD = 0.85
"""Cosine similarity a candidate must reach (USE multilingual v3, with the contrast check).

Calibrated for a wrong-reuse rate of at most 1% on the development pairs (the
calibration set ``benchmarks/reuse_pairs.jsonl`` and held-out sets #1 and #2, 979
pairs), and rounded up; ``python -m benchmarks.bench_reuse`` prints the rates.
"""


def calibrate(pairs: Iterable[tuple[float | None, bool]], target_wrong_rate: float = 0.01) -> float:
    """The lowest similarity threshold that reuses wrongly on at most ``target_wrong_rate``.

    Args:
        pairs: ``(similarity, should_reuse)`` per labelled pair. Give ``None`` as the
            similarity of a pair that the other guards (key, verifier) refuse anyway:
            it counts in the denominator and is never reused.
        target_wrong_rate: The largest share of must-not pairs that may be reused.

    Returns:
        The threshold (a must-not pair is reused when its similarity reaches it).
        With no must-not pair above every candidate it is just above the highest
        must-not similarity; with no must-not pair at all, 1.0.

    Raises:
        ValueError: ``target_wrong_rate`` outside [0, 1).
    """
    if not 0 <= target_wrong_rate < 1:
        raise ConfigurationError(f"target_wrong_rate must be in [0, 1), got {target_wrong_rate}")
    items = list(pairs)
    wrong_scores = sorted((s for s, ok in items if not ok and s is not None), reverse=True)
    n_distinct = sum(1 for _, ok in items if not ok)
    if n_distinct == 0:
        return 1.0
    allowed = math.floor(target_wrong_rate * n_distinct)
    if allowed >= len(wrong_scores):
        good = [s for s, ok in items if ok and s is not None]
        return min(good) if good else 0.0
    # the (allowed+1)-th highest must-not similarity must stay below the threshold
    return math.nextafter(wrong_scores[allowed], math.inf)
