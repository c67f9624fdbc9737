"""Encrypting existing rows and rotating keys, online, in bounded batches.

:func:`reencrypt` seals every stored value that is not sealed with the key
ring's active key: plain-text rows (``actionckpt encrypt-existing``) and rows
of older keys (``actionckpt rotate-key``). Each batch is one short transaction
that rewrites a row only if it still holds what was read, so savers keep
running meanwhile (run them with the new active key, and with
``allow_plaintext=True`` until ``encrypt-existing`` is done). Old keys must stay
in every saver's key ring until :func:`reencrypt` reports nothing left.

Re-sealing never makes an unauthenticated value read as a genuine one: once
anything in the schema is sealed, a value stored in plain text may have been
written by anyone with access to the database, so it is left as it is (and
reported) unless the operator names its thread (``accept_plaintext``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial

from langgraph_actionckpt.checkpoints.codec import Codec
from langgraph_actionckpt.checkpoints.reseal import (
    TABLES,
    plan_any_sealed,
    plan_reseal_batch,
    plan_stale_counts,
)
from langgraph_actionckpt.checkpoints.setup import default_serde
from langgraph_actionckpt.crypto import KeyRing
from langgraph_actionckpt.db.encoding import escape_text, unescape_text
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
        plaintext: Threads with a value stored in plain text that was left
            as it is (not accepted), per table: their rows are in ``remaining``.
    """

    active: str
    resealed: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    remaining: dict[str, int] = field(default_factory=dict)
    plaintext: dict[str, list[str]] = field(default_factory=dict)

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
    accept_plaintext: bool | Collection[str] | None = None,
) -> ReencryptResult:
    """Seal every value not sealed with the active key, batch by batch.

    Args:
        target: A connection (autocommit), a pool or a saver.
        keyring: Every key the rows may be sealed with, and the active one.
        schema: The saver schema (default: the target's, else ``actionckpt``).
        batch_size: Rows per transaction.
        progress: Called after each batch (see :data:`Progress`).
        accept_plaintext: Which values stored in plain text are sealed: ``True``
            all, a collection of thread ids those threads' only, ``None`` all
            if nothing in the schema is sealed yet (a first migration) and none
            otherwise. The others are left as they are and reported in
            :attr:`ReencryptResult.plaintext`.

    Raises:
        DecryptionError: A sealed value does not open (its key is not in the
            ring, or it was tampered with); batches before it are kept.
    """
    schema = schema_for(target, schema)
    codec = _codec(keyring, schema)
    driver = driver_for(target)
    if accept_plaintext is None:
        accept_plaintext = not driver.run(partial(plan_any_sealed, schema))
    named = (
        None
        if isinstance(accept_plaintext, bool)
        else frozenset(escape_text(str(t)) for t in accept_plaintext)
    )
    everything = accept_plaintext is True

    def seal_plain(thread: str) -> bool:
        return everything or (named is not None and thread in named)

    todo = driver.run(partial(plan_stale_counts, codec))
    result = ReencryptResult(keyring.active)
    for table in TABLES:
        after = None
        result.resealed[table] = result.skipped[table] = 0
        plain: dict[str, None] = {}
        while todo[table]:
            batch = driver.run(
                partial(plan_reseal_batch, codec, table, after, batch_size, seal_plain)
            )
            result.batches += 1
            result.resealed[table] += batch.changed
            result.skipped[table] += batch.skipped
            plain.update((unescape_text(key[0]), None) for key in batch.plain)
            if progress is not None:
                progress(table, result.resealed[table] + result.skipped[table], todo[table])
            if batch.after is None:
                break
            after = batch.after
        if plain:
            result.plaintext[table] = list(plain)
    result.remaining = driver.run(partial(plan_stale_counts, codec))
    return result
