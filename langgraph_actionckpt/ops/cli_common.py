"""What every ``actionckpt`` command shares: the app, common options, errors, formatting.

Every command takes ``--dsn`` (default: ``$ACTIONCKPT_DSN``, else the embedded
PostgreSQL), ``--schema`` (default ``actionckpt``) and ``--json`` (one JSON
document on stdout, for scripts). The options may also be given before the
command (``actionckpt --json runs``).
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import psycopg
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from langgraph_actionckpt.checkpoints.core import DEFAULT_SCHEMA, validate_schema
from langgraph_actionckpt.errors import ActionCkptError
from langgraph_actionckpt.ops.display import cell, json_text, safe

if TYPE_CHECKING:
    from rich.progress import Progress

T = TypeVar("T")

FLAG = ""
"""Metavar of on/off options: typer would show ``<bool>`` as if they took a value."""

_METAVARS = {"<str>": "TEXT", "<int>": "N", "<float>": "NUMBER", "<path>": "PATH", "<bool>": FLAG}


def _name_values(command: TyperCommand | TyperGroup, ctx: Any) -> None:
    """Placeholders users read (TEXT, N, PATH; none for flags), not typer's ``<str>`` tags."""
    for p in command.get_params(ctx):
        if isinstance(p, TyperOption) and p.metavar is None:
            tag = p.display_type(ctx)
            p.metavar = FLAG if p.is_flag else _METAVARS.get(tag or "", tag)
        elif isinstance(p, TyperArgument) and p.metavar is None and p.name:
            p.metavar = p.name.upper()  # THREAD, as the docstrings name it
            # typer tags an argument with its Python type whatever its metavar says
            p.display_type_rich = lambda ctx: None  # type: ignore[method-assign]


class Command(TyperCommand):
    """A command whose help shows value placeholders, not Python type tags."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _name_values(self, ctx)
        super().format_help(ctx, formatter)


class Group(TyperGroup):
    """The command group, with the help of :class:`Command`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _name_values(self, ctx)
        super().format_help(ctx, formatter)


# Help is plain text: rich markup would swallow any "[...]" in it ("schema [ro]").
app = typer.Typer(
    name="actionckpt",
    help="Inspect and maintain langgraph-actionckpt action logs and checkpoints.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=Group,
)
embedded_app = typer.Typer(
    help="Manage the embedded PostgreSQL server.",
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=Group,
)
app.add_typer(embedded_app, name="embedded")


def flag(decls: str, help: str) -> Any:
    """An on/off option (``--x`` or ``--x/--no-x``), shown without a value placeholder."""
    return typer.Option(decls, metavar=FLAG, help=help)


DsnOpt = Annotated[
    str | None,
    typer.Option(
        "--dsn",
        metavar="DSN",
        help="PostgreSQL connection string [default: $ACTIONCKPT_DSN, else the embedded "
        "server, shared by every process of this user]",
    ),
]
SchemaOpt = Annotated[
    str | None, typer.Option("--schema", metavar="NAME", help="Schema [default: actionckpt]")
]
JsonOpt = Annotated[bool | None, flag("--json/--no-json", "Print one JSON document.")]


@dataclass
class Settings:
    """Options shared by every command."""

    dsn: str | None = None
    schema: str | None = None
    json: bool = False


@app.callback()
def _main(
    ctx: typer.Context, dsn: DsnOpt = None, schema: SchemaOpt = None, json_: JsonOpt = None
) -> None:
    ctx.obj = Settings(dsn=dsn, schema=schema, json=bool(json_))


def settings(
    ctx: typer.Context, dsn: str | None, schema: str | None, json_: bool | None
) -> Settings:
    """The command's options over the ones given before the command."""
    base = ctx.find_object(Settings) or Settings()
    return Settings(
        dsn=dsn or base.dsn,
        schema=schema or base.schema,
        json=base.json if json_ is None else json_,
    )


def resolve_dsn(dsn: str | None) -> str:
    """The DSN to use: the option, ``$ACTIONCKPT_DSN``, or the embedded server."""
    if dsn:
        return dsn
    env = os.environ.get("ACTIONCKPT_DSN")
    if env:
        return env
    from langgraph_actionckpt.embedded_postgres import embedded_data_dir, embedded_dsn

    data_dir = embedded_data_dir()
    was_running = (data_dir / "postmaster.pid").exists()
    dsn = embedded_dsn()
    if not was_running:  # said once, by the process that started it
        ERR.print(
            f"started the embedded PostgreSQL in {safe(data_dir)}: one server shared by every "
            "process of this user on this machine (actionckpt embedded stop; --dsn or "
            "ACTIONCKPT_DSN for another database)",
            soft_wrap=True,
        )
    return dsn


def schema_of(s: Settings) -> str:
    """The validated schema of ``s`` (default ``actionckpt``)."""
    return validate_schema(s.schema or DEFAULT_SCHEMA)


@contextmanager
def connect(s: Settings) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit connection to the DSN of ``s``."""
    with psycopg.connect(resolve_dsn(s.dsn), autocommit=True) as conn:
        yield conn


@contextmanager
def open_schema(s: Settings) -> Iterator[psycopg.Connection[Any]]:
    """:func:`connect`, after checking that the schema exists and is set up.

    Raises:
        ConfigurationError: Naming the schema (reported by :func:`guard`).
    """
    from langgraph_actionckpt.ops.target import require_schema

    with connect(s) as conn:
        require_schema(conn, schema_of(s))
        yield conn


def read(s: Settings, query: Callable[[psycopg.Connection[Any], str], T]) -> T:
    """``query(conn, schema)`` on :func:`open_schema`'s connection, under :func:`guard`."""

    def body() -> T:
        with open_schema(s) as conn:
            return query(conn, schema_of(s))

    return guard(s, body)


