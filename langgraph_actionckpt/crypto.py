"""Encryption at rest: AES-256-GCM bound to the row and column a value is stored in.

A :class:`KeyRing` holds named 256-bit keys, one of them *active*. Every value
the savers store in a value column (checkpoints, channel values, list deltas,
pending writes, and the ``input``/``output``/``error`` of action rows) is
compressed first, then sealed with the active key. The associated data of each
seal is the value's place (schema, table, thread, namespace, checkpoint or
action id, task, channel, version, column: ``checkpoints.place.Place``) plus its
stored type, so a ciphertext copied into another row, or a byte changed, fails
to open with a :class:`~langgraph_actionckpt.errors.DecryptionError` that names
the place.

A sealed value (a *token*) is::

    0x01 | len(key id) | key id (UTF-8) | 12-byte nonce | ciphertext | 16-byte tag

The version byte lets the format change later; the key id says which key opens
it, so old keys keep reading while :command:`actionckpt rotate-key` re-seals
rows to the active key. ``bytea`` columns hold the token itself (their type
column gets the :data:`SEALED_PREFIX`); JSONB columns hold an envelope
``{"__ack__": "enc", "k": key id, "ct": base64(token)}`` (see :func:`envelope`).

``cryptography`` is imported on first use (the ``[encryption]`` extra).
"""

from __future__ import annotations

import base64
import binascii
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from langgraph_actionckpt.db.encoding import TAG
from langgraph_actionckpt.errors import ConfigurationError, DecryptionError

__all__ = [
    "ENVELOPE_KIND",
    "FORMAT_VERSION",
    "KEY_BYTES",
    "SEALED_PREFIX",
    "KeyRing",
    "SEALED_ACTION_COLUMNS",
    "Sealed",
    "KeySource",
    "action_aad",
    "action_where",
    "envelope",
    "is_envelope",
    "key_from_env",
    "key_from_file",
    "no_key_message",
    "parse_key",
    "plaintext_message",
]

FORMAT_VERSION = 1
"""First byte of every token."""

SEALED_PREFIX = "e:"
"""Prefix of a sealed value's stored type (``e:z:msgpack``: compressed, then sealed)."""

ENVELOPE_KIND = "enc"
"""The tag of a sealed JSONB value (``{"__ack__": "enc", "k": ..., "ct": ...}``)."""

KEY_BYTES = 32
"""AES-256."""

_NONCE = 12
_TAG_BYTES = 16

KeySource = bytes | Callable[[], bytes | str]
"""A key: its 32 bytes, or a callable returning them (an env var, a file, a KMS call)."""


def parse_key(text: bytes | str, where: str) -> bytes:
    """A 32-byte key from its raw bytes, 64 hex digits or base64 (standard or URL-safe).

    Raises:
        ConfigurationError: Not a 256-bit key in any of these forms.
    """
    if isinstance(text, bytes) and len(text) == KEY_BYTES:
        return text
    raw = text.decode("ascii", "replace") if isinstance(text, bytes) else text
    raw = raw.strip()
    candidates: list[bytes] = []
    if len(raw) == 2 * KEY_BYTES:
        try:
            candidates.append(bytes.fromhex(raw))
        except ValueError:
            pass
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            candidates.append(decode(raw + "=" * (-len(raw) % 4)))
        except (binascii.Error, ValueError):
            pass
    for key in candidates:
        if len(key) == KEY_BYTES:
            return key
    raise ConfigurationError(
        f"{where} is not a 256-bit key: give 32 raw bytes, 64 hex digits or base64 of 32 bytes"
    )


def key_from_env(name: str) -> Callable[[], bytes]:
    """A key source reading environment variable ``name`` (hex or base64) when first used."""

    def load() -> bytes:
        value = os.environ.get(name)
        if value is None:
            raise ConfigurationError(f"environment variable {name} (an encryption key) is not set")
        return parse_key(value, f"environment variable {name}")

    return load


def key_from_file(path: str | os.PathLike[str]) -> Callable[[], bytes]:
    """A key source reading a file (32 raw bytes, hex or base64) when first used."""

    def load() -> bytes:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise ConfigurationError(f"cannot read encryption key file {path}: {exc}") from exc
        return parse_key(data if len(data) == KEY_BYTES else data.strip(), f"key file {path}")

    return load


