"""Model wiring for the adapters: provider config from the settings, the registry, the user's prefs."""

from __future__ import annotations

import json
from pathlib import Path

from core.clock import Clock, SystemClock
from core.llm.model_info import ProviderId
from core.llm.presets import PRESET_BY_ID
from core.llm.registry import ModelPrefs, ModelRegistry, ProviderConfig
from core.memory.paths import CONFIG_JSON
from functions.settings import Settings


def provider_config(settings: Settings) -> ProviderConfig:
    """The model providers named by the environment, as plain values for core."""

    keys = {var: value.get_secret_value().strip() for var, value in settings.model_keys.items()}

    def url(provider: ProviderId) -> str | None:
        var = PRESET_BY_ID[provider].base_url_var
        return (settings.model_urls.get(var) or None) if var else None

    return ProviderConfig(
        anthropic_base_url=url("anthropic"),
        openai_base_url=url("openai"),
        keys={var: value for var, value in keys.items() if value},
        main_model=(settings.model or "").strip() or None,
        worker_model=(settings.worker_model or "").strip() or None,
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
