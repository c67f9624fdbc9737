"""Hot prepared statements sent on the connection's libpq handle, below psycopg's cursor.

A checkpoint's put is one statement per superstep, and a group commit sends up
to :data:`~langgraph_actionckpt.db.group_commit.MAX_GROUP` of them in one
pipeline. Through a psycopg cursor most of each one's client CPU goes to
converting the query, the prepared-statement manager, the cursor's result
bookkeeping and the pipeline's queues; sent with ``conn.pgconn`` directly the
same statement costs much less (``benchmarks/README.md``, "Direct statements").

What stays psycopg's: parameters are dumped and rows loaded by a
:class:`psycopg.adapt.Transformer` on the connection's own adapters (the JSON
and array adapters of ``configure_connection`` included), so values are the same
as through a cursor; errors are psycopg's (``psycopg.errors.error_from_result``);
waiting is the connection's own ``wait`` (its interrupt handling included).

What this module keeps per connection (in ``conn.__dict__``, as the driver's
reusable cursor): the transformer and the names of the statements it prepared.
Names are never reused, in this process or another (a random token per process),
so a name forgotten after an error can never meet a statement prepared under it,
and behind a transaction-mode pooler a client never runs another's statement.
psycopg deallocates every prepared statement of a connection after a ROLLBACK
it runs (and a pooler's reset may do the same); a
statement found missing (SQLSTATE 26000, raised at its bind, before anything
ran) is prepared again under a new name and sent once more.

Only statements outside an explicit transaction and outside psycopg's pipeline
mode qualify (:func:`usable`), with plain ``%s``/``%(name)s`` placeholders
(:func:`compile_query`); everything else goes through the cursor. With
``prepare_threshold=None`` (pgbouncer in transaction mode) nothing is prepared:
each statement is sent unnamed, as psycopg does.

``ACTIONCKPT_DIRECT=0`` in the environment (read at import; :data:`ENABLED` at
run time) sends everything through psycopg's cursor instead: a way out should a
psycopg release change what this relies on, and the benchmarks' A/B switch.

The functions here do no I/O of their own: they send on libpq's buffers and
return generators that yield what to wait for, which the drivers hand to
``conn.wait`` (sync) or ``await conn.wait`` (async).
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import errors as e
from psycopg import pq, sql
from psycopg.abc import Buffer, PQGen
from psycopg.adapt import PyFormat, Transformer
from psycopg.generators import execute as _execute
from psycopg.waiting import Ready, Wait

from langgraph_actionckpt.db.plan import Op

__all__ = [
    "ENABLED",
    "DirectState",
    "Statement",
    "check",
    "compile_query",
    "group_gen",
    "lone_gen",
    "rows_of",
    "state_of",
    "usable",
]

ENABLED = os.environ.get("ACTIONCKPT_DIRECT", "1") != "0"
"""Send hot statements directly (see the module docstring); False: always the cursor."""

_STATE = "_actionckpt_direct"
_BINARY = pq.Format.BINARY
_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_SYNC = pq.ExecStatus.PIPELINE_SYNC
_IDLE = pq.TransactionStatus.IDLE
_PIPELINE_OFF = pq.PipelineStatus.OFF
_names = itertools.count()  # with the token below, a name is never given twice
# A pooler in transaction mode may run one client's statement on a session where
# another process prepared its own: names unique across processes make that a
# missing statement (a clear error, see ``_driver_base.pooler_misconfigured``),
# never another process's statement run with this one's parameters.
_TOKEN = secrets.token_hex(6).encode()

# %(name)s, %s, %% (psycopg's own placeholders for "auto" format); %b and %t are
# left to psycopg (no statement of this package uses them)
_PLACEHOLDER = re.compile(rb"%(?:\(([^)]+)\))?(.)")

Gen = PQGen[Any]


@dataclass(frozen=True, slots=True)
class Statement:
    """A statement with ``$n`` placeholders, ready for libpq.

    Attributes:
        text: The statement, ``%s``/``%(name)s`` turned into ``$1..$n``.
        names: The parameter names in ``$n`` order, or None for positional ones.
        count: How many parameters it takes.
        formats: How psycopg dumps each parameter (its default, AUTO).
    """

    text: bytes
    names: tuple[str, ...] | None
    count: int
    formats: tuple[PyFormat, ...]


_compiled: dict[int, tuple[object, Statement | None]] = {}
_COMPILED_MAX = 4096  # statements are composed once per shape; this bounds odd callers


def compile_query(query: sql.Composable | str, conn: Any) -> Statement | None:
    """``query`` with ``$n`` placeholders, or None when only psycopg can send it.

    Cached by the query object: the package composes each statement once
    (``Queries``' caches), so the same object comes back on every call.
    """
    key = id(query)
    hit = _compiled.get(key)
    if hit is not None and hit[0] is query:
        return hit[1]
    text = query.encode() if isinstance(query, str) else query.as_bytes(conn)
    stmt = _convert(text)
    if len(_compiled) >= _COMPILED_MAX:
        _compiled.clear()
    _compiled[key] = (query, stmt)  # the reference keeps id(query) from being reused
    return stmt


def _convert(text: bytes) -> Statement | None:
    names: list[str] = []
    positional = 0
    out: list[bytes] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(text):
        name, kind = match.group(1), match.group(2)
        out.append(text[pos : match.start()])
        pos = match.end()
        if kind == b"%" and name is None:
            out.append(b"%")
            continue
        if kind != b"s":
            return None  # %b, %t or a stray %: psycopg's business
        if name is None:
            positional += 1
            out.append(b"$%d" % positional)
            continue
        label = name.decode()
        if label not in names:
            names.append(label)
        out.append(b"$%d" % (names.index(label) + 1))
    out.append(text[pos:])
    if names and positional:
        return None  # mixed styles: psycopg raises the proper error
    count = len(names) or positional
    return Statement(b"".join(out), tuple(names) or None, count, (PyFormat.AUTO,) * count)


class DirectState:
    """What a connection keeps for direct statements (see the module docstring).

    Attributes:
        tx: Dumps parameters and loads rows with the connection's adapters.
        prepared: Statement names by (text, parameter types).
    """

    __slots__ = ("prepared", "tx")

    def __init__(self, conn: Any) -> None:
        self.tx = Transformer(conn)
        self.prepared: dict[tuple[bytes, tuple[int, ...]], bytes] = {}


def state_of(conn: Any) -> DirectState:
    """The connection's :class:`DirectState` (made on first use)."""
    state: DirectState | None = conn.__dict__.get(_STATE)
    if state is None:
        state = conn.__dict__[_STATE] = DirectState(conn)
    return state


def usable(conn: Any, op: Op) -> Statement | None:
    """The statement to send directly for ``op`` on ``conn``, or None (use the cursor)."""
    if not ENABLED or not op.prepare or op.fetch not in _FETCHES:
        return None
    pg = conn.pgconn
    if pg.transaction_status != _IDLE or pg.pipeline_status != _PIPELINE_OFF:
        return None
    stmt = compile_query(op.query, conn)
    if stmt is None or not _params_fit(stmt, op.params):
        return None
    return stmt


_FETCHES = frozenset(("none", "one", "all"))


def _params_fit(stmt: Statement, params: Any) -> bool:
    # without parameters psycopg sends the text as it is (a "%%" stays two): so does the cursor
    if params is None:
        return False
    if stmt.names is not None:
        return isinstance(params, Mapping)
    return isinstance(params, Sequence) and not isinstance(params, (str, bytes))


@dataclass(slots=True)
class _Bound:
    values: list[Buffer | None]
    types: tuple[int, ...]
    formats: list[pq.Format]


def _bind(state: DirectState, stmt: Statement, params: Any) -> _Bound:
    if stmt.names is not None:
        try:
            args = [params[name] for name in stmt.names]
        except KeyError as exc:
            raise e.ProgrammingError(f"query parameter missing: {exc.args[0]}") from None
    else:
        args = list(params)
        if len(args) != stmt.count:
            raise e.ProgrammingError(
                f"the query has {stmt.count} placeholders but {len(args)} parameters were passed"
            )
    tx = state.tx
    values = tx.dump_sequence(args, stmt.formats)
    return _Bound(list(values), tuple(tx.types or ()), list(tx.formats or ()))


def _send(pg: Any, stmt: Statement, bound: _Bound, name: bytes | None) -> None:
    if name is None:
        pg.send_query_params(stmt.text, bound.values, bound.types, bound.formats, _BINARY)
    else:
        pg.send_query_prepared(name, bound.values, bound.formats, _BINARY)


def check(results: Sequence[Any], conn: Any) -> None:
    """Raise psycopg's error for the first failed result, as its cursor does."""
    if not results:
        raise e.InternalError("got no result from the query")
    for res in results:
        status = res.status
        if status in _OK or status == pq.ExecStatus.EMPTY_QUERY:
            continue
        if status == pq.ExecStatus.FATAL_ERROR:
            raise e.error_from_result(res, encoding=conn.info.encoding)
        if status == pq.ExecStatus.PIPELINE_ABORTED:
            raise e.PipelineAborted("pipeline aborted")
        raise e.InternalError(f"unexpected result status from query: {pq.ExecStatus(status).name}")


def rows_of(state: DirectState, result: Any, fetch: str) -> Any:
    """What the cursor's ``fetchone``/``fetchall`` would return for ``result``."""
    if fetch == "none":
        return None
    tx = state.tx
    tx.set_pgresult(result)
    try:
        n = result.ntuples
        if fetch == "one":
            return tx.load_row(0, tuple) if n else None
        return tx.load_rows(0, n, tuple)
    finally:
        tx.set_pgresult(None)  # the rows are the caller's now, the result need not stay


def lone_gen(conn: Any, stmt: Statement, op: Op) -> Gen:
    """Send ``op`` alone (preparing it first when new); returns its rows (:func:`rows_of`).

    A statement the server no longer knows (26000: psycopg deallocated it, or a
    pooler's reset did) is prepared again under a new name and sent once more:
    the error comes at its bind, before anything ran, and outside a transaction
    nothing is left to roll back.
    """
    pg = conn.pgconn
    state = state_of(conn)
    bound = _bind(state, stmt, op.params)
    for attempt in (1, 2):
        name = yield from _prepared_name(conn, state, stmt, bound)
        _send(pg, stmt, bound, name)
        results = yield from _execute(pg)
        try:
            check(results, conn)
        except e.InvalidSqlStatementName:
            state.prepared.clear()
            if attempt == 2 or pg.transaction_status != _IDLE:
                raise
            continue
        return rows_of(state, results[-1], op.fetch)
    raise AssertionError("unreachable")  # pragma: no cover


def _new_name() -> bytes:
    return b"_lgac_%s_%d" % (_TOKEN, next(_names))


def _prepared_name(
    conn: Any, state: DirectState, stmt: Statement, bound: _Bound
) -> PQGen[bytes | None]:
    """The statement's name on this connection, preparing it when new (None: unnamed)."""
    if conn.prepare_threshold is None:
        return None
    key = (stmt.text, bound.types)
    name = state.prepared.get(key)
    if name is None:
        name = _new_name()
        pg = conn.pgconn
        pg.send_prepare(name, stmt.text, bound.types)
        check((yield from _execute(pg)), conn)
        state.prepared[key] = name
    return name


def group_gen(
    conn: Any, state: DirectState, items: Sequence[tuple[Statement, Op]], *, transaction: bool
) -> Gen:
    """Send ``items`` in one libpq pipeline; returns each item's result, in order.

    With ``transaction`` they run between BEGIN and COMMIT (one commit, one WAL
    flush: a group commit); without, each on its own (a batch of reads). New
    statements are prepared in the same pipeline. The first failure is raised
    once the pipeline is drained (the items after it were not run); the
    connection is back out of pipeline mode either way.

    Raises:
        psycopg.Error: The first failed statement's error.
    """
    pg = conn.pgconn
    unnamed = conn.prepare_threshold is None
    expected: list[tuple[str, Any]] = []  # what each result answers, in order
    pg.enter_pipeline_mode()
    try:
        if transaction:
            pg.send_query_params(b"BEGIN", None)
            expected.append(("control", None))
        new: dict[tuple[bytes, tuple[int, ...]], bytes] = {}
        for stmt, op in items:
            bound = _bind(state, stmt, op.params)
            name = None
            if not unnamed:
                key = (stmt.text, bound.types)
                name = state.prepared.get(key) or new.get(key)
                if name is None:
                    name = new[key] = _new_name()
                    pg.send_prepare(name, stmt.text, bound.types)
                    expected.append(("prepare", key))
            _send(pg, stmt, bound, name)
            expected.append(("item", op))
        if transaction:
            pg.send_query_params(b"COMMIT", None)
            expected.append(("control", None))
        pg.pipeline_sync()
        results = yield from _drain(pg)
    finally:
        if pg.pipeline_status != _PIPELINE_OFF and not pg.is_busy():
            pg.exit_pipeline_mode()
    out: list[Any] = []
    error: BaseException | None = None
    for (kind, what), res in zip(expected, results, strict=False):
        try:
            check([res], conn)
        except psycopg.Error as exc:
            error = error or exc
            if isinstance(exc, e.InvalidSqlStatementName):
                state.prepared.clear()
            continue
        if kind == "prepare":
            state.prepared[what] = new[what]
        elif kind == "item":
            out.append(res)
    if error is not None:
        raise error
    if len(results) != len(expected):
        raise e.InternalError(f"pipeline returned {len(results)} results for {len(expected)}")
    return out


def _drain(pg: Any) -> PQGen[list[Any]]:
    """Flush the pipeline and collect its results until its sync point.

    Reads while it writes: a large group can fill the socket both ways, and a
    server blocked on sending its results stops reading ours.
    """
    results: list[Any] = []
    while True:
        ready = yield (Wait.RW if pg.flush() else Wait.R)
        if ready & Ready.R:
            pg.consume_input()
            ended = False  # a None ends one statement's results; two: nothing more is here
            while not pg.is_busy():
                res = pg.get_result()
                if res is None:
                    if ended:
                        break
                    ended = True
                    continue
                ended = False
                if res.status == _SYNC:
                    return results
                results.append(res)
