"""``actionckpt serve``: run the checkpoint service in the foreground.

The ``actionckpt`` console script starts here: this module adds ``serve`` to
the command line of :mod:`langgraph_actionckpt.ops.cli` (the service is the
layer above ``ops``). grpcio is imported only when ``serve`` runs, so the
other commands work without the ``service`` extra.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from langgraph_actionckpt.ops.cli import app
from langgraph_actionckpt.ops.cli_common import (
    Command,
    DsnOpt,
    SchemaOpt,
    resolve_dsn,
    settings,
)

__all__ = ["app", "main", "serve"]


@app.command(cls=Command)
def serve(
    ctx: typer.Context,
    listen: Annotated[
        str, typer.Option("--listen", help="host:port to listen on (port 0: any free port)")
    ] = "127.0.0.1:50051",
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="Bearer tokens, one 'token tenant schema [ro]' a line (ro: read-only)",
        ),
    ] = None,
    tls_cert: Annotated[Path | None, typer.Option("--tls-cert", help="PEM certificate")] = None,
    tls_key: Annotated[Path | None, typer.Option("--tls-key", help="PEM private key")] = None,
    max_request_bytes: Annotated[
        int, typer.Option("--max-request-bytes", help="Largest request accepted")
    ] = 16 * 1024 * 1024,
    grace: Annotated[
        float, typer.Option("--grace", help="Seconds in-flight calls get on shutdown")
    ] = 10.0,
    cold_url: Annotated[
        str | None,
        typer.Option("--cold-url", help="fsspec URL of the cold tier (archived threads)"),
    ] = None,
    log_level: Annotated[
        str,
        typer.Option(
            "--log-level",
            metavar="LEVEL",
            help="debug (each call), info (start and shutdown), warning or error; on stderr",
        ),
    ] = "info",
    dsn: DsnOpt = None,
    schema: SchemaOpt = None,
) -> None:
    """Serve checkpoints over gRPC until SIGTERM or Ctrl-C (graceful shutdown).

    Without --token-file every caller is one open tenant on --schema. Prints
    ``listening on HOST:PORT`` once it accepts calls.
    """
    try:
        from langgraph_actionckpt.service.runner import Server, ServiceOptions
    except ImportError as exc:  # pragma: no cover - depends on the environment
        typer.echo(
            f"error: the service needs its extra: pip install "
            f"'langgraph-actionckpt[service]' ({exc})",
            err=True,
        )
        raise typer.Exit(2) from None
    if (tls_cert is None) != (tls_key is None):
        typer.echo("error: --tls-cert and --tls-key go together", err=True)
        raise typer.Exit(2)
    level = logging.getLevelName(log_level.upper())
    if not isinstance(level, int):
        typer.echo(f"error: --log-level: expected debug, info, warning or error; got {log_level!r}")
        raise typer.Exit(2)
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    s = settings(ctx, dsn, schema, None)
    options = ServiceOptions(
        dsn=resolve_dsn(s.dsn),
        listen=listen,
        token_file=token_file,
        schema=s.schema or "actionckpt",
        tls_cert=tls_cert,
        tls_key=tls_key,
        max_request_bytes=max_request_bytes,
        grace=grace,
        cold_url=cold_url,
    )
    server = Server(options).start()
    typer.echo(f"listening on {server.target}")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    server.stop()


def main() -> None:
    """Console-script entry point (every ``actionckpt`` command)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
