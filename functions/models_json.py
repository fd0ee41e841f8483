"""The models overview as JSON, one shape for `GET /api/models`, `previously models --json` and
the server's start-up line (key order kept stable for scripts reading it)."""

from __future__ import annotations

from typing import Any

from core.llm.models_view import ChosenModel, ModelsOverview, OfferedModel, PresetStatus, ProviderStatus


def models_json(view: ModelsOverview) -> dict[str, Any]:
    """The whole overview: providers, models, main, worker, notes, setup, presets."""
    return {
        "configured": view.configured,
        "providers": [provider_json(p) for p in view.providers],
        "models": [model_json(m) for m in view.models],
        "main": chosen_json(view.main, role="main") if view.main else None,
        "worker": chosen_json(view.worker, role="worker") if view.worker else None,
        "notes": list(view.notes),
        "setup": view.setup,
        "presets": [preset_json(p) for p in view.presets],
    }


def provider_json(status: ProviderStatus) -> dict[str, Any]:
    """One configured provider, its models' source and its listing's state."""
    p = status.provider
    return {
        "id": p.id,
        "name": p.name,
        "base_url": p.base_url,
        "env": p.env_var,
        "models": status.models,
        "state": status.state,
        "detail": status.detail,
    }


def preset_json(status: PresetStatus) -> dict[str, Any]:
    """One known provider, with the variables that turn it on."""
    preset = status.preset
    return {
        "id": preset.id,
        "name": preset.name,
        "env": list(preset.env_vars),
        "configured": status.configured,
        "main": preset.main,
        "worker": preset.worker,
        "signup": preset.signup,
    }


def model_json(offered: OfferedModel) -> dict[str, Any]:
    """One model as the API shows it."""
    m, p = offered.info, offered.provider
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


def chosen_json(chosen: ChosenModel, role: str) -> dict[str, Any]:
    """A resolved model with its thinking switch and source (and the effort, for the main model)."""
    out = {**model_json(chosen.model), "thinking": chosen.thinking}
    if role == "main":
        out["effort"] = chosen.effort
    return {**out, "source": chosen.source}
