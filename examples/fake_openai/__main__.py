"""Serve the fake OpenAI API until SIGINT/SIGTERM: ``cd examples && python -m fake_openai``.

Prints the base URL (one line, flushed) once listening, e.g. for
``OPENAI_API_KEY=test OPENAI_BASE_URL=<that url> python research_agent.py``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from .server import FakeOpenAIServer


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the server until SIGINT/SIGTERM.

    Args:
        argv: Command line arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The process exit code.
    """
    parser = argparse.ArgumentParser(
        prog="python -m fake_openai",
        description="Serve a fake, deterministic OpenAI-compatible API.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind")
    parser.add_argument("--port", type=int, default=0, help="port (0 = ephemeral)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per request")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds per SSE chunk")
    parser.add_argument("--count-file", default=None, help="JSON-lines request log")
    parser.add_argument("--embedding-dim", type=int, default=16, help="embedding size")
    args = parser.parse_args(argv)

    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with FakeOpenAIServer(
        host=args.host,
        port=args.port,
        delay=args.delay,
        chunk_delay=args.chunk_delay,
        count_file=args.count_file,
        embedding_dim=args.embedding_dim,
    ) as server:
        print(server.base_url, flush=True)
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
