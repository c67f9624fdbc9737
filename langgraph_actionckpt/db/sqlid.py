"""Schema-qualified SQL text: the one place a schema name becomes an identifier.

Every statement of this package names its tables as ``{s}.table`` and is
composed here, so the schema is always quoted by :mod:`psycopg.sql` and never
interpolated as text.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql


class Rendered(sql.Composed):
    """A composed statement that renders its bytes once per connection encoding.

    psycopg renders a ``Composed`` again on every execute (every part, the
    schema identifier escaped through libpq);
    the statements of a saver are composed once and executed once per
    superstep, so their bytes are kept. The bytes are what psycopg would make
    for a connection of that encoding, so the result is the same.
    """

    __slots__ = ("_bytes",)

    def __init__(self, composed: sql.Composed) -> None:
        super().__init__(list(composed))
        self._bytes: dict[str | None, bytes] = {}

    def as_bytes(self, context: Any = None) -> bytes:
        encoding = getattr(context, "encoding", None)
        out = self._bytes.get(encoding)
        if out is None:
            out = self._bytes[encoding] = super().as_bytes(context)
        return out


def q(schema: str, text: str, **parts: sql.Composable) -> sql.Composed:
    """``text`` composed with ``{s}`` bound to the quoted ``schema`` identifier.

    Args:
        schema: The schema name (quoted, whatever it holds).
        text: SQL with ``{s}`` and any other ``{name}`` placeholders.
        **parts: Further composables for the other placeholders.
    """
    return sql.SQL(text).format(s=sql.Identifier(schema), **parts)


def regclass(schema: str, table: str) -> str:
    """A quoted ``"schema"."table"`` name, for a ``%s::regclass`` or ``to_regclass`` parameter."""
    return sql.Identifier(schema, table).as_string()
