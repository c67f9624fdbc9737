"""Checkpoint storage: read and write plans, blobs and deltas, compression, serde."""
