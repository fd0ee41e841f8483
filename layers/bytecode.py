"""Bytecode for Lambda's Python: compiled ahead by a Python of the runtime's version.

Lambda's `/var/task` and `/opt` are read-only, so a bundle without usable `.pyc` recompiles every
module it imports on every cold start (docs/DEPLOY.md, the cold starts paragraph). Bytecode is specific to
the interpreter's minor version, so only a Python of the runtime's version can make it; with
`--invalidation-mode unchecked-hash` the files stay valid whatever timestamps the zip gives
the sources.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

RUNTIME_VERSION = "3.13"
# Where a deployer may name the interpreter explicitly (else `python3.13`, else uv's own).
LAMBDA_PYTHON_ENV = "PREVIOUSLY_LAMBDA_PYTHON"


def find_python(version: str = RUNTIME_VERSION) -> str | None:
    """A Python of `version` on this machine ($PREVIOUSLY_LAMBDA_PYTHON, pythonX.Y, uv's), or None.

    Never downloads one: synth and the layer build work offline.
    """
    candidates = [os.environ.get(LAMBDA_PYTHON_ENV), shutil.which(f"python{version}")]
    candidates.append(_uv_found(version))
    for candidate in candidates:
        if candidate and python_version(candidate) == version:
            return candidate
    return None


def python_version(python: str) -> str | None:
    """`major.minor` of the interpreter at `python`, or None when it does not run."""
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _uv_found(version: str) -> str | None:
    uv = shutil.which("uv")
    command = [uv] if uv else [str(Path(shutil.which("python3") or "python3")), "-m", "uv"]
    try:
        done = subprocess.run(
            [*command, "python", "find", "--no-python-downloads", version],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def compile_tree(root: Path, python: str) -> int:
    """Compile every module under `root` with `python`; the number of `.pyc` files it holds after."""
    subprocess.run(
        [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(root)],
        check=True,
        capture_output=True,
    )
    return sum(1 for _ in root.rglob("*.pyc"))
