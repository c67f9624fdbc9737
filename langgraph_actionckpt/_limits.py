"""The limits lower layers check against, in a leaf of their own.

:mod:`langgraph_actionckpt._config` names the blob and crypto types its options carry, so
a module that only needs a limit (the encoder, the load budget) imports it from here and
stays out of that module's imports.
"""

from __future__ import annotations

from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["DEFAULT_MAX_LOAD_BYTES", "LEASE_TIMEOUT", "LIMITS", "check_length"]

DEFAULT_MAX_LOAD_BYTES = 512 * 1024 * 1024
"""The default decompression budget of one load (``SaverOptions.max_load_bytes``)."""

LEASE_TIMEOUT = 300.0
"""Seconds a run waits for another worker's lease on its thread, direct and remote alike."""

LIMITS: dict[str, int] = {
    "thread id": 1024,
    "checkpoint namespace": 1024,
    "checkpoint id": 128,
    "task id": 256,
    "channel name": 256,
    "action id": 512,
    "action name": 1024,
    "run id": 256,
}
"""Longest identifiers and names accepted, in UTF-8 bytes of their stored form.

Every key of an index must fit one B-tree entry (about 2.7 KB with 8 KB pages):
the longest key, a pending write's (thread id, namespace, checkpoint id, task
id), stays under it at these limits. Checked before any SQL (:func:`check_length`).
A string holding NUL or a lone surrogate is stored escaped and counts escaped.
"""


def check_length(what: str, value: str) -> None:
    """Refuse ``value`` when its stored form is longer than ``LIMITS[what]`` bytes.

    Args:
        what: A key of :data:`LIMITS` (``"thread id"``, ``"channel name"``...).
        value: The (escaped) string as it would be stored.

    Raises:
        ConfigurationError: It is too long; the message gives its size and the limit.
    """
    limit = LIMITS[what]
    if len(value) * 4 <= limit:  # no UTF-8 string of this length can exceed it
        return
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ConfigurationError(
            f"{what} of {size} bytes is longer than the limit of {limit} bytes "
            f"(starts {value[:40]!r}); see LIMITS in the README"
        )
