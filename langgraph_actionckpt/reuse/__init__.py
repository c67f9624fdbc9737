"""Reuse by meaning: serve a completed result from another thread for the same request.

Opt-in: pass a policy to the saver (``ActionSaver(..., reuse=SemanticReuse(...))``)
or to one run (``config={"configurable": {"actionckpt_reuse": policy}}``; ``False``
switches it off for that run). Replay (``replay=True``) must be on.

* :class:`ExactReuse`: the very same request (model, parameters, tools, every
  message), from any thread in the scope. No embeddings, no pgvector.
* :class:`SemanticReuse`: also the nearest stored request by meaning (pgvector
  HNSW over embeddings of the whole request), with the same key, above a
  threshold per action name, accepted only if the contrast check
  (:func:`contrast`) and an optional verifier agree.

Never reused: non-idempotent actions, failed results, tools without
``metadata={"reusable": True}``, ``@action`` functions without
``reusable=True``. A reused row records its source (``meta.reused_from``: thread,
action, similarity, mode) and what it saved (``meta.reuse_saved``).
"""

from langgraph_actionckpt.reuse.calibrate import DEFAULT_THRESHOLD, calibrate
from langgraph_actionckpt.reuse.contrast import contrast, contrast_verifier
from langgraph_actionckpt.reuse.policy import KINDS, ExactReuse, SemanticReuse, Verifier
from langgraph_actionckpt.reuse.ticket import Ticket

__all__ = [
    "DEFAULT_THRESHOLD",
    "KINDS",
    "ExactReuse",
    "SemanticReuse",
    "Ticket",
    "Verifier",
    "calibrate",
    "contrast",
    "contrast_verifier",
]
