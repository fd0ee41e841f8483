"""Runs the web UI's pure-module tests (`node --test web/tests/`) so CI covers them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

WEB = Path(__file__).resolve().parents[2] / "web"


def test_node_unit_tests_pass() -> None:
    node = shutil.which("node")
    assert node, "node is required for the web UI's unit tests (Debian: apt-get install nodejs)"
    # The local-time tests set their own zone (web/tests/london.mjs): run them from another one to
    # show that the result does not depend on the machine's.
    env = {**os.environ, "TZ": "America/Los_Angeles", "NO_COLOR": "1"}
    proc = subprocess.run(
        [node, "--test", "tests/"], cwd=WEB, env=env, capture_output=True, text=True, timeout=120
    )
    tail = "\n".join(proc.stdout.splitlines()[-40:])
    assert proc.returncode == 0, f"node --test failed:\n{tail}\n{proc.stderr[-2000:]}"
    assert "# fail 0" in proc.stdout
