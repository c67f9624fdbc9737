"""Private servers for fault tests: a PostgreSQL, a pgbouncer, a TCP proxy that can black-hole.

Fault tests restart servers, terminate backends and cut connections. They never
touch the shared server at 127.0.0.1:5432: each test session starts its own
PostgreSQL from the machine's binaries (``pg_config --bindir``, or the
``ACTIONCKPT_PG_BINDIR`` variable) in a temporary directory, on a free port, and
its own pgbouncer (the Debian package) in front of it in transaction mode.

PostgreSQL and pgbouncer refuse to run as root, so when the tests run as root
the servers run as the ``postgres`` system user (``runuser``).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg

__all__ = [
    "Blackhole",
    "PgBouncer",
    "PrivatePostgres",
    "free_port",
    "missing_binaries",
    "private_stack",
]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bindir() -> Path | None:
    env = os.environ.get("ACTIONCKPT_PG_BINDIR")
    if env:
        return Path(env)
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        if out.returncode == 0 and (Path(out.stdout.strip()) / "postgres").exists():
            return Path(out.stdout.strip())
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "postgres").exists():
            return candidate
    return None


def missing_binaries(pgbouncer: bool = False) -> str | None:
    """Why the private servers cannot start here, or None when they can."""
    if _bindir() is None:
        return "no PostgreSQL server binaries (pg_ctl, postgres) on this machine"
    if os.geteuid() == 0 and not _has_user("postgres"):
        return "running as root and there is no 'postgres' user to run PostgreSQL as"
    if pgbouncer and shutil.which("pgbouncer") is None and not Path("/usr/sbin/pgbouncer").exists():
        return "pgbouncer is not installed (Debian package 'pgbouncer')"
    return None


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


def _chown(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        for root, dirs, files in os.walk(path):
            os.chown(root, entry.pw_uid, entry.pw_gid)
            for name in dirs + files:
                os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own, in a temporary directory.

    Args:
        settings: Extra ``postgresql.conf`` lines (``name = value``).
    """

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        bindir = _bindir()
        if bindir is None:
            raise RuntimeError(missing_binaries())
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="actionckpt-faults-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.root}'",
            # Durability is not under test here, restarts are: keep the disk quiet.
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "200",
            "shared_buffers": "32MB",
            "log_min_messages": "warning",
            **(settings or {}),
        }
        _chown(self.root)
        subprocess.run(
            _as_server_user(
                [
                    str(bindir / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-instructions",
                ]
            ),
            check=True,
            capture_output=True,
        )
        with (self.data / "postgresql.conf").open("a") as conf:
            for key, value in self.settings.items():
                conf.write(f"{key} = {value}\n")
        self.start()
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE test")

    @property
    def dsn(self) -> str:
        """The DSN of the ``test`` database over TCP."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/test"

    @property
    def admin_dsn(self) -> str:
        """The DSN of the ``postgres`` database over TCP."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            _as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.data), *args]),
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._ctl("-l", str(self.root / "server.log"), "-w", "-t", "30", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``smart``, ``fast`` or ``immediate``, as pg_ctl)."""
        self._ctl("-m", mode, "-w", "-t", "30", "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop and start again on the same port and data."""
        self.stop(mode)
        self.start()

    def terminate_backends(self, where: str = "true") -> int:
        """``pg_terminate_backend`` every client backend of ``test`` matching ``where``."""
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE datname = 'test' AND pid <> pg_backend_pid() AND ({where})"
            ).fetchall()
        return len(rows)

    def close(self) -> None:
        """Stop the server and remove its files."""
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class PgBouncer:
    """A pgbouncer in transaction pooling mode in front of ``target``.

    Args:
        target: The private PostgreSQL it pools connections to.
        pool_size: Server connections per database/user pair.
    """

    def __init__(self, target: PrivatePostgres, pool_size: int = 4) -> None:
        self.target = target
        self.root = Path(tempfile.mkdtemp(prefix="actionckpt-faults-bouncer-"))
        self.port = free_port()
        (self.root / "users.txt").write_text('"postgres" ""\n')
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"test = host=127.0.0.1 port={target.port} dbname=test\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            f"unix_socket_dir = {self.root}\n"
            "auth_type = trust\n"
            f"auth_file = {self.root / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\n"
            "max_client_conn = 500\n"
            "server_reset_query =\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n"
            f"pidfile = {self.root / 'pgbouncer.pid'}\n"
        )
        _chown(self.root)
        self.proc = subprocess.Popen(
            _as_server_user(["pgbouncer", str(self.root / "pgbouncer.ini")]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while True:
            try:
                with psycopg.connect(self.dsn, prepare_threshold=None, connect_timeout=2) as c:
                    c.execute("SELECT 1")
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise
                time.sleep(0.1)

    @property
    def dsn(self) -> str:
        """The DSN of the pooled ``test`` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/test"

    def close(self) -> None:
        """Stop pgbouncer and remove its files."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.root, ignore_errors=True)


class Blackhole:
    """A TCP proxy to ``127.0.0.1:target_port`` that can stop forwarding bytes.

    While cut, connections stay open but every byte is dropped in both
    directions: the network partition a client sees as a hang, not an error.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.cut_event = threading.Event()
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = int(self._sock.getsockname()[1])
        self._closed = False
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True, name="blackhole-accept").start()

    def dsn(self, database: str = "test") -> str:
        """A DSN through the proxy."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def cut(self) -> None:
        """Drop every byte from now on (connections stay open)."""
        self.cut_event.set()

    def heal(self) -> None:
        """Forward again."""
        self.cut_event.clear()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not self.cut_event.is_set():
                    dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        """Stop accepting and close every proxied connection."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.close()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()


@contextlib.contextmanager
def private_stack(pool_size: int = 4) -> Iterator[tuple[PrivatePostgres, PgBouncer]]:
    """A private PostgreSQL with a transaction-mode pgbouncer in front, closed afterwards."""
    pg = PrivatePostgres()
    try:
        bouncer = PgBouncer(pg, pool_size=pool_size)
        try:
            yield pg, bouncer
        finally:
            bouncer.close()
    finally:
        pg.close()
