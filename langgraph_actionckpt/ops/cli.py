"""The ``actionckpt`` command line: inspect runs, prune and archive, migrate, search.

Every command takes ``--dsn`` (default: ``$ACTIONCKPT_DSN``, else the embedded
PostgreSQL), ``--schema`` (default ``actionckpt``) and ``--json`` (one JSON
document on stdout, for scripts). The options may also be given before the
command (``actionckpt --json runs``). The logic lives in
:mod:`langgraph_actionckpt.ops`; the command modules only parse and print:
:mod:`.cli_read` (runs, show, failed, inflight, stats, similar),
:mod:`.cli_runs` (to-resume), :mod:`.cli_maint` (prune, archive, import, migrate,
embedded), :mod:`.cli_fork` (fork) and :mod:`.cli_crypto` (encrypt-existing,
rotate-key), on the app and options of :mod:`.cli_common`.

Needs the ``cli`` extra (typer, rich): ``pip install 'langgraph-actionckpt[cli]'``.
"""

from __future__ import annotations

from langgraph_actionckpt.ops import (
    cli_crypto,
    cli_fork,
    cli_maint,
    cli_read,
    cli_runs,
    cli_timeline,
)
from langgraph_actionckpt.ops.cli_common import app, parse_duration, parse_since, resolve_dsn
from langgraph_actionckpt.ops.cli_read import load_embeddings

__all__ = [
    "app",
    "cli_crypto",
    "cli_fork",
    "cli_maint",
    "cli_read",
    "cli_runs",
    "cli_timeline",
    "load_embeddings",
    "main",
    "parse_duration",
    "parse_since",
    "resolve_dsn",
]


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
