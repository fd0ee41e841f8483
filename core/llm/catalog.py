"""What we know about models: a curated list per provider, legacy aliases, and guesses for the rest."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.llm.types import Effort

ProviderId = Literal["anthropic", "openai", "deepseek"]
PROVIDER_ORDER: tuple[ProviderId, ...] = ("deepseek", "anthropic", "openai")


@dataclass(frozen=True)
class ModelInfo:
    """One model: who serves it and what it can do.

    `adaptive_thinking` (Anthropic): the model takes `thinking: adaptive` plus an effort level
    instead of a fixed thinking-token budget (newer Claude models accept only that).
    `curated`: False when the entry was guessed from the id or listed live by a server.
    """

    id: str
    name: str
    provider: ProviderId
    supports_thinking: bool = True
    supports_vision: bool = False
    max_tokens: int = 128_000
    default_effort: Effort = "medium"
    adaptive_thinking: bool = False
    curated: bool = True


CURATED: tuple[ModelInfo, ...] = (
    ModelInfo("deepseek-v4-pro", "DeepSeek V4 Pro", "deepseek", max_tokens=393_216),
    ModelInfo("deepseek-v4-flash", "DeepSeek V4 Flash", "deepseek", max_tokens=393_216),
    ModelInfo(
        "deepseek-v4-flash-vision-exp",
        "DeepSeek V4 Flash Vision (experimental)",
        "deepseek",
        supports_vision=True,
        max_tokens=393_216,
    ),
    ModelInfo(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        "anthropic",
        supports_vision=True,
        max_tokens=200_000,
        adaptive_thinking=True,
    ),
    ModelInfo(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        "anthropic",
        supports_vision=True,
        max_tokens=200_000,
        adaptive_thinking=True,
    ),
    ModelInfo("claude-haiku-4-5", "Claude Haiku 4.5", "anthropic", supports_vision=True, max_tokens=200_000),
    ModelInfo("gpt-5.5", "GPT-5.5", "openai", supports_vision=True, max_tokens=400_000),
    ModelInfo("gpt-5.4-mini", "GPT-5.4 mini", "openai", supports_vision=True, max_tokens=400_000),
)

# (main default, cheap worker) per provider.
PROVIDER_TIERS: dict[ProviderId, tuple[str, str]] = {
    "deepseek": ("deepseek-v4-pro", "deepseek-v4-flash"),
    "anthropic": ("claude-sonnet-5", "claude-haiku-4-5"),
    "openai": ("gpt-5.5", "gpt-5.4-mini"),
}

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
    if model_id.startswith("claude-"):
        return "anthropic"
    if model_id.startswith("deepseek-"):
        return "deepseek"
    if _OPENAI_REASONING.match(model_id) or model_id.startswith(("gpt-", "chatgpt-")):
        return "openai"
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
    return ModelInfo(model_id, model_id, provider, curated=False)


def _claude_is_adaptive(model_id: str) -> bool:
    """Claude 4.6 and later take adaptive thinking; older models need a token budget."""
    m = _CLAUDE_VERSION.match(model_id)
    if not m:
        return True  # an unfamiliar naming scheme is most likely a newer model
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    return (major, minor) >= (4, 6)
