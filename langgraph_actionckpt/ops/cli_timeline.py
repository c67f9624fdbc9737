"""``actionckpt timeline``: a thread's action log as one self-contained HTML page."""

from __future__ import annotations

import http.server
import socketserver
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from langgraph_actionckpt.ops.cli_common import (
    ERR,
    OUT,
    Settings,
    command,
    flag,
    guard,
    open_schema,
    schema_of,
)
from langgraph_actionckpt.ops.cli_crypto import ReadKeyOpt, keyring_or_none
from langgraph_actionckpt.ops.display import safe


@command(json_option=False)
def timeline(
    s: Settings,
    thread: Annotated[str, typer.Argument(help="Thread id")],
    html: Annotated[Path | None, typer.Option("--html", help="Write the page to this file")] = None,
    serve: Annotated[
        bool,
        flag("--serve/--no-serve", "Show it on http://127.0.0.1"),
    ] = False,
    port: Annotated[int, typer.Option(help="Port for --serve (0: any free one)")] = 0,
    key: ReadKeyOpt = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            help='JSON {"model": [input, cached_input, output]} in USD per 1M tokens, "*" for '
            "any other model [default: $ACTIONCKPT_PRICES over the built-in OpenAI prices]",
        ),
    ] = None,
) -> None:
    """Draw THREAD's actions (lanes per agent and node, crash and resume markers, cost)."""
    from langgraph_actionckpt.actions.reads import plan_list
    from langgraph_actionckpt.actions.records import ActionQueries
    from langgraph_actionckpt.db.driver import SyncDriver
    from langgraph_actionckpt.ops.archiving import thread_file_name
    from langgraph_actionckpt.ops.cost import PriceTable
    from langgraph_actionckpt.ops.timeline_html import render_timeline

    def body() -> str:
        with open_schema(s) as conn:
            q = ActionQueries(schema_of(s), keyring_or_none(key))
            rows = SyncDriver(conn).run(lambda: plan_list(q, thread))
        if not rows:
            ERR.print(f"no actions for thread {safe(repr(thread))} in schema {schema_of(s)}")
            raise typer.Exit(1)
        table = PriceTable.from_file(prices) if prices is not None else PriceTable()
        return render_timeline(rows, table)

    page = guard(s, body)
    if html is None and not serve:
        # the archives' safe, bounded name (hash() differs from one process to the next)
        html = Path("timeline-" + thread_file_name(thread).removesuffix(".jsonl") + ".html")
    if html is not None:
        html.write_text(page, encoding="utf-8")
        OUT.print(f"wrote {safe(html)}")
    if serve:
        folder = Path(tempfile.mkdtemp(prefix="actionckpt-timeline-"))
        (folder / "index.html").write_text(page, encoding="utf-8")

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args: object, **kwargs: object) -> None:
                super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        with socketserver.TCPServer(("127.0.0.1", port), Handler) as server:
            OUT.print(f"serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
            try:
                server.serve_forever()
            except KeyboardInterrupt:
                pass
