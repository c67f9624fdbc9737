"""Install and remove the process-wide replay hooks.

Global effects, installed once per process by the first saver created with
``replay=True``: the global LLM cache is set to a :class:`ReplayLLMCache` (an
existing user cache is wrapped, not replaced) and ``BaseChatModel.stream``,
``BaseChatModel.astream``, ``BaseTool.run`` and ``BaseTool.arun`` are wrapped.
All of them are inert unless the running task belongs to a graph compiled with
one of this package's savers, so other graphs in the process are untouched.
:func:`uninstall` undoes all of it.
"""

from __future__ import annotations

import threading

from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.tools import BaseTool

from langgraph_actionckpt.replay import _async_calls, _sync_calls
from langgraph_actionckpt.replay.llm import orig_astream, orig_stream
from langgraph_actionckpt.replay.tools import orig_arun, orig_run

_lock = threading.Lock()
_installed = False


class ReplayLLMCache(_sync_calls.SyncReplayCache, _async_calls.AsyncReplayCache):
    """The global LLM cache that replays logged completions inside our graphs.

    Outside such graphs it defers to ``inner`` (the cache the user had set, if
    any), so installing it changes nothing for other code.

    Args:
        inner: The cache to defer to outside our graphs.
    """


def install() -> None:
    """Install the process-wide hooks once (idempotent). Called by the savers."""
    global _installed
    with _lock:
        if _installed:
            return
        existing = get_llm_cache()
        if not isinstance(existing, ReplayLLMCache):
            set_llm_cache(ReplayLLMCache(existing))
        BaseChatModel.stream = _sync_calls.stream  # type: ignore[method-assign]
        BaseChatModel.astream = _async_calls.stream  # type: ignore[method-assign]
        BaseTool.run = _sync_calls.run_tool  # type: ignore[method-assign]
        BaseTool.arun = _async_calls.run_tool  # type: ignore[method-assign]
        _installed = True


def uninstall() -> None:
    """Remove every global effect of :func:`install`."""
    global _installed
    with _lock:
        cache = get_llm_cache()
        if isinstance(cache, ReplayLLMCache):
            set_llm_cache(cache.inner)
        BaseChatModel.stream = orig_stream  # type: ignore[method-assign]
        BaseChatModel.astream = orig_astream  # type: ignore[method-assign]
        BaseTool.run = orig_run  # type: ignore[method-assign]
        BaseTool.arun = orig_arun  # type: ignore[method-assign]
        _installed = False


def is_installed() -> bool:
    """Whether the replay hooks are installed in this process."""
    return _installed
