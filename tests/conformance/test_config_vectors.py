"""config.json: defaults, merge with legacy aliases, the exact saved bytes, deep-merged overrides."""

from __future__ import annotations

import json

import pytest

from core.memory.config import DEFAULTS, UserConfig, merge_config, parse_config, patch_config
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("config.json")


def test_defaults() -> None:
    assert V["defaults"] == DEFAULTS
    assert UserConfig().data == V["defaults"]


@pytest.mark.parametrize("case", V["merge_config"], ids=[json.dumps(c["stored"]) for c in V["merge_config"]])
def test_merge_config(case: dict) -> None:
    merged = merge_config(case["stored"])
    assert merged == case["merged"]
    config, problems = parse_config(json.dumps(case["stored"]))
    assert problems == []
    assert config.to_json() == case["saved_file"]


@pytest.mark.parametrize("case", V["merge_overrides"], ids=range(len(V["merge_overrides"])))
def test_merge_overrides(case: dict) -> None:
    result = patch_config(case["current"], case["overrides"])
    assert result.data == case["result"]
    assert result.to_json() == json.dumps(case["result"], indent=2, ensure_ascii=False)
