"""Error names for Step Functions: every domain error is known, whatever was imported before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def test_subclasses_defined_beside_their_code_are_found_in_a_fresh_process() -> None:
    script = (
        "from functions.aws.steps import domain_errors\n"
        "import sys\n"
        "print(sorted(domain_errors()))\n"
        "print([m for m in ('anthropic', 'openai') if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    names, sdks = done.stdout.strip().splitlines()[-2:]
    for name in (
        "ModelUnavailable",
        "GitHubRateLimited",
        "FileTooLarge",
        "SliceIdTaken",
        "ModelTransientError",
    ):
        assert f"'{name}'" in names
    assert sdks == "[]"


def test_a_retry_on_a_base_error_lists_its_subclasses() -> None:
    from functions.aws.steps import expand_errors

    names = expand_errors(["TransientError", "ConflictError"])
    assert names[:1] == ["TransientError"] and "ModelUnavailable" in names and "GitHubRateLimited" in names
    assert "SliceIdTaken" in names and "ModelError" not in names
    assert len(names) == len(set(names))
