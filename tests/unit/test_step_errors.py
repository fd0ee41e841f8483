"""Error names for Step Functions: every domain error class lives in core/errors.py, so importing
that one module is enough to know them all, and each can be rebuilt from a caught error."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import domain_errors, expand_errors

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def test_importing_core_errors_alone_finds_every_domain_error() -> None:
    script = (
        "import sys\n"
        "from core.errors import domain_errors\n"
        "print(sorted(domain_errors()))\n"
        "print(sorted(m for m in sys.modules if m == 'core' or m.startswith('core.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    names, modules = done.stdout.strip().splitlines()[-2:]
    for name in (
        "ModelUnavailable",
        "GitHubRateLimited",
        "RateLimitSpent",
        "FileTooLarge",
        "DamagedFile",
        "SliceIdTaken",
        "ModelTransientError",
    ):
        assert f"'{name}'" in names
    assert modules == "['core', 'core.errors', 'core.redact']"


def test_no_domain_error_class_is_defined_outside_core_errors() -> None:
    known = set(domain_errors())
    strays = []
    for folder in ("core", "functions"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "core" / "errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                    if bases & known:
                        strays.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert strays == [], "domain errors belong in core/errors.py"


@pytest.mark.parametrize("name", sorted(domain_errors()))
def test_a_caught_error_is_rebuilt_as_its_own_class_with_its_message(name: str) -> None:
    from functions.aws.steps import caught_exception

    cause = '{"errorMessage": "GitHub said no. Try again later."}'
    rebuilt = caught_exception({"Error": name, "Cause": cause})
    assert type(rebuilt) is domain_errors()[name]
    assert str(rebuilt) == "GitHub said no. Try again later."


def test_a_retry_on_a_base_error_lists_its_subclasses() -> None:
    names = expand_errors(["TransientError", "ConflictError"])
    assert names[:1] == ["TransientError"] and "ModelUnavailable" in names and "GitHubRateLimited" in names
    assert "SliceIdTaken" in names and "ModelError" not in names
    assert len(names) == len(set(names))
