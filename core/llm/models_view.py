"""The models payload (`GET /api/models`, `previously models`): providers and their state, models,
the resolved main and worker with where each came from, and every preset's key variable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import NoModelConfigured
from core.llm.catalog import ModelInfo
from core.llm.presets import PRESETS
from core.llm.providers import Provider

if TYPE_CHECKING:
    from core.llm.registry import ModelPrefs, ModelRegistry


def models_payload(registry: ModelRegistry, prefs: ModelPrefs, request_model: str | None) -> dict[str, Any]:
    """The whole payload; `setup` says what to set when no model resolves."""
    payload: dict[str, Any] = {"configured": registry.configured, "providers": [], "models": []}
    payload.update(main=None, worker=None, notes=[], setup=None, presets=preset_states(registry))
    for p in registry.providers:
        payload["providers"].append(provider_state(registry, p))
        payload["models"] += [model_json(m, p) for m in registry.models_of(p, prefs)]
    try:
        chosen = registry.choose(request_model, prefs)
    except NoModelConfigured as exc:
        payload["setup"] = str(exc)
        return payload
    (main_provider, main), (worker_provider, worker) = chosen.main, chosen.worker
    offered = {(m["provider"], m["id"]) for m in payload["models"]}
    for p, m in dict.fromkeys((chosen.main, chosen.worker)):
        if (p.id, m.id) not in offered:  # a trusted id nobody lists: offered because it is in use
            payload["models"].append(model_json(m, p))
    thinking = prefs.thinking and main.supports_thinking
    payload["main"] = {
        **model_json(main, main_provider),
        "thinking": thinking,
        "effort": prefs.effort,
        "source": chosen.main_source,
    }
    payload["worker"] = {
        **model_json(worker, worker_provider),
        "thinking": False,
        "source": chosen.worker_source,
    }
    payload["notes"] = list(chosen.notes)
    return payload


def provider_state(registry: ModelRegistry, p: Provider) -> dict[str, Any]:
    """One configured provider: where its models come from and, for a server, what its listing said."""
    out: dict[str, Any] = {"id": p.id, "name": p.name, "base_url": p.base_url, "env": p.env_var}
    if not p.compatible:
        return {**out, "models": "curated", "state": "key_set", "detail": f"{p.env_var} is set"}
    listing = registry.listing(p)
    source = "live" if listing.state == "listed" else "configured"
    return {**out, "models": source, "state": listing.state, "detail": listing.describe(p.endpoint)}


def preset_states(registry: ModelRegistry) -> list[dict[str, Any]]:
    """Every provider Previously knows, configured or not, with the variable that turns it on."""
    configured = {p.id for p in registry.providers if not p.compatible}
    return [
        {
            "id": preset.id,
            "name": preset.name,
            "env": list(preset.env_vars),
            "configured": preset.id in configured,
            "main": preset.main,
            "worker": preset.worker,
            "signup": preset.signup,
        }
        for preset in PRESETS
    ]


def model_json(m: ModelInfo, p: Provider) -> dict[str, Any]:
    """One model as the API shows it."""
    return {
        "id": m.id,
        "name": m.name,
        "provider": p.id,
        "provider_name": p.name,
        "supports_thinking": m.supports_thinking,
        "supports_vision": m.supports_vision,
        "max_tokens": m.max_tokens,
        "default_thinking": m.supports_thinking,
        "default_effort": m.default_effort,
        "curated": m.curated,
    }
