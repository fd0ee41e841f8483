"""The layer rules of STYLE.md, enforced by reading imports (not by convention)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN_IN_CORE = {
    "boto3",
    "botocore",
    "fastapi",
    "starlette",
    "mangum",
    "aws_cdk",
    "constructs",
    "aws_lambda_powertools",
    "uvicorn",
    "typer",
    "functions",
    "infra",
    "tests",
}
# The model SDKs may be imported only by their adapter modules.
SDK_ADAPTERS = {"anthropic": "core/llm/anthropic_adapter.py", "openai": "core/llm/openai_adapter.py"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _py_files(top: str) -> list[Path]:
    return sorted((ROOT / top).rglob("*.py"))


@pytest.mark.unit
def test_core_imports_no_adapter_or_cloud_package() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN_IN_CORE) for p in _py_files("core")}
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.unit
def test_model_sdks_only_in_their_adapters() -> None:
    bad = []
    for top in ("core", "functions"):
        for p in _py_files(top):
            rel = str(p.relative_to(ROOT))
            for sdk, allowed in SDK_ADAPTERS.items():
                if sdk in _imports(p) and rel != allowed:
                    bad.append((rel, sdk))
    assert bad == []


@pytest.mark.unit
def test_nothing_imports_infra_at_run_time() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for top in ("core", "functions")
        for p in _py_files(top)
        if "infra" in _imports(p) or "aws_cdk" in _imports(p)
    ]
    assert offenders == []


def _modules(path: Path) -> set[str]:
    """Full dotted names of the absolute imports of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.unit
def test_storage_knows_nothing_of_memory() -> None:
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _modules(p) if m.startswith("core.memory"))
        for p in _py_files("core/storage")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
