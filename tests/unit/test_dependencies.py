"""No declared runtime dependency without a use: each one in pyproject.toml is imported somewhere
under core/, functions/ or layers/ (or is data the standard library reads, named below)."""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
# Used without an import statement, with the reason.
NOT_IMPORTED = {
    "tzdata": "zoneinfo reads its IANA zones where the OS ships none (slim containers, Lambda)",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_top_modules() -> set[str]:
    found: set[str] = set()
    for folder in ("core", "functions", "layers"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module.split(".")[0])
    return found


def test_every_runtime_dependency_is_used() -> None:
    declared = {
        _name(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    imported = _imported_top_modules()
    used: set[str] = set()
    for module, dists in packages_distributions().items():
        if module in imported:
            used.update(d.lower().replace("_", "-") for d in dists)
    unused = sorted(declared - used - set(NOT_IMPORTED))
    assert unused == [], f"declared in [project] dependencies but never imported: {unused}"
    assert set(NOT_IMPORTED) <= declared, "an exception for a dependency that is no longer declared"
