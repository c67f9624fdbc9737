"""Same-rows floors: the rows our saver stored, inserted again with nothing else around them.

A floor here is what the database must do for the rows ours keeps, not a guess at them:

* :func:`capture_steps` reads back, from our schema, every row one thread of a graph left
  (checkpoints, blobs, pending writes, action rows) and groups them by the put that stores
  them: the checkpoint, the channel values new in it, the pending writes of the tasks that
  ran from its parent, and those tasks' ``node`` action rows.
* :func:`create_floor_schema` makes a private schema from our migrations' own DDL, so the
  floor's tables have the same columns, primary keys and indexes as ours.
* :class:`SameRowsFloorSaver` (and its async twin) is ``InMemorySaver`` plus, per put, one
  transaction inserting exactly the captured rows of that superstep under the put's thread
  id, in one of the :data:`SHAPES` (measure the cheapest with :func:`time_shapes`).
* :func:`capture_actions` and :func:`copy_floor` do the same for recording: the action rows
  the callback handler stored, as COPY text, loaded again by ``COPY ... FROM STDIN`` into
  the floor schema's ``actions`` table (every index in place), 1,000 rows a transaction.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import psycopg
from langgraph.checkpoint.memory import InMemorySaver
from psycopg import pq, sql
from psycopg.abc import PQGen
from psycopg.adapt import PyFormat, Transformer
from psycopg.generators import execute
from psycopg.types.json import Jsonb

from langgraph_actionckpt.db.schema_versions import MIGRATIONS

TABLES = ("checkpoints", "blobs", "writes", "actions")
Shape = Literal["cte", "pipeline", "script", "prepared"]
SHAPES: tuple[Shape, ...] = ("cte", "pipeline", "script", "prepared")
"""``cte``: one statement, one ``INSERT`` per table chained as data-modifying CTEs, bound
parameters (one round trip, its own transaction); ``pipeline``: ``BEGIN``, one multi-row
``INSERT`` per table and ``COMMIT`` sent as one pipeline; ``script``: the same statements as
one simple-protocol query string with the values as literals (rendered once, the thread id
substituted per put); ``prepared``: the ``cte`` statement prepared once per connection and
executed on libpq directly (``send_query_prepared``) with its parameters dumped to text once,
only the thread id swapped per put: no psycopg adaptation per call, no parse on the server."""
COPY_CHUNK = 1_000  # rows per COPY transaction, as many as our writer sends per statement

_TID = "floor-thread-placeholder-7f3a"  # the thread id of a rendered script, replaced per put
Row = tuple[Any, ...]
_names = itertools.count()


@dataclass(frozen=True)
class Columns:
    """The columns of one of our tables that an INSERT names (not the generated identity)."""

    table: str
    names: tuple[str, ...]
    types: tuple[str, ...]

    def select(self, schema: str) -> sql.Composed:
        return sql.SQL("SELECT {} FROM {}.{}").format(
            sql.SQL(", ").join(map(sql.Identifier, self.names)),
            sql.Identifier(schema),
            sql.Identifier(self.table),
        )


COLUMNS_SQL = """
SELECT a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a
WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity <> 'a'
ORDER BY a.attnum
"""


def table_columns(conn: psycopg.Connection[Any], schema: str, table: str) -> Columns:
    regclass = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
    rows = conn.execute(COLUMNS_SQL, [regclass.as_string(conn)]).fetchall()
    names = tuple(str(r[0]) for r in rows)
    if names[0] != "thread_id":
        raise AssertionError(f"{table}: thread_id is not the first column ({names})")
    return Columns(table, names, tuple(str(r[1]) for r in rows))


@dataclass
class Step:
    """The rows of one put: table -> rows (thread id first)."""

    rows: dict[str, list[Row]] = field(default_factory=lambda: {t: [] for t in TABLES})

    def count(self) -> int:
        return sum(len(r) for r in self.rows.values())


def capture_steps(conn: psycopg.Connection[Any], schema: str, thread_id: str) -> list[Step]:
    """Every row of ``thread_id`` in our ``schema``, grouped by the put that stores it."""
    cols = {t: table_columns(conn, schema, t) for t in TABLES}
    got: dict[str, list[Row]] = {}
    for table, c in cols.items():
        query = sql.SQL("{} WHERE thread_id = %s").format(c.select(schema))
        got[table] = [tuple(r) for r in conn.execute(query, [thread_id]).fetchall()]
    pos = {t: {n: i for i, n in enumerate(c.names)} for t, c in cols.items()}
    ck = pos["checkpoints"]
    checkpoints = sorted(got["checkpoints"], key=lambda r: str(r[ck["checkpoint_id"]]))
    order = {r[ck["checkpoint_id"]]: i for i, r in enumerate(checkpoints)}
    steps = [Step() for _ in checkpoints]
    for i, r in enumerate(checkpoints):
        steps[i].rows["checkpoints"].append(r)
    first_with: dict[tuple[str, str], int] = {}
    for i, r in enumerate(checkpoints):
        for key in zip(r[ck["channels"]], r[ck["versions"]], strict=True):
            first_with.setdefault(key, i)
    bl = pos["blobs"]
    for r in got["blobs"]:
        steps[first_with[(r[bl["channel"]], r[bl["version"]])]].rows["blobs"].append(r)
    last = len(steps) - 1
    # a task's writes go with the put of the checkpoint after the one it ran from
    wr = pos["writes"]
    for r in got["writes"]:
        steps[min(order[r[wr["checkpoint_id"]]] + 1, last)].rows["writes"].append(r)
    ac = pos["actions"]
    for r in got["actions"]:
        steps[order.get(r[ac["checkpoint_id"]], last)].rows["actions"].append(r)
    return steps


def create_floor_schema(conn: psycopg.Connection[Any], schema: str) -> None:
    """The schema ``schema`` made by our migrations' DDL: the same tables, keys and indexes."""
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    for migration in MIGRATIONS:
        for statement in migration.render(schema):
            conn.execute(statement)


