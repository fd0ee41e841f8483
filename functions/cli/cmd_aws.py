"""`previously aws-secrets`: fill in a deployment's secret (GitHub token, model keys, access key).

The stack creates the secret with empty values; this command asks for each one (input hidden)
or takes them from the environment with `--from-env`, keeps what it is not given, and stores
only a salted scrypt hash of the access key, never the key itself. It uses your AWS credentials, the way
`cdk deploy` does.
"""

from __future__ import annotations

import json
import os
import secrets
from typing import Annotated, Any

import typer

from core.llm.model_info import ProviderId
from core.llm.presets import KEY_VARIABLES, PRESET_BY_ID, Preset
from functions.cli.app import JsonOpt, app, emit_json, fail


def _provider_fields(preset: Preset) -> tuple[tuple[str, str], ...]:
    """The prompts for one provider's key and, where it has one, its base URL."""
    if preset.base_url_var is None:
        return ((preset.env_var, f"{preset.name} API key"),)
    compatible = f"{preset.name}-compatible"
    return (
        (preset.env_var, f"{preset.name} (or {compatible}) API key"),
        (preset.base_url_var, f"{compatible} base URL (empty for {preset.name} itself)"),
    )


_ASKED: tuple[ProviderId, ...] = ("anthropic", "openai", "deepseek")  # the others: --from-env only
# Asked for in this order; the access key is handled apart (only its hash is stored).
FIELDS = (
    ("GITHUB_TOKEN", "GitHub token (fine-grained, contents read/write on the memory repository)"),
    *(f for p in _ASKED for f in _provider_fields(PRESET_BY_ID[p])),
)
# Taken from the environment with --from-env only: the other providers' keys and the model names.
ENV_ONLY_FIELDS = (
    *(v for v in KEY_VARIABLES if v not in {name for name, _ in FIELDS}),
    "PREVIOUSLY_MODEL",
    "PREVIOUSLY_WORKER_MODEL",
    "SEARXNG_URL",  # the web tools (docs/WEB.md)
    "BRAVE_SEARCH_API_KEY",
)
HASH_FIELD = "PREVIOUSLY_ACCESS_KEY_HASH"
LEGACY_HASH_FIELD = "PREVIOUSLY_ACCESS_KEY_SHA256"  # older deployments: unsalted, replaced on the next key
SESSION_FIELD = "PREVIOUSLY_SESSION_SECRET"


def secret_name(stage: str) -> str:
    """The secret the stack of `stage` creates (infra/config.py StageConfig.secret_name)."""
    return f"previously/{stage}/app"


def merge_values(
    current: dict[str, str], given: dict[str, str], access_key: str | None
) -> tuple[dict[str, str], list[str]]:
    """The new secret: `current` updated with the non-empty `given` values; the key only as its hash."""
    merged = dict(current)
    changed = []
    for name, value in given.items():
        if value and merged.get(name) != value:
            merged[name] = value
            changed.append(name)
    if access_key and not _stored_matches(merged.get(HASH_FIELD), access_key):
        from functions.api.security import AccessKey

        merged[HASH_FIELD] = AccessKey.from_plain(access_key).encoded()
        changed.append(HASH_FIELD)
        if merged.get(LEGACY_HASH_FIELD):
            merged[LEGACY_HASH_FIELD] = ""
            changed.append(LEGACY_HASH_FIELD)
    if not merged.get(SESSION_FIELD):
        merged[SESSION_FIELD] = secrets.token_urlsafe(32)
        changed.append(SESSION_FIELD)
    return merged, changed


def _stored_matches(stored: str | None, key: str) -> bool:
    from functions.api.security import AccessKey

    try:
        return bool(stored) and AccessKey.parse(stored or "").matches(key)
    except ValueError:
        return False


def checked_key(key: str) -> str:
    """`key` if it is strong enough to guard a deployment, else a clear error."""
    from functions.api.security import generate_key, key_weakness

    weakness = key_weakness(key)
    if weakness:
        raise fail(f"that access key is too weak ({weakness}); for example: {generate_key()}")
    return key


