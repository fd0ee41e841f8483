"""Settings on AWS: the environment plus the deployment's secret (moto Secrets Manager)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from core.errors import InvalidInput
from functions.aws.config import AwsResources, secret_values
from functions.compose import aws as compose

pytestmark = pytest.mark.functional


@pytest.fixture
def sm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("GITHUB_TOKEN", "STORAGE", "PREVIOUSLY_SECRET_ARN", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    compose.reset()
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="us-east-1")
    compose.reset()


def test_secret_values_override_the_environment_and_empty_ones_are_ignored(
    sm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = sm.create_secret(
        Name="previously/t1/app",
        SecretString=json.dumps(
            {"GITHUB_TOKEN": "ghp_x", "ANTHROPIC_API_KEY": "", "PREVIOUSLY_SESSION_SECRET": "s"}
        ),
    )["ARN"]
    monkeypatch.setenv("PREVIOUSLY_SECRET_ARN", arn)
    monkeypatch.setenv("GITHUB_REPO", "me/memory")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    assert secret_values() == {"GITHUB_TOKEN": "ghp_x", "PREVIOUSLY_SESSION_SECRET": "s"}
    settings = compose.settings_for(compose.secret_key())
    assert settings.storage == "github" and settings.github_repo == "me/memory"
    assert settings.github_token is not None and settings.github_token.get_secret_value() == "ghp_x"
    assert settings.model_keys["ANTHROPIC_API_KEY"].get_secret_value() == "from-env"


def test_a_secret_that_is_not_a_json_object_is_a_clear_error(sm: Any) -> None:
    arn = sm.create_secret(Name="previously/t2/app", SecretString="just text")["ARN"]
    with pytest.raises(InvalidInput, match="JSON object"):
        secret_values(arn)


def test_no_secret_configured_means_no_values(sm: Any) -> None:
    assert secret_values() == {}


def test_resources_come_from_the_environment() -> None:
    resources = AwsResources.from_env(
        {"RUN_BUCKET": "b", "STATE_MACHINE_ARN": "arn:x", "WS_CALLBACK_URL": ""}
    )
    assert resources == AwsResources("b", "arn:x", None)
    with pytest.raises(InvalidInput, match="RUN_BUCKET"):
        AwsResources.from_env({})
