"""The models overview (`GET /api/models`, `previously models`) as typed values: providers and
their state, the models offered, the resolved main and worker with where each came from, and
every preset. The JSON shapes are the adapters' (functions/models_json.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from core.errors import NoModelConfigured
from core.llm.model_info import ModelInfo
from core.llm.presets import PRESETS, Preset
from core.llm.providers import Provider
from core.llm.types import Effort

if TYPE_CHECKING:
    from core.llm.registry import ModelPrefs, ModelRegistry, Source


@dataclass(frozen=True)
class OfferedModel:
    """One model and the provider that serves it."""

    info: ModelInfo
    provider: Provider


@dataclass(frozen=True)
class ProviderStatus:
    """One configured provider: where its models come from and what its listing said."""

    provider: Provider
    models: Literal["curated", "live", "configured"]
    state: str
    detail: str


@dataclass(frozen=True)
class PresetStatus:
    """A provider Previously knows, and whether a key for it is set."""

    preset: Preset
    configured: bool


@dataclass(frozen=True)
class ChosenModel:
    """The model resolved for a role, whether it thinks, the effort, and where the choice came from."""

    model: OfferedModel
    source: Source
    thinking: bool
    effort: Effort


@dataclass(frozen=True)
class ModelsOverview:
    """Everything the models page and command show; `setup` says what to set when nothing resolves."""

    configured: bool
    providers: tuple[ProviderStatus, ...]
    models: tuple[OfferedModel, ...]
    presets: tuple[PresetStatus, ...]
    main: ChosenModel | None = None
    worker: ChosenModel | None = None
    notes: tuple[str, ...] = ()
    setup: str | None = None


def models_overview(registry: ModelRegistry, prefs: ModelPrefs, request_model: str | None) -> ModelsOverview:
    """The whole overview for these preferences (and a turn asking for `request_model`)."""
    providers = tuple(provider_status(registry, p) for p in registry.providers)
    models = [OfferedModel(m, p) for p in registry.providers for m in registry.models_of(p, prefs)]
    base = ModelsOverview(registry.configured, providers, tuple(models), preset_statuses(registry))
    try:
        chosen = registry.choose(request_model, prefs)
    except NoModelConfigured as exc:
        return replace(base, setup=str(exc))
    (main_provider, main), (worker_provider, worker) = chosen.main, chosen.worker
    offered = {(m.provider.id, m.info.id) for m in models}
    for p, m in dict.fromkeys((chosen.main, chosen.worker)):
        if (p.id, m.id) not in offered:  # a trusted id nobody lists: offered because it is in use
            models.append(OfferedModel(m, p))
    thinking = prefs.thinking and main.supports_thinking
    return replace(
        base,
        models=tuple(models),
        notes=tuple(chosen.notes),
        main=ChosenModel(OfferedModel(main, main_provider), chosen.main_source, thinking, prefs.effort),
        worker=ChosenModel(OfferedModel(worker, worker_provider), chosen.worker_source, False, prefs.effort),
    )


def provider_status(registry: ModelRegistry, p: Provider) -> ProviderStatus:
    """One configured provider: curated models, or what its server's listing said."""
    if not p.compatible:
        return ProviderStatus(p, "curated", "key_set", f"{p.env_var} is set")
    listing = registry.listing(p)
    source: Literal["live", "configured"] = "live" if listing.state == "listed" else "configured"
    return ProviderStatus(p, source, listing.state, listing.describe(p.endpoint))


def preset_statuses(registry: ModelRegistry) -> tuple[PresetStatus, ...]:
    """Every provider Previously knows, configured or not."""
    configured = {p.id for p in registry.providers if not p.compatible}
    return tuple(PresetStatus(preset, preset.id in configured) for preset in PRESETS)
