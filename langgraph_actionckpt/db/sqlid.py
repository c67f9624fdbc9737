"""Schema-qualified SQL text: the one place a schema name becomes an identifier.

Every statement of this package names its tables as ``{s}.table`` and is
composed here, so the schema is always quoted by :mod:`psycopg.sql` and never
interpolated as text.
"""

from __future__ import annotations

from psycopg import sql


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
