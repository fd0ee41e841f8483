"""What a function on AWS reads at cold start: its resources (env) and its secrets (Secrets Manager).

The stack sets the resource names in the environment; the secret holds the GitHub token, model
keys, access-key hash and session secret (the API functions also read the origin secret CloudFront
sends them). Secret values override the environment, empty ones are
ignored, and the secret is cached for a few minutes so a rotated key is picked up without a deploy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput

SECRET_ENV = "PREVIOUSLY_SECRET_ARN"
# The secret CloudFront sends in x-previously-origin ({"PREVIOUSLY_ORIGIN_SECRET": …}, generated
# by the stack, read only by the API and WebSocket functions).
ORIGIN_SECRET_ENV = "PREVIOUSLY_ORIGIN_SECRET_ARN"
SECRET_MAX_AGE_SECONDS = 300


@dataclass(frozen=True)
class AwsResources:
    """Names of the deployment's resources, from the environment the stack sets."""

    run_bucket: str
    state_machine_arn: str | None
    ws_callback_url: str | None
    # The function that runs evolve-now jobs (the maintenance function); None: not offered.
    evolve_function: str | None = None

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> AwsResources:
        env = os.environ if environ is None else environ
        bucket = env.get("RUN_BUCKET", "")
        if not bucket:
            raise InvalidInput("RUN_BUCKET is not set: this function runs only inside the deployed stack.")
        return cls(
            bucket,
            env.get("STATE_MACHINE_ARN") or None,
            env.get("WS_CALLBACK_URL") or None,
            env.get("EVOLVE_FUNCTION") or None,
        )


def secret_values(secret_id: str | None = None, max_age: int = SECRET_MAX_AGE_SECONDS) -> dict[str, str]:
    """The non-empty string values of the deployment's JSON secret ({} when no secret is configured)."""
    secret_id = secret_id if secret_id is not None else os.environ.get(SECRET_ENV)
    if not secret_id:
        return {}
    from aws_lambda_powertools.utilities import parameters  # only functions on AWS need it
    from aws_lambda_powertools.utilities.parameters.exceptions import TransformParameterError

    try:
        raw: Any = parameters.get_secret(secret_id, transform="json", max_age=max_age)
    except TransformParameterError:
        raw = None
    if not isinstance(raw, dict):
        raise InvalidInput(f"Secret {secret_id} must hold a JSON object of NAME: value pairs.")
    return {str(k): str(v) for k, v in raw.items() if isinstance(v, str) and v.strip()}
