"""Names vulture reports as unused that are used from outside the package's own code.

Read by vulture only (`vulture langgraph_actionckpt .ci/vulture_allowlist.py
--min-confidence 80` in .ci/run), never imported. One line per name, with the reason.
"""

from types import SimpleNamespace

_ = SimpleNamespace()

# LangChain's on_chain_end(outputs, *, run_id, ...) signature: the handler hooks keep its
# parameter name (callers may pass it by keyword) and have no use for the outputs.
_.outputs

# The direct savers' limits= keyword: SaverOptions.of reads it from the constructor's locals().
_.limits
