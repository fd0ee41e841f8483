"""config.json: defaults, merge with legacy aliases, the exact saved bytes, deep-merged overrides."""

from __future__ import annotations

import json

import pytest

from core.memory.config import DEFAULTS, UserConfig, merge_config, parse_config, patch_config
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("config.json")


@pytest.mark.parametrize("defaults", V.value("defaults"))
def test_defaults(defaults: Case) -> None:
    assert defaults.data == DEFAULTS
    assert UserConfig().data == defaults.data


@pytest.mark.parametrize("case", V.cases("merge_config", shape("merge", "stored merged saved_file")))
def test_merge_config(case: Case) -> None:
    merged = merge_config(case["stored"])
    assert merged == case["merged"]
    # Values the original silently repaired are also reported to the user by us (`problems`);
    # the merged settings and the saved bytes are the original's either way.
    config, _problems = parse_config(json.dumps(case["stored"]))
    assert config.to_json() == case["saved_file"]


@pytest.mark.parametrize("case", V.cases("merge_overrides", shape("overrides", "current overrides result")))
def test_merge_overrides(case: Case) -> None:
    result = patch_config(case["current"], case["overrides"])
    assert result.data == case["result"]
    assert result.to_json() == json.dumps(case["result"], indent=2, ensure_ascii=False)
