"""Replay: serve completed LLM calls, tool calls and ``@action`` results from the log."""

from langgraph_actionckpt.replay.engine import (
    ReplayLLMCache,
    action,
    current_action,
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
