# Generated from langgraph_actionckpt/service/proto/actionckpt/v1/checkpoint.proto by .ci/gen_proto.py
"""Generated protobuf and gRPC modules (do not edit)."""
