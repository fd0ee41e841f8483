"""One list per fact: a model provider's variable names are spelled only in its registry.

core/llm/presets.py names every `*_API_KEY` and `*_BASE_URL` variable; the settings, the
deployment's secret, `previously aws-secrets` and the set-up hints derive from it. A new provider
is then one entry there, not five edits that can drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.llm.presets import BASE_URL_VARIABLES, KEY_VARIABLES, PRESETS
from core.llm.registry import SETUP_HINT, SETUP_HINT_ZH
from functions.cli.cmd_aws import ENV_ONLY_FIELDS, FIELDS
from functions.llm import provider_config
from functions.logs import environment_secrets, secret_values
from functions.settings import Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "core/llm/presets.py"
# Production code; tests, benchmarks and docs may name the variables they set.
TOPS = ("core", "functions", "infra", "layers")
NAMES = re.compile(r"\b(" + "|".join(map(re.escape, KEY_VARIABLES + BASE_URL_VARIABLES)) + r")\b")


def test_no_module_outside_the_registry_spells_a_provider_variable() -> None:
    files = [ROOT / "app.py", *(p for top in TOPS for p in sorted((ROOT / top).rglob("*.py")))]
    spelled = {
        str(p.relative_to(ROOT)): sorted(set(NAMES.findall(p.read_text(encoding="utf-8"))))
        for p in files
        if p.exists() and str(p.relative_to(ROOT)) != REGISTRY
    }
    assert {k: v for k, v in spelled.items() if v} == {}


def test_settings_read_every_registry_variable_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for i, var in enumerate(KEY_VARIABLES):
        monkeypatch.setenv(var, f"key-{i}")
    for var in BASE_URL_VARIABLES:
        monkeypatch.setenv(var, f"http://{var.lower()}.test/v1")
    settings = Settings(STORAGE="local")
    assert {k: v.get_secret_value() for k, v in settings.model_keys.items()} == {
        var: f"key-{i}" for i, var in enumerate(KEY_VARIABLES)
    }
    assert set(settings.model_urls) == set(BASE_URL_VARIABLES)
    config = provider_config(settings)
    for preset in PRESETS:
        found = config.key_for(preset)
        assert found == (f"key-{KEY_VARIABLES.index(preset.env_var)}", preset.env_var), preset.id
    assert config.openai_base_url == "http://openai_base_url.test/v1"
    keys = set(secret_values(settings))
    assert {f"key-{i}" for i in range(len(KEY_VARIABLES))} <= keys
    assert not any(url.startswith("http://") for url in keys), "a base URL is not a secret"
    assert {f"key-{i}" for i in range(len(KEY_VARIABLES))} <= set(environment_secrets())


def test_an_argument_wins_over_the_environment_and_empty_values_are_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    openai = next(p for p in PRESETS if p.id == "openai")
    assert openai.base_url_var is not None
    monkeypatch.setenv(openai.env_var, "from-env")
    monkeypatch.setenv(openai.base_url_var, "")
    settings = Settings(**{"STORAGE": "local", openai.env_var: "given", openai.base_url_var: "http://x.test"})
    assert settings.model_keys[openai.env_var].get_secret_value() == "given"
    assert settings.model_urls == {openai.base_url_var: "http://x.test"}
    assert Settings(STORAGE="local", **{openai.env_var: ""}).model_keys == {}


def test_secret_prompts_and_hints_cover_every_provider() -> None:
    from infra.secrets import SECRET_KEYS

    asked = {name for name, _ in FIELDS} | set(ENV_ONLY_FIELDS)
    assert set(KEY_VARIABLES) | set(BASE_URL_VARIABLES) <= asked
    for preset in PRESETS:
        assert all(preset.env_var in names for names in (SECRET_KEYS, SETUP_HINT, SETUP_HINT_ZH))
    assert set(BASE_URL_VARIABLES) <= set(SECRET_KEYS)
