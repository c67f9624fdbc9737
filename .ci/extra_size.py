"""Print what the offline embedding model's extra costs on disk, and fail above the limit.

    python .ci/extra_size.py                  # [local-embeddings], limit 500 MB
    python .ci/extra_size.py EXTRA LIMIT_MB   # another extra

Installs the extra's requirements, as ``pyproject.toml`` lists them, with everything they pull
in, into an empty directory (``pip install --target``) and sums the files there. The package
itself and its core dependencies are not counted: they are what every install has already.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def requirements(extra: str) -> list[str]:
    """The requirements ``pyproject.toml`` lists for ``extra``."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        extras = tomllib.load(fh)["project"]["optional-dependencies"]
    return list(extras[extra])


def installed_bytes(reqs: list[str], target: Path) -> int:
    """Install ``reqs`` (and what they need) into ``target``; the bytes of every file there."""
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target"]
    subprocess.run([*cmd, str(target), *reqs], check=True)
    return sum(p.stat().st_size for p in target.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    extra = sys.argv[1] if len(sys.argv) > 1 else "local-embeddings"
    limit_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 500.0
    reqs = requirements(extra)
    with tempfile.TemporaryDirectory() as tmp:
        size_mb = installed_bytes(reqs, Path(tmp) / "site") / 1e6
    listed = ", ".join(reqs)
    print(f"[{extra}] ({listed}) installed size: {size_mb:.0f} MB (limit {limit_mb:.0f} MB)")
    if size_mb > limit_mb:
        print(f"FAILED: [{extra}] needs {size_mb:.0f} MB, over {limit_mb:.0f} MB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
