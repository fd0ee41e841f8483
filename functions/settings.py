"""Deployment settings from the environment, validated once at start-up (docs/STORAGE.md,
docs/MODELS.md, docs/DEPLOY.md "Put your keys in the secret").

An invalid value is an error naming the variable, never a silent fallback.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from core.errors import InvalidInput
from core.ids import RepoName
from core.llm.presets import BASE_URL_VARIABLES, KEY_VARIABLES

_ORIGIN_RE = re.compile(r"^https?://[A-Za-z0-9.-]+(:\d{1,5})?$")
_HOST_RE = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$")


class Settings(BaseSettings):
    """Everything a deployment decides; per-user preferences live in memory/user/config.json."""

    storage: Literal["local", "github", "demo"] | None = Field(default=None, alias="STORAGE")
    memory_root: Path = Field(default=Path("memory-data"), alias="PREVIOUSLY_MEMORY")
    # Where turn runs (events, model rounds) are kept locally; default: beside the memory folder.
    runs_dir: Path | None = Field(default=None, alias="PREVIOUSLY_RUNS")
    # The longest a turn may run (on AWS the state machine's timeout, set from the stage's
    # turn_timeout_minutes); recovery ends a turn no process vouches for only after it.
    turn_timeout_minutes: int = Field(default=30, ge=5, le=24 * 60, alias="PREVIOUSLY_TURN_TIMEOUT_MINUTES")

    github_token: SecretStr | None = Field(default=None, alias="GITHUB_TOKEN")
    github_repo: str | None = Field(default=None, alias="GITHUB_REPO")
    github_branch: str | None = Field(default=None, alias="GITHUB_BRANCH")
    github_api_url: str = Field(default="https://api.github.com", alias="GITHUB_API_URL")
    # Where GitHub's blobs and listings are kept between processes (core/storage/disk_cache.py);
    # "off" turns it off; unset: the user's cache folder (none on Lambda).
    cache_dir: str | None = Field(default=None, alias="PREVIOUSLY_CACHE_DIR")

    # The model providers' variables, as the registry names them (core/llm/presets.py):
    # every `KEY_VARIABLES` entry that is set → its key, every `BASE_URL_VARIABLES` one → its URL.
    model_keys: dict[str, SecretStr] = Field(default_factory=dict)
    model_urls: dict[str, str] = Field(default_factory=dict)
    # The deployment's model names (a user's Settings choice in config.json wins over these).
    model: str | None = Field(default=None, alias="PREVIOUSLY_MODEL")
    worker_model: str | None = Field(default=None, alias="PREVIOUSLY_WORKER_MODEL")

    # The web tools (docs/WEB.md): a search backend (SearXNG's JSON API, or Brave Search by key),
    # whether webFetch is offered, and the hosts it may reach although they are private.
    searxng_url: str | None = Field(default=None, alias="SEARXNG_URL")
    brave_search_api_key: SecretStr | None = Field(default=None, alias="BRAVE_SEARCH_API_KEY")
    web_fetch: bool = Field(default=True, alias="PREVIOUSLY_WEB_FETCH")
    fetch_allow_hosts: str | None = Field(default=None, alias="PREVIOUSLY_FETCH_ALLOW_HOSTS")

    access_key: SecretStr | None = Field(default=None, alias="PREVIOUSLY_ACCESS_KEY")
    # The key's salted scrypt hash (`previously hash-key`); the unsalted SHA-256 of older deployments
    # is still read from PREVIOUSLY_ACCESS_KEY_SHA256.
    access_key_hash: str | None = Field(default=None, alias="PREVIOUSLY_ACCESS_KEY_HASH")
    access_key_sha256: str | None = Field(default=None, alias="PREVIOUSLY_ACCESS_KEY_SHA256")
    session_secret: SecretStr | None = Field(default=None, alias="PREVIOUSLY_SESSION_SECRET")
    # Set by the deployment: requests arrive through CloudFront, whose viewer-address and
    # forwarded-host headers are then believed (and only then).
    behind_cloudfront: bool = Field(default=False, alias="PREVIOUSLY_BEHIND_CLOUDFRONT")
    # What CloudFront adds in x-previously-origin (on AWS, from the stack's origin secret): a
    # request without it did not come through CloudFront and is refused.
    origin_secret: SecretStr | None = Field(default=None, alias="PREVIOUSLY_ORIGIN_SECRET")
    # Comma-separated host names besides loopback this server answers to (docs/API.md "Authentication").
    public_hosts: str | None = Field(default=None, alias="PREVIOUSLY_PUBLIC_HOSTS")
    # Comma-separated origins allowed to call the API from a browser on another site (default: none).
    cors_origins: str | None = Field(default=None, alias="PREVIOUSLY_CORS_ORIGINS")

    model_config = SettingsConfigDict(populate_by_name=True, case_sensitive=False, extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        provider_env = _ProviderEnv(settings_cls)
        return (init_settings, env_settings, provider_env, dotenv_settings, file_secret_settings)

    @model_validator(mode="before")
    @classmethod
    def _collect_provider_arguments(cls, data: Any) -> Any:
        """Provider variables given as arguments (by their registry names) win over the environment;
        an empty one unsets the variable."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for names, target in ((KEY_VARIABLES, "model_keys"), (BASE_URL_VARIABLES, "model_urls")):
            given = _provider_values(data, names)
            if given:
                merged = {**dict(data.get(target) or {}), **given}
                data[target] = {k: v for k, v in merged.items() if v.strip()}
        return data

    @field_validator("storage", mode="before")
    @classmethod
    def _empty_storage_is_unset(cls, v: object) -> object:
        return None if v == "" else v

    @field_validator("github_repo")
    @classmethod
    def _repo_shape(cls, v: str | None) -> str | None:
        if v and not RepoName.matches(v):
            raise ValueError("GITHUB_REPO must look like owner/name")
        return v or None

    @field_validator("access_key_sha256")
    @classmethod
    def _hash_shape(cls, v: str | None) -> str | None:
        if v and not re.fullmatch(r"[0-9a-fA-F]{64}", v):
            raise ValueError("PREVIOUSLY_ACCESS_KEY_SHA256 must be 64 hex digits")
        return v.lower() if v else None

    @field_validator("access_key_hash")
    @classmethod
    def _scrypt_shape(cls, v: str | None) -> str | None:
        if v and not re.fullmatch(r"scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]{8,}\$[A-Za-z0-9_-]{16,}", v.strip()):
            raise ValueError(
                "PREVIOUSLY_ACCESS_KEY_HASH must look like scrypt$16384$8$1$<salt>$<hash> "
                "(print one with `previously hash-key`)"
            )
        return v.strip() if v else None

    @property
    def stored_key(self) -> str | None:
        """The stored form of the access key, newest scheme first."""
        return self.access_key_hash or self.access_key_sha256

    @property
    def has_access_key(self) -> bool:
        """Whether any form of the access key is configured."""
        plain = self.access_key.get_secret_value().strip() if self.access_key else ""
        return bool(plain or self.stored_key)

    @field_validator("searxng_url")
    @classmethod
    def _searxng_shape(cls, v: str | None) -> str | None:
        if v and not re.match(r"^https?://[^\s/]+", v.strip()):
            raise ValueError("SEARXNG_URL must be the instance's address, like https://search.example.org")
        return v.strip() if v and v.strip() else None

    @field_validator("cors_origins")
    @classmethod
    def _origins_shape(cls, v: str | None) -> str | None:
        for origin in (o.strip() for o in (v or "").split(",") if o.strip()):
            if not _ORIGIN_RE.match(origin):
                raise ValueError(
                    f"PREVIOUSLY_CORS_ORIGINS: {origin!r} is not an origin like https://app.example.com"
                )
        return v or None

    @field_validator("public_hosts")
    @classmethod
    def _hosts_shape(cls, v: str | None) -> str | None:
        for host in (h.strip() for h in (v or "").split(",") if h.strip()):
            if not _HOST_RE.match(host):
                raise ValueError(
                    f"PREVIOUSLY_PUBLIC_HOSTS: {host!r} is not a host name like previously.example.com"
                )
        return v or None

    @property
    def public_host_list(self) -> tuple[str, ...]:
        """The configured public host names, trimmed."""
        return tuple(h.strip() for h in (self.public_hosts or "").split(",") if h.strip())

    @property
    def cors_origin_list(self) -> tuple[str, ...]:
        """The configured CORS origins, trimmed."""
        return tuple(o.strip() for o in (self.cors_origins or "").split(",") if o.strip())

    @model_validator(mode="after")
    def _resolve_storage(self) -> Settings:
        if self.storage is None:
            has_token = bool(self.github_token and self.github_token.get_secret_value())
            self.storage = "github" if has_token else "local"
        if self.storage == "github" and not (self.github_token and self.github_repo):
            raise ValueError("STORAGE=github needs GITHUB_TOKEN and GITHUB_REPO (owner/name)")
        return self


class _ProviderEnv(PydanticBaseSettingsSource):
    """The registry's provider variables from the environment (any letter case, like the fields)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for names, target in ((KEY_VARIABLES, "model_keys"), (BASE_URL_VARIABLES, "model_urls")):
            values = {k: v for k, v in _provider_values(dict(os.environ), names).items() if v.strip()}
            if values:
                found[target] = values
        return found


def _provider_values(given: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The values among `given` whose key is one of `names` in any letter case, by the registry's name."""
    upper = {n.upper(): n for n in names}
    out: dict[str, str] = {}
    for key, value in given.items():
        name = upper.get(str(key).upper())
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if name is not None and isinstance(text, str):
            out[name] = text
    return out


def load_settings(**overrides: object) -> Settings:
    """Read and validate the environment; InvalidInput with every problem on failure.

    Every secret it holds is registered for redaction (functions/logs.py).
    """
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()
        )
        raise InvalidInput(f"Invalid settings: {problems}") from exc
    from functions.logs import install

    install(settings)  # from here on, no log line or error message carries these secrets
    return settings