# The options every command takes after its own (``--json`` where it prints data).
_KW = inspect.Parameter.KEYWORD_ONLY
_CTX = inspect.Parameter("ctx", _KW, annotation=typer.Context)
_SHARED = (
    inspect.Parameter("dsn", _KW, default=None, annotation=DsnOpt),
    inspect.Parameter("schema", _KW, default=None, annotation=SchemaOpt),
)
_JSON = inspect.Parameter("json_", _KW, default=None, annotation=JsonOpt)


def command(
    name: str | None = None, *, on: typer.Typer = app, json_option: bool = True
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command whose first parameter is its :class:`Settings`.

    Typer sees the function's own parameters followed by ``--dsn``, ``--schema``
    and (with ``json_option``) ``--json``; the command gets them folded, over
    the options given before the command, into its first argument.

    Args:
        name: The command's name (default: the function's).
        on: The typer app to register on.
        json_option: Whether the command takes ``--json``.
    """

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        params = list(inspect.signature(fn, eval_str=True).parameters.values())[1:]
        own = [p.replace(kind=_KW) for p in params]  # typer passes every value by name
        shared = (*_SHARED, _JSON) if json_option else _SHARED

        @functools.wraps(fn)
        def run(
            ctx: typer.Context,
            dsn: str | None,
            schema: str | None,
            json_: bool | None = None,
            **kwargs: Any,
        ) -> None:
            fn(settings(ctx, dsn, schema, json_), **kwargs)

        del run.__wrapped__  # type: ignore[attr-defined]  # typer reads the signature below
        run.__annotations__ = {}
        run.__signature__ = inspect.Signature([_CTX, *own, *shared])  # type: ignore[attr-defined]
        on.command(name, cls=Command)(run)
        return run

    return register


# No emoji codes, no highlighting: what rows hold is printed as it is (ops/display.py).
OUT = Console(highlight=False, emoji=False, soft_wrap=False, width=160)
ERR = Console(stderr=True, highlight=False, emoji=False)


def new_progress(**options: Any) -> Progress:
    """A rich progress display on stderr: description, bar, done/total, elapsed time."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=ERR,
        **options,
    )


def emit_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    typer.echo(json_text(obj))


def guard(s: Settings, fn: Callable[[], T]) -> T:
    """Run a command body; turn package and connection errors into a message and exit 1."""
    try:
        return fn()
    except (ActionCkptError, psycopg.Error) as exc:
        msg = str(exc).strip() or type(exc).__name__
        if s.json:
            emit_json({"error": msg, "type": type(exc).__name__})
        else:
            ERR.print(f"[red]error:[/red] {safe(msg)}")
        raise typer.Exit(1) from exc


# --------------------------------------------------------------- formatting

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> dt.timedelta:
    """Parse ``90s``, ``15m``, ``12h``, ``30d``, ``2w`` into a timedelta.

    Raises:
        typer.BadParameter: The text is not a duration.
    """
    m = _DURATION.match(text.lower())
    if not m:
        raise typer.BadParameter(f"expected a duration like 30d, 12h, 15m, 90s; got {text!r}")
    return dt.timedelta(**{_UNITS[m.group(2)]: float(m.group(1))})


def parse_since(text: str) -> dt.datetime:
    """A duration ago (``7d``) or an ISO 8601 date/time (UTC when no zone is given)."""
    if _DURATION.match(text.lower()):
        return dt.datetime.now(dt.UTC) - parse_duration(text)
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise typer.BadParameter(f"expected a duration (7d) or an ISO date; got {text!r}") from exc
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def fmt_age(seconds: float | None) -> str:
    """An age as 12s, 5m, 3h or 2d."""
    if seconds is None:
        return "-"
    s = int(max(seconds, 0))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"


def fmt_size(n: int) -> str:
    """A byte count as B, kB, MB or GB."""
    value = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"  # pragma: no cover


def fmt_short(value: Any, width: int = 60) -> str:
    """A value on one line, cut to ``width``."""
    if value is None:
        return ""
    if isinstance(value, dict) and "message" in value:
        value = value["message"]
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


_STATUS_STYLE = {"failed": "red", "running": "yellow", "pending": "yellow", "completed": "green"}


def fmt_status(text: str | None) -> Text:
    """A status with its color (as data: a status is read from a row)."""
    if text is None:
        return Text("-")
    return cell(text, _STATUS_STYLE.get(text))


def printed(s: Settings, doc: Callable[[], Any], empty: str | None = None) -> bool:
    """Print ``doc()`` as JSON (``--json``), or ``empty`` when given; whether it printed.

    A command that gets ``True`` is done; else it prints its table.
    """
    if s.json:
        emit_json(doc())
        return True
    if empty is not None:
        OUT.print(empty)
        return True
    return False


def new_table(
    title: str, columns: Iterable[str], right: Collection[str] = (), **options: Any
) -> Table:
    """A table with these columns, those in ``right`` right-aligned."""
    table = Table(title=title, **options)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left")
    return table
