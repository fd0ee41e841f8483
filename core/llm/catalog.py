"""What we know about models: a curated list per provider, legacy aliases, and guesses for the rest."""

from __future__ import annotations

import re

from core.llm.model_info import ModelInfo, ProviderId
from core.llm.presets import CURATED, PRESET_BY_ID, PRESETS

__all__ = ["CURATED", "PROVIDER_ORDER", "PROVIDER_TIERS", "ModelInfo", "ProviderId", "describe"]

PROVIDER_ORDER: tuple[ProviderId, ...] = tuple(p.id for p in PRESETS)
# (main default, cheap worker) per provider.
PROVIDER_TIERS: dict[ProviderId, tuple[str, str]] = {p.id: (p.main, p.worker) for p in PRESETS}

# Ids the original stored in config.json that now name other models.
ALIASES = {"deepseek-chat": "deepseek-v4-flash", "deepseek-reasoner": "deepseek-v4-pro"}

_BY_ID = {m.id: m for m in CURATED}
_CLAUDE_VERSION = re.compile(r"^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$")
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-[5-9])")


def normalize_id(model_id: str) -> str:
    """Trim and follow legacy aliases."""
    model_id = model_id.strip()
    return ALIASES.get(model_id, model_id)


def curated(model_id: str) -> ModelInfo | None:
    """The curated entry for an id (aliases followed), if there is one."""
    return _BY_ID.get(normalize_id(model_id))


def curated_for(provider: ProviderId) -> list[ModelInfo]:
    """The curated models of one provider, in display order."""
    return [m for m in CURATED if m.provider == provider]


def provider_of(model_id: str) -> ProviderId | None:
    """The provider an id belongs to by its name alone (None when the name does not say)."""
    model_id = normalize_id(model_id)
    if model_id in _BY_ID:
        return _BY_ID[model_id].provider
    if _OPENAI_REASONING.match(model_id):
        return "openai"
    for preset in PRESETS:
        if preset.prefixes and model_id.startswith(preset.prefixes):
            return preset.id
    return None


def describe(provider: ProviderId, model_id: str, *, compatible: bool = False) -> ModelInfo:
    """What we can tell about a model: the curated entry, else a guess from its name.

    `compatible` marks a generic OpenAI-compatible server (Ollama, vLLM, llama.cpp, a proxy):
    nothing is assumed about reasoning options there, so none are sent.
    """
    model_id = normalize_id(model_id)
    known = _BY_ID.get(model_id)
    if known is not None and known.provider == provider and not compatible:
        return known
    if compatible:
        return ModelInfo(model_id, model_id, provider, supports_thinking=False, curated=False)
    if provider == "anthropic":
        return ModelInfo(
            model_id,
            model_id,
            provider,
            supports_vision=True,
            max_tokens=200_000,
            adaptive_thinking=_claude_is_adaptive(model_id),
            curated=False,
        )
    if provider == "openai":
        return ModelInfo(
            model_id,
            model_id,
            provider,
            supports_thinking=bool(_OPENAI_REASONING.match(model_id)),
            curated=False,
        )
    flavor = PRESET_BY_ID[provider].flavor
    if flavor == "plain":
        return ModelInfo(model_id, model_id, provider, supports_thinking=False, curated=False)
    if flavor == "effort":
        return ModelInfo(model_id, model_id, provider, curated=False, thinking_off="low")
    return ModelInfo(model_id, model_id, provider, curated=False, fixed_sampling=flavor == "moonshot")


def _claude_is_adaptive(model_id: str) -> bool:
    """Claude 4.6 and later take adaptive thinking; older models need a token budget."""
    m = _CLAUDE_VERSION.match(model_id)
    if not m:
        return True  # an unfamiliar naming scheme is most likely a newer model
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    return (major, minor) >= (4, 6)
