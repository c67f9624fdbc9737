"""The action log: records and their plans, the background writer, the callback handlers."""
