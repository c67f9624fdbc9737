"""Generate the service's Python code from its .proto (grpcio-tools), or check it is current.

    python .ci/gen_proto.py          # rewrite langgraph_actionckpt/service/_pb/
    python .ci/gen_proto.py --check  # what CI runs (tests/test_service_proto.py)

protoc writes ``actionckpt/v1/checkpoint_pb2*.py``; the grpc module imports the
message module by its proto path, which is rewritten to the package path here.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "langgraph_actionckpt" / "service" / "proto"
PROTO = "actionckpt/v1/checkpoint.proto"
OUT = ROOT / "langgraph_actionckpt" / "service" / "_pb"
FILES = ("checkpoint_pb2.py", "checkpoint_pb2.pyi", "checkpoint_pb2_grpc.py")
HEADER = "# Generated from langgraph_actionckpt/service/proto/{} by .ci/gen_proto.py\n"


def generate() -> dict[str, str]:
    """The generated files' text, by file name."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "protoc",
            f"-I{PROTO_ROOT}",
            f"-I{Path(protoc.__file__).parent / '_proto'}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            PROTO,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        out: dict[str, str] = {}
        for name in FILES:
            text = (Path(tmp) / "actionckpt" / "v1" / name).read_text()
            text = text.replace(
                "from actionckpt.v1 import checkpoint_pb2",
                "from langgraph_actionckpt.service._pb import checkpoint_pb2",
            )
            out[name] = HEADER.format(PROTO) + text
    out["__init__.py"] = (
        HEADER.format(PROTO) + '"""Generated protobuf and gRPC modules (do not edit)."""\n'
    )
    return out


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for name, text in generate().items():
        path = OUT / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print("stale generated code (run python .ci/gen_proto.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
