"""The dependency layer: built for Lambda (arm64, cp313) from the lock, and far under the size limit.

This is the one test that may download (wheels from PyPI, on the first run or after the lock
changes); afterwards the build is reused from build/layer while the lock is unchanged.
"""

from __future__ import annotations

import json

import pytest

from layers.build import (
    DEFAULT_BUDGET_MB,
    DEFAULT_OUT,
    LAMBDA_UNZIPPED_LIMIT,
    build_layer,
    export_requirements,
    problems,
)

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("layer")]


def _names(requirements: str) -> set[str]:
    return {line.split("==")[0].strip().lower() for line in requirements.splitlines() if "==" in line}


def test_requirements_are_the_runtime_group_without_cdk_cli_only_or_runtime_provided_packages() -> None:
    names = _names(export_requirements())
    assert {"pydantic", "pygithub", "anthropic", "openai", "fastapi", "mangum"} <= names
    assert {"aws-lambda-powertools", "itsdangerous", "tzdata"} <= names
    assert not names & {"aws-cdk-lib", "constructs", "jsii", "moto", "pytest", "playwright", "mypy"}
    assert not names & {"uvicorn", "typer", "rich", "uvloop", "watchfiles"}
    # Lambda's Python runtime has boto3 and botocore already.
    assert not names & {"boto3", "botocore", "s3transfer"}


def test_the_layer_builds_for_arm64_and_stays_under_budget() -> None:
    report = build_layer(DEFAULT_OUT)
    assert report.foreign_binaries == []
    assert report.file_count > 1000
    assert problems(report, DEFAULT_BUDGET_MB) == []
    assert report.total_bytes < LAMBDA_UNZIPPED_LIMIT * 0.6
    site = DEFAULT_OUT / "python"
    for package in ("pydantic_core", "github", "anthropic", "mangum", "aws_lambda_powertools"):
        assert (site / package).is_dir(), package
    assert not (site / "botocore").exists()
    native = list((site / "pydantic_core").glob("*.so"))
    assert native and all("cpython-313-aarch64-linux-gnu" in p.name for p in native)
    manifest = json.loads((DEFAULT_OUT / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["key"] == report.key and manifest["total_bytes"] == report.total_bytes
