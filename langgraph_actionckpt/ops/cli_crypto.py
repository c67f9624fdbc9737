"""Encryption ``actionckpt`` commands: encrypt-existing, rotate-key; the ``--key`` option.

Keys are never given on the command line (it shows in process lists): each
``--key ID=SOURCE`` names where key ``ID`` is read from, ``env:NAME`` (an
environment variable) or ``file:PATH`` (32 raw bytes, 64 hex digits or base64).
The commands that read or write values (``show``, ``timeline``, ``similar``,
``fork``) take the same option.

A value stored in plain text is never sealed by ``rotate-key`` unless its
thread is named (``--accept-plaintext``), nor by ``encrypt-existing`` once
anything is sealed unless ``--all-plaintext`` or its thread is named: it is
reported, left as it is, and the command exits 3.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

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

KeyOpt = Annotated[
    list[str],
    typer.Option(
        "--key",
        help="ID=env:NAME or ID=file:PATH; repeat for every key rows may be sealed with",
    ),
]
ReadKeyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--key",
        help="ID=env:NAME or ID=file:PATH: the keys of encrypted rows (repeat for several)",
    ),
]
AllPlainOpt = Annotated[
    bool,
    typer.Option(
        "--all-plaintext",
        help="encrypt-existing: seal every value stored in plain text although some are "
        "sealed already (you vouch that none was written since encryption was on)",
    ),
]
ActiveOpt = Annotated[str | None, typer.Option(help="The key to seal with [default: the only key]")]
AcceptOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--accept-plaintext",
        metavar="THREAD",
        help="Seal this thread's values stored in plain text (you vouch for them); repeatable",
    ),
]
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


def keyring_or_none(keys: list[str] | None) -> Any:
    """The key ring of a reading command's ``--key`` options, or None without any."""
    if not keys:
        return None
    return keyring_from(keys, keys[0].partition("=")[0])


def _run(
    s: Settings,
    keys: list[str],
    active: str | None,
    batch_size: int,
    what: str,
    accept: bool | list[str] | None,
) -> None:
    from langgraph_actionckpt.ops.encryption import reencrypt

    def body() -> Any:
        ring = keyring_from(keys, active)
        options: dict[str, Any] = {"batch_size": batch_size, "accept_plaintext": accept}
        with open_schema(s) as conn:
            if s.json:
                return reencrypt(conn, ring, schema_of(s), **options)
            with new_progress() as bar:
                tasks: dict[str, Any] = {}

                def progress(table: str, done: int, total: int) -> None:
                    if table not in tasks:
                        tasks[table] = bar.add_task(f"{what} {table}", total=total)
                    bar.update(tasks[table], completed=done, total=max(done, total))

                return reencrypt(conn, ring, schema_of(s), progress=progress, **options)

    result = guard(s, body)
    data = {
        "active": result.active,
        "resealed": result.resealed,
        "skipped": result.skipped,
        "batches": result.batches,
        "remaining": result.remaining,
        "plaintext": result.plaintext,
        "done": result.done,
    }
    if s.json:
        emit_json(data)
    else:
        _report(result)
    if result.plaintext:
        raise typer.Exit(3)
    if not result.done:
        raise typer.Exit(2)


def _report(result: Any) -> None:
    for table, n in result.resealed.items():
        OUT.print(
            f"{table}: {n} rows sealed with key {result.active!r}, {result.skipped[table]} "
            "changed by a writer meanwhile"
        )
    for table, threads in result.plaintext.items():
        shown = ", ".join(repr(t) for t in threads[:20])
        more = f" and {len(threads) - 20} more" if len(threads) > 20 else ""
        OUT.print(
            f"{table}: values stored in plain text LEFT AS THEY ARE (not authenticated: "
            f"anyone with database access may have written them) in threads {escape(shown)}"
            f"{more}; check them, then name their threads with --accept-plaintext THREAD"
        )
    if result.done:
        OUT.print(f"done: every value is sealed with key {result.active!r}")
    elif not result.plaintext:
        OUT.print(f"not done, run again: rows left {result.remaining}")


def _reseal_command(name: str, what: str, doc: str) -> Any:
    """Register ``name``: the one re-sealing run, told as ``what`` on its progress bars."""

    def run(
        s: Settings,
        key: KeyOpt,
        active: ActiveOpt = None,
        batch_size: BatchOpt = 500,
        accept_plaintext: AcceptOpt = None,
        all_plaintext: AllPlainOpt = False,
    ) -> None:
        if name == "rotate-key":  # rotation never seals plain text on its own
            if all_plaintext:
                raise typer.BadParameter("rotate-key takes --accept-plaintext THREAD only")
            accept: bool | list[str] | None = accept_plaintext or []
        else:
            accept = True if all_plaintext else accept_plaintext or None
        _run(s, key, active, batch_size, what, accept)

    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = doc
    return command(name)(run)


encrypt_existing = _reseal_command(
    "encrypt-existing",
    "encrypting",
    """Encrypt rows stored in plain text, in batches, while savers keep running.

    Run the savers with encryption=KeyRing(..., allow_plaintext=True) meanwhile;
    drop allow_plaintext once this reports done. Once anything is sealed, a value
    in plain text is sealed only with --all-plaintext or --accept-plaintext
    THREAD; else it is reported, left as it is, and the exit code is 3.
    """,
)
rotate_key = _reseal_command(
    "rotate-key",
    "re-encrypting",
    """Re-encrypt every row sealed with another key to --active, in batches, online.

    Give every key rows may be sealed with. Switch the savers to the new active
    key first; keep the old keys in their key rings until this reports done.
    A value in plain text is never sealed unless its thread is named with
    --accept-plaintext THREAD: it is reported, left as it is (exit code 3).
    """,
)
