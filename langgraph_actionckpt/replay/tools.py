"""Tool calls as actions: the request to key them by, and how a logged result is served.

``BaseTool.run``/``BaseTool.arun`` are patched (bodies in :mod:`._async_calls`).
On a hit the original ``run`` executes on a private copy of the tool whose body
returns the logged result (:func:`replaying_copy`), so callbacks still fire and
the ``ToolMessage`` keeps its ``tool_call_id``. ``create_agent``/
``create_react_agent`` additionally run each tool call as its own task, whose
finished writes LangGraph keeps anyway.
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException

from langgraph_actionckpt.actions.record import ActionRecord

# LangChain's own methods, kept before the hooks replace them (uninstall restores them).
orig_run = BaseTool.run
orig_arun = BaseTool.arun


def tool_is_idempotent(tool: BaseTool) -> bool:
    """Tools are idempotent unless ``metadata={"idempotent": False}`` says otherwise."""
    meta = tool.metadata or {}
    return bool(meta.get("idempotent", True))


def tool_reuse_key(tool: BaseTool) -> Any:
    """What another thread's call must share to be reused: the tool's argument schema.

    None unless the tool declares ``metadata={"reusable": True}`` (and is
    idempotent): a tool's answer may depend on the moment or the caller (the
    time, an account's balance), which its arguments do not show.
    """
    meta = tool.metadata or {}
    if not meta.get("reusable") or not tool_is_idempotent(tool):
        return None
    try:
        return {"description": tool.description, "args": tool.args}
    except Exception:  # noqa: BLE001 - a tool without a readable schema is keyed by name
        return {"description": tool.description}


def tool_request(tool: BaseTool, tool_input: Any) -> Any:
    """What identifies a tool call: its input without injected arguments (state, runtime)."""
    if isinstance(tool_input, dict):
        try:
            return tool._filter_injected_args(tool_input)
        except Exception:  # noqa: BLE001 - older/odd tools: hash what we have
            return {k: v for k, v in tool_input.items() if k not in ("runtime", "state", "store")}
    return tool_input


def replaying_copy(tool: BaseTool, record: ActionRecord) -> BaseTool:
    """A private copy of ``tool`` whose body returns (or raises) the logged result."""
    output = record.output
    if isinstance(output, ToolMessage):
        content: Any = output.content
        artifact = output.artifact
        status = output.status
    else:
        content, artifact, status = output, None, "success"

    def _replay(*args: Any, **kwargs: Any) -> Any:
        if status == "error":
            raise ToolException(content)
        if tool.response_format == "content_and_artifact":
            return (content, artifact)
        return content

    async def _areplay(*args: Any, **kwargs: Any) -> Any:
        return _replay()

    clone = tool.model_copy()
    object.__setattr__(clone, "_run", _replay)
    object.__setattr__(clone, "_arun", _areplay)
    if status == "error" and not clone.handle_tool_error:
        object.__setattr__(clone, "handle_tool_error", True)
    return clone


def tool_fields(output: Any) -> dict[str, Any]:
    """Extra fields of a completed tool row (a handled tool error is logged as an error)."""
    if isinstance(output, ToolMessage) and output.status == "error":
        return {"error": {"type": "ToolException", "message": str(output.content)}}
    return {}


def run_id_of(kwargs: dict[str, Any]) -> Any:
    """The callback run id of this tool call, chosen now when the caller gave none.

    The replay layer joins the callback handler's rows to the action by it.
    """
    run_id = kwargs.get("run_id") or uuid.uuid4()
    kwargs["run_id"] = run_id
    return run_id
