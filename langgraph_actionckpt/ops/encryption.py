"""Encrypting existing rows and rotating keys, online, in bounded batches.

:func:`reencrypt` seals every stored value that is not sealed with the key
ring's active key: plain-text rows (``actionckpt encrypt-existing``) and rows
of older keys (``actionckpt rotate-key``). Each batch is one short transaction
that rewrites a row only if it still holds what was read, so savers keep
running meanwhile (run them with the new active key, and with
``allow_plaintext=True`` until ``encrypt-existing`` is done). Old keys must stay
in every saver's key ring until :func:`reencrypt` reports nothing left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.reseal import TABLES, plan_reseal_batch, plan_stale_counts
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.ops.target import Target, driver_for, schema_for

__all__ = ["ReencryptResult", "pending_reencryption", "reencrypt"]

Progress = Callable[[str, int, int], None]
"""Called after each batch with (table, rows re-sealed so far in it, rows it had to do)."""


@dataclass(slots=True)
class ReencryptResult:
    """What :func:`reencrypt` did.

    Attributes:
        active: The key every value is now sealed with.
        resealed: Rows rewritten, per table.
        skipped: Rows a writer changed after they were read (already sealed by
            that writer with the active key), per table.
        batches: Transactions run.
        remaining: Rows still not sealed with the active key, per table
            (counted at the end; 0 everywhere once done).
    """

    active: str
    resealed: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    remaining: dict[str, int] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        """Nothing is left unsealed or sealed with another key."""
        return not any(self.remaining.values())


def _codec(keyring: KeyRing, schema: str) -> Codec:
    # reads plain text whatever the ring says: this is what migrates it
    return Codec(default_serde(), schema=schema, keyring=keyring.with_options(allow_plaintext=True))


def pending_reencryption(
    target: Target, keyring: KeyRing, schema: str | None = None
) -> dict[str, int]:
    """Rows per table not sealed with ``keyring``'s active key (plain text or older keys)."""
    codec = _codec(keyring, schema_for(target, schema))
    return driver_for(target).run(partial(plan_stale_counts, codec))


def reencrypt(
    target: Target,
    keyring: KeyRing,
    schema: str | None = None,
    *,
    batch_size: int = 500,
    progress: Progress | None = None,
) -> ReencryptResult:
    """Seal every value not sealed with the active key, batch by batch.

    Args:
        target: A connection (autocommit), a pool or a saver.
        keyring: Every key the rows may be sealed with, and the active one.
        schema: The saver schema (default: the target's, else ``actionckpt``).
        batch_size: Rows per transaction.
        progress: Called after each batch (see :data:`Progress`).

    Raises:
        DecryptionError: A row does not open (its key is not in the ring, or it
            was tampered with); batches before it are kept.
    """
    schema = schema_for(target, schema)
    codec = _codec(keyring, schema)
    driver = driver_for(target)
    todo = driver.run(partial(plan_stale_counts, codec))
    result = ReencryptResult(keyring.active)
    for table in TABLES:
        after = None
        result.resealed[table] = result.skipped[table] = 0
        while todo[table]:
            batch = driver.run(partial(plan_reseal_batch, codec, table, after, batch_size))
            result.batches += 1
            result.resealed[table] += batch.changed
            result.skipped[table] += batch.skipped
            if progress is not None:
                progress(table, result.resealed[table] + result.skipped[table], todo[table])
            if batch.after is None:
                break
            after = batch.after
    result.remaining = driver.run(partial(plan_stale_counts, codec))
    return result
