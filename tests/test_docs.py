"""The documentation site (issue #32): it builds strictly, and it says what the code does.

``mkdocs build --strict`` fails on a broken link, a missing page or an API reference that
does not resolve; the other tests hold the pages to the code: every ``ACTIONCKPT_*``
variable the package reads and every saver option is on the configuration page, every test
the security page names exists, and the README stays a front door.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "langgraph_actionckpt"
_MISSING = [
    name
    for name in ("mkdocs", "material", "mkdocstrings")
    if importlib.util.find_spec(name) is None
]


@pytest.mark.skipif(
    bool(_MISSING),
    reason="the documentation tools are not installed: pip install -e '.[docs]'",
)
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """The site builds with ``--strict``; the CLI reference lists every command."""
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    from langgraph_actionckpt.service.cli import app

    cli_page = (site / "cli" / "index.html").read_text()
    names = [c.name or c.callback.__name__ for c in app.registered_commands if c.callback]
    assert "serve" in names and "timeline" in names
    for name in names:
        assert f"actionckpt {name}" in cli_page, name
    assert (site / "benchmarks" / "results" / "index.html").exists()


def test_readme_is_a_front_door() -> None:
    """Under 250 lines, no measurement log, links to the pages."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 250
    # measurement logs live in benchmarks/RESULTS.md and the docs' benchmark pages
    assert not re.search(r"\d\s*(ms|us|µs)\b|supersteps/s|actions/s", readme), "a measurement"
    for page in re.findall(r"\]\((docs/[\w/.-]+\.md)\)", readme):
        assert (ROOT / page).exists(), page
    assert (ROOT / "benchmarks" / "RESULTS.md").exists()


def _env_vars_read_by_the_package() -> set[str]:
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.update(re.findall(r"\bACTIONCKPT_[A-Z0-9_]+\b", node.value))
    return found


def test_configuration_page_names_every_environment_variable() -> None:
    page = (DOCS / "configuration.md").read_text()
    used = _env_vars_read_by_the_package()
    assert {"ACTIONCKPT_DSN", "ACTIONCKPT_PRICES", "ACTIONCKPT_HOME"} <= used
    missing = sorted(v for v in used if f"`{v}`" not in page)
    assert not missing, f"used in langgraph_actionckpt/ but not on docs/configuration.md: {missing}"


def test_configuration_page_names_every_option() -> None:
    from langgraph_actionckpt import ActionSaver, SaverOptions
    from langgraph_actionckpt.actions._sync_handler import ActionCallbackHandler

    page = (DOCS / "configuration.md").read_text()
    options = {f.name for f in dataclasses.fields(SaverOptions)}
    connect = set(inspect.signature(ActionSaver.from_conn_string).parameters) - {"options"}
    handler = set(inspect.signature(ActionCallbackHandler.__init__).parameters) - {"self"}
    # SaverOptions' own fields are rendered from its docstring (mkdocstrings); the rest by hand
    assert "::: langgraph_actionckpt._config.SaverOptions" in page
    missing = sorted(n for n in (connect | handler) if f"`{n}`" not in page)
    assert not missing, missing
    doc = inspect.getdoc(SaverOptions) or ""
    assert not sorted(n for n in options if f"{n}:" not in doc)


def test_security_page_names_existing_tests() -> None:
    page = (DOCS / "security.md").read_text()
    refs = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?", page)
    assert len(refs) >= 15
    for path, name in refs:
        assert (ROOT / path).exists(), path
        if name:
            assert re.search(rf"def {name}\b", (ROOT / path).read_text()), f"{path}::{name}"


def test_every_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS.glob("*.md"):
        assert f": {page.name}" in nav, page.name
