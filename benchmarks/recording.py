"""What the recording benchmarks share: tool-call text, the graph's metadata, scratch schemas."""

from __future__ import annotations

import random

import psycopg

_RNG = random.Random(7)
_WORDS = ["".join(_RNG.choice("abcdefghijklmnop") for _ in range(6)) for _ in range(2000)]


def text(n: int) -> str:
    """n characters of words, the same sequence every run (seeded)."""
    out: list[str] = []
    size = 0
    while size < n:
        w = _RNG.choice(_WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


META = {
    "thread_id": "bench-thread",
    "langgraph_node": "tools",
    "langgraph_step": 3,
    "langgraph_checkpoint_ns": "tools:00000000-0000-0000-0000-000000000001",
}


def drop_schema(dsn: str, schema: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            psycopg.sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                psycopg.sql.Identifier(schema)
            )
        )


def count_actions(dsn: str, schema: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            psycopg.sql.SQL("SELECT count(*) FROM {}.actions").format(
                psycopg.sql.Identifier(schema)
            )
        ).fetchone()
        return int(row[0]) if row else 0