def drop_schema(conn: psycopg.Connection[Any], schema: str) -> None:
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def index_definitions(conn: psycopg.Connection[Any], schema: str) -> list[str]:
    """Our four tables' index definitions with the schema name taken out (for comparison)."""
    rows = conn.execute(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND tablename = ANY(%s) "
        "ORDER BY indexname",
        [schema, list(TABLES)],
    ).fetchall()
    return [str(r[0]).replace(f" {schema}.", " ") for r in rows]


def row_counts(conn: psycopg.Connection[Any], schema: str) -> dict[str, int]:
    out = {}
    for t in TABLES:
        q = sql.SQL("SELECT count(*) FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(t))
        row = conn.execute(q).fetchone()
        out[t] = int(row[0]) if row else 0
    return out


# --------------------------------------------------------------------------------------------
# One superstep's transaction, in each shape
# --------------------------------------------------------------------------------------------


def _param(value: Any, typ: str) -> Any:
    return Jsonb(value) if typ == "jsonb" and value is not None else value


def _values(c: Columns, n: int) -> sql.Composed:
    one = sql.SQL("({})").format(
        sql.SQL(", ").join(sql.SQL("%s::" + t) for t in c.types)  # types from pg_catalog
    )
    return sql.SQL(", ").join([one] * n)


def _insert(schema: str, c: Columns, values: sql.Composable) -> sql.Composed:
    return sql.SQL("INSERT INTO {}.{} ({}) VALUES {}").format(
        sql.Identifier(schema),
        sql.Identifier(c.table),
        sql.SQL(", ").join(map(sql.Identifier, c.names)),
        values,
    )


@dataclass
class PreparedStep:
    """One put's statements, built once; the thread id is filled in per call."""

    cte: str  # the one statement of the ``cte`` shape
    inserts: list[tuple[str, int]]  # ``pipeline``: (statement, rows) per non-empty table
    script: str  # ``script``: BEGIN; literal INSERTs; COMMIT, thread id as _TID
    params: list[list[Any]]  # per non-empty table, its rows' values flattened (thread id first)
    widths: list[int]  # columns per row, per non-empty table
    dollar: bytes  # ``prepared``: the cte statement with $n placeholders
    dumped: list[bytes | None]  # ``prepared``: every parameter as text, once
    tid_at: list[int]  # ``prepared``: where the thread id goes in ``dumped``
    name: bytes  # ``prepared``: the statement's name on a connection
    prepared_on: set[int] = field(default_factory=set)  # id() of the pgconns that know it


def prepare(
    conn: psycopg.Connection[Any], schema: str, steps: Sequence[Step]
) -> list[PreparedStep]:
    """The statements of every step, against the floor's ``schema``."""
    cols = {t: table_columns(conn, schema, t) for t in TABLES}
    out = []
    for step in steps:
        parts, inserts, literal, params, widths = [], [], [], [], []
        for table in TABLES:
            rows = step.rows[table]
            if not rows:
                continue
            c = cols[table]
            stmt = _insert(schema, c, _values(c, len(rows)))
            parts.append(stmt)
            inserts.append((stmt.as_string(conn), len(rows)))
            params.append([_param(v, t) for r in rows for v, t in zip(r, c.types, strict=True)])
            widths.append(len(c.names))
            rendered = sql.SQL(", ").join(
                sql.SQL("({})").format(
                    sql.SQL(", ").join(
                        sql.SQL("{}::" + t).format(sql.Literal(_TID if i == 0 else _param(v, t)))
                        for i, (v, t) in enumerate(zip(r, c.types, strict=True))
                    )
                )
                for r in rows
            )
            literal.append(_insert(schema, c, rendered))
        *head, tail = parts
        cte = sql.SQL("WITH {} {}").format(
            sql.SQL(", ").join(
                sql.SQL("t{} AS ({})").format(sql.Literal(i), p) for i, p in enumerate(head)
            ),
            tail,
        )
        script = sql.SQL("BEGIN; {}; COMMIT").format(sql.SQL("; ").join(literal))
        cte_text = cte.as_string(conn) if head else tail.as_string(conn)
        flat = [v for vs in params for v in vs]
        tid_at: list[int] = []
        at = 0
        for values, width in zip(params, widths, strict=True):
            tid_at += range(at, at + len(values), width)
            at += len(values)
        dumped = Transformer(conn).dump_sequence(flat, [PyFormat.TEXT] * len(flat))
        out.append(
            PreparedStep(
                cte_text,
                inserts,
                script.as_string(conn),
                params,
                widths,
                _dollars(cte_text),
                [None if d is None else bytes(d) for d in dumped],
                tid_at,
                b"floor_%d" % next(_names),
            )
        )
    return out


def _dollars(query: str) -> bytes:
    """``query``'s ``%s`` placeholders as ``$1``, ``$2``, ... (no other ``%`` in it)."""
    parts = query.split("%s")
    return "".join(p + (f"${i}" if i < len(parts) else "") for i, p in enumerate(parts, 1)).encode()


def _prepared_gen(pg: Any, p: PreparedStep, thread_id: str) -> PQGen[None]:
    """Prepare ``p`` on this connection when new, then run it with ``thread_id``."""
    if id(pg) not in p.prepared_on:
        pg.send_prepare(p.name, p.dollar)
        _check((yield from execute(pg)))
        p.prepared_on.add(id(pg))
    values = list(p.dumped)
    tid = thread_id.encode()
    for i in p.tid_at:
        values[i] = tid
    pg.send_query_prepared(p.name, values)
    _check((yield from execute(pg)))


def _check(results: Sequence[Any]) -> None:
    for r in results:
        if r.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
            raise psycopg.DatabaseError(r.error_message.decode(errors="replace"))


def _with_thread(p: PreparedStep, thread_id: str) -> list[list[Any]]:
    out = []
    for values, width in zip(p.params, p.widths, strict=True):
        v = list(values)
        v[::width] = [thread_id] * (len(v) // width)
        out.append(v)
    return out


def _literal_tid(thread_id: str) -> str:
    return "'" + thread_id.replace("'", "''") + "'"


def run_step(conn: psycopg.Connection[Any], p: PreparedStep, shape: Shape, thread_id: str) -> None:
    """One put's transaction on an autocommit connection."""
    if shape == "prepared":
        conn.wait(_prepared_gen(conn.pgconn, p, thread_id))
        return
    if shape == "script":
        conn.execute(p.script.replace(_literal_tid(_TID), _literal_tid(thread_id)).encode())
        return
    params = _with_thread(p, thread_id)
    if shape == "cte":
        conn.execute(p.cte.encode(), [v for vs in params for v in vs])
        return
    with conn.pipeline(), conn.transaction():
        for (stmt, _), values in zip(p.inserts, params, strict=True):
            conn.execute(stmt.encode(), values)


async def arun_step(
    conn: psycopg.AsyncConnection[Any], p: PreparedStep, shape: Shape, thread_id: str
) -> None:
    """The async twin of :func:`run_step`."""
    if shape == "prepared":
        await conn.wait(_prepared_gen(conn.pgconn, p, thread_id))
        return
    if shape == "script":
        await conn.execute(p.script.replace(_literal_tid(_TID), _literal_tid(thread_id)).encode())
        return
    params = _with_thread(p, thread_id)
    if shape == "cte":
        await conn.execute(p.cte.encode(), [v for vs in params for v in vs])
        return
    async with conn.pipeline(), conn.transaction():
        for (stmt, _), values in zip(p.inserts, params, strict=True):
            await conn.execute(stmt.encode(), values)


# --------------------------------------------------------------------------------------------
# The floor savers
# --------------------------------------------------------------------------------------------


class SameRowsFloorSaver(InMemorySaver):
    """A reference, not a saver: ``InMemorySaver`` plus, per put, one transaction that
    inserts the rows ours stored for that superstep (the k-th put of a thread inserts the
    k-th captured step under that thread's id)."""

    def __init__(self, conn: psycopg.Connection[Any], steps: list[PreparedStep], shape: Shape):
        super().__init__()
        self.conn, self.steps, self.shape = conn, steps, shape
        self.puts: Counter[str] = Counter()

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        out = super().put(config, checkpoint, metadata, new_versions)
        tid = str(config["configurable"]["thread_id"])
        k = self.puts[tid]
        self.puts[tid] = k + 1
        run_step(self.conn, self.steps[k], self.shape, tid)
        return out


class AsyncSameRowsFloorSaver(InMemorySaver):
    """The async twin of :class:`SameRowsFloorSaver`, on a psycopg ``AsyncConnection``."""

    def __init__(
        self, conn: psycopg.AsyncConnection[Any], steps: list[PreparedStep], shape: Shape
    ) -> None:
        super().__init__()
        self.aconn, self.steps, self.shape = conn, steps, shape
        self.puts: Counter[str] = Counter()

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        out = await super().aput(config, checkpoint, metadata, new_versions)
        tid = str(config["configurable"]["thread_id"])
        k = self.puts[tid]
        self.puts[tid] = k + 1
        await arun_step(self.aconn, self.steps[k], self.shape, tid)
        return out


@dataclass
class ShapeTiming:
    shape: Shape
    wall_us: float  # per step (transaction), median over rounds
    cpu_us: float  # this process's CPU per step


def time_shapes(
    conn: psycopg.Connection[Any], steps: list[PreparedStep], rounds: int, threads: int
) -> list[ShapeTiming]:
    """Each shape's cost per transaction outside any graph: rounds take turns, order rotating.

    Timed with ``synchronous_commit`` off: every shape commits once, so the WAL flush is the
    same for all of them, and on a shared server its wait (other sessions' flushes) would
    otherwise decide which shape looks cheapest.
    """
    conn.execute("SET synchronous_commit = off")
    try:
        return _time_shapes(conn, steps, rounds, threads)
    finally:
        conn.execute("RESET synchronous_commit")


def _time_shapes(
    conn: psycopg.Connection[Any], steps: list[PreparedStep], rounds: int, threads: int
) -> list[ShapeTiming]:
    samples: dict[Shape, list[tuple[float, float]]] = {s: [] for s in SHAPES}
    n = 0
    for shape in SHAPES:  # warm-up: psycopg prepares a statement on its fifth execution
        for _ in range(2):
            n += 1
            for p in steps:
                run_step(conn, p, shape, f"shape-warm-{n}")
    for r in range(rounds):
        shift = r % len(SHAPES)
        for shape in SHAPES[shift:] + SHAPES[:shift]:
            c0, t0 = time.process_time(), time.perf_counter()
            for _ in range(threads):
                n += 1
                for p in steps:
                    run_step(conn, p, shape, f"shape-{n}")
            count = threads * len(steps)
            samples[shape].append(
                ((time.perf_counter() - t0) / count, (time.process_time() - c0) / count)
            )
    return [
        ShapeTiming(
            s,
            statistics.median(w for w, _ in samples[s]) * 1e6,
            statistics.median(c for _, c in samples[s]) * 1e6,
        )
        for s in SHAPES
    ]


# --------------------------------------------------------------------------------------------
# Recording: the COPY floor of the handler's rows
# --------------------------------------------------------------------------------------------


def capture_actions(conn: psycopg.Connection[Any], schema: str) -> tuple[Columns, list[bytes]]:
    """Every action row of ``schema`` as COPY text lines (one per row, in insertion order)."""
    c = table_columns(conn, schema, "actions")
    query = sql.SQL("COPY ({} ORDER BY thread_id, step_index) TO STDOUT").format(c.select(schema))
    buf = bytearray()
    with conn.cursor().copy(query) as copy:
        for data in copy:
            buf += data
    lines = bytes(buf).splitlines(keepends=True)
    return c, lines


def copy_floor(conn: psycopg.Connection[Any], schema: str, c: Columns, lines: list[bytes]) -> float:
    """COPY ``lines`` into ``schema``'s actions table, ``COPY_CHUNK`` rows a transaction;
    the seconds it took."""
    stmt = sql.SQL("COPY {}.actions ({}) FROM STDIN").format(
        sql.Identifier(schema), sql.SQL(", ").join(map(sql.Identifier, c.names))
    )
    chunks = [b"".join(lines[i : i + COPY_CHUNK]) for i in range(0, len(lines), COPY_CHUNK)]
    cur = conn.cursor()
    t0 = time.perf_counter()
    for chunk in chunks:
        with conn.transaction(), cur.copy(stmt) as copy:
            copy.write(chunk)
    return time.perf_counter() - t0
