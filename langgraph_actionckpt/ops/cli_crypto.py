"""Encryption ``actionckpt`` commands: encrypt-existing, rotate-key.

Keys are never given on the command line (it shows in process lists): each
``--key ID=SOURCE`` names where key ``ID`` is read from, ``env:NAME`` (an
environment variable) or ``file:PATH`` (32 raw bytes, 64 hex digits or base64).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from langgraph_actionckpt.errors import ConfigurationError
from langgraph_actionckpt.ops.cli_common import (
    OUT,
    Settings,
    command,
    emit_json,
    guard,
    new_progress,
    open_schema,
    schema_of,
)
from langgraph_actionckpt.ops.display import safe

KeyOpt = Annotated[
    list[str],
    typer.Option(
        "--key",
        help="ID=env:NAME or ID=file:PATH; repeat for every key rows may be sealed with",
    ),
]
ActiveOpt = Annotated[str | None, typer.Option(help="The key to seal with [default: the only key]")]
BatchOpt = Annotated[int, typer.Option(help="Rows per transaction")]


def keyring_from(keys: list[str], active: str | None) -> Any:
    """A :class:`~langgraph_actionckpt.crypto.KeyRing` from ``--key`` options.

    Raises:
        ConfigurationError: A malformed ``--key`` or no key at all.
    """
    from langgraph_actionckpt.crypto import KeyRing, KeySource, key_from_env, key_from_file

    sources: dict[str, KeySource] = {}
    for spec in keys:
        kid, _, source = spec.partition("=")
        kind, _, where = source.partition(":")
        if not kid or not where or kind not in ("env", "file"):
            raise ConfigurationError(f"--key {spec!r}: give ID=env:NAME or ID=file:PATH")
        sources[kid] = key_from_env(where) if kind == "env" else key_from_file(where)
    if not sources:
        raise ConfigurationError("give at least one --key ID=env:NAME or ID=file:PATH")
    ring = KeyRing(sources, active)
    ring.load_keys()  # a missing variable or file fails before any row is touched
    return ring


def _run(s: Settings, keys: list[str], active: str | None, batch_size: int, what: str) -> None:
    from langgraph_actionckpt.ops.encryption import reencrypt

    def body() -> Any:
        ring = keyring_from(keys, active)
        with open_schema(s) as conn:
            if s.json:
                return reencrypt(conn, ring, schema_of(s), batch_size=batch_size)
            with new_progress() as bar:
                tasks: dict[str, Any] = {}

                def progress(table: str, done: int, total: int) -> None:
                    if table not in tasks:
                        tasks[table] = bar.add_task(f"{what} {table}", total=total)
                    bar.update(tasks[table], completed=done, total=max(done, total))

                return reencrypt(conn, ring, schema_of(s), batch_size=batch_size, progress=progress)

    result = guard(s, body)
    data = {
        "active": result.active,
        "resealed": result.resealed,
        "skipped": result.skipped,
        "batches": result.batches,
        "remaining": result.remaining,
        "done": result.done,
    }
    if s.json:
        emit_json(data)
        return
    key = safe(repr(result.active))
    for table, n in result.resealed.items():
        OUT.print(
            f"{table}: {n} rows sealed with key {key}, {result.skipped[table]} "
            "changed by a writer meanwhile"
        )
    if result.done:
        OUT.print(f"done: every value is sealed with key {key}")
    else:
        OUT.print(f"not done, run again: rows left {result.remaining}")
        raise typer.Exit(2)


def _reseal_command(name: str, what: str, doc: str) -> Any:
    """Register ``name``: the one re-sealing run, told as ``what`` on its progress bars."""

    def run(s: Settings, key: KeyOpt, active: ActiveOpt = None, batch_size: BatchOpt = 500) -> None:
        _run(s, key, active, batch_size, what)

    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = doc
    return command(name)(run)


encrypt_existing = _reseal_command(
    "encrypt-existing",
    "encrypting",
    """Encrypt rows stored in plain text, in batches, while savers keep running.

    Run the savers with encryption=KeyRing(..., allow_plaintext=True) meanwhile;
    drop allow_plaintext once this reports done.
    """,
)
rotate_key = _reseal_command(
    "rotate-key",
    "re-encrypting",
    """Re-encrypt every row sealed with another key to --active, in batches, online.

    Give every key rows may be sealed with. Switch the savers to the new active
    key first; keep the old keys in their key rings until this reports done.
    """,
)
