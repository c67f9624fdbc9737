"""Where the example gets its local OpenAI-compatible server (no key, no network).

Everything the example and its tests need from the fake server goes through
:func:`fake_openai_module`, so moving that server is a one-line change here.

Run it standalone (prints the base URL to export as ``OPENAI_BASE_URL``)::

    python examples/agent_server/local_llm.py --port 8765
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace


def fake_openai_module() -> ModuleType:
    """``FakeOpenAIServer``, ``read_count_file`` and ``main`` of ``examples/fake_openai``."""
    examples = str(Path(__file__).resolve().parents[1])
    if examples not in sys.path:
        sys.path.insert(0, examples)
    import fake_openai
    from fake_openai.__main__ import main

    return SimpleNamespace(  # type: ignore[return-value]
        FakeOpenAIServer=fake_openai.FakeOpenAIServer,
        read_count_file=fake_openai.read_count_file,
        main=main,
    )


if __name__ == "__main__":
    sys.exit(fake_openai_module().main())
