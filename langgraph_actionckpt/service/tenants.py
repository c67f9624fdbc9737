"""Tenants: bearer tokens mapped to a tenant and the schema that holds its threads.

A token file has one token a line, ``token tenant schema [ro]`` (``#`` starts
a comment). Each tenant's threads live in its own schema, so no request of one
tenant can name another's threads. ``ro`` marks a read-only token.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from langgraph_actionckpt._config import validate_schema
from langgraph_actionckpt.errors import ConfigurationError

__all__ = ["Tenant", "Tenants", "load_tokens"]


@dataclass(frozen=True, slots=True)
class Tenant:
    """A tenant: its name, its schema and whether its token may write."""

    name: str
    schema: str
    read_only: bool = False


class Tenants:
    """Who a call is: by bearer token, or the one open tenant when no tokens are set.

    Args:
        tokens: Token -> tenant; ``None`` serves every caller as ``open_tenant``.
        open_tenant: The tenant of an unauthenticated server.
    """

    def __init__(self, tokens: dict[str, Tenant] | None, open_tenant: Tenant) -> None:
        self.tokens = tokens
        self.open_tenant = open_tenant

    @property
    def schemas(self) -> list[str]:
        """Every schema a tenant may use (migrated when the server starts)."""
        if self.tokens is None:
            return [self.open_tenant.schema]
        return sorted({t.schema for t in self.tokens.values()})

    def by_token(self, token: str | None) -> Tenant | None:
        """The tenant of ``token`` (the open tenant when no tokens are configured)."""
        if self.tokens is None:
            return self.open_tenant
        if not token:
            return None
        return self.tokens.get(token)


def load_tokens(path: str | Path) -> dict[str, Tenant]:
    """Read a token file (see the module docstring).

    Raises:
        ConfigurationError: A malformed line, a bad schema name, or a repeated token.
    """
    tokens: dict[str, Tenant] = {}
    text = Path(path).read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "ro"):
            raise ConfigurationError(f"{path}:{n}: expected 'token tenant schema [ro]'")
        token, tenant, schema = parts[:3]
        validate_schema(schema)
        if token in tokens:
            raise ConfigurationError(f"{path}:{n}: token given twice")
        tokens[token] = Tenant(tenant, schema, read_only=len(parts) == 4)
    if not tokens:
        raise ConfigurationError(f"{path}: no tokens")
    return tokens
