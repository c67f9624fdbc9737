"""MkDocs hooks (mkdocs.yml ``hooks:``): pages generated from the project itself.

* ``cli.md``: the CLI reference, read from the ``actionckpt`` command line (typer's click
  commands: their help, arguments and options), so it cannot drift from the code.
* ``index.md``: the README, its links made site links (one front page, not two).
* ``benchmarks/results.md``: ``benchmarks/RESULTS.md``, the one copy of the measurement logs.
* ``<!-- screenshot: NAME.png | caption -->`` in a page becomes the image ``assets/NAME.png``
  when that file exists, else a note that it is made by the timeline layout test; a strict
  build never depends on a screenshot being there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
_SCREENSHOT = re.compile(r"<!-- screenshot: (\S+) \| (.*?) -->")


def _option_row(param: Any) -> str:
    names = " / ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    help_text = (getattr(param, "help", None) or "").replace("|", "\\|").replace("\n", " ")
    default = param.default
    shown = "" if default is None or callable(default) or param.required else f"`{default}`"
    return f"| {names} | {help_text} | {shown} |"


def _command_md(name: str, cmd: Any) -> list[str]:
    # typer ships its own copy of click: its commands are duck-typed, not isinstance-checked
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    opts = [p for p in cmd.params if p.param_type_name == "option" and p.name != "help"]
    usage = " ".join(["actionckpt", name, *((a.name or "").upper() for a in args)])
    out = [f"## `{name}`", "", f"    {usage} [OPTIONS]", "", (cmd.help or "").strip(), ""]
    if opts:
        out += ["| option | meaning | default |", "|---|---|---|"]
        out += [_option_row(p) for p in opts]
        out.append("")
    return out


def _commands(prefix: str, group: Any) -> list[str]:
    ctx = group.make_context("actionckpt", [], resilient_parsing=True)
    lines: list[str] = []
    for name in sorted(group.list_commands(ctx)):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        full = f"{prefix}{name}"
        if hasattr(cmd, "list_commands"):
            lines += _commands(f"{full} ", cmd)
        else:
            lines += _command_md(full, cmd)
    return lines


def cli_reference() -> str:
    """The CLI reference page, from the command line's click commands."""
    import typer.main

    from langgraph_actionckpt.service.cli import app

    lines = [
        "# CLI reference",
        "",
        "Generated from the `actionckpt` command line when the site is built "
        "(`pip install 'langgraph-actionckpt[cli]'`; `serve` needs `[service]` too). "
        "Every command takes `--dsn` (default: `$ACTIONCKPT_DSN`, else the embedded "
        "PostgreSQL) and `--schema`; `actionckpt COMMAND --help` prints the same.",
        "",
    ]
    lines += _commands("", typer.main.get_command(app))
    return "\n".join(lines) + "\n"


def front_page() -> str:
    """The README as the site's home page: ``docs/x.md`` links become ``x.md``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = text.replace("](docs/", "](").replace(
        "(benchmarks/RESULTS.md)", "(benchmarks/results.md)"
    )
    text = text.replace(
        "CLI reference (`docs/cli.md`, generated", "[CLI reference](cli.md) (generated"
    )
    return text.replace("[CONTRIBUTING.md](CONTRIBUTING.md)", "`CONTRIBUTING.md`")


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages."""
    files.append(File.generated(config, "index.md", content=front_page()))
    files.append(File.generated(config, "cli.md", content=cli_reference()))
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "benchmarks/results.md", content=results))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Show each screenshot that exists; say where a missing one comes from."""

    def image(match: re.Match[str]) -> str:
        name, caption = match.group(1), match.group(2)
        if (Path(config["docs_dir"]) / "assets" / name).exists():
            return f"![{caption}](assets/{name})"
        return f"*Screenshot `{name}` ({caption}): written by the timeline layout test.*"

    return _SCREENSHOT.sub(image, markdown)