class KeyRing:
    """Named AES-256 keys, one of them active: the ``encryption=`` option of the savers.

    Example:
        >>> ring = KeyRing({"k1": os.urandom(32), "k2": key_from_env("CKPT_K2")}, active="k2")
        ... # doctest: +SKIP

    Args:
        keys: Key id -> key: 32 bytes, or a callable returning them (raw, hex or
            base64), called once when the key is first needed: a hook for a KMS.
            See :func:`key_from_env` and :func:`key_from_file`. A key id is 1 to
            255 bytes of UTF-8 and is stored in plain text beside each value.
        active: The key new values are sealed with (default: the only key).
        allow_plaintext: Also read values stored without encryption (while
            ``actionckpt encrypt-existing`` migrates a database); by default a
            plain-text value is refused. Re-sealing never reads it as genuine:
            ``rotate-key`` leaves plain text as it is unless its thread is named,
            and copies and forks copy it as it is (or refuse it, strict).

    Raises:
        ConfigurationError: No keys, an unknown or missing ``active`` id, a bad
            key id, or (for bytes given directly) not a 256-bit key.
    """

    def __init__(
        self,
        keys: Mapping[str, KeySource],
        active: str | None = None,
        *,
        allow_plaintext: bool = False,
    ) -> None:
        if not keys:
            raise ConfigurationError("a KeyRing needs at least one key")
        if active is None:
            if len(keys) != 1:
                raise ConfigurationError("a KeyRing of several keys needs active=<key id>")
            active = next(iter(keys))
        if active not in keys:
            raise ConfigurationError(f"active key {active!r} is not one of {sorted(keys)}")
        self._sources: dict[str, KeySource] = {}
        self._ids: dict[str, bytes] = {}
        for kid, source in keys.items():
            encoded = kid.encode() if isinstance(kid, str) else b""
            if not 0 < len(encoded) < 256:
                raise ConfigurationError(f"key id {kid!r} must be 1 to 255 bytes of UTF-8")
            if isinstance(source, (bytes, bytearray)):
                source = parse_key(bytes(source), f"key {kid!r}")
            elif not callable(source):
                raise ConfigurationError(f"key {kid!r} must be bytes or a callable returning them")
            self._sources[kid] = source
            self._ids[kid] = encoded
        self.active = active
        self.allow_plaintext = allow_plaintext
        self._aead: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.active_prefix = bytes([FORMAT_VERSION, len(self._ids[active])]) + self._ids[active]
        """The first bytes of every token sealed with the active key (rotation looks for others)."""

    @property
    def key_ids(self) -> list[str]:
        """Every key id, the active one included."""
        return list(self._sources)

    def with_options(
        self, *, active: str | None = None, allow_plaintext: bool | None = None
    ) -> KeyRing:
        """A copy with another active key or plain-text setting (keys are shared, not reloaded)."""
        ring = KeyRing.__new__(KeyRing)
        ring.__dict__.update(self.__dict__)
        ring.active = self.active if active is None else active
        if ring.active not in self._sources:
            raise ConfigurationError(f"active key {ring.active!r} is not one of {self.key_ids}")
        ring.allow_plaintext = self.allow_plaintext if allow_plaintext is None else allow_plaintext
        kid = self._ids[ring.active]
        ring.active_prefix = bytes([FORMAT_VERSION, len(kid)]) + kid
        return ring

    def __repr__(self) -> str:  # never the keys
        return (
            f"KeyRing(keys={self.key_ids!r}, active={self.active!r}, "
            f"allow_plaintext={self.allow_plaintext!r})"
        )

    def _cipher(self, kid: str) -> Any:
        aead = self._aead.get(kid)
        if aead is not None:
            return aead
        with self._lock:
            aead = self._aead.get(kid)
            if aead is None:
                from cryptography.hazmat.primitives.ciphers.aead import AESGCM

                source = self._sources[kid]
                key = source if isinstance(source, bytes) else source()
                aead = AESGCM(parse_key(key, f"key {kid!r}"))
                self._aead[kid] = aead
        return aead

    def load_keys(self) -> None:
        """Resolve every key now (call a KMS hook at start-up instead of on first use).

        Raises:
            ConfigurationError: A key source fails or returns no 256-bit key.
        """
        for kid in self._sources:
            self._cipher(kid)

    # ------------------------------------------------------------------ bytes

    def seal(self, data: bytes, aad: bytes) -> bytes:
        """Encrypt ``data`` with the active key, bound to ``aad``; return the token."""
        nonce = os.urandom(_NONCE)  # random 96-bit nonces: safe for 2**32 values per key
        aead = self._aead.get(self.active) or self._cipher(self.active)
        sealed: bytes = aead.encrypt(nonce, data, aad)
        return self.active_prefix + nonce + sealed

    def key_id(self, token: bytes, where: str = "a stored value") -> str:
        """The id of the key that sealed ``token``.

        Raises:
            DecryptionError: Not a token of a known format version.
        """
        if len(token) < 2 or token[0] != FORMAT_VERSION:
            version = token[0] if token else None
            raise DecryptionError(
                f"{where}: not an encrypted value of a known format (version byte {version})",
                where,
            )
        end = 2 + token[1]
        try:
            return bytes(token[2:end]).decode()
        except UnicodeDecodeError:
            raise DecryptionError(
                f"{where}: the encrypted value's key id is garbled", where
            ) from None

    def open(self, token: bytes, aad: bytes, where: str = "a stored value") -> bytes:
        """Decrypt a token sealed for ``aad``.

        Args:
            token: The stored token.
            aad: The associated data of the place it was read from.
            where: The place, for the error message.

        Raises:
            DecryptionError: Unknown format, a key the ring does not have, or a
                token that does not authenticate here (a wrong key, a changed
                byte, or a value moved from another row or column).
        """
        kid = self.key_id(token, where)
        if kid not in self._sources:
            raise DecryptionError(
                f"{where}: encrypted with key {kid!r}, which the key ring does not have "
                f"(it has {self.key_ids}); add that key to read it",
                where,
            )
        body = bytes(token[2 + token[1] :])
        if len(body) < _NONCE + _TAG_BYTES:
            raise DecryptionError(f"{where}: the encrypted value is truncated", where)
        from cryptography.exceptions import InvalidTag

        try:
            out: bytes = self._cipher(kid).decrypt(body[:_NONCE], body[_NONCE:], aad)
        except InvalidTag:
            raise DecryptionError(
                f"{where}: the encrypted value does not authenticate with key {kid!r}: "
                "a wrong key, a changed byte, or a value moved here from another row or column",
                where,
            ) from None
        return out

    # ------------------------------------------------------------------- json

    def seal_json(self, text: str, aad: bytes) -> str:
        """Seal JSON text for a JSONB column: the envelope's JSON text."""
        token = self.seal(text.encode(), aad)
        return (
            f'{{"{TAG}": "{ENVELOPE_KIND}", "k": {_json_str(self.active)}, '
            f'"ct": "{base64.b64encode(token).decode()}"}}'
        )

    def open_json(self, value: Any, aad: bytes, where: str) -> bytes | None:
        """The JSON text (as bytes) sealed in a JSONB value, or None when it is plain JSON.

        Raises:
            DecryptionError: ``value`` is sealed but does not open here, or it is
                plain JSON and plain text is not allowed.
        """
        if not is_envelope(value):
            if value is None or self.allow_plaintext:
                return None
            raise DecryptionError(plaintext_message(where), where)
        try:
            token = base64.b64decode(value["ct"], validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise DecryptionError(
                f"{where}: the encrypted value is not valid base64", where
            ) from None
        return self.open(token, aad, where)


def _json_str(text: str) -> str:
    return orjson.dumps(text).decode()


def is_envelope(value: Any) -> bool:
    """Whether a JSONB value is a sealed envelope."""
    return isinstance(value, dict) and value.get(TAG) == ENVELOPE_KIND and "ct" in value


def envelope(kid: str, token: bytes) -> dict[str, str]:
    """The JSONB envelope of a token sealed with key ``kid``."""
    return {TAG: ENVELOPE_KIND, "k": kid, "ct": base64.b64encode(token).decode()}


@dataclass(frozen=True, slots=True)
class Sealed:
    """A sealed JSONB value kept as stored, unopened: what an archive copies without a key.

    Attributes:
        envelope: The stored envelope (see :func:`envelope`).
    """

    envelope: dict[str, Any]


SEALED_ACTION_COLUMNS = ("input", "output", "error")
"""The columns of action rows that are sealed (the rest stays queryable)."""


def action_aad(schema: str, thread_id: str, action_id: str, column: str) -> bytes:
    """The associated data of an action row's column (escaped ids).

    The same bytes as ``Place(schema, "actions", thread_id, action_id=action_id,
    column=column).associated_data()`` (``checkpoints.place``, a layer above).
    """
    return orjson.dumps(
        [schema, "actions", thread_id, None, None, action_id, None, None, None, column]
    )


def action_where(schema: str, thread_id: str, action_id: str, column: str) -> str:
    """The place of an action row's column, for error messages (as ``Place.describe``)."""
    return (
        f"table {schema}.actions, thread id {thread_id!r}, action id {action_id!r}, column {column}"
    )


def plaintext_message(where: str) -> str:
    """The error text of a plain-text value read while encryption is on."""
    return (
        f"{where}: stored in plain text, but encryption is on; run `actionckpt "
        "encrypt-existing` (with allow_plaintext=True on the savers while it runs); "
        "once anything is sealed it seals plain text only for threads you name "
        "(--accept-plaintext THREAD), as anyone with database access may have written it"
    )


def no_key_message(where: str) -> str:
    """The error text of an encrypted value read without a key ring (whatever the method)."""
    return (
        f"{where}: the value is encrypted; pass encryption=KeyRing(...) "
        "(on the command line: --key ID=env:NAME)"
    )
