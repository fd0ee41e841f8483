"""The user's preferences, `memory/user/config.json`: defaults, tolerant load, validated patch.

The saved shape is the original's (groups `slicing`, `model`, `worker`, then `onboarded`,
`datasource`) so the original can still read a file we write; our additions (`locale`, `mcpRemember`,
`model.main`, `model.worker`, `model.effort`) appear only once they are set. Loading never
fails: a bad value is reported and the default (or the nearest bound) is used instead, and the
file is left as it is until the user saves.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInput
from core.memory.formats import jsjson

GROUPS = ("slicing", "model", "worker")
TOP_ORDER = ("slicing", "model", "worker", "onboarded", "datasource", "locale", "mcpRemember")
DEFAULTS: dict[str, Any] = {
    "slicing": {"maxSliceMinutes": 30, "maxTurnsPerSlice": 50},
    "model": {"provider": "deepseek-v4-pro", "thinking": True, "reasoningEffort": "medium"},
    "worker": {"mode": "auto", "provider": ""},
    "onboarded": False,
    "datasource": "demo",
}
DEFAULT_LOCALE = "en"
MODEL_ALIASES = {"deepseek-chat": "deepseek-v4-flash", "deepseek-reasoner": "deepseek-v4-pro"}

RANGES = {"slicing.maxSliceMinutes": (5, 120), "slicing.maxTurnsPerSlice": (5, 100)}
CHOICES = {
    "model.reasoningEffort": ("low", "medium", "high"),
    "model.effort": ("low", "medium", "high"),
    "worker.mode": ("auto", "manual"),
    "datasource": ("demo", "own"),
    "locale": ("en", "zh"),
    "mcpRemember": ("off", "stage", "append"),
}
BOOLS = ("model.thinking", "onboarded")
MODEL_IDS = ("model.provider", "model.main", "model.worker", "worker.provider")
KNOWN = {
    "slicing": ("maxSliceMinutes", "maxTurnsPerSlice"),
    "model": ("provider", "thinking", "reasoningEffort", "main", "worker", "effort"),
    "worker": ("mode", "provider"),
}
_EMPTY_OK = ("worker.provider",)


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with a stored config: the field (dotted) and what is wrong with it."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(frozen=True)
class UserConfig:
    """The merged preferences in saved key order, with typed accessors."""

    data: dict[str, Any] = field(default_factory=lambda: merge_config({}))

    @property
    def max_slice_minutes(self) -> int:
        return int(self.data["slicing"]["maxSliceMinutes"])

    @property
    def max_turns_per_slice(self) -> int:
        return int(self.data["slicing"]["maxTurnsPerSlice"])

    @property
    def locale(self) -> str:
        return str(self.data.get("locale", DEFAULT_LOCALE))

    @property
    def mcp_remember(self) -> str:
        """What MCP `remember` may do: `off` (refuse), `stage` (await acceptance), `append` (a turn)."""
        return str(self.data.get("mcpRemember", "off"))

    @property
    def main_model(self) -> str:
        """A model id, or `auto` (resolved from the configured providers)."""
        return str(self.data["model"].get("main") or "auto")

    @property
    def worker_model(self) -> str:
        """A model id, or `auto` (the cheap model of the main model's provider)."""
        pinned = self.data["model"].get("worker")
        if pinned:
            return str(pinned)
        worker = self.data["worker"]
        if worker.get("mode") == "manual" and worker.get("provider"):
            return str(worker["provider"])
        return "auto"

    @property
    def thinking(self) -> bool:
        return bool(self.data["model"]["thinking"])

    @property
    def effort(self) -> str:
        model = self.data["model"]
        return str(model.get("effort") or model["reasoningEffort"])

    @property
    def onboarded(self) -> bool:
        return bool(self.data["onboarded"])

    @property
    def datasource(self) -> str:
        return str(self.data["datasource"])

    def to_json(self) -> str:
        """The file's bytes: 2-space JSON, no trailing newline (as the original writes it)."""
        return render_config(self.data)


def merge_config(stored: Any) -> dict[str, Any]:
    """Defaults under stored values: groups merge key by key, unknown top-level keys are dropped."""
    src = stored if isinstance(stored, dict) else {}
    out: dict[str, Any] = {}
    for key in TOP_ORDER:
        default: Any = DEFAULTS.get(key)
        value: Any = copy.deepcopy(src.get(key))
        if key in GROUPS:
            out[key] = {**copy.deepcopy(default), **(value if isinstance(value, dict) else {})}
        elif key in src:
            out[key] = value
        elif key in DEFAULTS:
            out[key] = default
    _apply_aliases(out)
    return out


def _apply_aliases(data: dict[str, Any]) -> None:
    for group, key in (("model", "provider"), ("worker", "provider"), ("model", "main"), ("model", "worker")):
        value = data[group].get(key)
        if isinstance(value, str) and value in MODEL_ALIASES:
            data[group][key] = MODEL_ALIASES[value]


def render_config(data: dict[str, Any]) -> str:
    """`JSON.stringify(data, null, 2)`."""
    return jsjson.dumps(data)


def parse_config(text: str | None) -> tuple[UserConfig, list[ConfigProblem]]:
    """Tolerant load: missing file → defaults; anything invalid is reported and replaced."""
    if text is None:
        return UserConfig(), []
    try:
        stored = json.loads(text)
    except ValueError as exc:
        problem = ConfigProblem("config.json", f"not valid JSON ({exc}); using the defaults")
        return UserConfig(), [problem]
    problems: list[ConfigProblem] = []
    if not isinstance(stored, dict):
        problems.append(ConfigProblem("config.json", "must be a JSON object; using the defaults"))
    data = merge_config(stored)
    for key in GROUPS:
        if isinstance(stored, dict) and key in stored and not isinstance(stored[key], dict):
            problems.append(ConfigProblem(key, "must be an object; using the defaults"))
    for name, message in _field_problems(data):
        problems.append(ConfigProblem(name, message))
        _repair(data, name)
    return UserConfig(data), problems


def load_config(text: str | None) -> UserConfig:
    """`parse_config` without the problem list (the turn path: never fails)."""
    return parse_config(text)[0]


def validate_config(data: dict[str, Any]) -> None:
    """Raise InvalidInput naming every bad field and its allowed values or range."""
    problems = [f"{name} {message}" for name, message in _field_problems(data)]
    if problems:
        raise InvalidInput("Invalid settings: " + "; ".join(problems) + ".")


def patch_config(current: UserConfig | dict[str, Any], partial: Any) -> UserConfig:
    """Deep-merge `partial` into `current` (groups key by key) and validate the result."""
    base = copy.deepcopy(current.data if isinstance(current, UserConfig) else merge_config(current))
    if not isinstance(partial, dict):
        raise InvalidInput('A settings change must be a JSON object, e.g. {"locale": "zh"}.')
    for key, value in partial.items():
        if key in GROUPS:
            if not isinstance(value, dict):
                raise InvalidInput(f'{key} must be an object, e.g. {{"{key}": {{…}}}}.')
            unknown = [k for k in value if k not in KNOWN[key]]
            if unknown:
                raise InvalidInput(f"Unknown setting {key}.{unknown[0]}; known: {', '.join(KNOWN[key])}.")
            base[key].update(copy.deepcopy(value))
        elif key in TOP_ORDER:
            base[key] = value
        else:
            raise InvalidInput(f"Unknown setting {key!r}; known: {', '.join(TOP_ORDER)}.")
    model = partial.get("model")
    if isinstance(model, dict) and "effort" in model and "reasoningEffort" not in model:
        # One setting under two names: keep the original's key in step so it reads the same.
        base["model"]["reasoningEffort"] = model["effort"]
    merged = merge_config(base)
    validate_config(merged)
    for name in RANGES:  # 30.0 from a JSON client is 30
        group, key = name.split(".")
        merged[group][key] = int(merged[group][key])
    return UserConfig(merged)


def _get(data: dict[str, Any], name: str) -> tuple[bool, Any]:
    node: Any = data
    for part in name.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _field_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, (low, high) in RANGES.items():
        present, value = _get(data, name)
        if not present:
            continue
        if not _is_integral(value):
            out.append((name, f"must be a whole number from {low} to {high} (got {value!r})"))
        elif not low <= value <= high:
            out.append((name, f"must be from {low} to {high} (got {value!r})"))
    for name, options in CHOICES.items():
        present, value = _get(data, name)
        if present and value not in options:
            out.append((name, f"must be one of {', '.join(options)} (got {value!r})"))
    for name in BOOLS:
        present, value = _get(data, name)
        if present and not isinstance(value, bool):
            out.append((name, f"must be true or false (got {value!r})"))
    for name in MODEL_IDS:
        present, value = _get(data, name)
        if present and not (isinstance(value, str) and (value.strip() or name in _EMPTY_OK)):
            out.append((name, f"must be a model id or auto (got {value!r})"))
    return out


def _is_integral(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return float(value).is_integer()


def _repair(data: dict[str, Any], name: str) -> None:
    """Replace one bad value: numbers clamp to the range, everything else takes the default."""
    group, _, key = name.rpartition(".")
    holder = data[group] if group else data
    value: Any = holder.get(key)
    if name in RANGES and _is_integral(value):
        low, high = RANGES[name]
        holder[key] = min(max(int(value), low), high)
        return
    present, default = _get(DEFAULTS, name)
    if present:
        holder[key] = copy.deepcopy(default)
    else:
        holder.pop(key, None)
