"""The ``actionckpt`` console script: the command line, or one line naming its extra.

A bare ``pip install langgraph-actionckpt`` installs the script but not typer and rich
(the ``cli`` extra); without them the script says which extra to install instead of
printing a traceback.
"""

from __future__ import annotations

import sys

# what the command line imports from the ``cli`` extra (click comes with typer)
_CLI_MODULES = frozenset({"typer", "rich", "click"})


def main() -> None:
    """Console-script entry point: run the CLI, or exit 1 naming the missing extra."""
    try:
        from langgraph_actionckpt.service.cli import main as cli_main
    except ModuleNotFoundError as exc:
        if exc.name not in _CLI_MODULES:
            raise
        sys.exit(
            f"actionckpt needs the cli extra: pip install 'langgraph-actionckpt[cli]' "
            f"(no module named {exc.name!r})"
        )
    cli_main()
