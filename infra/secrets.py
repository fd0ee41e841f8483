"""Secrets: one Secrets Manager secret holding the GitHub token, model keys and the access-key hash.

The stack creates it with empty values and a generated session secret; `previously aws-secrets`
(or `aws secretsmanager put-secret-value`) fills it in. Functions get its ARN and read access
through a grant, and read it at cold start with caching (functions/aws/config.py).
"""

from __future__ import annotations

import json

from aws_cdk import RemovalPolicy
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from core.llm.presets import BASE_URL_VARIABLES, HINT_KEYS
from functions.api.guard import ORIGIN_SECRET_HEADER
from functions.aws.config import ORIGIN_SECRET_ENV
from infra.config import StageConfig

# The keys a deployment reads from the secret (names as in docs/DEPLOY.md "Put your keys in the secret");
# the model providers' come from their registry (core/llm/presets.py): one key per provider, the base URLs.
SECRET_KEYS = (
    "GITHUB_TOKEN",
    *HINT_KEYS,
    *BASE_URL_VARIABLES,
    "PREVIOUSLY_MODEL",
    "PREVIOUSLY_WORKER_MODEL",
    "SEARXNG_URL",  # the web tools (docs/WEB.md)
    "BRAVE_SEARCH_API_KEY",
    "PREVIOUSLY_ACCESS_KEY_HASH",
    "PREVIOUSLY_ACCESS_KEY_SHA256",  # older deployments; `aws-secrets` replaces it with the hash above
)
GENERATED_KEY = "PREVIOUSLY_SESSION_SECRET"
SECRET_ENV = "PREVIOUSLY_SECRET_ARN"
ORIGIN_SECRET_KEY = "PREVIOUSLY_ORIGIN_SECRET"  # functions/settings.py reads it under this name
ORIGIN_HEADER = ORIGIN_SECRET_HEADER


def secret_keys(config: StageConfig) -> tuple[str, ...]:
    """The keys the stage's secret starts with (a demo has no memory repository, so no token)."""
    return tuple(k for k in SECRET_KEYS if not (config.demo and k == "GITHUB_TOKEN"))


class AppSecrets(Construct):
    """The deployment's secret, and the grant that lets a function read it."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        self.secret = secretsmanager.Secret(
            self,
            "App",
            secret_name=config.secret_name,
            description="Previously: GitHub token, model keys, access-key hash, session secret",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template=json.dumps(dict.fromkeys(secret_keys(config), "")),
                generate_string_key=GENERATED_KEY,
                exclude_punctuation=True,
                password_length=48,
            ),
            removal_policy=RemovalPolicy.DESTROY,
        )

    def grant_read(self, fn: lambda_.Function) -> None:
        """Let `fn` read the secret and tell it where the secret is."""
        self.secret.grant_read(fn)
        fn.add_environment(SECRET_ENV, self.secret.secret_arn)


class OriginSecret(Construct):
    """The secret CloudFront adds to every request it sends the APIs (`x-previously-origin`).

    The API and WebSocket functions refuse a request without it (functions/api/guard.py), so the
    API Gateway endpoints answer nobody who goes around CloudFront — and nobody can forge the
    viewer-address or forwarded-host headers CloudFront sets. The execute-api endpoints stay
    enabled because they are CloudFront's origins (no custom domain stands in front of them).
    """

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        self.secret = secretsmanager.Secret(
            self,
            "Origin",
            description="Previously: the header CloudFront sends the APIs (not for people)",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template="{}",
                generate_string_key=ORIGIN_SECRET_KEY,
                exclude_punctuation=True,
                password_length=48,
            ),
            removal_policy=RemovalPolicy.DESTROY,
        )

    @property
    def header_value(self) -> str:
        """A dynamic reference CloudFormation resolves at deploy time (never in the template)."""
        return self.secret.secret_value_from_json(ORIGIN_SECRET_KEY).unsafe_unwrap()

    def grant_read(self, fn: lambda_.Function) -> None:
        """Let `fn` read the secret and tell it where the secret is."""
        self.secret.grant_read(fn)
        fn.add_environment(ORIGIN_SECRET_ENV, self.secret.secret_arn)
