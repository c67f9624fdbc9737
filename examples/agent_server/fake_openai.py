"""Where the example gets its local OpenAI-compatible server (no key, no network).

Everything the example and its tests need from the fake server goes through
:func:`fake_openai_module`, so moving that server is a one-line change here.

Run it standalone (prints the base URL to export as ``OPENAI_BASE_URL``)::

    python examples/agent_server/fake_openai.py --port 8765
"""

from __future__ import annotations

import sys
from types import ModuleType


def fake_openai_module() -> ModuleType:
    """The module holding ``FakeOpenAIServer``, ``read_count_file`` and ``main``."""
    from langgraph_actionckpt.testing import openai_server

    return openai_server


if __name__ == "__main__":
    sys.exit(fake_openai_module().main())
