"""Check that every optional extra installs together with every other one.

    python .ci/extras.py            # dry-run install of the union of all extras in a new venv
    python .ci/extras.py --list     # print the extras it would install

The union of all extras in ``pyproject.toml`` must be one resolvable set: a user who runs the
checkpoint service next to ``langgraph dev`` installs ``[service,agent-server]`` together, and
``pip`` must neither give up (``ResolutionImpossible``) nor downgrade what one extra needs to
satisfy another. ``pip install --dry-run`` resolves the whole set in a new virtualenv (nothing
already installed can mask a conflict) without installing it. Exits non-zero when pip cannot
resolve the set or when a pin of ``[service]`` is not honoured by the resolution.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def extras() -> list[str]:
    """Every extra ``pyproject.toml`` declares, sorted."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)["project"]
    return sorted(project["optional-dependencies"])


def resolve(names: list[str], venv_dir: Path) -> dict[str, str]:
    """Dry-run install the package with ``names`` in a new venv; the resolved versions by name."""
    venv.create(venv_dir, with_pip=True)
    python = venv_dir / "bin" / "python"
    report = venv_dir / "report.json"
    target = f"{ROOT}[{','.join(names)}]"
    cmd = [str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report)]
    subprocess.run([*cmd, target], check=True)
    data = json.loads(report.read_text())
    return {
        item["metadata"]["name"].lower(): item["metadata"]["version"] for item in data["install"]
    }


def main() -> int:
    names = extras()
    if "--list" in sys.argv:
        print(",".join(names))
        return 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            versions = resolve(names, Path(tmp) / "venv")
        except subprocess.CalledProcessError as exc:
            print(f"FAILED: the union of all extras does not resolve ({exc})", file=sys.stderr)
            return 1
    took = time.monotonic() - start
    print(f"all {len(names)} extras resolve together: {len(versions)} packages in {took:.0f}s")
    for name in ("grpcio", "protobuf", "langgraph-api", "grpcio-tools"):
        print(f"  {name} {versions.get(name, '(not installed)')}")
    grpc = tuple(int(x) for x in versions["grpcio"].split(".")[:2])
    proto = int(versions["protobuf"].split(".")[0])
    if grpc != (1, 81) or proto != 6:
        print("FAILED: grpcio 1.81.x and protobuf 6.x expected ([service])", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
