#!/usr/bin/env python3
"""Generate the sync twins of the package from their async sources (psycopg's way).

The async code is the one source. Each pair below names an async module and the
sync module generated from it with `unasync`'s token rules (``async``/``await``
dropped, ``AsyncFoo`` -> ``SyncFoo``, ``__aenter__`` -> ``__enter__``, ...) plus
the project's own name map. The output is formatted with ruff.

Usage:
    python .ci/gen_sync.py           # rewrite the generated files
    python .ci/gen_sync.py --check   # exit 1 if a generated file is stale (CI)
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from pathlib import Path

import tokenize_rt
import unasync

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "langgraph_actionckpt"

# (async source, generated sync file), relative to the package.
PAIRS: list[tuple[str, str]] = [
    ("db/_async_driver.py", "db/_sync_driver.py"),
    ("_async_runner.py", "_sync_runner.py"),
    ("_async_saver.py", "_sync_saver.py"),
    ("replay/_async_log.py", "replay/_sync_log.py"),
    ("replay/_async_calls.py", "replay/_sync_calls.py"),
    ("replay/_async_run.py", "replay/_sync_run.py"),
    ("actions/_async_writer.py", "actions/_sync_writer.py"),
    ("checkpoints/_async_api.py", "checkpoints/_sync_api.py"),
    ("actions/_async_handler.py", "actions/_sync_handler.py"),
    ("reuse/_async_io.py", "reuse/_sync_io.py"),
    ("service/_async_remote.py", "service/_sync_remote.py"),
]

# Project names that unasync's rules do not map by themselves.
REPLACEMENTS: dict[str, str] = {
    "AsyncActionSaver": "ActionSaver",
    "AsyncActionCallbackHandler": "ActionCallbackHandler",
    "AsyncCallbackHandler": "BaseCallbackHandler",
    "AsyncConnection": "Connection",
    "AsyncConnectionPool": "ConnectionPool",
    "AsyncCursor": "Cursor",
    "AsyncDriver": "SyncDriver",
    "AsyncKeptConnection": "SyncKeptConnection",
    "AsyncIterator": "Iterator",
    "AsyncIterable": "Iterable",
    "AsyncGenerator": "Generator",
    "asynccontextmanager": "contextmanager",
    "aclose": "close",
    "aclosing": "closing",
    "AsyncExitStack": "ExitStack",
    "enter_async_context": "enter_context",
    "push_async_callback": "callback",
    "asleep": "sleep",
    "async_gate": "sync_gate",
    "_async_driver": "_sync_driver",
    "_async_saver": "_sync_saver",
    "_async_runner": "_sync_runner",
    "_async_api": "_sync_api",
    # the saver's API: LangGraph names the async methods a<name>
    "aput": "put",
    "aput_writes": "put_writes",
    "aget_tuple": "get_tuple",
    "alist": "list",
    "adelete_thread": "delete_thread",
    "adelete_for_runs": "delete_for_runs",
    "acopy_thread": "copy_thread",
    "aprune": "prune",
    "aget_delta_channel_history": "get_delta_channel_history",
    "alist_actions": "list_actions",
    "aget_action": "get_action",
    "alast_action": "last_action",
    "aexport_actions_jsonl": "export_actions_jsonl",
    "arecord_actions": "record_actions",
    "aresolve_action": "resolve_action",
    "afork_at_action": "fork_at_action",
    "aflush_writes": "flush_writes",
    "_aflush_writes_on_tick": "_flush_writes_on_tick",
    "_awrite_call": "_write_call",
    "aflush": "flush",
    "aembedded_dsn": "embedded_dsn",
    # replay/: the log, the saver and LangChain methods each world calls
    "_async_log": "_sync_log",
    "_async_run": "_sync_run",
    "aruns_to_resume": "runs_to_resume",
    "awrite_now": "write_now",
    "await_durable": "wait_durable",
    "alookup": "lookup",
    "aupdate": "update",
    "ainvoke": "invoke",
    "orig_astream": "orig_stream",
    "orig_arun": "orig_run",
    # reuse/: the policy's methods each world calls, and the model it embeds with
    "areuse_lookup": "reuse_lookup",
    "areuse_store": "reuse_store",
    "aembed_query": "embed_query",
    "arun_plan": "run_plan",
    # actions/: the lease functions the handler calls
    "aacquire": "acquire",
    "arelease": "release",
    "AsyncRemoteBody": "SyncRemoteBody",
    "AsyncChannels": "SyncChannels",
    "aacquire_lease": "acquire_lease",
    "arelease_lease": "release_lease",
    "aarchive_thread": "archive_thread",
}

# A part between these two comment lines is copied as it is: what both worlds
# declare alike (the durability waits of the savers' API: one sync, one async).
VERBATIM = re.compile(r"^( *)# gen_sync: verbatim\n.*?^\1# gen_sync: end\n", re.M | re.S)
KEPT = re.compile(r"^ *# gen_sync: kept (\d+)\n", re.M)

HEADER = (
    "# Generated from {src} by .ci/gen_sync.py.\n"
    "# Edit the async source, not this file, then run: python .ci/gen_sync.py\n"
)


def generate(src: Path) -> str:
    """The sync text generated from one async source file (before formatting)."""
    rule = unasync.Rule("/", "/", additional_replacements=REPLACEMENTS)
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"{match.group(1)}# gen_sync: kept {len(kept) - 1}\n"

    tokens = tokenize_rt.src_to_tokens(VERBATIM.sub(keep, src.read_text()))
    text = tokenize_rt.tokens_to_src(list(rule._unasync_tokens(tokens)))
    text = KEPT.sub(lambda match: kept[int(match.group(1))], text)
    return HEADER.format(src=src.relative_to(ROOT).as_posix()) + text


def formatted(text: str, path: Path) -> str:
    """``text`` as ruff would format and import-sort it at ``path``."""
    fixed = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--fix-only",
            "--unsafe-fixes",
            "--select",
            "I,F401,UP028",
            "--stdin-filename",
            str(path),
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(path), "-"],
        input=fixed,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args()
    stale = 0
    for src_name, dst_name in PAIRS:
        src, dst = PKG / src_name, PKG / dst_name
        text = formatted(generate(src), dst)
        current = dst.read_text() if dst.exists() else ""
        if text == current:
            continue
        if args.check:
            stale += 1
            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(True), text.splitlines(True), str(dst), "generated"
                )
            )
        else:
            dst.write_text(text)
            print(f"wrote {dst.relative_to(ROOT)}")
    if stale:
        print(f"{stale} generated file(s) are stale: run python .ci/gen_sync.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
