"""A deterministic local chat model for tests, examples and notebooks.

:class:`ScriptedChatModel` answers like a tiny tool-using agent, purely as a
function of the conversation (the same prompt always gets the same answer), so
a resumed run ends in exactly the state of an uninterrupted one. It supports
``bind_tools``, ``with_structured_output`` (through tool calling), streaming and
token usage. Every *real* execution is appended to ``calls_file`` when given (a
JSON line per call), so a parent process can count the calls a killed child
made.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

_lock = threading.Lock()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _args_for(schema: dict[str, Any], seed: str) -> dict[str, Any]:
    props = (schema.get("parameters") or {}).get("properties") or {}
    args: dict[str, Any] = {}
    for key, spec in props.items():
        kind = spec.get("type")
        if kind == "integer":
            args[key] = int(seed[:4], 16) % 100
        elif kind == "number":
            args[key] = (int(seed[:4], 16) % 1000) / 10
        elif kind == "boolean":
            args[key] = True
        elif kind == "array":
            args[key] = [seed]
        else:
            args[key] = f"{key}-{seed}"
    return args


class ScriptedChatModel(BaseChatModel):
    """Deterministic fake chat model with tool calling and token usage.

    Default behaviour, as a pure function of the messages:

    * tools bound and ``tool_choice`` forced: call that tool (structured output);
    * tools bound and the last message is from the user: call the first
      ``tool_calls_per_turn`` tools, arguments derived from the conversation;
    * otherwise: a text answer derived from the last message.

    Attributes:
        script: Optional ``(messages, kwargs) -> AIMessage`` overriding the default.
        calls_file: Append one JSON line per real execution (not per replay).
        tool_calls_per_turn: How many tools to call on a user turn.
        model: Model name reported in response metadata.
    """

    script: Callable[[list[BaseMessage], dict[str, Any]], AIMessage] | None = None
    calls_file: str | None = None
    tool_calls_per_turn: int = 1
    model: str = "scripted-1"
    streaming: bool = False

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model}

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        """Bind tools (OpenAI format), like a real provider."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _answer(self, messages: list[BaseMessage], **kwargs: Any) -> AIMessage:
        transcript = "\n".join(f"{m.type}:{m.content}" for m in messages)
        seed = _digest(transcript)
        self._count(seed, messages)
        if self.script is not None:
            msg = self.script(messages, kwargs)
        else:
            tools = kwargs.get("tools") or []
            last = messages[-1] if messages else None
            forced = kwargs.get("tool_choice")
            if tools and forced:
                fn = tools[0]["function"]
                if isinstance(forced, dict):
                    name = forced.get("function", {}).get("name", fn["name"])
                    fn = next((t["function"] for t in tools if t["function"]["name"] == name), fn)
                msg = AIMessage(
                    content="",
                    tool_calls=[
                        {"name": fn["name"], "args": _args_for(fn, seed), "id": f"call_{seed}"}
                    ],
                )
            elif tools and last is not None and last.type == "human":
                calls = [
                    {
                        "name": t["function"]["name"],
                        "args": _args_for(t["function"], f"{seed}{i}"),
                        "id": f"call_{seed}_{i}",
                    }
                    for i, t in enumerate(tools[: self.tool_calls_per_turn])
                ]
                msg = AIMessage(content="", tool_calls=calls)
            else:
                text = str(last.content) if last is not None else ""
                words = text.split()[:8]
                msg = AIMessage(content=f"answer-{seed}: {' '.join(words)}")
        n_in = sum(len(str(m.content).split()) + 1 for m in messages)
        n_out = len(str(msg.content).split()) + 5 * len(msg.tool_calls) + 1
        return msg.model_copy(
            update={
                "usage_metadata": {
                    "input_tokens": n_in,
                    "output_tokens": n_out,
                    "total_tokens": n_in + n_out,
                },
                "response_metadata": {"model_name": self.model, "model_provider": "scripted"},
            }
        )

    def _count(self, seed: str, messages: list[BaseMessage]) -> None:
        if not self.calls_file:
            return
        line = json.dumps({"seed": seed, "pid": os.getpid(), "n_messages": len(messages)})
        with _lock, open(self.calls_file, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._answer(messages, **kwargs))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        msg = self._answer(messages, **kwargs)
        words = str(msg.content).split(" ") if msg.content else []
        for i, word in enumerate(words):
            chunk = ChatGenerationChunk(
                message=AIMessageChunk(content=word if i == 0 else " " + word)
            )
            if run_manager:
                run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
            yield chunk
        tool_chunks = [
            {"name": tc["name"], "args": json.dumps(tc["args"]), "id": tc["id"], "index": i}
            for i, tc in enumerate(msg.tool_calls)
        ]
        last = ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                tool_call_chunks=tool_chunks,  # type: ignore[arg-type]
                usage_metadata=msg.usage_metadata,
                response_metadata=msg.response_metadata,
            )
        )
        if run_manager:
            run_manager.on_llm_new_token("", chunk=last)
        yield last


def read_calls(path: str) -> list[dict[str, Any]]:
    """The JSON lines a :class:`ScriptedChatModel` wrote to ``calls_file``."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
