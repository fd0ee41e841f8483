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

    keys = {var: secret(getattr(settings, field)) for var, field in _PRESET_KEYS.items()}
    return ProviderConfig(
        anthropic_api_key=secret(settings.anthropic_api_key),
        anthropic_base_url=settings.anthropic_base_url or None,
        openai_api_key=secret(settings.openai_api_key),
        openai_base_url=settings.openai_base_url or None,
        deepseek_api_key=secret(settings.deepseek_api_key),
        keys={var: value for var, value in keys.items() if value},
        main_model=(settings.model or "").strip() or None,
        worker_model=(settings.worker_model or "").strip() or None,
    )


# The other presets' key variables → the Settings field holding each.
_PRESET_KEYS = {
    "MOONSHOT_API_KEY": "moonshot_api_key",
    "DASHSCOPE_API_KEY": "dashscope_api_key",
    "GEMINI_API_KEY": "gemini_api_key",
    "GOOGLE_API_KEY": "google_api_key",
    "GOOGLE_GENERATIVE_AI_API_KEY": "google_generative_ai_api_key",
    "MISTRAL_API_KEY": "mistral_api_key",
    "XAI_API_KEY": "xai_api_key",
    "GROQ_API_KEY": "groq_api_key",
}


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