def _ask(current: dict[str, str], *, with_key: bool = True) -> tuple[dict[str, str], str | None]:
    """The values typed in (hidden); the access key is not asked for a public demo (`with_key` off)."""
    given = {}
    for name, label in FIELDS:
        state = "set — Enter keeps it" if current.get(name) else "empty — Enter skips"
        given[name] = typer.prompt(f"{label} [{state}]", default="", hide_input=True, show_default=False)
    if not with_key:
        return given, None
    state = "set — Enter keeps it" if _has_key(current) else "Enter generates one"
    key = typer.prompt(
        f"Access key for scripts and sign-in [{state}]", default="", hide_input=True, show_default=False
    )
    return given, key or None


def _new_key() -> str:
    from functions.api.security import generate_key

    return generate_key()


def _drop_key(merged: dict[str, str]) -> list[str]:
    """Empty every stored form of the access key (a public demo); the fields it emptied."""
    dropped = [field for field in (HASH_FIELD, LEGACY_HASH_FIELD) if merged.get(field)]
    merged.update(dict.fromkeys(dropped, ""))
    return dropped


def _has_key(current: dict[str, str]) -> bool:
    return bool(current.get(HASH_FIELD) or current.get(LEGACY_HASH_FIELD))


@app.command("hash-key")
def hash_key() -> None:
    """Print the salted hash of an access key (read hidden, or from stdin) for PREVIOUSLY_ACCESS_KEY_HASH."""
    import sys

    from functions.api.security import AccessKey

    if sys.stdin.isatty():
        key = typer.prompt("Access key", hide_input=True)
    else:
        key = sys.stdin.readline().rstrip("\r\n")
    typer.echo(AccessKey.from_plain(checked_key(key)).encoded())


def _read_secret(name: str, region: str | None) -> tuple[Any, dict[str, str]]:
    """The Secrets Manager client and the secret's current values; a clear error when it cannot be read."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

    try:
        client: Any = boto3.client("secretsmanager", region_name=region)
        current = json.loads(client.get_secret_value(SecretId=name)["SecretString"] or "{}")
    except NoRegionError as exc:
        raise fail("no AWS region: pass --region or set AWS_REGION (the region you deployed to)") from exc
    except NoCredentialsError as exc:
        raise fail("no AWS credentials: sign in with `aws configure` (or `aws configure sso`) first") from exc
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
            raise fail(
                f"there is no secret {name}. Deploy the stack first (docs/DEPLOY.md), "
                "or pass the --stage and --region you deployed"
            ) from exc
        raise fail(f"cannot read secret {name}: {exc}") from exc
    except BotoCoreError as exc:
        raise fail(f"cannot read secret {name}: {exc}") from exc
    return client, current


@app.command("aws-secrets")
def aws_secrets(
    stage: Annotated[str, typer.Option(help="The deployed stage (cdk.json).")] = "prod",
    region: Annotated[str | None, typer.Option(help="AWS region (default: your AWS config).")] = None,
    from_env: Annotated[
        bool, typer.Option("--from-env", help="Take values from the environment instead of asking.")
    ] = False,
    generate: Annotated[
        bool, typer.Option("--generate-key", help="Replace the access key with a new random one.")
    ] = False,
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="A public demo stage: no access key (a stored one is removed); anyone may use it.",
        ),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Store the GitHub token, model keys and access-key hash in the deployment's secret."""
    if public and generate:
        raise fail("--public stores no access key, so it cannot be combined with --generate-key")
    name = secret_name(stage)
    client, current = _read_secret(name, region)
    if from_env:
        names = [*(field for field, _ in FIELDS), *ENV_ONLY_FIELDS]
        given = {field: os.environ.get(field, "").strip() for field in names}
        access_key = os.environ.get("PREVIOUSLY_ACCESS_KEY", "").strip() or None
    else:
        given, access_key = _ask(current, with_key=not public)
    generated = None
    if public:
        access_key = None
    elif generate or (access_key is None and not _has_key(current)):
        generated = access_key = _new_key()
    elif access_key is not None:
        checked_key(access_key)
    merged, changed = merge_values(current, given, access_key)
    if public:
        changed += _drop_key(merged)
    if changed:
        client.put_secret_value(SecretId=name, SecretString=json.dumps(merged))
    report = {"secret": name, "changed": changed, "set": sorted(k for k, v in merged.items() if v)}
    if generated:
        report["access_key"] = generated
    if json_out:
        emit_json(report)
        return
    typer.echo(f"{name}: {'updated ' + ', '.join(changed) if changed else 'nothing changed'}")
    if generated:
        typer.echo(f"Your new access key (shown once; keep it in a password manager): {generated}")
    typer.echo("Running functions pick the new values up within five minutes.")
