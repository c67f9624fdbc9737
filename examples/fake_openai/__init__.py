"""Offline stand-ins for a model provider, for the examples, notebooks and tests.

Not part of the ``langgraph_actionckpt`` wheel: import it with ``examples/`` on
``sys.path`` (the examples and notebooks do) or as ``examples.fake_openai`` from the
repository root (the tests do).

* :class:`FakeOpenAIServer` - a local OpenAI-compatible HTTP server, so the *real*
  ``ChatOpenAI`` / ``OpenAIEmbeddings`` clients run offline over real HTTP
  (``python -m fake_openai`` serves one from a shell).
* :class:`~.models.ScriptedChatModel` - a deterministic in-process chat model
  (``fake_openai.models``), the examples' default when no API key is set.
"""

from .responder import Reply, Responder, default_responder, last_user_text, value_for_schema
from .server import FakeOpenAIServer, RecordedRequest, read_count_file
from .wire import deterministic_embedding

__all__ = [
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "Responder",
    "default_responder",
    "deterministic_embedding",
    "last_user_text",
    "read_count_file",
    "value_for_schema",
]
