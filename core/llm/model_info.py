"""What one model is and can do, as a plain value (shared by the presets, the catalog and the adapters)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.llm.types import Effort

ProviderId = Literal[
    "deepseek", "anthropic", "openai", "moonshot", "qwen", "google", "mistral", "xai", "groq"
]


@dataclass(frozen=True)
class ModelInfo:
    """One model: who serves it and what it can do.

    `supports_thinking`: the provider takes a reasoning switch or effort for it (a model that
    always reasons and takes no option has False). `adaptive_thinking` (Anthropic): `thinking:
    adaptive` plus an effort level instead of a token budget. `efforts`: the effort levels the
    model accepts, when not all three (the nearest is sent). `thinking_off`: the effort value
    that means "as little reasoning as it allows", for providers whose only control is an effort.
    `fixed_sampling`: the provider refuses or ignores a temperature. `curated`: False when the
    entry was guessed from the id or listed live by a server.
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
    efforts: tuple[str, ...] = ("low", "medium", "high")
    thinking_off: str | None = None
    fixed_sampling: bool = False
