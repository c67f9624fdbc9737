"""Testing helpers for ``langgraph_actionckpt`` (offline fakes, fixtures)."""
