"""Model wiring for the adapters: provider config from the settings, the registry, the user's prefs."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr

from core.clock import Clock, SystemClock
from core.llm.registry import ModelPrefs, ModelRegistry, ProviderConfig
from core.memory.paths import CONFIG_JSON
from functions.settings import Settings


def provider_config(settings: Settings) -> ProviderConfig:
    """The model providers named by the environment, as plain values for core."""

    def secret(value: SecretStr | None) -> str | None:
        raw = value.get_secret_value().strip() if value is not None else ""
        return raw or None

    return ProviderConfig(
        anthropic_api_key=secret(settings.anthropic_api_key),
        anthropic_base_url=settings.anthropic_base_url or None,
        openai_api_key=secret(settings.openai_api_key),
        openai_base_url=settings.openai_base_url or None,
        deepseek_api_key=secret(settings.deepseek_api_key),
    )


def build_registry(settings: Settings, clock: Clock | None = None) -> ModelRegistry:
    """The model registry for this deployment."""
    return ModelRegistry(provider_config(settings), clock=clock or SystemClock())


def local_model_prefs(memory_root: Path) -> ModelPrefs:
    """Model preferences from a local memory folder's config.json (defaults when absent or unreadable)."""
    path = memory_root / str(CONFIG_JSON)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ModelPrefs()
    return ModelPrefs.from_config(data) if isinstance(data, dict) else ModelPrefs()
