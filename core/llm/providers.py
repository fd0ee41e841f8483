"""Which providers the environment configures, and the adapter for each.

Built from a plain `ProviderConfig` (the composition root fills it from the environment). The
adapters, and with them the SDKs, are imported only when a client is first needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlparse

from core.llm.catalog import PROVIDER_ORDER, ProviderId
from core.llm.presets import PRESET_BY_ID, PRESETS, Flavor, Preset
from core.llm.types import ModelClient

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one
_SDK_DEFAULT_URL = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


@dataclass(frozen=True)
class ProviderConfig:
    """Keys, endpoints and the deployment's model names, as plain values (no settings object reaches core).

    `keys`: any preset's key variable (core/llm/presets.py `KEY_VARIABLES`) → its value; the three
    named `*_api_key` fields are a shorthand for the DeepSeek, Anthropic and OpenAI presets' first
    variable and win over `keys`.
    `main_model` / `worker_model`: `PREVIOUSLY_MODEL` / `PREVIOUSLY_WORKER_MODEL` (or `serve --model`).
    """

    anthropic_api_key: str | None = None
    anthropic_base_url: str | None = None
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    deepseek_api_key: str | None = None
    deepseek_base_url: str = DEEPSEEK_BASE_URL
    keys: Mapping[str, str] = field(default_factory=dict)
    main_model: str | None = None
    worker_model: str | None = None

    def key_for(self, preset: Preset) -> tuple[str, str] | None:
        """(the key, the variable it came from) for a preset, when one is set."""
        named = {
            "deepseek": self.deepseek_api_key,
            "anthropic": self.anthropic_api_key,
            "openai": self.openai_api_key,
        }.get(preset.id)
        for var in preset.env_vars:
            value = ((named if var == preset.env_var else None) or self.keys.get(var) or "").strip()
            if value:
                return value, var
        return None


@dataclass(frozen=True)
class Provider:
    """One configured provider. `compatible`: a generic OpenAI-compatible server, models listed live."""

    id: ProviderId
    name: str
    api: Literal["anthropic", "openai"]
    api_key: str = field(repr=False)
    base_url: str | None
    env_var: str
    compatible: bool = False
    flavor: Flavor | None = None  # None: the preset's, or "compatible" for a generic server

    @property
    def wire_flavor(self) -> Flavor:
        """How this provider spells its reasoning options."""
        if self.flavor is not None:
            return self.flavor
        return "compatible" if self.compatible else PRESET_BY_ID[self.id].flavor

    @property
    def endpoint(self) -> str:
        """The URL requests go to, for messages ("cannot reach …")."""
        return self.base_url or _SDK_DEFAULT_URL[self.api]


def providers_from(config: ProviderConfig) -> list[Provider]:
    """The configured providers, in the order defaults are chosen from."""
    found: dict[str, Provider] = {}
    for preset in PRESETS:
        key = config.key_for(preset)
        if preset.id == "openai":
            compat = _openai_or_compatible(config, preset)
            if compat is not None:
                found["openai"] = compat
            continue
        if key is None:
            continue
        base = preset.base_url
        if preset.id == "anthropic":
            base = config.anthropic_base_url or None
        elif preset.id == "deepseek":
            base = config.deepseek_base_url
        found[preset.id] = Provider(
            preset.id, preset.name, preset.api, key[0], base, key[1], flavor=preset.flavor
        )
    return [found[p] for p in PROVIDER_ORDER if p in found]


def _openai_or_compatible(config: ProviderConfig, preset: Preset) -> Provider | None:
    base = (config.openai_base_url or "").strip() or None
    found = config.key_for(preset)
    key = found[0] if found else ""
    if not (key or base):
        return None
    compatible = base is not None and urlparse(base).hostname != "api.openai.com"
    return Provider(
        "openai",
        f"OpenAI-compatible ({base})" if compatible else preset.name,
        "openai",
        key or _PLACEHOLDER_KEY,
        base,
        preset.env_var,
        compatible,
    )


def default_client(provider: Provider) -> ModelClient:
    """The adapter for a provider, imported on first use (keeps the SDKs off cold paths)."""
    if provider.api == "anthropic":
        from core.llm.anthropic_adapter import AnthropicAdapter

        return AnthropicAdapter(
            provider.api_key, provider.base_url, label=provider.name, env_var=provider.env_var
        )
    from core.llm.openai_adapter import OpenAIAdapter

    return OpenAIAdapter(
        provider.api_key,
        provider.base_url,
        provider.wire_flavor,
        label=provider.name,
        env_var=provider.env_var,
        provider=provider.id,
    )
