"""Action columns derived from LangChain objects: token usage, errors, agent ids."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

__all__ = ["agent_id_for", "error_payload", "usage_fields"]


def agent_id_for(graph_ns: str, metadata: dict[str, Any] | None = None) -> str:
    """``metadata["agent_id"]`` if set, else the subgraph path (``root`` at the top)."""
    if metadata and isinstance(metadata.get("agent_id"), str):
        return str(metadata["agent_id"])
    if not graph_ns:
        return "root"
    return "/".join(part.split(":", 1)[0] for part in graph_ns.split("|"))


def error_payload(error: BaseException) -> dict[str, Any]:
    """Type, message and traceback of an exception, for the ``error`` column."""
    import traceback

    return {
        "type": type(error).__name__,
        "message": str(error),
        "traceback": "".join(traceback.format_exception(error))[-8000:],
    }


def usage_fields(message: BaseMessage) -> dict[str, Any]:
    """Token usage and model of an AI message, as action columns."""
    out: dict[str, Any] = {}
    usage = getattr(message, "usage_metadata", None) or {}
    if usage:
        out["input_tokens"] = usage.get("input_tokens")
        out["output_tokens"] = usage.get("output_tokens")
        out["total_tokens"] = usage.get("total_tokens")
        out["cached_tokens"] = (usage.get("input_token_details") or {}).get("cache_read")
        out["reasoning_tokens"] = (usage.get("output_token_details") or {}).get("reasoning")
    meta = getattr(message, "response_metadata", None) or {}
    model = meta.get("model_name") or meta.get("model")
    if isinstance(model, str):
        out["model"] = model
    provider = meta.get("model_provider") or meta.get("ls_provider")
    if isinstance(provider, str):
        out["provider"] = provider
    return out
