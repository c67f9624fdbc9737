"""Replay: serve completed LLM calls, tool calls and ``@action`` results from the log.

After a crash a task runs again; every action it had completed is served from
the log instead of executed twice. How each kind is covered, with no change to
the user's graph:

* LLM completions: the global LLM cache, plus patched ``stream``/``astream``
  (:mod:`.llm`);
* tool calls: patched ``BaseTool.run``/``arun`` (:mod:`.tools`);
* anything else: the :func:`action` decorator (:mod:`.decorator`).

The parts: :mod:`.context` (which task is running, action keys), :mod:`.core`
(the serve/refuse/run decision, no I/O), ``_async_log``/``_sync_log`` (the log
reads and writes around it), ``_async_calls``/``_sync_calls`` (the code that
runs in place of LangChain's methods), :mod:`.hooks` (install/uninstall). The
``_sync_*`` modules are generated from their ``_async_*`` sources by
``.ci/gen_sync.py``.
"""

from langgraph_actionckpt.replay.decorator import action, current_action
from langgraph_actionckpt.replay.hooks import (
    ReplayLLMCache,
    install,
    is_installed,
    uninstall,
)

__all__ = [
    "ReplayLLMCache",
    "action",
    "current_action",
    "install",
    "is_installed",
    "uninstall",
]
