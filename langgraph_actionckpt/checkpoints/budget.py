"""Loads of untrusted stored bytes: one decompression budget per load, errors that name the row.

Stored bytes are untrusted: a few kilobytes of Zstandard may declare a
gigabyte each, and a corrupt row may make a decoder raise anything. Every load
(``get_tuple``, one page of ``list``, the delta history) gets one
:class:`LoadBudget` that all its decompressions draw from; a value that would
pass it is refused before any memory is taken for it. Whatever goes wrong
while decoding becomes a :class:`~langgraph_actionckpt.SerializationError`
made by :func:`refused`, naming the row and column
(:meth:`~langgraph_actionckpt.checkpoints.place.Place.describe`) and saying
the data was refused as untrusted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from langgraph_actionckpt._limits import DEFAULT_MAX_LOAD_BYTES
from langgraph_actionckpt.checkpoints.place import Place
from langgraph_actionckpt.errors import DecryptionError, SerializationError

__all__ = ["DEFAULT_MAX_LOAD_BYTES", "LoadBudget", "load_errors", "refused"]


def refused(place: Place | None, reason: str) -> SerializationError:
    """The error for stored data that cannot be loaded, naming where it is stored.

    Args:
        place: The value's row and column (None when unknown, e.g. a bare codec).
        reason: What is wrong with it.
    """
    where = place.describe() if place is not None else "an unnamed stored value"
    error = SerializationError(f"stored data refused as untrusted at {where}: {reason}")
    error.place = place  # type: ignore[attr-defined]  # marks it as already placed
    return error


def is_placed(error: BaseException) -> bool:
    """Whether ``error`` came from :func:`refused` (it names its place already)."""
    return isinstance(error, SerializationError) and hasattr(error, "place")


@contextmanager
def load_errors(place: Place | None, during: str | None = None) -> Iterator[None]:
    """Turn any error decoding stored data inside the block into a :func:`refused` error.

    Corrupt or hostile bytes make decoders raise ``KeyError``, ``TypeError``,
    ``struct.error``...; the caller gets a ``SerializationError`` naming ``place``
    instead (or the more precise place an inner error already named).

    Args:
        place: Where the data decoded in the block is stored.
        during: What is being loaded (e.g. ``checkpoint '1ef...'``), added to an
            inner error whose place names no checkpoint (a blob row is shared
            by many checkpoints, so its place has none).
    """
    try:
        yield
    except DecryptionError:
        raise  # names its place already (a description: it may be raised without a Place)
    except Exception as exc:
        if not is_placed(exc):
            raise refused(place, f"{type(exc).__name__}: {exc}") from exc
        inner: Place | None = exc.place  # type: ignore[attr-defined]
        if during is None or (inner is not None and inner.checkpoint_id is not None):
            raise
        error = SerializationError(f"{exc} (while loading {during})")
        error.place = inner  # type: ignore[attr-defined]
        raise error from exc


class LoadBudget:
    """The bytes one load may still decompress.

    Args:
        limit: The budget in bytes (``SaverOptions.max_load_bytes``).
    """

    __slots__ = ("limit", "used")

    def __init__(self, limit: int = DEFAULT_MAX_LOAD_BYTES) -> None:
        self.limit = limit
        self.used = 0

    def take(self, size: int, place: Place | None) -> None:
        """Draw ``size`` bytes for one value, or refuse it (nothing is drawn then).

        Raises:
            SerializationError: The load would pass its budget; names ``place``.
        """
        if self.used + size > self.limit:
            raise refused(
                place,
                f"decompressing its {size} declared bytes would take this load past its "
                f"budget of {self.limit} bytes ({self.used} used; SaverOptions.max_load_bytes)",
            )
        self.used += size
